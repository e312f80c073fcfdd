/**
 * Arguments of `DynamoImage` and their single, pure resolution (docs/CONTRIBUTING.md rule 5). Type-only Pulumi import.
 */
import { bool, either, int, KeyShape, listOf, mapOf, rows, str } from "../_shared/keys";
import { IMAGE_LIMITS } from "./limits";
import type * as pulumi from "@pulumi/pulumi";
import type { CudaArchsSpec } from "../catalog";
import { DEFAULT_CUDA_TOOLKIT } from "../catalog";
import { image as imageVersions, imageDigests as defaultDigests } from "../versions";
import { DigestKey, DockerfileStage, ImageVersionKey } from "./build-args";
import { ImageBackend, ImageSource, VendorImage } from "./sources";

/** Version overrides: any `versions.image` entry except the toolkit (set with `cudaToolkit`). */
export type ImageVersionOverrides = { readonly [K in Exclude<ImageVersionKey, "cudaToolkit">]?: string };

/** Optional digest pins of the pulled images, each `sha256:<64 hex>`. */
export type ImageDigests = { readonly [K in DigestKey]?: string };

/** The only build platform: the image (CUDA base images, EFA installer, wheels) is x86_64-only. */
export const SUPPORTED_PLATFORMS = ["linux/amd64"] as const;

/** Arguments of `DynamoImage`. */
export interface DynamoImageArgs {
  /**
   * Where the image comes from: "prebuilt" (the release's vendor runtime image for `backend`, nothing built),
   * "combined" (one image serving both backends: the two vendor runtime images, each engine's environment kept
   * whole, nothing compiled; without vendor images, the seed's from-source combined build) or "source" (the
   * multi-stage build from source, for custom arch lists, patches or the seed's exact versions). docs/IMAGE.md.
   * @default "prebuilt" when `vendorImages` has the `backend`'s image (a first deploy on what the vendor built and
   *   tested), else "source"
   */
  readonly source?: ImageSource;
  /** The engine a prebuilt image serves (`inference.backend`). @default "vllm" */
  readonly backend?: ImageBackend;
  /**
   * The release's vendor per-backend runtime images (with EFA), by backend; each digest-pinned where a readable
   * source gives the digest, else resolved from its tag at `pulumi up` (the digest deploys, never the tag).
   * @default - none (only "source" is possible)
   */
  readonly vendorImages?: Readonly<Partial<Record<ImageBackend, VendorImage>>>;
  /**
   * GPU architectures to compile for: "fat" (the catalog's broad list), "auto" (exactly the SM archs of
   * `instanceTypes`: p5en -> sm_90 only, the fastest build) or explicit tokens (`["sm_90", "sm_100"]`),
   * validated against `cudaToolkit`. With `ref` it must be stated
   * explicitly (what the image was built for). @default "fat"
   */
  readonly cudaArchs?: CudaArchsSpec;
  /** GPU instance types the image will run on: input of "auto" and checked for x86_64. @default - none */
  readonly instanceTypes?: readonly string[];
  /** CUDA toolkit of the compile stages; the arch tokens are validated against it; passed as `CUDA_VERSION`. @default "12.9" */
  readonly cudaToolkit?: string;
  /** Dockerfile stage to build; must be a stage of the Dockerfile. @default "final" */
  readonly target?: string;
  /** Overrides of the Dockerfile's version ARGs (`components/versions.ts` `image`). @default - versions.ts */
  readonly versions?: ImageVersionOverrides;
  /**
   * Digest pins (`sha256:...`) for the base, NGC PyTorch and runtime images.
   * @default - components/versions.ts `imageDigests` for each image left at its default repository and tag (base and
   *   NGC PyTorch; the runtime image has no verified digest), tag only otherwise
   */
  readonly imageDigests?: ImageDigests;
  /**
   * `versions` keys whose override deliberately differs from what the pinned Dynamo commit's pyproject.toml pins
   * (`vllm`, `tensorrtLlm`, `nixl`), or `dynamo` to build another Dynamo commit (whose pins this package does not
   * know). Without it such an override is a validation error naming both versions.
   * @default [] (overrides must match the Dynamo commit's pins)
   */
  readonly acceptVersionSkew?: readonly string[];
  /** Build platforms; only "linux/amd64" is accepted (arm64/Grace pools are out of scope). @default ["linux/amd64"] */
  readonly platforms?: readonly string[];
  /** Dockerfile path (absolute, or relative to the package root). @default - <package>/dockerfiles/Dockerfile.dynamo-combined-efa */
  readonly dockerfile?: string;
  /** Build context directory (absolute, or relative to the package root). @default - <package>/dockerfiles */
  readonly context?: string;
  /** Parallel compile jobs inside the build (`MAX_JOBS`). @default 16 */
  readonly maxJobs?: number;
  /** Build NCCL from source for the arch list (`BUILD_NCCL_FROM_SOURCE=1`; adds hours). @default false */
  readonly buildNcclFromSource?: boolean;
  /** Build FlashInfer's kernels ahead of time for the arch list (`FLASHINFER_AOT=1`; hours of nvcc). @default false */
  readonly flashinferAot?: boolean;
  /** Build vLLM's expert-parallel kernels (`BUILD_EP_KERNELS`). @default true */
  readonly buildEpKernels?: boolean;
  /** Push to this existing repository URL instead of creating an ECR repository. @default - a new ECR repository */
  readonly repositoryUrl?: pulumi.Input<string>;
  /** Name of the ECR repository to create (ignored with `repositoryUrl`). @default - the component name */
  readonly repositoryName?: string;
  /** Registry build cache (`mode=max`, image manifest + OCI media types, as ECR needs). @default true */
  readonly cache?: boolean;
  /** Existing MUTABLE repository for the build cache. @default - a new ECR repository `<repositoryName>-cache` */
  readonly cacheRepositoryUrl?: pulumi.Input<string>;
  /** KMS key ARN encrypting the ECR repositories. @default - AES256 (ECR-managed keys) */
  readonly kmsKeyArn?: pulumi.Input<string>;
  /** Protect the image repository from deletion (it is always retained on delete). @default false */
  readonly protect?: boolean;
  /** Name of an existing buildx builder (docker-container, kubernetes or remote driver). @default - the default builder */
  readonly builder?: string;
  /** Skip the build and use this digest-pinned image (`repo@sha256:...`); needs explicit `cudaArchs`. @default - build */
  readonly ref?: string;
  /** AWS tags on the repositories this component creates. @default - none */
  readonly tags?: Readonly<Record<string, string>>;
}

