/**
 * `imagePlan(args)`: the resolved, plain description of the image build (or of the prebuilt image), the
 * same offline and under Pulumi. The offline render writes it to `image.json`; `DynamoImage` builds exactly
 * it. Reads the Dockerfile and context from disk; otherwise pure (no Pulumi import).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "fs";
import { isAbsolute, join, relative, resolve, sep } from "path";
import { ArchTarget, ConsumerArchLists, CudaToolkit } from "../catalog";
import { parseCudaToolkit } from "../catalog/cuda";
import { Checked, failed, ok, Problem, valueOf } from "../_shared/problems";
import { DynamoImageArgs, ResolvedImageArgs, resolveArgs } from "./args";
import { CacheSettings, ContextFile, archStrings, cacheSettings, contentTag, deriveBuildArgs, sha256 } from "./derive";
import { archFacts, BuildFiles, usesVendorImages, validate } from "./validate";
import { ImageBackend, ImageSource, pinnedRef, SourceEstimate, sourceEstimate, VendorImage } from "./sources";

/** What the problems are about, in messages and errors. */
const SUBJECT = "DynamoImage";

import { DOCKERFILE_NAME, packageRoot } from "../_shared/package-root";
export { DOCKERFILE_NAME, packageRoot };

/** A path argument resolved against the package root (never process.cwd()). */
export function packagePath(p: string): string {
  return isAbsolute(p) ? p : resolve(packageRoot(), p);
}

/** Shown form of a path: relative to the package root (posix) when inside it, else absolute. */
function shownPath(abs: string): string {
  const rel = relative(packageRoot(), abs);
  return rel.startsWith("..") || isAbsolute(rel) ? abs : rel.split(sep).join("/");
}

/** File name of the vendor-combined Dockerfile (two vendor runtime images, nothing compiled), inside `dockerfiles/`. */
export const VENDOR_COMBINED_DOCKERFILE = "Dockerfile.dynamo-vendor-combined";

/** What every plan states: where the image comes from and what that costs. */
interface PlanSource {
  /** `image.source` as resolved. */
  readonly source: ImageSource;
  /** Build time, image size, and what the arch list applies to. */
  readonly estimate: SourceEstimate;
}

/** The plan of a build. */
export interface ImageBuildPlan extends PlanSource {
  readonly kind: "build";
  /** Dockerfile path (relative to the package root when inside it). */
  readonly dockerfile: string;
  /** Build context directory (relative to the package root when inside it). */
  readonly context: string;
  readonly target: string;
  readonly platforms: readonly string[];
  readonly cudaToolkit: CudaToolkit;
  /** Canonical arch strings ("sm_90", "sm_120+PTX"). */
  readonly cudaArchs: readonly string[];
  /** The list each consumer inside the image gets (nvcc, torch extension builder, FlashInfer AOT, EP kernels). */
  readonly archLists: ConsumerArchLists;
  /** The exact build args passed (every one is declared in the Dockerfile). */
  readonly buildArgs: Readonly<Record<string, string>>;
  /** Deterministic tag pushed to the (IMMUTABLE) repository. */
  readonly tag: string;
  /** Registry cache settings, or undefined with `cache: false`. */
  readonly cache: CacheSettings | undefined;
  /** Whether the component creates the ECR repositories (false when URLs are given). */
  readonly createsRepository: boolean;
  readonly createsCacheRepository: boolean;
  readonly builder: string | undefined;
  readonly push: true;
  readonly buildOnPreview: false;
}

/**
 * The plan when `ref` is given or the source is a vendor's prebuilt image: no build. `ref` is the digest-pinned
 * reference when it is known offline; otherwise `resolve` is the vendor image whose tag `DynamoImage` resolves to a
 * digest at `pulumi up` (the digest deploys, never the tag).
 */
export interface ImagePrebuiltPlan extends PlanSource {
  readonly kind: "prebuilt";
  readonly ref: string | undefined;
  readonly resolve: VendorImage | undefined;
  /** The backend the vendor image serves (undefined for a user's `ref`). */
  readonly backend: ImageBackend | undefined;
  readonly cudaToolkit: CudaToolkit;
  /** The archs stated for the image (`cudaArchs` as an explicit list); empty: nothing was compiled here. */
  readonly cudaArchs: readonly string[];
}

/** The plan of the vendor-combined image: a small Dockerfile copying one vendor image's environment into the other's. */
export interface ImageCombinedPlan extends PlanSource {
  readonly kind: "combined";
  /** Dockerfile path (relative to the package root). */
  readonly dockerfile: string;
  readonly context: string;
  /** The two vendor runtime images, by backend (each resolved to a digest at `pulumi up` where no digest is known). */
  readonly images: Readonly<Record<ImageBackend, VendorImage>>;
  readonly platforms: readonly string[];
  readonly cudaToolkit: CudaToolkit;
  readonly cudaArchs: readonly string[];
  /** Deterministic tag: a hash of the Dockerfile, the context and the two images. */
  readonly tag: string;
  readonly createsRepository: boolean;
  readonly builder: string | undefined;
  readonly push: true;
  readonly buildOnPreview: false;
}

