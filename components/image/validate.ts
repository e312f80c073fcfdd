/**
 * Synchronous validation of `DynamoImage` args: every problem at once, each naming the argument path, the
 * bad value, what is allowed and the fix (docs/CONTRIBUTING.md rule 6). Pure: the Dockerfile text is passed in.
 * Argument problems and Dockerfile problems come out in one list, so the user sees them all in one error.
 */
import {
  ArchTarget,
  ConsumerArchLists,
  CudaToolkit,
  ImagePlatform,
  consumerArchLists,
  resolveCudaArchs,
} from "../catalog";
import { parseCudaToolkit } from "../catalog/cuda";
import { lookupInstance } from "../catalog/instances";
import { NGC_PYTORCH_TORCH } from "../catalog/archs";
import { Checked, Problem, joinPath, problemsIn, show } from "../_shared/problems";
import { checkRange } from "../_shared/limits";
import { IMAGE_LIMITS } from "./limits";
import { closest } from "../_shared/suggest";
import { image, imageTagsByCudaToolkit } from "../versions";
import { DynamoImageArgs, ResolvedImageArgs, SUPPORTED_PLATFORMS } from "./args";
import { DigestArg, VERSION_ARGS } from "./build-args";
import { passedBuildArgs } from "./derive";
import { declaredArgs, stageNames } from "./dockerfile";
import { isDigestPinned, parseImageRef } from "./ref";
import { IMAGE_BACKENDS, IMAGE_SOURCES, ImageSource, VendorImage } from "./sources";
import { checksumProblems, skewProblems } from "./version-pins";

/**
 * The toolkit, arch list and per-consumer lists parsed from resolved args, each as the catalog returns it
 * (`Checked`): `validate` collects their problems and, once there are none, `plan.ts` takes their values.
 */
export interface ArchFacts {
  readonly toolkit: Checked<CudaToolkit>;
  /** Undefined with a bad toolkit, or with `ref` and no explicit list. */
  readonly archs?: Checked<ArchTarget[]>;
  /** Undefined without a valid list, with `ref` (a prebuilt image states its list) or with an unknown torch. */
  readonly archLists?: Checked<ConsumerArchLists>;
}

/** With `ref` the archs must be stated: "auto" describes the fleet, not the prebuilt image. */
function refWithoutArchs(r: ResolvedImageArgs): boolean {
  return r.ref !== undefined && (!r.cudaArchsGiven || r.cudaArchs === "auto");
}

/** The torch release of the image's NGC PyTorch tag, or undefined when the catalog does not know the tag. */
function imageTorch(tag: unknown): string | undefined {
  return typeof tag === "string" ? NGC_PYTORCH_TORCH[tag]?.torch : undefined;
}

/** Parses toolkit, arch list and per-consumer lists from resolved args; never throws. */
export function archFacts(r: ResolvedImageArgs): ArchFacts {
  const toolkit = parseCudaToolkit(r.cudaToolkit, "cudaToolkit");
  if (!toolkit.ok || r.cudaArchs === undefined || refWithoutArchs(r)) return { toolkit };
  const platform = (r.platforms.length === 1 ? r.platforms[0] : "linux/amd64") as ImagePlatform;
  const opts = { toolkit: toolkit.value, instanceTypes: r.instanceTypes, platform };
  const archs = resolveCudaArchs(r.cudaArchs, opts, "cudaArchs");
  // A prebuilt image (ref) states its list; the consumer rules apply to the build that made it, not here.
  const torch = r.ref === undefined ? imageTorch(r.versions.pytorchImageTag) : undefined;
  if (!archs.ok || torch === undefined) return { toolkit, archs };
  return { toolkit, archs, archLists: consumerArchLists(archs.value, { toolkit: toolkit.value, torch }, "cudaArchs") };
}

/** Toolkit and arch-list problems, with the catalog's messages. */
export function archProblems(r: ResolvedImageArgs, facts: ArchFacts): Problem[] {
  const problems = [...problemsIn(facts.toolkit)];
  if (refWithoutArchs(r)) {
    problems.push({
      propertyPath: "cudaArchs",
      reason: `with ref (a prebuilt image) state the archs the image was built for, e.g. ["sm_90"] or "fat"; got ${show(r.cudaArchs)} ("auto" describes the fleet, not the image)`,
    });
    return problems;
  }
  if (facts.archs) problems.push(...problemsIn(facts.archs));
  if (r.cudaArchs !== "auto") {
    r.instanceTypes.forEach((t, i) => problems.push(...problemsIn(lookupInstance(t, `instanceTypes[${i}]`))));
  }
  if (r.ref === undefined) problems.push(...torchProblems(r.versions.pytorchImageTag));
  if (facts.archLists) problems.push(...problemsIn(facts.archLists));
  return problems;
}

