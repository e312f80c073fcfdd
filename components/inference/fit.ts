/**
 * Does the model fit a worker, and how long does its KV cache take to move? Pure arithmetic on the
 * model catalog (`../catalog/models.ts`) and the instance catalog; no Pulumi import. Used by
 * `validate-fit.ts` (config errors before a 30-minute model load) and by the render's plan.
 *
 * Memory of one GPU of a worker at tensor parallel `tp` (vLLM: `--gpu-memory-utilization` caps
 * everything the engine allocates, weights included):
 *   usable   = GPU memory x gpuMemoryUtilization - RUNTIME_RESERVE_GIB
 *   weights  = model weight bytes / tp
 *   KV cache = usable - weights;   tokens = KV cache / KV bytes per token on one GPU
 * TensorRT-LLM's `--free-gpu-memory-fraction` is a share of what is free AFTER the weights load:
 *   KV cache = (GPU memory - weights - RUNTIME_RESERVE_GIB) x fraction.
 */
import { GpuInstance, INSTANCES } from "../catalog/instances";
import type { GpuPoolFacts } from "../catalog/pool";
import {
  factsOfRow,
  factsOfShape,
  KvCacheDtype,
  kvBytesPerTokenPerGpu,
  ModelFacts,
  ModelShape,
} from "../catalog/model-math";
import { modelRow } from "../catalog/models";
import { Backend } from "./args";

/** Bytes in a GiB. */
export const GIB = 2 ** 30;

/**
 * GiB per GPU held back from the KV cache for everything that is neither weights nor KV cache.
 * Measured on an H200 (tests/contracts/facts/gpu-memory.json): the CUDA context plus cuBLAS take
 * 0.86 GiB, and CUDA exposes 139.8 GiB where the instance catalog says 141 (1.2 GiB the fit must not
 * hand out). Estimated on top: CUDA graphs (vLLM captures them after sizing the cache, ~0.5-1 GiB)
 * and the peak activations of the profiling forward pass (`max_num_batched_tokens` tokens through one
 * layer, ~1 GiB for 8B-70B models). vLLM measures the real number at startup; 4 GiB errs on the safe
 * side, so a plan that passes here does not fail there, at < 3% of a 141 GiB H200.
 */
export const RUNTIME_RESERVE_GIB = 4;

/** Tokens of the short prompt the plan prices a KV transfer for. */
export const SHORT_PROMPT_TOKENS = 1024;

/**
 * A TCP flow between instances outside a cluster placement group is limited to 5 Gbps by EC2 (10 Gbps
 * inside one): the rate assumed for NIXL over UCX/TCP on ENA, one flow per transfer.
 */
export const TCP_FLOW_GBPS = 5;

/** The model a config names, as fit facts: the catalog row, else the stated shape, else unknown. */
export function modelFacts(id: string, shape?: ModelShape): ModelFacts | undefined {
  const row = modelRow(id);
  if (row) return factsOfRow(row);
  return shape ? factsOfShape(id, shape) : undefined;
}

/** What one worker's fit depends on. */
export interface FitInput {
  readonly model: ModelFacts;
  /** The pool's instance catalog row (GPU memory). */
  readonly instance: GpuInstance;
  readonly backend: Backend;
  /** Tensor-parallel size = GPUs per worker. */
  readonly tensorParallel: number;
  readonly gpuMemoryUtilization: number;
  readonly maxModelLen: number;
  readonly kvCacheDtype: KvCacheDtype;
}

/** How a model sits in one worker. GiB values are per GPU unless named otherwise. */
export interface WorkerFit {
  readonly tensorParallel: number;
  readonly gpuMemoryGiB: number;
  /** Memory the engine may fill with weights and KV cache, per GPU. */
  readonly usableGiBPerGpu: number;
  readonly weightsGiBPerGpu: number;
  /** KV cache of one GPU (negative when the weights alone do not fit). */
  readonly kvCacheGiBPerGpu: number;
  /** KV cache of the whole worker (all its GPUs). */
  readonly kvCacheGiB: number;
  readonly kvBytesPerTokenPerGpu: number;
  /** Tokens the worker's KV cache holds (0 when the weights do not fit). */
  readonly kvCapacityTokens: number;
  /** `maxModelLen` sequences that fit in the cache at once. */
  readonly maxConcurrentAtMaxLen: number;
  readonly weightsFit: boolean;
}

