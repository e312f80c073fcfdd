/**
 * A worker and the model in it: does the model fit a worker, and how long does its KV cache take to move; the
 * model-aware config errors built on that (before a 30-minute model load); and, in the last section, the worker's
 * shape (GPUs, EFA devices, hugepages, CPU, memory) from the pool's facts. Pure arithmetic on the model catalog
 * (`../catalog/models.ts`) and the instance catalog; no Pulumi import. Used by the validator, the renderer, the
 * render's plan and the policy `model-fits-workers`.
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
import { KvCacheDtype, kvBytesPerTokenPerGpu, ModelFacts, ModelShape, modelRow } from "../catalog/models";
import {
  Backend,
  ResolvedInference,
  MODEL_SHAPE_LIMITS,
  roleArgs,
  SERVING_ROLES,
  ServingRole,
  Placement,
  ResolvedRole,
  requestsEfaDevices,
} from "./args";
import { modelFacts } from "../catalog/models";
import { Annotation } from "../_shared/annotations";
import { Problem, show } from "../_shared/problems";
import { checkNumberRange, checkRange } from "../_shared/limits";

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

/**
 * What NIXL over libfabric reaches per rank (one GPU and its rails), the rate the plan expects a KV transfer at.
 * 9.6 GB/s per worker of one GPU on p5.48xlarge with Llama-3.1-8B is the figure the project records as published
 * (docs/ARCHITECTURE.md#dynamo-on-kubernetes, "Published figures"). It is NOT in Dynamo's disaggregation communication guide
 * as stored (docs/kubernetes/disagg-communication-guide.md @ df888f68, which reports, measured on p5.48xlarge with
 * EFA and without GPUDirect, TTFT 2,400 ms disaggregated against 218 ms aggregated at ISL 4,000). The field's
 * nixlbench (dmvevents/awsome-inference-1 @ce80c01d, evidence/verification-runs/2026-05-23-Cpass/
 * nixlbench-multinode-PASS/05-pod-a.log) measured 46.95 GB/s VRAM to VRAM at 64 MB blocks between two p5.48xlarge
 * (privileged, every host EFA device visible): what the hardware can do with large blocks, not what an engine's
 * per-layer KV blocks get. The expected time takes the lower, per-worker figure, never above line rate.
 */
export const NIXL_LIBFABRIC_MEASURED_GBYTES_PER_S = 9.6;

/** How one prompt's KV cache moves from a prefill worker to a decode worker: bytes each rank sends, and how long. */
export interface KvTransfer {
  readonly tokens: number;
  /** Bytes of the prompt's KV cache counted once (all layers and heads at tensor parallel 1). */
  readonly uniqueBytes: number;
  /**
   * Bytes each of the worker's `tp` ranks holds and sends: with MLA every rank holds the whole latent cache; with
   * TP > KV heads each head is on TP / KV-heads ranks. Ranks send in parallel, each over its own rails.
   */
  readonly bytesPerRank: number;
  /** bytesPerRank x tp / uniqueBytes: 1 when the ranks split the cache, tp with MLA. */
  readonly replication: number;
  /** Line rate of one rank's share of the worker's link, Gbps. */
  readonly rankLineGbps: number;
  /** The rate the plan expects per rank, GB/s (measured NIXL over libfabric, at most line rate; TCP at its flow limit). */
  readonly expectedGBytesPerS: number;
  /** Expected milliseconds (at the measured rate): the number to plan with. */
  readonly expectedMs: number;
  /** Milliseconds at line rate: the bound the expected time cannot beat. */
  readonly lineRateMs: number;
}

