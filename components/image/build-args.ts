/**
 * The contract between this package and `dockerfiles/Dockerfile.dynamo-combined-efa`: the stage names
 * and every build arg the component or `npm run image:args` can pass. A test parses the Dockerfile and
 * asserts each of these ARGs is declared and used there (field failure F11: a build-arg passed that the
 * Dockerfile did not declare). Pure data; no Pulumi import.
 */
import { image } from "../versions";

/** The ten stages of the combined Dockerfile, in file order. */
export const DockerfileStage = {
  DynamoBase: "dynamo_base",
  WheelBuilderBase: "wheel_builder_base",
  RuntimeWheelBuilder: "runtime_wheel_builder",
  WheelBuilder: "wheel_builder",
  PytorchBase: "pytorch_base",
  NixlCu13: "nixl_cu13",
  TrtllmRelease: "trtllm_release",
  TrtllmFramework: "trtllm_framework",
  VllmFramework: "vllm_framework",
  Final: "final",
} as const;
export type DockerfileStage = (typeof DockerfileStage)[keyof typeof DockerfileStage];

/** Stage names in file order. */
export const DOCKERFILE_STAGES: readonly DockerfileStage[] = Object.values(DockerfileStage);

/** Keys of `versions.image`: every version ARG default of the Dockerfile. */
export type ImageVersionKey = keyof typeof image;

/** Build arg carrying each `versions.image` entry. */
export const VERSION_ARGS: Readonly<Record<ImageVersionKey, string>> = {
  cudaToolkit: "CUDA_VERSION",
  rust: "RUST_VERSION",
  etcd: "ETCD_VERSION",
  etcdSha256: "ETCD_SHA256",
  ucx: "UCX_REF",
  libfabric: "LIBFABRIC_REF",
  gdrcopy: "GDRCOPY_REF",
  nixl: "NIXL_REF",
  efaInstaller: "EFA_INSTALLER_VERSION",
  efaInstallerGpgFingerprint: "EFA_INSTALLER_GPG_FINGERPRINT",
  efaInstallerSha256: "EFA_INSTALLER_SHA256",
  ffmpeg: "FFMPEG_VERSION",
  ffmpegGpgFingerprint: "FFMPEG_GPG_FINGERPRINT",
  awsSdkCpp: "AWS_SDK_CPP_VERSION",
  pytorchImageTag: "PYTORCH_IMAGE_TAG",
  tensorrtLlm: "TENSORRTLLM_VERSION",
  vllm: "VLLM_REF",
  flashinfer: "FLASHINFER_REF",
  lmcache: "LMCACHE_REF",
  deepEp: "DEEPEP_REF",
  baseImage: "BASE_IMAGE",
  baseImageTag: "BASE_IMAGE_TAG",
  pytorchImage: "PYTORCH_IMAGE",
  runtimeImage: "RUNTIME_IMAGE",
  runtimeImageTag: "RUNTIME_IMAGE_TAG",
  rustup: "RUSTUP_VERSION",
  rustupInitSha256: "RUSTUP_INIT_SHA256",
  uv: "UV_VERSION",
  uvSha256: "UV_SHA256",
  sccache: "SCCACHE_VERSION",
  sccacheSha256: "SCCACHE_SHA256",
  maturin: "MATURIN_VERSION",
  dynamo: "DYNAMO_REF",
  ncclTests: "NCCL_TESTS_REF",
  nccl: "NCCL_REF",
  pipLicenses: "PIP_LICENSES_VERSION",
  tensorrtLlmIndexUrl: "TENSORRTLLM_INDEX_URL",
};

/** The per-consumer arch build args, each in its consumer's syntax and checked by its rules (F10). */
export const ArchArg = {
  /** nvcc `-gencode` flags: nccl-tests (and NCCL when built from source). */
  NvccGencode: "NVCC_GENCODE",
  /** `8.0;9.0+PTX`, only entries the image's torch accepts: LMCache's CUDA kernels. */
  TorchCudaArchList: "TORCH_CUDA_ARCH_LIST",
  /** `8.0 9.0a 10.0a`: FlashInfer's AOT build when FLASHINFER_AOT=1 (never a runtime ENV). */
  FlashinferCudaArchList: "FLASHINFER_CUDA_ARCH_LIST",
  /** `9.0;10.0` ∩ the list: vLLM's EP kernels; empty = the step is skipped. */
  EpKernelsCudaArchList: "EP_KERNELS_CUDA_ARCH_LIST",
} as const;
export type ArchArg = (typeof ArchArg)[keyof typeof ArchArg];

/** Build options (opt-ins and parallelism) the component can pass. */
export const OptionArg = {
  MaxJobs: "MAX_JOBS",
  BuildNcclFromSource: "BUILD_NCCL_FROM_SOURCE",
  FlashinferAot: "FLASHINFER_AOT",
  BuildEpKernels: "BUILD_EP_KERNELS",
} as const;
export type OptionArg = (typeof OptionArg)[keyof typeof OptionArg];

/** Optional digest pins of the three pulled images (value `@sha256:<hex>`, empty = tag only). */
export const DigestArg = {
  base: "BASE_IMAGE_DIGEST",
  pytorch: "PYTORCH_IMAGE_DIGEST",
  runtime: "RUNTIME_IMAGE_DIGEST",
} as const;
export type DigestKey = keyof typeof DigestArg;

/** Every build arg the component or the `image:args` CLI can ever pass. */
export const PASSABLE_BUILD_ARGS: readonly string[] = [
  ...Object.values(VERSION_ARGS),
  ...Object.values(ArchArg),
  ...Object.values(OptionArg),
  ...Object.values(DigestArg),
];