/** The stack keys of `dynamo-efa:image` and the kind of each value (components/_shared/keys.ts). */
export const IMAGE_KEYS = {
  cudaArchs: either(str, listOf(str)),
  instanceTypes: { wired: "the instance types of cluster.gpuPools" },
  ...rows(str, "cudaToolkit", "target", "dockerfile", "context", "repositoryUrl", "cacheRepositoryUrl", "kmsKeyArn"),
  ...rows(str, "builder", "ref", "source"),
  // Maps, not tables: the validator names an unknown version key with its own hint (cudaToolkit is set apart).
  versions: mapOf(str),
  imageDigests: mapOf(str),
  acceptVersionSkew: listOf(str),
  platforms: listOf(str),
  maxJobs: int(IMAGE_LIMITS.maxJobs),
  ...rows(bool, "buildNcclFromSource", "flashinferAot", "buildEpKernels", "cache", "protect"),
  repositoryName: { wired: "<project>-<stack>: one ECR repository per stack" },
  tags: mapOf(str),
  backend: { wired: "inference.backend" },
  vendorImages: { wired: "the release's vendor runtime images (dynamo-efa:release)" },
} as const satisfies KeyShape<DynamoImageArgs>;

/** Every version the Dockerfile takes except the toolkit, resolved (defaults from `versions.image`). */
export type ImageVersions = { readonly [K in Exclude<ImageVersionKey, "cudaToolkit">]: string };

/**
 * Args with every default applied; each field means the same as in `DynamoImageArgs` and has its declared type.
 * `resolveArgs` never throws and checks nothing: `validate.ts` checks these values (stack config may put anything
 * in them) and `plan.ts` turns them into the parsed types the build needs (`CudaToolkit`, `ArchTarget[]`), after
 * validation. Input-typed args (repository URLs, KMS key) are read from the original args by the component.
 */