/** The Dockerfile and context as read from disk, for the checks that need them (`plan.ts` reads them). */
export interface BuildFiles {
  /** Absolute Dockerfile path. */
  readonly dockerfile: string;
  /** Absolute build context directory. */
  readonly context: string;
  /** The Dockerfile's text; undefined when it cannot be read (one of `problems` says so). */
  readonly text: string | undefined;
  /** An unreadable Dockerfile, a context that is not a directory. */
  readonly problems: readonly Problem[];
}

/**
 * Every problem with `DynamoImage` args, in ONE list: argument values, arch lists, and (for a build) the
 * Dockerfile and context in `files`. `given` is what the user wrote (the skip path refuses build-only args);
 * `facts` is `archFacts(r)`, parsed once by the caller, which plans from the same facts.
 */
export function validate(
  r: ResolvedImageArgs,
  given: DynamoImageArgs,
  files: BuildFiles | undefined,
  facts: ArchFacts,
): Problem[] {
  const problems = [...archProblems(r, facts), ...checkPlatforms(r.platforms), ...checkSource(r, given)];
  // A stack file may put anything here (the stack config is these args).
  if (r.builder !== undefined && (typeof r.builder !== "string" || r.builder === ""))
    problems.push({ propertyPath: "builder", reason: `must be the name of a buildx builder; got ${show(r.builder)}` });
  if (r.ref !== undefined) return [...problems, ...checkPrebuilt(r.ref, given as Record<string, unknown>)];
  if (usesVendorImages(r))
    return [...problems, ...buildOnlyArgs(given as Record<string, unknown>, `source ${show(r.source)}`)];
  const overrides = given.versions ?? {};
  problems.push(...checkVersions(overrides, given.imageDigests ?? {}), ...checkMaxJobs(r.maxJobs));
  problems.push(
    ...skewProblems(overrides, Array.isArray(r.acceptVersionSkew) ? r.acceptVersionSkew : [r.acceptVersionSkew]),
  );
  problems.push(...checksumProblems(overrides));
  problems.push(...checkToolkitImages(facts.toolkit.ok ? facts.toolkit.value : undefined, overrides, image));
  if (files) {
    problems.push(...files.problems);
    if (files.text !== undefined) problems.push(...checkDockerfile(files.text, r.target, passedBuildArgs()));
  }
  return problems;
}