/** The KV transfer of a `tokens`-token prompt from a worker of tensor parallel `tp` over `link`. */
export function kvTransfer(m: ModelFacts, tp: number, dtype: KvCacheDtype, tokens: number, link: KvLink): KvTransfer {
  const uniqueBytes = kvBytesPerTokenPerGpu(m, 1, dtype) * tokens;
  const bytesPerRank = kvBytesPerTokenPerGpu(m, tp, dtype) * tokens;
  // EFA rails are split among the worker's ranks; a TCP flow is per rank (each rank its own connection).
  const rankLineGbps = link.transport === "LIBFABRIC" ? link.gbps / tp : link.gbps;
  const lineGBps = rankLineGbps / 8;
  const expectedGBytesPerS =
    link.transport === "LIBFABRIC" ? Math.min(NIXL_LIBFABRIC_MEASURED_GBYTES_PER_S, lineGBps) : lineGBps;
  return {
    tokens,
    uniqueBytes,
    bytesPerRank,
    replication: uniqueBytes > 0 ? (bytesPerRank * tp) / uniqueBytes : 1,
    rankLineGbps,
    expectedGBytesPerS,
    expectedMs: (bytesPerRank / (expectedGBytesPerS * 1e9)) * 1000,
    lineRateMs: (bytesPerRank / (lineGBps * 1e9)) * 1000,
  };
}

/** The graph's model annotations: the model id (the engine's `--model` may be a cache path), a stated shape and a
 * non-default KV dtype. The serving and model-fit policies read the model of a graph from them, hand-written or not. */
export function modelAnnotations(r: {
  readonly model: string;
  readonly modelShape?: ModelShape;
  readonly kvCacheDtype: KvCacheDtype;
}): Record<string, string> {
  return {
    [Annotation.Model]: r.model,
    ...(r.modelShape ? { [Annotation.ModelShape]: JSON.stringify(r.modelShape) } : {}),
    ...(r.kvCacheDtype !== KvCacheDtype.Auto ? { [Annotation.KvCacheDtype]: r.kvCacheDtype } : {}),
  };
}

/*
 * Model-aware config errors, found before a worker spends up to `modelLoadBudgetSeconds` loading a
 * model that cannot run: weights that do not fit a GPU, a KV cache too small for one `maxModelLen`
 * sequence, a tensor-parallel size that does not split the attention heads, and a `maxModelLen` past
 * the model's context. Each names the key, the numbers and the smallest `gpusPerWorker` that fits.
 * A model outside the catalog without `modelShape` is not checked (the plan says its fit is unknown). Pure.
 */

const gib = (n: number) => `${n.toFixed(1)} GiB`;
const int = (n: number) => n.toLocaleString("en-US");

function fitInput(r: ResolvedInference, model: ModelFacts, instance: GpuInstance, tp: number): FitInput {
  return {
    model,
    instance,
    backend: r.backend,
    tensorParallel: tp,
    gpuMemoryUtilization: r.gpuMemoryUtilization,
    maxModelLen: r.maxModelLen,
    kvCacheDtype: r.kvCacheDtype,
  };
}

/**
 * Why a worker of `i.tensorParallel` GPUs does not run the model (heads that do not split, weights that do not fit,
 * a KV cache smaller than one `maxModelLen` sequence), or undefined when it does. `utilization` names the engine's
 * memory knob in the message (the config key, or the graph's flag).
 */
export function fitProblem(i: FitInput, utilization = "gpuMemoryUtilization"): string | undefined {
  const m = i.model;
  const tp = i.tensorParallel;
  const split = headSplitProblem(m, tp);
  if (split) return split;
  const f = workerFit(i);
  const budget =
    i.backend === Backend.Trtllm
      ? `${f.gpuMemoryGiB} GiB - ${RUNTIME_RESERVE_GIB} GiB runtime reserve`
      : `${f.gpuMemoryGiB} GiB x ${utilization} ${i.gpuMemoryUtilization} - ${RUNTIME_RESERVE_GIB} GiB runtime reserve`;
  if (!f.weightsFit) {
    return `${show(m.id)} has ${gib(m.weightBytes / 2 ** 30)} of ${m.weightDtype} weights (${(m.paramsTotal / 1e9).toFixed(2)}B parameters): ${gib(f.weightsGiBPerGpu)} per GPU at tensor parallel ${tp}, more than the ${gib(f.usableGiBPerGpu)} one GPU offers (${budget})`;
  }
  if (f.kvCapacityTokens < i.maxModelLen) {
    return `leaves a KV cache of ${gib(f.kvCacheGiBPerGpu)} per GPU after ${gib(f.weightsGiBPerGpu)} of weights (${budget}): ${int(f.kvCapacityTokens)} tokens at ${int(f.kvBytesPerTokenPerGpu)} bytes per token per GPU, fewer than one maxModelLen sequence of ${int(i.maxModelLen)} tokens`;
  }
  return undefined;
}