export interface ResolvedImageArgs {
  readonly source: ImageSource;
  readonly backend: ImageBackend;
  readonly vendorImages: Readonly<Partial<Record<ImageBackend, VendorImage>>>;
  /** The arch spec; undefined only with `ref` and no `cudaArchs` (a problem `validate` reports). */
  readonly cudaArchs: CudaArchsSpec | undefined;
  readonly cudaArchsGiven: boolean;
  readonly instanceTypes: readonly string[];
  /** The toolkit as written ("12.9", "12.9.1"); `parseCudaToolkit` gives the `CudaToolkit`. */
  readonly cudaToolkit: string;
  readonly target: string;
  readonly versions: ImageVersions;
  readonly imageDigests: ImageDigests;
  readonly acceptVersionSkew: readonly string[];
  readonly platforms: readonly string[];
  readonly dockerfile: string | undefined;
  readonly context: string | undefined;
  readonly maxJobs: number;
  readonly buildNcclFromSource: boolean;
  readonly flashinferAot: boolean;
  readonly buildEpKernels: boolean;
  readonly cache: boolean;
  readonly protect: boolean;
  readonly builder: string | undefined;
  readonly ref: string | undefined;
  readonly repositoryName: string | undefined;
}

/** Default parallel compile jobs (the Dockerfile's `MAX_JOBS` default). */
export const DEFAULT_MAX_JOBS = 16;

/** The repository and tag version keys of each pulled image: its default digest holds only while both are default. */
const IMAGE_REF_KEYS: Readonly<Record<DigestKey, readonly (keyof ImageVersionOverrides)[]>> = {
  base: ["baseImage", "baseImageTag"],
  pytorch: ["pytorchImage", "pytorchImageTag"],
  runtime: ["runtimeImage", "runtimeImageTag"],
};

/** `versions.ts` digests of the images whose repository and tag `overrides` leave at their defaults. */
export function digestsAtDefaultTags(overrides: ImageVersionOverrides): ImageDigests {
  const out: Partial<Record<DigestKey, string>> = {};
  for (const [image, keys] of Object.entries(IMAGE_REF_KEYS) as [
    DigestKey,
    readonly (keyof ImageVersionOverrides)[],
  ][]) {
    const atDefault = keys.every((k) => overrides[k] === undefined || overrides[k] === imageVersions[k]);
    const digest = defaultDigests[image];
    if (atDefault && digest !== undefined) out[image] = digest;
  }
  return out;
}

/** Applies every default; no validation (that is `validate.ts`), never throws. */
export function resolveArgs(a: DynamoImageArgs): ResolvedImageArgs {
  const { cudaToolkit: _t, ...versionDefaults } = imageVersions;
  const backend = a.backend ?? "vllm";
  const vendorImages = a.vendorImages ?? {};
  const source = a.source ?? (vendorImages[backend] !== undefined ? ImageSource.Prebuilt : ImageSource.Source);
  // Only a build from the Dockerfile has an arch list to default; a vendor image's or a ref's must be stated.
  const builds =
    a.ref === undefined &&
    (source === ImageSource.Source || (source === ImageSource.Combined && Object.keys(vendorImages).length === 0));
  return {
    source,
    backend,
    vendorImages,
    cudaArchs: a.cudaArchs ?? (builds ? "fat" : undefined),
    cudaArchsGiven: a.cudaArchs !== undefined,
    instanceTypes: a.instanceTypes ?? [],
    cudaToolkit: a.cudaToolkit ?? DEFAULT_CUDA_TOOLKIT,
    target: a.target ?? DockerfileStage.Final,
    versions: { ...versionDefaults, ...(a.versions ?? {}) },
    imageDigests: { ...digestsAtDefaultTags(a.versions ?? {}), ...(a.imageDigests ?? {}) },
    acceptVersionSkew: a.acceptVersionSkew ?? [],
    platforms: a.platforms ?? [...SUPPORTED_PLATFORMS],
    dockerfile: a.dockerfile,
    context: a.context,
    maxJobs: a.maxJobs ?? DEFAULT_MAX_JOBS,
    buildNcclFromSource: a.buildNcclFromSource ?? false,
    flashinferAot: a.flashinferAot ?? false,
    buildEpKernels: a.buildEpKernels ?? true,
    cache: a.cache ?? true,
    protect: a.protect ?? false,
    builder: a.builder,
    ref: a.ref,
    repositoryName: a.repositoryName,
  };
}
