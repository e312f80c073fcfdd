/**
 * Pure build-arg derivation for the combined Dockerfile (docs/CONTRIBUTING.md rule 7): the same inputs give the same
 * build args, tag and cache settings offline (render) and under Pulumi. No Pulumi import.
 */
import { createHash } from "crypto";
import { ArchTarget, ConsumerArchLists, CudaToolkit } from "../catalog";
import { formatArch } from "../catalog/cuda";
import { ArchArg, DigestArg, DigestKey, OptionArg, VERSION_ARGS } from "./build-args";

/** Code-point order (locale-independent, so tags are the same on every machine). */
const byKey = ([a]: [string, unknown], [b]: [string, unknown]) => (a < b ? -1 : a > b ? 1 : 0);

/** Everything the build args are derived from (already validated). */
export interface BuildArgInputs {
  readonly toolkit: CudaToolkit;
  /** The per-consumer lists of the validated arch list (`consumerArchLists`). */
  readonly archLists: ConsumerArchLists;
  /** Every `versions.image` key except `cudaToolkit`, resolved. */
  readonly versions: Readonly<Record<string, string>>;
  /** `sha256:<hex>` per image; absent = tag-pinned only (the arg is then passed empty, overriding the Dockerfile's pin). */
  readonly imageDigests: Readonly<Partial<Record<DigestKey, string>>>;
  readonly maxJobs: number;
  readonly buildNcclFromSource: boolean;
  readonly flashinferAot: boolean;
  readonly buildEpKernels: boolean;
}

/** The arch build args: one per consumer, each already checked by that consumer's rules. */
export function archBuildArgs(lists: ConsumerArchLists): Record<string, string> {
  return {
    [ArchArg.NvccGencode]: lists.nvcc,
    [ArchArg.TorchCudaArchList]: lists.torch,
    [ArchArg.FlashinferCudaArchList]: lists.flashinfer,
    [ArchArg.EpKernelsCudaArchList]: lists.epKernels,
  };
}

/** The exact `--build-arg` map, keys sorted: every version, the toolkit, the arch lists, the options, digests. */
export function deriveBuildArgs(i: BuildArgInputs): Record<string, string> {
  const out: Record<string, string> = { [VERSION_ARGS.cudaToolkit]: i.toolkit };
  for (const [key, arg] of Object.entries(VERSION_ARGS)) {
    if (key !== "cudaToolkit") out[arg] = i.versions[key];
  }
  Object.assign(out, archBuildArgs(i.archLists));
  out[OptionArg.MaxJobs] = String(i.maxJobs);
  out[OptionArg.BuildNcclFromSource] = i.buildNcclFromSource ? "1" : "0";
  out[OptionArg.FlashinferAot] = i.flashinferAot ? "1" : "0";
  out[OptionArg.BuildEpKernels] = i.buildEpKernels ? "1" : "0";
  // Always passed: the Dockerfile's digest defaults pin the default tags, so an overridden tag must clear them.
  for (const [key, arg] of Object.entries(DigestArg)) {
    const d = i.imageDigests[key as DigestKey];
    out[arg] = d ? `@${d}` : "";
  }
  return Object.fromEntries(Object.entries(out).sort(byKey));
}

/**
 * Names of the build args `deriveBuildArgs` passes (every version, the toolkit, the arch lists, the options, the
 * three digest args), known before the values are: the Dockerfile must declare each one.
 */
export function passedBuildArgs(): string[] {
  return [
    ...Object.values(VERSION_ARGS),
    ...Object.values(ArchArg),
    ...Object.values(OptionArg),
    ...Object.values(DigestArg),
  ].sort();
}

/** Canonical arch strings for outputs and plans ("sm_90", "sm_120+PTX"). */
export function archStrings(archs: readonly ArchTarget[]): string[] {
  return archs.map(formatArch);
}

/** One file of the build context, by content hash. */
export interface ContextFile {
  readonly path: string;
  readonly sha256: string;
}

/** What the deterministic tag hashes: a change to any of these is a new image. */
export interface TagInputs {
  readonly toolkit: CudaToolkit;
  readonly target: string;
  readonly platforms: readonly string[];
  readonly buildArgs: Readonly<Record<string, string>>;
  readonly dockerfileSha256: string;
  readonly contextFiles: readonly ContextFile[];
}

/** SHA-256 of text or bytes, hex. */
export function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/**
 * Deterministic image tag `<target>-cu<toolkit digits>-<16 hex>` from a hash of the Dockerfile, every
 * context file, the build args, target and platforms (docs/CONTRIBUTING.md rule 12): the same inputs always give the
 * same tag, so an IMMUTABLE repository is never asked to move a tag.
 */
export function contentTag(t: TagInputs): string {
  const files = t.contextFiles.map((f) => [f.path, f.sha256] as [string, string]).sort(byKey);
  const args = Object.entries(t.buildArgs).sort(byKey);
  const digest = sha256(
    JSON.stringify({ d: t.dockerfileSha256, files, args, target: t.target, platforms: [...t.platforms].sort() }),
  );
  return `${t.target.replace(/_/g, "-")}-cu${t.toolkit.replace(".", "")}-${digest.slice(0, 16)}`;
}

/** Registry cache settings (ECR needs `imageManifest` + `ociMediaTypes`; `mode=max` caches every stage). */
export interface CacheSettings {
  /** Tag of the cache manifest in the cache repository (one per target and toolkit). */
  readonly tag: string;
  readonly mode: "max";
  readonly imageManifest: true;
  readonly ociMediaTypes: true;
}

/** The cache settings for a target and toolkit. */
export function cacheSettings(target: string, toolkit: CudaToolkit): CacheSettings {
  return {
    tag: `cache-${target.replace(/_/g, "-")}-cu${toolkit.replace(".", "")}`,
    mode: "max",
    imageManifest: true,
    ociMediaTypes: true,
  };
}