/**
 * The smallest tensor parallel (a divisor of the node's `gpusPerNode`, and one `allowed` accepts) that runs the
 * model, with its fit.
 */
export function smallestTensorParallel(
  i: Omit<FitInput, "tensorParallel">,
  gpusPerNode: number,
  allowed: (tp: number) => boolean = () => true,
): { tp: number; fit: WorkerFit } | undefined {
  for (let tp = 1; tp <= gpusPerNode; tp++) {
    if (gpusPerNode % tp !== 0 || !allowed(tp)) continue;
    const input = { ...i, tensorParallel: tp };
    if (fitProblem(input) === undefined) return { tp, fit: workerFit(input) };
  }
  return undefined;
}

/** The smallest GPUs per worker (a divisor of the node's GPUs, whole EFA devices) that runs the model. */
export function smallestFit(
  r: ResolvedInference,
  m: ModelFacts,
  instance: GpuInstance,
): { tp: number; fit: WorkerFit } | undefined {
  const wholeEfa = (tp: number) => {
    const efa = efaPerWorker(r.pool, tp);
    return !poolHasEfa(r.pool) || (Number.isInteger(efa) && efa >= 1);
  };
  return smallestTensorParallel(fitInput(r, m, instance, 1), r.pool.gpusPerNode, wholeEfa);
}

function remedy(r: ResolvedInference, m: ModelFacts, instance: GpuInstance): string {
  const best = smallestFit(r, m, instance);
  if (!best) {
    return `no gpusPerWorker up to ${r.pool.gpusPerNode} fits on ${instance.name}: use a quantized variant of the model, a lower inference.maxModelLen, inference.kvCacheDtype "fp8", or a GPU with more memory`;
  }
  const f = best.fit;
  return `the smallest gpusPerWorker that fits is ${best.tp} (${gib(f.weightsGiBPerGpu)} of weights and ${gib(f.kvCacheGiBPerGpu)} of KV cache per GPU, ${int(f.kvCapacityTokens)} tokens = ${int(f.maxConcurrentAtMaxLen)} sequences of ${int(r.maxModelLen)}); replicas x gpusPerWorker must still fit the pool`;
}

function roleProblem(
  r: ResolvedInference,
  role: ServingRole,
  m: ModelFacts,
  instance: GpuInstance,
  at: (k: string) => string,
): Problem[] {
  const tp = roleArgs(r, role).gpusPerWorker;
  const why = fitProblem(fitInput(r, m, instance, tp));
  if (!why) return [];
  return [
    {
      propertyPath: at(`${role}.gpusPerWorker`),
      reason: `(${tp}) does not run the model on ${instance.name}: ${why}. Fix: ${remedy(r, m, instance)}`,
    },
  ];
}

/** Problems with a stated `modelShape` (types are the config schema's; these are the relations). */
function shapeProblems(r: ResolvedInference, s: ModelShape, at: (k: string) => string): Problem[] {
  const row = modelRow(r.model);
  if (row)
    return [
      {
        propertyPath: at("modelShape"),
        reason: `must not be set for ${show(r.model)}: the model catalog knows it (${row.source}); remove modelShape`,
      },
    ];
  const out: Problem[] = [];
  const L = MODEL_SHAPE_LIMITS;
  for (const k of ["layers", "attentionHeads", "maxContext"] as const)
    out.push(...checkRange(at(`modelShape.${k}`), s[k], L[k]));
  out.push(...checkNumberRange(at("modelShape.paramsB"), s.paramsB, L.paramsB, "a number of billions of parameters"));
  for (const k of ["kvHeads", "headDim"] as const) {
    if (s[k] !== undefined) out.push(...checkRange(at(`modelShape.${k}`), s[k], L[k]));
    else if (!s.mla)
      out.push({
        propertyPath: at(`modelShape.${k}`),
        reason: "is required unless modelShape.mla is set (config.json num_key_value_heads / head_dim)",
      });
  }
  if (s.mla)
    for (const k of ["kvLoraRank", "qkRopeHeadDim"] as const)
      out.push(...checkRange(at(`modelShape.mla.${k}`), s.mla[k], L[k]));
  return out;
}