export type ImagePlan = ImageBuildPlan | ImagePrebuiltPlan | ImageCombinedPlan;

/**
 * Most files `contextFiles` hashes. The package's context has a handful; thousands mean a wrong `context` (a repo
 * root with node_modules, `/`), which every preview would otherwise hash in full.
 */
export const MAX_CONTEXT_FILES = 10000;

/**
 * Every file under `dir` with its content hash, sorted by path; a problem at `context` past `limit` files (a test
 * passes a small one rather than writing 10,001 files).
 */
export function contextFiles(dir: string, limit: number = MAX_CONTEXT_FILES): Checked<ContextFile[]> {
  const out: ContextFile[] = [];
  const walk = (d: string): boolean => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) {
        if (!walk(p)) return false;
      } else if (out.push({ path: relative(dir, p).split(sep).join("/"), sha256: sha256(readFileSync(p)) }) > limit)
        return false;
    }
    return true;
  };
  if (walk(dir)) return ok(out);
  const reason = `${dir} holds more than ${limit} files; give the directory holding the Dockerfile's inputs, e.g. "dockerfiles"`;
  return failed([{ propertyPath: "context", reason }]);
}

/** The Dockerfile and context of a build, read from disk; what cannot be read becomes a problem, not a throw. */
export function readBuildFiles(r: ResolvedImageArgs): BuildFiles {
  const dockerfile = packagePath(r.dockerfile ?? join("dockerfiles", DOCKERFILE_NAME));
  const context = packagePath(r.context ?? "dockerfiles");
  const problems: Problem[] = [];
  let text: string | undefined;
  try {
    text = readFileSync(dockerfile, "utf8");
  } catch {
    problems.push({
      propertyPath: "dockerfile",
      reason: `cannot read ${dockerfile}; give a path relative to the package root or an absolute path`,
    });
  }
  if (!existsSync(context) || !statSync(context).isDirectory())
    problems.push({ propertyPath: "context", reason: `${context} is not a directory` });
  return { dockerfile, context, text, problems };
}

/**
 * The plan of `args`, or every problem with them in one list (argument values, arch lists, the Dockerfile and
 * context together). The one pipeline: `resolveArgs` -> read the build files -> `validate` -> plan.
 */
export function checkImagePlan(args: DynamoImageArgs): Checked<ImagePlan> {
  const r = resolveArgs(args);
  const vendor = usesVendorImages(r);
  const files = r.ref === undefined && !vendor ? readBuildFiles(r) : undefined;
  const facts = archFacts(r);
  const problems = validate(r, args, files, facts);
  if (problems.length > 0) return failed(problems);
  const toolkit = valueOf(SUBJECT, facts.toolkit);
  if (vendor) return vendorPlan(r, args, vendorToolkit(r, toolkit), statedArchs(r, facts));
  const archs = validated(facts.archs, "cudaArchs");
  if (r.ref !== undefined)
    return ok({
      kind: "prebuilt",
      source: ImageSource.Prebuilt,
      estimate: sourceEstimate(ImageSource.Prebuilt, false, []),
      ref: r.ref,
      resolve: undefined,
      backend: undefined,
      cudaToolkit: toolkit,
      cudaArchs: archStrings(archs),
    });
  const archLists = validated(facts.archLists, "the per-consumer arch lists");
  const built = validated(files && ok(files), "the build files");
  const context = contextFiles(built.context);
  if (!context.ok) return failed(context.problems);
  return ok(buildPlan(r, args, { toolkit, archs, archLists }, built, context.value));
}

/**
 * The toolkit of a vendor image: what the vendor states for the image it serves (for two combined images the vLLM
 * runtime's: the combined image is built on it), else `fallback`. A stack's `cudaToolkit` is refused with a vendor
 * image (validate.ts: nothing is compiled), so the vendor's word is the only one.
 */
function vendorToolkit(r: ResolvedImageArgs, fallback: CudaToolkit): CudaToolkit {
  const image = r.vendorImages[r.source === ImageSource.Prebuilt ? r.backend : "vllm"];
  if (image?.cudaToolkit === undefined) return fallback;
  const stated = parseCudaToolkit(image.cudaToolkit.version, "vendorImages.cudaToolkit");
  if (!stated.ok) throw new Error(`release data: ${stated.problems.map((p) => p.reason).join("; ")}`);
  return stated.value;
}

/**
 * The archs stated for a vendor image: an explicit list ("auto" and "fat" describe a build, and none happens), else
 * what the vendor states for the image it serves (for two combined images, what both state).
 */
