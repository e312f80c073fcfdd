/**
 * The serving estimate: what the prefill and decode workers serve under a declared workload (TTFT, ITL, requests
 * per second), against aggregated workers on the same GPUs, the prefill:decode split that balances the two roles,
 * and the workload itself (its annotation and its validation). Pure; one worker's speed comes from
 * `./worker-speed.ts` (the H200 measurements and the rates of other GPUs scaled from datasheets).
 */
import { KvCacheDtype, ModelFacts } from "../catalog/models";
import { KvLink, kvTransfer, kvLink, workerFit, efaPerWorker, usesEfa } from "./fit";
import { nodesOfSplit, recommendedSplit, SplitInput } from "./serving-split";
import { ucxKvRangeMs, uncertaintyOf, Uncertainty, UncertaintyInput } from "./serving-errors";
import type { EngineSettings } from "./engine-settings";
import { modelFacts } from "../catalog/models";
import {
  Backend,
  Placement,
  ResolvedInference,
  ResolvedRole,
  ResolvedWorkload,
  INFERENCE_DEFAULTS,
  resolveWorkload,
  WorkloadArgs,
  WORKLOAD_LIMITS as L,
} from "./args";
import { INSTANCES } from "../catalog/instances";
import type { GpuPoolFacts } from "../catalog/pool";
import { Annotation } from "../_shared/annotations";
import { checkNumberRange, checkRange } from "../_shared/limits";
import type { Problem } from "../_shared/problems";
import {
  decodeStepMs,
  engineOf,
  GpuRates,
  maxDecodeBatch,
  prefillMs,
  ratesFor,
  runsFp8,
  servingShape,
  WorkerSpeed,
} from "./worker-speed";
import { engineSettings } from "./engine-settings";

/*
 * Workers under load: the time to first token (TTFT) and inter-token latency (ITL) a declared workload
 * sees on the disaggregated layout (prefill and decode workers) and on aggregated workers on the same GPUs,
 * the requests per second each sustains, and the prefill:decode split that balances the two roles. Pure;
 * per-worker speeds come from the sections above.
 *
 * Queueing (the approximations, chosen to be closed-form and monotone in the load):
 * - prefill workers are an M/D/c queue: Poisson arrivals, a deterministic service time per prompt; its wait is
 *   taken as half the M/M/c (Erlang C) wait, the usual M/D/c approximation, and its percentiles from the M/M/c
 *   tail P(W > t) = C e^(-(c - a) t / s) at twice the drain rate (the tail whose mean is that half wait). A prefill
 *   worker batches prompts up to the engine's token budget per step (`engineOf(w).maxBatchedTokens`: vLLM's
 *   max_num_batched_tokens, TensorRT-LLM's max_num_tokens), which sets its capacity;
 * - decode workers hold `b` sequences where Little's law balances: b = arrivals per worker x OSL x ITL(b);
 *   ITL(b) is the decode step at that batch, at the mean context ISL + OSL/2. No batch solves it above the KV
 *   cache's batch limit: the layout is saturated;
 * - aggregated workers (vLLM's chunked prefill, the same in TensorRT-LLM's in-flight batching) run prefill
 *   and decode in the same steps. Prefill takes the share u = arrivals per worker x prefill time per prompt of
 *   the GPU, and the decode batch advances only in the rest: ITL = step(b) / (1 - u) — prefill stalls
 *   decode. A prompt's own prefill is spread over ceil(ISL / (chunk budget - b)) steps, each also carrying
 *   the other sequences' share of those steps, so TTFT = prefill + that share + an M/D/1 wait at utilisation u. ITL's P50/P90 are the plain
 *   step or the step that carries a prefill chunk, by the share of steps that carry one.
 * - disaggregated TTFT = prefill + M/D/c wait + the KV transfer + the first decode step.
 * A closed-loop load (`concurrency` requests in flight) is turned into an arrival rate by Little's law:
 * concurrency = rate x (TTFT + OSL x ITL).
 */

/** A declared workload, every default filled. */
export type ServingWorkload = Omit<ResolvedWorkload, "declared">;

/** One role's workers: how fast each is and how many. */
export interface RoleWorkers {
  readonly speed: WorkerSpeed;
  readonly replicas: number;
}

/** What a layout gives at one arrival rate: means, and P50/P90. Latencies are undefined when saturated. */
export interface LoadPoint {
  readonly requestsPerSecond: number;
  readonly ttftMs?: number;
  readonly itlMs?: number;
  readonly ttftP50Ms?: number;
  readonly ttftP90Ms?: number;
  readonly itlP50Ms?: number;
  readonly itlP90Ms?: number;
}

/** A layout: latency at an arrival rate, and the rate it saturates at. */
export interface Layout {
  readonly capacityRequestsPerSecond: number;
  at(requestsPerSecond: number): LoadPoint;
}