/** Every model-fit problem of a resolved spec; `at` maps an argument key to the user's path. */
export function validateModelFit(r: ResolvedInference, at: (k: string) => string): Problem[] {
  if (r.modelShape) {
    const bad = shapeProblems(r, r.modelShape, at);
    if (bad.length > 0) return bad;
  }
  const m = modelFacts(r.model, r.modelShape);
  const instance = INSTANCES.get(r.pool.instanceType);
  if (!m || !instance) return [];
  const out: Problem[] = [];
  if (r.maxModelLen > m.maxContext) {
    out.push({
      propertyPath: at("maxModelLen"),
      reason: `(${int(r.maxModelLen)}) is above ${show(m.id)}'s maximum context of ${int(m.maxContext)} tokens (max_position_embeddings); use at most ${m.maxContext}`,
    });
    return out;
  }
  for (const role of SERVING_ROLES) out.push(...roleProblem(r, role, m, instance, at));
  return out;
}

/*
 * Per-worker arithmetic: GPUs, EFA devices, hugepages, CPU and memory, derived from the pool's
 * facts. Pure; no Pulumi import.
 */

/**
 * vCPUs and GiB held back on every node for the kubelet, system daemons and the device plugins
 * (10% of the node, at least 2 vCPU / 8 GiB), before dividing the rest among workers.
 */
export const NODE_HEADROOM = { vcpuFraction: 0.1, minVcpu: 2, memoryFraction: 0.1, minMemoryGiB: 8 } as const;
/** Upper bound of the /dev/shm size given to a worker, in GiB. */
export const MAX_SHM_GIB = 64;

/** Everything one worker of a role asks for. */
export interface WorkerShape {
  readonly role: ServingRole;
  readonly replicas: number;
  readonly gpusPerWorker: number;
  /** EFA devices per worker (0 without EFA). */
  readonly efaPerWorker: number;
  /** Workers that can share one node (bounds the hugepage share). */
  readonly workersPerNode: number;
  /** 2 MiB hugepages per worker, in pages (0 = none requested; `FI_EFA_USE_HUGE_PAGE=0`). */
  readonly hugepages2MiPages: number;
  /** Same, in MiB (`pages x 2`), the unit the `hugepages-2Mi` resource is written in. */
  readonly hugepages2MiMi: number;
  /** CPU request, in whole vCPUs. */
  readonly cpu: number;
  /** Memory request and limit, in GiB. */
  readonly memoryGiB: number;
  /** /dev/shm size, in GiB. */
  readonly shmGiB: number;
}

/** True when the pool can carry NIXL KV over EFA (EFA attached and GPUDirect RDMA). */
export function poolHasEfa(pool: GpuPoolFacts): boolean {
  return pool.efaPerNode > 0;
}

/**
 * True when the workers use EFA: the KV transport is LIBFABRIC on a pool with EFA. Only then do
 * workers request EFA devices and hugepages; UCX workers hold no EFA device they would not use.
 */
export function usesEfa(r: Pick<ResolvedInference, "kvTransport" | "pool">): boolean {
  return requestsEfaDevices(r.kvTransport, poolHasEfa(r.pool));
}

/** EFA devices a worker of `gpusPerWorker` GPUs gets: GPUs x EFA-per-GPU (may be fractional; validated). */
export function efaPerWorker(pool: GpuPoolFacts, gpusPerWorker: number): number {
  return gpusPerWorker * pool.efaPerGpu;
}

/**
 * How many workers of `role` may share a node. Separate-node placement keeps a node to one role,
 * so it is that role's GPUs-per-node / GPUs-per-worker; otherwise roles mix and the smallest
 * worker bounds it (the worst case for the hugepage share).
 */