function statedArchs(r: ResolvedImageArgs, facts: ReturnType<typeof archFacts>): string[] {
  if (Array.isArray(r.cudaArchs)) return facts.archs?.ok ? archStrings(facts.archs.value) : [];
  const used = r.source === ImageSource.Prebuilt ? [r.vendorImages[r.backend]] : Object.values(r.vendorImages);
  const lists = used.map((v) => v?.cudaArchs?.archs ?? []);
  return lists.length === 0 ? [] : [...lists.reduce((a, b) => a.filter((x) => b.includes(x)))];
}

/** The plan of a vendor source: the prebuilt image of the backend, or both combined by the small Dockerfile. */
function vendorPlan(
  r: ResolvedImageArgs,
  args: DynamoImageArgs,
  toolkit: CudaToolkit,
  cudaArchs: readonly string[],
): Checked<ImagePlan> {
  const estimate = sourceEstimate(r.source, true, []);
  if (r.source === ImageSource.Prebuilt) {
    const image = r.vendorImages[r.backend]!;
    const ref = pinnedRef(image);
    return ok({
      kind: "prebuilt",
      source: r.source,
      estimate,
      ref,
      resolve: ref === undefined ? image : undefined,
      backend: r.backend,
      cudaToolkit: toolkit,
      cudaArchs,
    });
  }
  const dockerfile = packagePath(join("dockerfiles", VENDOR_COMBINED_DOCKERFILE));
  const images = { vllm: r.vendorImages.vllm!, trtllm: r.vendorImages.trtllm! };
  const context = contextFiles(packagePath("dockerfiles"));
  if (!context.ok) return failed(context.problems);
  const tag = contentTag({
    toolkit,
    target: "vendor-combined",
    platforms: r.platforms,
    buildArgs: Object.fromEntries(
      Object.entries(images).map(([b, v]) => [b, `${v.repository}:${v.tag}@${v.digest ?? ""}`]),
    ),
    dockerfileSha256: sha256(readFileSync(dockerfile)),
    contextFiles: context.value,
  });
  return ok({
    kind: "combined",
    source: r.source,
    estimate,
    dockerfile: shownPath(dockerfile),
    context: "dockerfiles",
    images,
    platforms: [...r.platforms],
    cudaToolkit: toolkit,
    cudaArchs,
    tag,
    createsRepository: args.repositoryUrl === undefined,
    builder: r.builder,
    push: true,
    buildOnPreview: false,
  });
}

/** A fact `validate` established; absent or failed only if validation and this plan disagree (a bug here). */
function validated<T>(fact: Checked<T> | undefined, what: string): T {
  if (fact === undefined) throw new Error(`${SUBJECT}: ${what} missing after validation passed`);
  return valueOf(SUBJECT, fact);
}

/**
 * `checkImagePlan` for callers that report a failure as an exception (the offline render, `npm run image:args`, the
 * stack-config checker): throws one `ValidationError` naming every problem.
 */
export function imagePlan(args: DynamoImageArgs): ImagePlan {
  return valueOf(SUBJECT, checkImagePlan(args));
}

/** The build plan of validated args, their parsed arch facts and the files read. */
function buildPlan(
  r: ResolvedImageArgs,
  args: DynamoImageArgs,
  facts: { toolkit: CudaToolkit; archs: readonly ArchTarget[]; archLists: ConsumerArchLists },
  files: BuildFiles,
  context: readonly ContextFile[],
): ImageBuildPlan {
  const buildArgs = deriveBuildArgs({
    toolkit: facts.toolkit,
    archLists: facts.archLists,
    versions: r.versions,
    imageDigests: r.imageDigests,
    maxJobs: r.maxJobs,
    buildNcclFromSource: r.buildNcclFromSource,
    flashinferAot: r.flashinferAot,
    buildEpKernels: r.buildEpKernels,
  });
  const tag = contentTag({
    toolkit: facts.toolkit,
    target: r.target,
    platforms: r.platforms,
    buildArgs,
    dockerfileSha256: sha256(files.text ?? ""),
    contextFiles: context,
  });
  return {
    kind: "build",
    source: r.source,
    estimate: sourceEstimate(r.source, false, archStrings(facts.archs)),
    dockerfile: shownPath(files.dockerfile),
    context: shownPath(files.context),
    target: r.target,
    platforms: [...r.platforms],
    cudaToolkit: facts.toolkit,
    cudaArchs: archStrings(facts.archs),
    archLists: facts.archLists,
    buildArgs,
    tag,
    cache: r.cache ? cacheSettings(r.target, facts.toolkit) : undefined,
    createsRepository: args.repositoryUrl === undefined,
    createsCacheRepository: r.cache && args.cacheRepositoryUrl === undefined,
    builder: r.builder,
    push: true,
    buildOnPreview: false,
  };
}
