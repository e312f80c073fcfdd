/**
 * `dynamo-efa/components/catalog`: the facts the components derive from. GPU instances (EFA, SM arch,
 * hugepages), the pool facts a cluster hands to inference, CUDA toolkits and arch lists (validated
 * per toolkit, rendered for nvcc / torch / FlashInfer) and the model catalog. The parsing and
 * per-toolkit tables are not exported here: the program, tools and tests import them from their modules.
 */
export { CpuArch, efaPerGpu, instance, instanceNames, INSTANCES, supportsNixlOverEfa } from "./instances";
export type { GpuInstance } from "./instances";
export { GPU_TAINT, gpuPoolFacts, INSTANCE_TYPE_LABEL, POOL_LABEL } from "./pool";
export type { GpuPoolFacts, PoolFactsOptions, Taint } from "./pool";
export { ArchVariant, CUDA_TOOLKITS, DEFAULT_CUDA_TOOLKIT } from "./cuda";
export type { ArchTarget, CudaToolkit } from "./cuda";
export { archCovers, autoArchs, CUDA_ARCHS_KEYWORDS, fatArchs, parseArchList, resolveCudaArchs } from "./archs";
export type { CudaArchsSpec } from "./archs";
export { flashinferCudaArchList, nvccGencode, torchCudaArchList } from "./archs";
export { consumerArchLists } from "./archs";
export type { ConsumerArchLists } from "./archs";
export { IMAGE_PLATFORMS } from "./cuda";
export type { ImagePlatform } from "./cuda";
export { MODELS, modelRow, WeightDtype } from "./models";
export type { ModelRow } from "./models";
export { KvCacheDtype } from "./models";
export type { ModelShape } from "./models";