export function workersPerNode(r: ResolvedInference, role: ServingRole): number {
  const gpus =
    r.placement === Placement.SeparateNodes
      ? roleArgs(r, role).gpusPerWorker
      : Math.min(r.prefill.gpusPerWorker, r.decode.gpusPerWorker);
  return Math.max(1, Math.floor(r.pool.gpusPerNode / Math.max(1, gpus)));
}

/** Hugepages per worker: the node's pre-allocated total divided by workers per node (F14). */
export function hugepagesPerWorker(pool: GpuPoolFacts, perNode: number): number {
  return Math.floor(pool.hugepages2MiPerNode / perNode);
}

/** Whole vCPUs left for one worker after node headroom. */
export function cpuPerWorker(pool: GpuPoolFacts, perNode: number): number {
  const headroom = Math.max(NODE_HEADROOM.minVcpu, Math.ceil(pool.vcpusPerNode * NODE_HEADROOM.vcpuFraction));
  return Math.max(1, Math.floor((pool.vcpusPerNode - headroom) / perNode));
}

/** GiB of memory left for one worker after node headroom and the hugepages carved out of RAM. */
export function memoryGiBPerWorker(pool: GpuPoolFacts, perNode: number): number {
  const headroom = Math.max(
    NODE_HEADROOM.minMemoryGiB,
    Math.ceil(pool.memoryGiBPerNode * NODE_HEADROOM.memoryFraction),
  );
  const hugepagesGiB = Math.ceil((pool.hugepages2MiPerNode * 2) / 1024);
  return Math.max(1, Math.floor((pool.memoryGiBPerNode - headroom - hugepagesGiB) / perNode));
}

/** The full shape of one worker of `role`. */
export function workerShape(r: ResolvedInference, role: ServingRole): WorkerShape {
  const a = roleArgs(r, role);
  const perNode = workersPerNode(r, role);
  const pages = usesEfa(r) ? hugepagesPerWorker(r.pool, perNode) : 0;
  const memoryGiB = memoryGiBPerWorker(r.pool, perNode);
  return {
    role,
    replicas: a.replicas,
    gpusPerWorker: a.gpusPerWorker,
    efaPerWorker: usesEfa(r) ? efaPerWorker(r.pool, a.gpusPerWorker) : 0,
    workersPerNode: perNode,
    hugepages2MiPages: pages,
    hugepages2MiMi: pages * 2,
    cpu: cpuPerWorker(r.pool, perNode),
    memoryGiB,
    // /dev/shm is a memory-backed emptyDir that counts against the memory limit: a quarter of it.
    shmGiB: Math.max(1, Math.min(MAX_SHM_GIB, Math.floor(memoryGiB / 4))),
  };
}

/**
 * Nodes each role needs under separate-node placement: a node holds one role only, so a role takes
 * ceil(replicas x GPUs per worker / GPUs per node) nodes of its own. Under "any" roles share nodes and
 * only the total counts (`nodesNeeded`).
 */
export function nodesPerRole(r: Pick<ResolvedInference, "pool" | "prefill" | "decode">): Record<ServingRole, number> {
  const of = (a: ResolvedRole) => Math.ceil((a.replicas * a.gpusPerWorker) / Math.max(1, r.pool.gpusPerNode));
  return { [ServingRole.Prefill]: of(r.prefill), [ServingRole.Decode]: of(r.decode) };
}

/**
 * GPU nodes the graph occupies: the sum of the roles' own nodes under separate-node placement, else the
 * total GPUs over GPUs per node (a worker's GPU count divides the node's, so workers pack whole nodes).
 */
export function nodesNeeded(r: Pick<ResolvedInference, "pool" | "prefill" | "decode" | "placement">): number {
  if (r.placement === Placement.SeparateNodes) {
    const per = nodesPerRole(r);
    return per.prefill + per.decode;
  }
  return Math.ceil(totalGpus(r) / Math.max(1, r.pool.gpusPerNode));
}

/** GPUs the whole graph requests (prefill + decode workers). */
export function totalGpus(r: Pick<ResolvedInference, "prefill" | "decode">): number {
  return r.prefill.replicas * r.prefill.gpusPerWorker + r.decode.replicas * r.decode.gpusPerWorker;
}