/** Erlang C: the probability an arrival waits, `c` servers at offered load `a` (< c) erlangs. */
export function erlangC(c: number, a: number): number {
  let term = 1;
  let sum = 1;
  for (let k = 1; k < c; k++) {
    term *= a / k;
    sum += term;
  }
  const last = (term * a) / c / (1 - a / c);
  return last / (sum + last);
}

/** M/D/c mean wait, ms: half the M/M/c wait. `serviceMs` per request, `rate` per second. */
export function mdcWaitMs(c: number, rate: number, serviceMs: number): number {
  const a = (rate * serviceMs) / 1000;
  if (a <= 0) return 0;
  if (a >= c) return Infinity;
  return (0.5 * erlangC(c, a) * serviceMs) / (c - a);
}

/**
 * Percentile `p` (0..1) of the M/D/c wait, ms: the M/M/c tail C e^(-(c - a) t / s) at twice the drain rate, so that
 * its mean is `mdcWaitMs`; 0 when an arrival waits with probability below 1 - p.
 */
export function mdcWaitPercentileMs(c: number, rate: number, serviceMs: number, p: number): number {
  const a = (rate * serviceMs) / 1000;
  if (a <= 0) return 0;
  if (a >= c) return Infinity;
  const waits = erlangC(c, a);
  if (waits <= 1 - p) return 0;
  return (Math.log(waits / (1 - p)) * serviceMs) / (2 * (c - a));
}

/** Largest x in [lo, hi] with ok(x), for ok true below some threshold and false above it. */
function bisect(lo: number, hi: number, ok: (x: number) => boolean, steps = 60): number {
  if (!ok(lo)) return lo;
  if (ok(hi)) return hi;
  let a = lo;
  let b = hi;
  for (let i = 0; i < steps; i++) {
    const m = (a + b) / 2;
    if (ok(m)) a = m;
    else b = m;
  }
  return a;
}

/** Mean context of a decoding sequence: its prompt and half its output. */
const meanContext = (wl: ServingWorkload) => wl.isl + wl.osl / 2;

/** Prompts per prefill forward and a prefill worker's requests per second at that batch. */
export function prefillCapacity(w: WorkerSpeed, isl: number): { prompts: number; requestsPerSecond: number } {
  const prompts = Math.max(1, Math.floor(engineOf(w).maxBatchedTokens / isl));
  return { prompts, requestsPerSecond: (prompts * 1000) / prefillMs(w, isl, prompts) };
}

/**
 * The decode batch Little's law gives one worker at `rate` arrivals per second, where a sequence's ITL at
 * batch b is `itl(b)`; undefined when none fits under `maxBatch`.
 */
function balancedBatch(rate: number, osl: number, maxBatch: number, itl: (b: number) => number): number | undefined {
  const excess = (b: number) => (rate * osl * itl(Math.max(1, b))) / 1000 - b;
  if (maxBatch < 1 || excess(maxBatch) > 0) return undefined;
  return bisect(0, maxBatch, (b) => excess(b) > 0);
}

/** A decode worker's requests per second at its largest batch (within the ITL objective when one is set). */
export function decodeCapacity(w: WorkerSpeed, wl: ServingWorkload): { batch: number; requestsPerSecond: number } {
  const ctx = meanContext(wl);
  const max = maxDecodeBatch(w, wl.isl, wl.osl);
  const itlOk = (b: number) => wl.itlMs === undefined || decodeStepMs(w, b, ctx) <= wl.itlMs;
  const batch = max < 1 ? 0 : Math.floor(bisect(1, max, itlOk));
  if (batch < 1 || !itlOk(batch)) return { batch: 0, requestsPerSecond: 0 };
  return { batch, requestsPerSecond: (batch * 1000) / (wl.osl * decodeStepMs(w, batch, ctx)) };
}

/**
 * Milliseconds to move one request's KV cache (ISL tokens) from a prefill worker of tensor parallel `tp`: the fit
 * section's expected time (each rank at the measured NIXL rate, at most its line rate), not the line-rate bound.
 */
export function requestKvTransferMs(
  m: ModelFacts,
  kvDtype: KvCacheDtype,
  isl: number,
  tp: number,
  link: KvLink,
): number {
  return kvTransfer(m, tp, kvDtype, isl, link).expectedMs;
}

