/**
 * Synchronous validation of `DynamoImage` args: every problem at once, each naming the argument path, the
 * bad value, what is allowed and the fix (docs/CONTRIBUTING.md rule 6). Pure: the Dockerfile text is passed in.
 */
import {
  ArchTarget,
  ConsumerArchLists,
  CudaToolkit,
  ImagePlatform,
  INSTANCES,
  NGC_PYTORCH_TORCH,
  consumerArchLists,
  parseCudaToolkit,
  resolveCudaArchs,
  unknownInstanceReason,
} from "../catalog";
import { Problem, ValidationError, joinPath, show } from "../_shared/problems";
import { checkRange } from "../_shared/limits";
import { IMAGE_LIMITS } from "./limits";
import { closest } from "../_shared/suggest";
import { image, imageTagsByCudaToolkit } from "../versions";
import { ResolvedImageArgs, SUPPORTED_PLATFORMS } from "./args";
import { DigestArg, VERSION_ARGS } from "./build-args";
import { declaredArgs, stageNames } from "./dockerfile";
import { isDigestPinned } from "./ref";

/** What validation established, for the derivation that follows. */
export interface ValidatedFacts {
  readonly toolkit?: CudaToolkit;
  readonly archs?: ArchTarget[];
  /** One list per consumer inside the image (nvcc, torch, FlashInfer, EP kernels). */
  readonly archLists?: ConsumerArchLists;
  readonly problems: Problem[];
}

/** Runs pure catalog code, turning its `ValidationError` into problems. */
function collect<T>(problems: Problem[], fn: () => T): T | undefined {
  try {
    return fn();
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e;
    problems.push(...e.problems);
    return undefined;
  }
}

/** Toolkit and arch list, with the catalog's messages. */
export function checkArchs(a: ResolvedImageArgs): ValidatedFacts {
  const problems: Problem[] = [];
  const toolkit = collect(problems, () => parseCudaToolkit(a.cudaToolkit, "cudaToolkit"));
  if (a.ref !== undefined && (!a.cudaArchsGiven || a.cudaArchs === "auto")) {
    problems.push({
      propertyPath: "cudaArchs",
      reason: `with ref (a prebuilt image) state the archs the image was built for, e.g. ["sm_90"] or "fat"; got ${show(a.cudaArchs)} ("auto" describes the fleet, not the image)`,
    });
    return { toolkit, problems };
  }
  const platform = (a.platforms.length === 1 ? a.platforms[0] : "linux/amd64") as ImagePlatform;
  const archs =
    toolkit && a.cudaArchs !== undefined
      ? collect(problems, () =>
          resolveCudaArchs(a.cudaArchs!, { toolkit, instanceTypes: a.instanceTypes, platform }, "cudaArchs"),
        )
      : undefined;
  if (a.cudaArchs !== "auto") {
    a.instanceTypes.forEach((t, i) => {
      if (!INSTANCES.has(t)) problems.push({ propertyPath: `instanceTypes[${i}]`, reason: unknownInstanceReason(t) });
    });
  }
  // A prebuilt image (ref) states its list; the consumer rules apply to the build that made it, not here.
  const torch = a.ref === undefined ? imageTorch(a.versions.pytorchImageTag, problems) : undefined;
  const archLists =
    toolkit && archs && torch
      ? collect(problems, () => consumerArchLists(archs, { toolkit, torch }, "cudaArchs"))
      : undefined;
  return { toolkit, archs, archLists, problems };
}

/** The torch release of the NGC PyTorch image tag, or a problem: an unknown torch cannot have its arch list checked. */
function imageTorch(tag: unknown, problems: Problem[]): string | undefined {
  const row = typeof tag === "string" ? NGC_PYTORCH_TORCH[tag] : undefined;
  if (row) return row.torch;
  problems.push({
    propertyPath: "versions.pytorchImageTag",
    reason: `${show(tag)} is not in the catalog, so the torch it ships (whose extension builder must accept TORCH_CUDA_ARCH_LIST) is unknown; known: ${Object.keys(NGC_PYTORCH_TORCH).join(", ")} (add a row to components/catalog/torch-archs.ts)`,
  });
  return undefined;
}

/** Platforms: x86_64 only. */
export function checkPlatforms(platforms: readonly string[]): Problem[] {
  if (!Array.isArray(platforms) || platforms.length === 0) {
    return [{ propertyPath: "platforms", reason: `must be ["linux/amd64"]; got ${show(platforms)}` }];
  }
  return platforms.flatMap((p, i) =>
    (SUPPORTED_PLATFORMS as readonly string[]).includes(p)
      ? []
      : [
          {
            propertyPath: `platforms[${i}]`,
            reason: `${show(p)} is not supported: the combined image is x86_64-only (CUDA base images, EFA installer and wheels are amd64; arm64/Grace pools are out of scope). Use ["linux/amd64"]`,
          },
        ],
  );
}

