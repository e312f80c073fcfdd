/**
 * `dynamo-efa/components/catalog`: the facts the components derive from. GPU instances (EFA, SM arch,
 * hugepages), the pool facts a cluster hands to inference, CUDA toolkits and arch lists (validated
 * per toolkit, rendered for nvcc / torch / FlashInfer) and the model catalog. The parsing and
 * per-toolkit tables below the public list are marked internal.
 */
export { CpuArch, efaPerGpu, instance, instanceNames, INSTANCES, supportsNixlOverEfa } from "./instances";
export type { GpuInstance } from "./instances";
export { GPU_TAINT, gpuPoolFacts, INSTANCE_TYPE_LABEL, POOL_LABEL } from "./pool";
export type { GpuPoolFacts, PoolFactsOptions, Taint } from "./pool";
export { ArchVariant, CUDA_TOOLKITS, DEFAULT_CUDA_TOOLKIT } from "./cuda-toolkits";
export type { ArchTarget, CudaToolkit } from "./cuda-toolkits";
export { archCovers, autoArchs, CUDA_ARCHS_KEYWORDS, fatArchs, parseArchList, resolveCudaArchs } from "./arch-lists";
export type { CudaArchsSpec } from "./arch-lists";
export { flashinferCudaArchList, nvccGencode, torchCudaArchList } from "./arch-syntax";
export { consumerArchLists } from "./arch-consumers";
export type { ConsumerArchLists } from "./arch-consumers";
export { IMAGE_PLATFORMS } from "./arch-platform";
export type { ImagePlatform } from "./arch-platform";
export { MODELS, modelRow, WeightDtype } from "./models";
export type { ModelRow } from "./models";
export { KvCacheDtype } from "./model-math";
export type { ModelShape } from "./model-math";

/** @internal */
export * from "./instances";
/** @internal */
export * from "./pool";
/** @internal */
export * from "./cuda";
/** @internal */
export * from "./models";
/** @internal */
export * from "./model-math";