/** The disaggregated layout: prefill and decode workers, the KV cache crossing `kvTransferMs` per request. */
export function disaggregated(p: RoleWorkers, d: RoleWorkers, wl: ServingWorkload, kvTransferMs: number): Layout {
  const pc = prefillCapacity(p.speed, wl.isl);
  const serviceMs = 1000 / pc.requestsPerSecond;
  const oneMs = prefillMs(p.speed, wl.isl);
  const maxBatch = maxDecodeBatch(d.speed, wl.isl, wl.osl);
  const step = (b: number) => decodeStepMs(d.speed, b, meanContext(wl));
  const dc = decodeCapacity(d.speed, { ...wl, itlMs: undefined });
  return {
    capacityRequestsPerSecond: Math.min(p.replicas * pc.requestsPerSecond, d.replicas * dc.requestsPerSecond),
    at(rate) {
      const wait = mdcWaitMs(p.replicas, rate, serviceMs);
      const b = balancedBatch(rate / d.replicas, wl.osl, maxBatch, step);
      if (!Number.isFinite(wait) || b === undefined) return { requestsPerSecond: rate };
      const itlMs = step(Math.max(1, b));
      const fixed = oneMs + kvTransferMs + itlMs;
      const pct = (q: number) => fixed + mdcWaitPercentileMs(p.replicas, rate, serviceMs, q);
      return {
        requestsPerSecond: rate,
        ttftMs: fixed + wait,
        itlMs,
        ttftP50Ms: pct(0.5),
        ttftP90Ms: pct(0.9),
        itlP50Ms: itlMs,
        itlP90Ms: itlMs,
      };
    },
  };
}

/** Aggregated workers: each runs prefill and decode of its own requests in the same steps. */
export function aggregated(a: RoleWorkers, wl: ServingWorkload): Layout {
  const pc = prefillCapacity(a.speed, wl.isl);
  const perPromptMs = 1000 / pc.requestsPerSecond;
  const oneMs = prefillMs(a.speed, wl.isl);
  const budget = engineOf(a.speed).maxBatchedTokens;
  const maxBatch = maxDecodeBatch(a.speed, wl.isl, wl.osl);
  const step = (b: number) => decodeStepMs(a.speed, b, meanContext(wl));
  const point = (rate: number): LoadPoint => {
    const perWorker = rate / a.replicas;
    const u = (perWorker * perPromptMs) / 1000;
    if (u >= 1) return { requestsPerSecond: rate };
    const b = balancedBatch(perWorker, wl.osl, maxBatch, (x) => step(x) / (1 - u));
    if (b === undefined) return { requestsPerSecond: rate };
    const plain = step(Math.max(1, b));
    const chunk = Math.max(1, Math.min(wl.isl, budget - b));
    const chunks = Math.ceil(wl.isl / chunk);
    // The first token is sampled by the prompt's own last prefill step; each of its steps also advances the
    // other sequences, which adds their batch-dependent cost (KV reads, GEMM rows), not a whole decode step.
    const others = Math.max(0, b - 1);
    const ownMs = oneMs + (others > 0 ? chunks * Math.max(0, step(Math.max(1, others)) - step(1)) : 0);
    // The share of steps that carry a prefill chunk: each request brings `chunks` of them.
    const stalled = plain + prefillMs(a.speed, chunk);
    const share = Math.min(1, (perWorker * chunks * stalled) / 1000);
    const pct = (q: number) => ownMs + mdcWaitPercentileMs(1, (u * 1000) / ownMs, ownMs, q);
    return {
      requestsPerSecond: rate,
      ttftMs: ownMs + (u * ownMs) / (2 * (1 - u)),
      itlMs: plain / (1 - u),
      ttftP50Ms: pct(0.5),
      ttftP90Ms: pct(0.9),
      itlP50Ms: share > 0.5 ? stalled : plain,
      itlP90Ms: share > 0.1 ? stalled : plain,
    };
  };
  const stable = (rate: number) => point(rate).itlMs !== undefined;
  const capacity = bisect(0, a.replicas * pc.requestsPerSecond, stable);
  return { capacityRequestsPerSecond: capacity, at: point };
}

/** Whether a load point meets the workload's objectives (and is not saturated). */
export function meetsObjectives(p: LoadPoint, wl: ServingWorkload): boolean {
  if (p.ttftMs === undefined || p.itlMs === undefined) return false;
  return (wl.ttftMs === undefined || p.ttftMs <= wl.ttftMs) && (wl.itlMs === undefined || p.itlMs <= wl.itlMs);
}

/** The most requests per second a layout serves within the workload's objectives (its capacity without any). */
export function goodput(l: Layout, wl: ServingWorkload): number {
  const cap = l.capacityRequestsPerSecond;
  if (cap <= 0) return 0;
  return bisect(0, cap * (1 - 1e-9), (r) => r === 0 || meetsObjectives(l.at(r), wl));
}

/** The load point of a layout at the workload's declared load (closed loop: Little's law). */
export function atLoad(l: Layout, wl: ServingWorkload): LoadPoint {
  if (wl.requestsPerSecond !== undefined) return l.at(wl.requestsPerSecond);
  const n = wl.concurrency ?? 1;
  const inFlight = (r: number) => {
    const p = l.at(r);
    return p.ttftMs === undefined || p.itlMs === undefined ? Infinity : (r * (p.ttftMs + wl.osl * p.itlMs)) / 1000;
  };
  const cap = l.capacityRequestsPerSecond * (1 - 1e-9);
  return l.at(bisect(0, cap, (r) => inFlight(r) <= n));
}