/** Versions (known keys, non-empty, never "latest") and digests (`sha256:<64 hex>`). */
export function checkVersions(
  versions: Readonly<Record<string, unknown>>,
  digests: Readonly<Record<string, unknown>>,
): Problem[] {
  const problems: Problem[] = [];
  const known = Object.keys(VERSION_ARGS).filter((k) => k !== "cudaToolkit");
  for (const [k, v] of Object.entries(versions)) {
    const path = joinPath("versions", k);
    if (!known.includes(k)) {
      const near = closest(k, known);
      const hint =
        k === "cudaToolkit"
          ? "set the toolkit with cudaToolkit"
          : near.length
            ? `did you mean ${near.map(show).join(" or ")}?`
            : `known: ${known.join(", ")}`;
      problems.push({ propertyPath: path, reason: `unknown version key; ${hint}` });
    } else if (k === "efaInstallerSha256") {
      if (typeof v !== "string" || !/^([0-9a-f]{64})?$/.test(v))
        problems.push({
          propertyPath: path,
          reason: `must be the 64 lower-case hex digits of sha256sum aws-efa-installer-<version>.tar.gz; got ${show(v)}`,
        });
    } else if (k === "efaInstallerGpgFingerprint") {
      if (typeof v !== "string" || !/^[0-9A-Fa-f]{40}$/.test(v))
        problems.push({
          propertyPath: path,
          reason: `must be the 40 hex digits of the EFA installer signing key's fingerprint, without spaces (AWS documents ${show(image.efaInstallerGpgFingerprint)}); got ${show(v)}`,
        });
    } else if (typeof v !== "string" || v.trim() === "" || /\s/.test(v)) {
      problems.push({
        propertyPath: path,
        reason: `must be a non-empty version string without spaces; got ${show(v)}`,
      });
    } else if (v === "latest" || v.endsWith(":latest")) {
      problems.push({
        propertyPath: path,
        reason: `"latest" is not a version: pin a tag (field defect: unpinned images)`,
      });
    }
  }
  for (const [k, v] of Object.entries(digests)) {
    const path = joinPath("imageDigests", k);
    if (!(k in DigestArg))
      problems.push({ propertyPath: path, reason: `unknown image; allowed: ${Object.keys(DigestArg).join(", ")}` });
    else if (typeof v !== "string" || !/^sha256:[0-9a-f]{64}$/.test(v)) {
      problems.push({
        propertyPath: path,
        reason: `must be "sha256:" followed by 64 lower-case hex digits; got ${show(v)}`,
      });
    }
  }
  return problems;
}

/** A toolkit other than the Dockerfile's needs base/runtime tags of that CUDA version. */
export function checkToolkitImages(
  toolkit: CudaToolkit | undefined,
  overrides: Readonly<Record<string, unknown>>,
  defaults: Readonly<Record<string, unknown>>,
): Problem[] {
  if (!toolkit || imageTagsByCudaToolkit[toolkit]) return [];
  return (["baseImageTag", "runtimeImageTag"] as const)
    .filter((k) => overrides[k] === undefined || overrides[k] === defaults[k])
    .map((k) => ({
      propertyPath: joinPath("versions", k),
      reason: `cudaToolkit ${toolkit} needs a ${k === "baseImageTag" ? "CUDA devel base" : "CUDA runtime"} image tag of CUDA ${toolkit} (the default ${show(defaults[k])} is CUDA 12.9); set versions.${k}`,
    }));
}

/** Parallel compile jobs: a whole number in `IMAGE_LIMITS.maxJobs`. */
export function checkMaxJobs(maxJobs: unknown): Problem[] {
  return checkRange("maxJobs", maxJobs, IMAGE_LIMITS.maxJobs);
}

/** Target stage and the Dockerfile's build-arg declarations. */
export function checkDockerfile(text: string, target: string, buildArgNames: readonly string[]): Problem[] {
  const problems: Problem[] = [];
  const stages = stageNames(text);
  if (!stages.includes(target)) {
    const near = closest(target, stages);
    problems.push({
      propertyPath: "target",
      reason: `${show(target)} is not a stage of the Dockerfile${near.length ? `; did you mean ${near.map(show).join(" or ")}?` : ""} (stages: ${stages.join(", ")})`,
    });
  }
  const declared = declaredArgs(text);
  const undeclared = buildArgNames.filter((n) => !declared.has(n));
  if (undeclared.length > 0) {
    problems.push({
      propertyPath: "dockerfile",
      reason: `does not declare build args this component passes: ${undeclared.join(", ")} (field failure F11); use the package's Dockerfile or declare them`,
    });
  }
  return problems;
}

/** The skip path: `ref` must be digest-pinned; build-only args make no sense with it. */
export function checkPrebuilt(ref: string, given: Readonly<Record<string, unknown>>): Problem[] {
  const problems: Problem[] = [];
  if (typeof ref !== "string" || !isDigestPinned(ref)) {
    problems.push({
      propertyPath: "ref",
      reason: `must be digest-pinned, "<repository>@sha256:<64 hex>", so deployments roll only on a real change; got ${show(ref)}`,
    });
  }
  for (const k of [
    "repositoryUrl",
    "cacheRepositoryUrl",
    "versions",
    "imageDigests",
    "target",
    "builder",
    "dockerfile",
    "context",
  ]) {
    if (given[k] !== undefined)
      problems.push({ propertyPath: k, reason: "has no effect with ref (no build happens); remove it or remove ref" });
  }
  return problems;
}