/** An image tag the catalog has no torch for: its extension builder's accepted archs are unknown. */
function torchProblems(tag: unknown): Problem[] {
  if (imageTorch(tag) !== undefined) return [];
  return [
    {
      propertyPath: "versions.pytorchImageTag",
      reason: `${show(tag)} is not in the catalog, so the torch it ships (whose extension builder must accept TORCH_CUDA_ARCH_LIST) is unknown; known: ${Object.keys(NGC_PYTORCH_TORCH).join(", ")} (add a row to components/catalog/archs.ts)`,
    },
  ];
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
    } else if (k.endsWith("Sha256")) {
      // efaInstallerSha256 alone may be empty (an optional extra pin); every other checksum is required.
      if (typeof v !== "string" || !(k === "efaInstallerSha256" ? /^([0-9a-f]{64})?$/ : /^[0-9a-f]{64}$/).test(v))
        problems.push({
          propertyPath: path,
          reason: `must be the 64 lower-case hex digits of the file's SHA-256, as its publisher lists it; got ${show(v)}`,
        });
    } else if (k.endsWith("GpgFingerprint")) {
      if (typeof v !== "string" || !/^[0-9A-Fa-f]{40}$/.test(v))
        problems.push({
          propertyPath: path,
          reason: `must be the 40 hex digits of the signing key's fingerprint, without spaces (${k === "efaInstallerGpgFingerprint" ? "AWS documents" : "default"} ${show(image[k as keyof typeof image])}); got ${show(v)}`,
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
      reason: `cudaToolkit ${toolkit} needs a ${k === "baseImageTag" ? "CUDA devel base" : "CUDA runtime"} image tag of CUDA ${toolkit} (the default ${show(defaults[k])} is CUDA 12.9); give one built for CUDA ${toolkit}`,
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

/** Whether the image is the vendor's (prebuilt, or combined from the vendor images): nothing of the Dockerfile is built. */
export function usesVendorImages(r: ResolvedImageArgs): boolean {
  if (r.ref !== undefined) return false;
  if (r.source === ImageSource.Prebuilt) return true;
  return r.source === ImageSource.Combined && Object.keys(r.vendorImages).length > 0;
}

/** One vendor image: a repository, a tag (never "latest"), a digest of the right form when given. */
function vendorImageProblems(v: VendorImage | undefined, path: string): Problem[] {
  if (v === undefined) return [];
  const out: Problem[] = [];
  const ref =
    typeof v.repository === "string" && typeof v.tag === "string"
      ? parseImageRef(`${v.repository}:${v.tag}`)
      : undefined;
  if (ref === undefined || ref.digest !== undefined)
    out.push({
      propertyPath: path,
      reason: `must name a repository and a tag (${show(v.repository)}:${show(v.tag)} is not an image reference)`,
    });
  else if (v.tag === "latest")
    out.push({ propertyPath: `${path}.tag`, reason: `"latest" moves: name the release's tag, e.g. "1.6.2-efa"` });
  if (v.digest !== undefined && !/^sha256:[0-9a-f]{64}$/.test(v.digest))
    out.push({
      propertyPath: `${path}.digest`,
      reason: `must be "sha256:" followed by 64 lower-case hex digits; got ${show(v.digest)}`,
    });
  return out;
}

/** `source`, `backend` and the vendor images each source needs. */
export function checkSource(r: ResolvedImageArgs, given: DynamoImageArgs): Problem[] {
  const out: Problem[] = [];
  if (!(IMAGE_SOURCES as readonly string[]).includes(r.source)) {
    const near = closest(String(r.source), [...IMAGE_SOURCES]);
    return [
      {
        propertyPath: "source",
        reason: `${show(r.source)} is not an image source; allowed: ${IMAGE_SOURCES.join(", ")}${near.length ? ` (did you mean ${near.map(show).join(" or ")}?)` : ""}`,
      },
    ];
  }
  if (!(IMAGE_BACKENDS as readonly string[]).includes(r.backend))
    out.push({
      propertyPath: "backend",
      reason: `${show(r.backend)} is not a backend; allowed: ${IMAGE_BACKENDS.join(", ")}`,
    });
  for (const b of IMAGE_BACKENDS) out.push(...vendorImageProblems(r.vendorImages[b], `vendorImages.${b}`));
  if (r.ref !== undefined && given.source !== undefined && r.source !== ImageSource.Prebuilt)
    out.push({
      propertyPath: "source",
      reason: `${show(r.source)} builds an image, but ref names a prebuilt one; remove ref, or set source "prebuilt"`,
    });
  if (r.ref === undefined && r.source === ImageSource.Prebuilt && r.vendorImages[r.backend] === undefined)
    out.push({
      propertyPath: "source",
      reason: `"prebuilt" needs a vendor runtime image for the ${show(r.backend)} backend, and this release names none (the seed's versions exist only as the from-source build); use "combined" or "source", or give ref`,
    });
  const missing = IMAGE_BACKENDS.filter((b) => r.vendorImages[b] === undefined);
  if (r.source === ImageSource.Combined && Object.keys(r.vendorImages).length > 0 && missing.length > 0)
    out.push({
      propertyPath: "vendorImages",
      reason: `"combined" from vendor images needs both backends' runtime images; missing ${missing.join(", ")}`,
    });
  return out;
}

/** Build-only args given with a source that builds nothing from the Dockerfile. */
function buildOnlyArgs(given: Readonly<Record<string, unknown>>, why: string): Problem[] {
  return [
    "cacheRepositoryUrl",
    "versions",
    "imageDigests",
    "acceptVersionSkew",
    "target",
    "dockerfile",
    "context",
    "maxJobs",
    "buildNcclFromSource",
    "flashinferAot",
    "buildEpKernels",
    "cudaToolkit",
  ]
    .filter((k) => given[k] !== undefined)
    .map((k) => ({
      propertyPath: k,
      reason: `has no effect with ${why} (the vendor image is used as published, nothing of the Dockerfile is built); remove it, or set source "source"`,
    }));
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
    "acceptVersionSkew",
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