/** Requests per second a layout serves at the declared load: the load when it keeps up, else its capacity. */
export function servedAtLoad(l: Layout, wl: ServingWorkload): number {
  const p = atLoad(l, wl);
  return p.itlMs === undefined ? l.capacityRequestsPerSecond : p.requestsPerSecond;
}

/**
 * What each layout serves: requests per second within the objectives when any is declared, else requests per
 * second served at the declared load.
 */
export function layoutThroughputs(disagg: Layout, agg: Layout, wl: ServingWorkload): { disagg: number; agg: number } {
  const slo = wl.ttftMs !== undefined || wl.itlMs !== undefined;
  const of = (l: Layout) => (slo ? goodput(l, wl) : servedAtLoad(l, wl));
  return { disagg: of(disagg), agg: of(agg) };
}

/** Disaggregated over aggregated (`layoutThroughputs`); undefined when the aggregated layout serves none. */
export function disaggGain(disagg: Layout, agg: Layout, wl: ServingWorkload): number | undefined {
  const t = layoutThroughputs(disagg, agg, wl);
  return t.agg > 0 ? t.disagg / t.agg : undefined;
}

/*
 * The serving estimate of a graph (`plan.json` `serving`): from the model, the two roles' workers and the
 * declared workload, what one worker of each role does, what the layout gives at the load and
 * what aggregated workers on the same GPUs would give (the sections above), the gain of disaggregation and the
 * balanced split that deploys on the pool, each number with the range the validation errors of its regime give
 * (./serving-errors.ts). Pure; the plan and the policy read a graph into `ServingInput` (policy/rules/_serving.ts).
 */

/** Batch sizes `serving.roles.decode.decodeStepMs` is keyed by (the measured range). */
export const REPORTED_BATCHES = [1, 8, 32, 64, 128, 256, 512, 1024] as const;

/** One role's workers as the graph runs them. */
export interface ServingRoleInput {
  readonly replicas: number;
  readonly tensorParallel: number;
  readonly maxModelLen: number;
  readonly gpuMemoryUtilization: number;
  /** EFA devices of one worker (0 = KV over TCP). */
  readonly efaDevices: number;
  /** Attention data-parallel ranks (vLLM --data-parallel-size, TensorRT-LLM enable_attention_dp): not modelled. */
  readonly attentionDataParallel?: number;
  /** Expert-parallel size of an MoE (vLLM --enable-expert-parallel, TensorRT-LLM moe_expert_parallel_size): not modelled. */
  readonly expertParallel?: number;
}

/** What the estimate is computed from. */
export interface ServingInput {
  readonly model: ModelFacts;
  readonly kvCacheDtype: KvCacheDtype;
  readonly backend: Backend;
  readonly pool: Pick<GpuPoolFacts, "instanceType">;
  /** Where the roles land; `separate-nodes` (the default) gives each node to one role. */
  readonly placement?: Placement;
  readonly prefill: ServingRoleInput;
  readonly decode: ServingRoleInput;
  readonly workload: ResolvedWorkload;
}

/** Latencies at a load (means and P50/P90); null when the layout cannot keep up with it (saturated). */
export interface ServingLatency {
  readonly requestsPerSecond: number;
  readonly ttftMs: number | null;
  readonly itlMs: number | null;
  readonly ttftP50Ms: number | null;
  readonly ttftP90Ms: number | null;
  readonly itlP50Ms: number | null;
  readonly itlP90Ms: number | null;
}

/** A range [low, high] around an estimate. */
export type Range = readonly [number, number];

/** The verdict on disaggregation: only a gain range that excludes 1 decides. */
export type Verdict = "disaggregated" | "aggregated" | "too close to call";

/** The prefill:decode split that balances the roles and deploys on the pool. */
export interface RecommendedSplit {
  readonly prefill: number;
  readonly decode: number;
  readonly requestsPerSecond: number;
  /** Nodes each role takes under separate-nodes (whole nodes per role), and their sum. */
  readonly nodes: { readonly prefill: number; readonly decode: number; readonly total: number };
  /** Whether it fits the nodes the graph's own split takes (so it deploys wherever the graph does). */
  readonly fitsPool: boolean;
}

