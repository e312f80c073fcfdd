/**
 * `imagePlan(args)`: the resolved, plain description of the image build (or of the prebuilt image), the
 * same offline and under Pulumi. The offline render writes it to `image.json`; `DynamoImage` builds exactly
 * it. Reads the Dockerfile and context from disk; otherwise pure (no Pulumi import).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "fs";
import { isAbsolute, join, relative, resolve, sep } from "path";
import { ConsumerArchLists, CudaToolkit } from "../catalog";
import { Problem, ValidationError } from "../_shared/problems";
import { DynamoImageArgs, resolveArgs } from "./args";
import { CacheSettings, ContextFile, archStrings, cacheSettings, contentTag, deriveBuildArgs, sha256 } from "./derive";
import {
  checkArchs,
  checkDockerfile,
  checkMaxJobs,
  checkPlatforms,
  checkPrebuilt,
  checkToolkitImages,
  checkVersions,
} from "./validate";
import { image as imageVersions } from "../versions";

/** File name of the package's combined Dockerfile, inside `dockerfiles/`. */
export const DOCKERFILE_NAME = "Dockerfile.dynamo-combined-efa";

/** The package root: the nearest ancestor of this file holding `dockerfiles/<DOCKERFILE_NAME>` (works from source and from `bin/`). */
export function packageRoot(from = __dirname): string {
  for (let dir = from; ; dir = resolve(dir, "..")) {
    if (existsSync(join(dir, "dockerfiles", DOCKERFILE_NAME)) && existsSync(join(dir, "package.json"))) return dir;
    if (resolve(dir, "..") === dir) throw new Error(`cannot find dockerfiles/${DOCKERFILE_NAME} above ${from}`);
  }
}

/** A path argument resolved against the package root (never process.cwd()). */
export function packagePath(p: string): string {
  return isAbsolute(p) ? p : resolve(packageRoot(), p);
}

/** Shown form of a path: relative to the package root (posix) when inside it, else absolute. */
function shownPath(abs: string): string {
  const rel = relative(packageRoot(), abs);
  return rel.startsWith("..") || isAbsolute(rel) ? abs : rel.split(sep).join("/");
}

/** The plan of a build. */
export interface ImageBuildPlan {
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

/** The plan when `ref` is given: no build. */
export interface ImagePrebuiltPlan {
  readonly kind: "prebuilt";
  readonly ref: string;
  readonly cudaToolkit: CudaToolkit;
  readonly cudaArchs: readonly string[];
}

export type ImagePlan = ImageBuildPlan | ImagePrebuiltPlan;

/** Every file under `dir` with its content hash, sorted by path. */
export function contextFiles(dir: string): ContextFile[] {
  const out: ContextFile[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push({ path: relative(dir, p).split(sep).join("/"), sha256: sha256(readFileSync(p)) });
    }
  };
  walk(dir);
  return out;
}

function readDockerfile(path: string, problems: Problem[]): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    problems.push({
      propertyPath: "dockerfile",
      reason: `cannot read ${path}; give a path relative to the package root or an absolute path`,
    });
    return "";
  }
}

/**
 * Validates `args` (every problem at once: throws `ValidationError` naming each argument path) and returns
 * the plan. Input-typed args (repository URLs, KMS key) are only checked for presence.
 */
export function imagePlan(args: DynamoImageArgs): ImagePlan {
  const a = resolveArgs(args);
  const facts = checkArchs(a);
  const problems: Problem[] = [...facts.problems, ...checkPlatforms(a.platforms)];
  if (a.ref !== undefined) {
    problems.push(...checkPrebuilt(a.ref, args as Record<string, unknown>));
    if (problems.length > 0 || !facts.toolkit || !facts.archs) throw new ValidationError("DynamoImage", problems);
    return { kind: "prebuilt", ref: a.ref, cudaToolkit: facts.toolkit, cudaArchs: archStrings(facts.archs) };
  }
  problems.push(...checkVersions(args.versions ?? {}, a.imageDigests), ...checkMaxJobs(a.maxJobs));
  problems.push(...checkToolkitImages(facts.toolkit, args.versions ?? {}, imageVersions));
  const dockerfile = packagePath(a.dockerfile ?? join("dockerfiles", DOCKERFILE_NAME));
  const context = packagePath(a.context ?? "dockerfiles");
  const text = readDockerfile(dockerfile, problems);
  if (!existsSync(context) || !statSync(context).isDirectory())
    problems.push({ propertyPath: "context", reason: `${context} is not a directory` });
  if (problems.length > 0 || !facts.toolkit || !facts.archs || !facts.archLists)
    throw new ValidationError("DynamoImage", problems);
  const buildArgs = deriveBuildArgs({
    toolkit: facts.toolkit,
    archLists: facts.archLists,
    versions: a.versions as Record<string, string>,
    imageDigests: a.imageDigests as Record<string, string>,
    maxJobs: a.maxJobs as number,
    buildNcclFromSource: a.buildNcclFromSource,
    flashinferAot: a.flashinferAot,
    buildEpKernels: a.buildEpKernels,
  });
  const more = checkDockerfile(text, a.target, Object.keys(buildArgs));
  if (more.length > 0) throw new ValidationError("DynamoImage", more);
  const tag = contentTag({
    toolkit: facts.toolkit,
    target: a.target,
    platforms: a.platforms,
    buildArgs,
    dockerfileSha256: sha256(text),
    contextFiles: contextFiles(context),
  });
  return {
    kind: "build",
    dockerfile: shownPath(dockerfile),
    context: shownPath(context),
    target: a.target,
    platforms: [...a.platforms],
    cudaToolkit: facts.toolkit,
    cudaArchs: archStrings(facts.archs),
    archLists: facts.archLists,
    buildArgs,
    tag,
    cache: a.cache ? cacheSettings(a.target, facts.toolkit) : undefined,
    createsRepository: args.repositoryUrl === undefined,
    createsCacheRepository: a.cache && args.cacheRepositoryUrl === undefined,
    builder: a.builder,
    push: true,
    buildOnPreview: false,
  };
}
