/**
 * Numeric bounds of `DisaggInference`'s settings, read by its validator and by its key table (`INFERENCE_KEYS` in
 * ./args.ts, which program/keys.ts checks stack values against), so both accept exactly the same values. Where no
 * upstream limit exists the bound is the project's choice: a sanity cap that catches a typo (an extra zero) well
 * above anything real. Pure.
 */
import { INSTANCES } from "../catalog/instances";
import type { IntRange, NumberRange } from "../_shared/limits";
import { CLUSTER_LIMITS } from "../cluster/limits";

/** GPUs of the largest node in the instance catalog: a worker (one tensor-parallel group) lives on one node. */
export const MAX_GPUS_PER_NODE = Math.max(...[...INSTANCES.values()].map((i) => i.gpuCount));

/** Per role (`prefill`, `decode`). */
export const ROLE_LIMITS = {
  /** Workers: at most one per GPU of the largest pool `EfaCluster` makes (its node limit x the largest node). */
  replicas: { min: 1, max: CLUSTER_LIMITS.nodes.max * MAX_GPUS_PER_NODE },
  /** GPUs per worker (= tensor-parallel size): at most one node's GPUs. */
  gpusPerWorker: { min: 1, max: MAX_GPUS_PER_NODE },
} as const satisfies Readonly<Record<string, IntRange>>;

export const INFERENCE_LIMITS = {
  /** Tokens per sequence: 2^21 is the project's choice (above every catalog model's context). */
  maxModelLen: { min: 1, max: 2 ** 21 },
  /** A fraction of GPU memory, as vLLM's `--gpu-memory-utilization` and TRT-LLM's `free_gpu_memory_fraction` take it. */
  gpuMemoryUtilization: { minExclusive: 0, max: 1 },
  /**
   * Seconds to load a model: at least a minute (below that the startup probe would restart workers
   * still importing the engine) and at most a day; both the project's choice.
   */
  modelLoadBudgetSeconds: { min: 60, max: 86400 },
  /** Seconds the "local-nvme" prefetch may take to download a model to a node: the same minute-to-a-day bounds. */
  modelDownloadBudgetSeconds: { min: 60, max: 86400 },
  /** Frontend pods: 16 is the project's choice. */
  frontendReplicas: { min: 1, max: 16 },
  /**
   * The model cache claim, GiB; the project's choice: at least 10 (a smaller cache is a typo: it
   * would not hold a model worth serving this way) and at most 65536 (64 TiB). On EFS, which is
   * elastic, the size is nominal.
   */
  modelCacheSizeGiB: { min: 10, max: 65536 },
  /**
   * The UID every container runs as: at least 1, since every container also sets `runAsNonRoot: true` and the
   * kubelet refuses to start a container whose UID is 0 then; at most 2^31 - 1, the largest UID the Kubernetes API
   * accepts (`IsValidUserID`, tests/contracts/facts/kubernetes-user-id.json).
   */
  runAsUser: { min: 1, max: 2 ** 31 - 1 },
} as const satisfies Readonly<Record<string, IntRange | NumberRange>>;

/** `modelShape` (a model's config.json): the project's sanity caps, far above every published model. */
export const MODEL_SHAPE_LIMITS = {
  paramsB: { minExclusive: 0, max: 100000 },
  layers: { min: 1, max: 1024 },
  attentionHeads: { min: 1, max: 1024 },
  kvHeads: { min: 1, max: 1024 },
  headDim: { min: 1, max: 4096 },
  maxContext: { min: 1, max: 2 ** 24 },
  kvLoraRank: { min: 1, max: 65536 },
  qkRopeHeadDim: { min: 1, max: 4096 },
} as const satisfies Readonly<Record<string, IntRange | NumberRange>>;

/**
 * `workload` (the serving estimate's traffic): the project's sanity caps. Token counts share maxModelLen's bound
 * (a request longer than that is refused by the engine, which `validateWorkload` checks).
 */
export const WORKLOAD_LIMITS = {
  isl: { min: 1, max: 2 ** 21 },
  osl: { min: 1, max: 2 ** 21 },
  concurrency: { min: 1, max: 1_000_000 },
  requestsPerSecond: { minExclusive: 0, max: 1_000_000 },
  ttftMs: { minExclusive: 0, max: 3_600_000 },
  itlMs: { minExclusive: 0, max: 60_000 },
} as const satisfies Readonly<Record<string, IntRange | NumberRange>>;