/** `plan.json` `serving`. */
export interface ServingEstimate extends ServingLatency {
  readonly workload: ResolvedWorkload;
  readonly calibration: { readonly gpu: string; readonly scaled: boolean; readonly basis: string };
  /** The engine's scheduler settings the estimate runs at (./engine-settings.ts). */
  readonly engine: Omit<EngineSettings, "allReduce">;
  readonly roles: {
    readonly prefill: {
      readonly replicas: number;
      readonly gpusPerWorker: number;
      /** One ISL prompt, batch 1, one worker. */
      readonly prefillMs: number;
      readonly promptsPerForward: number;
      readonly requestsPerSecond: number;
      /** KV cache of one prompt to its decode worker (the fit section's transfer time). */
      readonly kvTransferMs: number;
      /** The span of published figures for that transfer (UCX/TCP only: EFA's is measured). */
      readonly kvTransferMsRange?: Range;
    };
    readonly decode: {
      readonly replicas: number;
      readonly gpusPerWorker: number;
      /** Context of `decodeStepMs`: ISL + OSL. */
      readonly contextTokens: number;
      readonly decodeStepMs: Readonly<Record<string, number>>;
      /** Sequences decoded at once: the KV cache's limit, at most the engine's. */
      readonly maxBatch: number;
      readonly tokensPerSecond: number;
      readonly requestsPerSecond: number;
    };
  };
  /** Requests per second the layout sustains at most. */
  readonly capacityRequestsPerSecond: number;
  /** The role that limits the layout's capacity. */
  readonly bottleneck: "prefill" | "decode";
  /** Output tokens per second per GPU at the declared objectives (at the load when none). */
  readonly tokensPerSecondPerGpu: number;
  readonly aggregated: ServingLatency & {
    readonly replicas: number;
    readonly gpusPerWorker: number;
    readonly capacityRequestsPerSecond: number;
    readonly tokensPerSecondPerGpu: number;
  };
  /** Disaggregated / aggregated requests per second within the objectives (at the load when none); null when aggregated serves none. */
  readonly disaggGain: number | null;
  readonly winner: Verdict;
  /** The uncertainty of this estimate: each number's range, the regime the ranges come from, what is extrapolated. */
  readonly uncertainty: Uncertainty;
  /** Whether the estimate at the load meets each declared objective. */
  readonly objectives: { readonly ttft?: boolean; readonly itl?: boolean };
  /** Prefill and decode workers that balance the two roles on the same GPUs and nodes, in whole nodes per role. */
  readonly recommended: RecommendedSplit;
  /** TTFT and ITL of both layouts over a range of arrival rates (the plan's chart). */
  readonly curve: readonly {
    readonly requestsPerSecond: number;
    readonly disaggregated: ServingLatency;
    readonly aggregated: ServingLatency;
  }[];
}

const r3 = (n: number) => (n >= 100 ? Math.round(n * 10) / 10 : Math.round(n * 1000) / 1000);
const orNull = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? null : r3(v));

function latency(p: LoadPoint, served: number): ServingLatency {
  return {
    requestsPerSecond: r3(served),
    ttftMs: orNull(p.ttftMs),
    itlMs: orNull(p.itlMs),
    ttftP50Ms: orNull(p.ttftP50Ms),
    ttftP90Ms: orNull(p.ttftP90Ms),
    itlP50Ms: orNull(p.itlP50Ms),
    itlP90Ms: orNull(p.itlP90Ms),
  };
}

/** One worker of a role: its speed on the pool's GPUs, its KV capacity from the fit, the engine's settings. */
function speedOf(i: ServingInput, r: ServingRoleInput, rates: GpuRates): WorkerSpeed {
  const instance = INSTANCES.get(i.pool.instanceType)!;
  const fit = workerFit({
    model: i.model,
    instance,
    backend: i.backend,
    tensorParallel: r.tensorParallel,
    maxModelLen: r.maxModelLen,
    gpuMemoryUtilization: r.gpuMemoryUtilization,
    kvCacheDtype: i.kvCacheDtype,
  });
  return {
    shape: servingShape(i.model),
    tp: r.tensorParallel,
    rates,
    kvCacheDtype: i.kvCacheDtype,
    kvCapacityTokens: fit.kvCapacityTokens,
    engine: engineSettings(i.backend, instance.gpuModel, instance.gpuMemoryGiB),
  };
}

function curveOf(d: Layout, a: Layout): ServingEstimate["curve"] {
  const top = Math.max(d.capacityRequestsPerSecond, a.capacityRequestsPerSecond);
  return [0.1, 0.25, 0.5, 0.7, 0.85, 0.95, 1.1].map((f) => {
    const rate = top * f;
    return {
      requestsPerSecond: r3(rate),
      disaggregated: latency(d.at(rate), rate),
      aggregated: latency(a.at(rate), rate),
    };
  });
}