/** The fit of one worker. */
export function workerFit(i: FitInput): WorkerFit {
  const mem = i.instance.gpuMemoryGiB;
  const weights = i.model.weightBytes / i.tensorParallel / GIB;
  const trt = i.backend === Backend.Trtllm;
  const usable = trt ? mem - RUNTIME_RESERVE_GIB : mem * i.gpuMemoryUtilization - RUNTIME_RESERVE_GIB;
  const kv = trt ? (mem - weights - RUNTIME_RESERVE_GIB) * i.gpuMemoryUtilization : usable - weights;
  const perToken = kvBytesPerTokenPerGpu(i.model, i.tensorParallel, i.kvCacheDtype);
  const tokens = kv > 0 && perToken > 0 ? Math.floor((kv * GIB) / perToken) : 0;
  return {
    tensorParallel: i.tensorParallel,
    gpuMemoryGiB: mem,
    usableGiBPerGpu: usable,
    weightsGiBPerGpu: weights,
    kvCacheGiBPerGpu: kv,
    kvCacheGiB: kv * i.tensorParallel,
    kvBytesPerTokenPerGpu: perToken,
    kvCapacityTokens: tokens,
    maxConcurrentAtMaxLen: Math.floor(tokens / i.maxModelLen),
    weightsFit: weights < usable,
  };
}

/** Why a tensor-parallel size cannot split the model's heads, or undefined when it can (vLLM's rule). */
export function headSplitProblem(m: ModelFacts, tp: number): string | undefined {
  if (m.attentionHeads % tp !== 0)
    return `${m.attentionHeads} attention heads are not divisible by tensor parallel ${tp}`;
  if (m.mla) return undefined; // one latent per token: nothing to split by KV head
  const ok = tp <= m.kvHeads ? m.kvHeads % tp === 0 : tp % m.kvHeads === 0;
  return ok ? undefined : `${m.kvHeads} KV heads cannot be split over (or replicated to) tensor parallel ${tp}`;
}

/** The link a worker's KV cache moves over. */
export interface KvLink {
  /** NIXL plugin: LIBFABRIC over EFA, or UCX (TCP on ENA). */
  readonly transport: "LIBFABRIC" | "UCX";
  /** Line rate of the link, in Gbps: the physical limit of one transfer. */
  readonly gbps: number;
  /** How `gbps` was derived. */
  readonly basis: string;
}

/** The KV link of a worker with `efaDevices` EFA devices on `pool`. */
export function kvLink(pool: GpuPoolFacts, efaDevices: number): KvLink {
  const row = INSTANCES.get(pool.instanceType);
  if (efaDevices > 0 && row?.perRailGbps) {
    return {
      transport: "LIBFABRIC",
      gbps: efaDevices * row.perRailGbps,
      basis: `${efaDevices} EFA rails x ${row.perRailGbps} Gbps (${pool.instanceType})`,
    };
  }
  return {
    transport: "UCX",
    gbps: TCP_FLOW_GBPS,
    basis: `TCP over ENA, one flow at EC2's ${TCP_FLOW_GBPS} Gbps single-flow limit (assumed)`,
  };
}

/** Milliseconds to move `bytes` at the link's line rate: a lower bound, never reached in practice. */
export function transferMs(bytes: number, link: KvLink): number {
  return ((bytes * 8) / (link.gbps * 1e9)) * 1000;
}

/** DGD annotations (only when not the default) that let the plan size a model the catalog does not know. */
export const FitAnnotation = {
  /** JSON of the stated `modelShape`. */
  ModelShape: "dynamo-efa/model-shape",
  /** `fp8` when the KV cache is FP8 (absent = `auto`). */
  KvCacheDtype: "dynamo-efa/kv-cache-dtype",
} as const;

/** The fit annotations of a graph: the stated shape and a non-default KV dtype. */
export function modelFitAnnotations(r: {
  readonly modelShape?: ModelShape;
  readonly kvCacheDtype: KvCacheDtype;
}): Record<string, string> {
  return {
    ...(r.modelShape ? { [FitAnnotation.ModelShape]: JSON.stringify(r.modelShape) } : {}),
    ...(r.kvCacheDtype !== KvCacheDtype.Auto ? { [FitAnnotation.KvCacheDtype]: r.kvCacheDtype } : {}),
  };
}