function roles(i: ServingInput, p: WorkerSpeed, d: WorkerSpeed, kv: KvEstimate): ServingEstimate["roles"] {
  const wl = i.workload;
  const pc = prefillCapacity(p, wl.isl);
  const dc = decodeCapacity(d, { ...wl, itlMs: undefined });
  const ctx = wl.isl + wl.osl;
  return {
    prefill: {
      replicas: i.prefill.replicas,
      gpusPerWorker: i.prefill.tensorParallel,
      prefillMs: r3(prefillMs(p, wl.isl)),
      promptsPerForward: pc.prompts,
      requestsPerSecond: r3(pc.requestsPerSecond),
      kvTransferMs: r3(kv.ms),
      ...(kv.range ? { kvTransferMsRange: [r3(kv.range[0]), r3(kv.range[1])] as const } : {}),
    },
    decode: {
      replicas: i.decode.replicas,
      gpusPerWorker: i.decode.tensorParallel,
      contextTokens: ctx,
      decodeStepMs: Object.fromEntries(REPORTED_BATCHES.map((b) => [String(b), r3(decodeStepMs(d, b, ctx))])),
      maxBatch: maxDecodeBatch(d, wl.isl, wl.osl),
      tokensPerSecond: r3(dc.requestsPerSecond * wl.osl),
      requestsPerSecond: r3(dc.requestsPerSecond),
    },
  };
}

/** Why the estimate cannot represent this input, or undefined when it can. */
function unrepresentable(i: ServingInput): string | undefined {
  for (const [role, r] of [
    ["prefill", i.prefill],
    ["decode", i.decode],
  ] as const) {
    if ((r.attentionDataParallel ?? 1) > 1)
      return `the ${role} worker runs attention data-parallel (${r.attentionDataParallel} ranks), which the estimate does not model (tensor parallel only): its batch per GPU and KV layout differ`;
    if ((r.expertParallel ?? 1) > 1)
      return `the ${role} worker runs expert parallel (${r.expertParallel}), which the estimate does not model (tensor parallel only): expert reads and all-to-all traffic differ`;
  }
  return undefined;
}

/** The KV transfer of one request: the expected time and, over UCX/TCP, the span of published figures. */
interface KvEstimate {
  readonly ms: number;
  readonly range?: Range;
}

function kvEstimate(i: ServingInput): KvEstimate {
  const link = kvLink(i.pool as GpuPoolFacts, i.prefill.efaDevices);
  const t = kvTransfer(i.model, i.prefill.tensorParallel, i.kvCacheDtype, i.workload.isl, link);
  if (link.transport !== "UCX") return { ms: t.expectedMs };
  return { ms: t.expectedMs, range: ucxKvRangeMs(t.bytesPerRank) };
}

/** The two layouts on the input's GPUs, and the served rates that compare them. */
function layoutsOf(i: ServingInput, p: WorkerSpeed, d: WorkerSpeed, kvMs: number) {
  const wl = i.workload;
  const dis = disaggregated(
    { speed: p, replicas: i.prefill.replicas },
    { speed: d, replicas: i.decode.replicas },
    wl,
    kvMs,
  );
  const gpus = i.prefill.replicas * i.prefill.tensorParallel + i.decode.replicas * i.decode.tensorParallel;
  const aggReplicas = Math.max(1, Math.floor(gpus / i.decode.tensorParallel));
  const agg = aggregated({ speed: d, replicas: aggReplicas }, wl);
  return { dis, agg, gpus, aggReplicas, served: layoutThroughputs(dis, agg, wl) };
}

/** The estimate, or why there is none (a GPU without datasheet rates, a worker whose weights do not fit, a layout not modelled). */
export function servingEstimate(i: ServingInput): ServingEstimate | { why: string } {
  const instance = INSTANCES.get(i.pool.instanceType);
  if (!instance) return { why: `instance type ${i.pool.instanceType} is not in the instance catalog` };
  const rates = ratesFor(instance.gpuModel);
  if (!rates)
    return {
      why: `no datasheet rates for the ${instance.gpuModel} (components/catalog/gpu-datasheet.ts) to scale the H200 calibration to`,
    };
  const layout = unrepresentable(i);
  if (layout) return { why: layout };
  const wl = i.workload;
  const p = speedOf(i, i.prefill, rates);
  const d = speedOf(i, i.decode, rates);
  if (maxDecodeBatch(d, wl.isl, wl.osl) < 1)
    return { why: `the decode worker's KV cache does not hold one request of ${wl.isl + wl.osl} tokens` };
  const kv = kvEstimate(i);
  const { dis, agg, gpus, aggReplicas, served } = layoutsOf(i, p, d, kv.ms);
  const atD = atLoad(dis, wl);
  const atA = atLoad(agg, wl);
  const gain = served.agg > 0 ? served.disagg / served.agg : undefined;
  const perGpu = (rps: number, n: number) => r3((rps * wl.osl) / n);
  const e: Omit<ServingEstimate, "uncertainty" | "winner"> = {
    workload: wl,
    calibration: { gpu: rates.gpuModel, scaled: rates.scaled, basis: rates.basis },
    engine: engineSummary(d),
    roles: roles(i, p, d, kv),
    ...latency(atD, servedAtLoad(dis, wl)),
    capacityRequestsPerSecond: r3(dis.capacityRequestsPerSecond),
    bottleneck: bottleneckOf(i, p, d),
    tokensPerSecondPerGpu: perGpu(served.disagg, gpus),
    aggregated: {
      replicas: aggReplicas,
      gpusPerWorker: i.decode.tensorParallel,
      ...latency(atA, servedAtLoad(agg, wl)),
      capacityRequestsPerSecond: r3(agg.capacityRequestsPerSecond),
      tokensPerSecondPerGpu: perGpu(served.agg, aggReplicas * i.decode.tensorParallel),
    },
    disaggGain: gain === undefined ? null : r3(gain),
    objectives: {
      ...(wl.ttftMs !== undefined ? { ttft: meetsObjectives(atD, { ...wl, itlMs: undefined }) } : {}),
      ...(wl.itlMs !== undefined ? { itl: meetsObjectives(atD, { ...wl, ttftMs: undefined }) } : {}),
    },
    recommended: recommendedSplit(splitInputOf(i, p, d, gpus, instance.gpuCount)),
    curve: curveOf(dis, agg),
  };
  const uncertainty = uncertaintyOf(uncertaintyInputOf(i, d, rates, kv, e));
  return { ...e, uncertainty, winner: uncertainty.verdict };
}

/** What the uncertainty of an estimate is computed from: this configuration's regime and extrapolations, its numbers. */
function uncertaintyInputOf(
  i: ServingInput,
  d: WorkerSpeed,
  rates: GpuRates,
  kv: KvEstimate,
  e: Omit<ServingEstimate, "uncertainty" | "winner">,
): UncertaintyInput {
  return {
    moe: i.model.paramsActive !== undefined && i.model.paramsActive < i.model.paramsTotal,
    tp: Math.max(i.prefill.tensorParallel, i.decode.tensorParallel),
    fp8Weights: runsFp8(d),
    fp8Kv: i.kvCacheDtype === KvCacheDtype.Fp8,
    scaledGpu: rates.scaled,
    statedShape: d.shape.basis === "stated shape",
    maxBatch: e.roles.decode.maxBatch,
    closedLoop: i.workload.requestsPerSecond === undefined,
    kv,
    values: {
      ttftMs: e.ttftMs,
      itlMs: e.itlMs,
      ttftP90Ms: e.ttftP90Ms,
      itlP90Ms: e.itlP90Ms,
      tokensPerSecondPerGpu: e.tokensPerSecondPerGpu,
      aggregatedTokensPerSecondPerGpu: e.aggregated.tokensPerSecondPerGpu,
      disaggGain: e.disaggGain,
      aggregated: {
        ttftMs: e.aggregated.ttftMs,
        itlMs: e.aggregated.itlMs,
        ttftP90Ms: e.aggregated.ttftP90Ms,
        itlP90Ms: e.aggregated.itlP90Ms,
      },
    },
  };
}

/** The split's input: each role's per-worker capacity (decode within the ITL objective), the GPUs and the pool. */
function splitInputOf(i: ServingInput, p: WorkerSpeed, d: WorkerSpeed, gpus: number, gpusPerNode: number): SplitInput {
  return {
    prefillTp: p.tp,
    decodeTp: d.tp,
    prefillRps: prefillCapacity(p, i.workload.isl).requestsPerSecond,
    decodeRps: decodeCapacity(d, i.workload).requestsPerSecond,
    gpus,
    gpusPerNode,
    // The nodes this graph's own split takes: a pool that runs the graph runs the recommendation too, and the
    // plan (which knows the pool) and the policy (which reads only the graph) recommend the same split.
    nodes: nodesOfSplit({ prefillTp: p.tp, decodeTp: d.tp, gpusPerNode }, i.prefill.replicas, i.decode.replicas).total,
    placement: i.placement ?? Placement.SeparateNodes,
    current: { prefill: i.prefill.replicas, decode: i.decode.replicas },
  };
}

function engineSummary(w: WorkerSpeed): ServingEstimate["engine"] {
  const { allReduce: _allReduce, ...rest } = engineOf(w);
  return rest;
}

/** The role whose total capacity is lower (prefill ties go to prefill: its queue fills first). */
function bottleneckOf(i: ServingInput, p: WorkerSpeed, d: WorkerSpeed): "prefill" | "decode" {
  const wl = i.workload;
  const prefill = i.prefill.replicas * prefillCapacity(p, wl.isl).requestsPerSecond;
  const decode = i.decode.replicas * decodeCapacity(d, { ...wl, itlMs: undefined }).requestsPerSecond;
  return prefill <= decode ? "prefill" : "decode";
}

/** The serving input of resolved settings (what `verify` compares with); undefined for a model of unknown shape. */
export function servingInputOf(r: ResolvedInference): ServingInput | undefined {
  const model = modelFacts(r.model, r.modelShape);
  if (!model) return undefined;
  const role = (a: ResolvedRole): ServingRoleInput => ({
    replicas: a.replicas,
    tensorParallel: a.gpusPerWorker,
    maxModelLen: r.maxModelLen,
    gpuMemoryUtilization: r.gpuMemoryUtilization,
    efaDevices: usesEfa(r) ? efaPerWorker(r.pool, a.gpusPerWorker) : 0,
  });
  return {
    model,
    kvCacheDtype: r.kvCacheDtype,
    backend: r.backend,
    pool: r.pool,
    prefill: role(r.prefill),
    decode: role(r.decode),
    workload: r.workload,
  };
}

/*
 * The declared workload on the DynamoGraphDeployment: `dynamo-efa/workload`, the resolved workload as JSON,
 * written only when the config declares one, so the plan, the policy `serving-estimate-meets-workload` and a
 * person reading the graph see the traffic the estimate is for. A graph without it is estimated at the
 * defaults (`INFERENCE_DEFAULTS.workload`). Pure.
 */
/** The annotation of a declared workload (nothing for the defaults, so undeclared graphs render as before). */
export function workloadAnnotations(r: Pick<ResolvedInference, "workload">): Record<string, string> {
  if (!r.workload.declared) return {};
  const { declared: _declared, ...w } = r.workload;
  return { [Annotation.Workload]: JSON.stringify(w) };
}

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : undefined);

/**
 * The workload of a graph's annotations: the annotation's, else the defaults; a reason when the annotation is
 * not a workload (a hand edit).
 */
export function workloadOf(annotations: Readonly<Record<string, string>>): ResolvedWorkload | { why: string } {
  const raw = annotations[Annotation.Workload];
  if (raw === undefined) return resolveWorkload(undefined);
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(raw) as Record<string, unknown>;
  } catch (e) {
    return { why: `annotation ${Annotation.Workload} is not JSON (${(e as Error).message})` };
  }
  const w: WorkloadArgs = {
    isl: num(v?.isl) ?? INFERENCE_DEFAULTS.workload.isl,
    osl: num(v?.osl) ?? INFERENCE_DEFAULTS.workload.osl,
    ...(num(v?.requestsPerSecond) ? { requestsPerSecond: num(v.requestsPerSecond) } : {}),
    ...(num(v?.concurrency) ? { concurrency: num(v.concurrency) } : {}),
    ...(num(v?.ttftMs) ? { ttftMs: num(v.ttftMs) } : {}),
    ...(num(v?.itlMs) ? { itlMs: num(v.itlMs) } : {}),
  };
  return resolveWorkload(w);
}

/*
 * The declared workload (`workload`) against its bounds and the graph: one load, not two, and requests that
 * fit `maxModelLen` (the engine refuses a longer one, so the estimate would be for traffic that cannot run).
 * Pure.
 */

/** Every problem with `r.workload`; none when it was not declared (the defaults are valid by construction). */
export function validateWorkload(r: ResolvedInference, at: (k: string) => string): Problem[] {
  const w = r.workload;
  if (!w.declared) return [];
  const p = (k: string) => at(`workload.${k}`);
  const out: Problem[] = [...checkRange(p("isl"), w.isl, L.isl), ...checkRange(p("osl"), w.osl, L.osl)];
  if (w.concurrency !== undefined) out.push(...checkRange(p("concurrency"), w.concurrency, L.concurrency));
  if (w.requestsPerSecond !== undefined)
    out.push(...checkNumberRange(p("requestsPerSecond"), w.requestsPerSecond, L.requestsPerSecond, "a rate", 20));
  if (w.ttftMs !== undefined) out.push(...checkNumberRange(p("ttftMs"), w.ttftMs, L.ttftMs, "milliseconds", 1000));
  if (w.itlMs !== undefined) out.push(...checkNumberRange(p("itlMs"), w.itlMs, L.itlMs, "milliseconds", 25));
  if (w.requestsPerSecond !== undefined && w.concurrency !== undefined)
    out.push({
      propertyPath: p("concurrency"),
      reason: `(${w.concurrency}) and workload.requestsPerSecond (${w.requestsPerSecond}) are both set; the load is one of them: an open-loop arrival rate or a closed-loop concurrency. Remove one`,
    });
  if (out.length === 0 && w.isl + w.osl > r.maxModelLen)
    out.push({
      propertyPath: p("isl"),
      reason: `(${w.isl}) + workload.osl (${w.osl}) = ${w.isl + w.osl} tokens exceeds ${at("maxModelLen")} (${r.maxModelLen}): the engine refuses such a request. Raise ${at("maxModelLen")} to at least ${w.isl + w.osl} or shorten the workload`,
    });
  return out;
}
