/**
 * The serving estimate of a graph (`plan.json` `serving`): from the model, the two roles' workers and the
 * declared workload, what one worker of each role does (`./serving.ts`), what the layout gives at the load and
 * what aggregated workers on the same GPUs would give (`./serving-load.ts`), the gain of disaggregation and the
 * balanced split. Pure; the plan and the policy read a graph into `ServingInput` (policy/rules/_serving.ts).
 */
import { INSTANCES } from "../catalog/instances";
import type { GpuPoolFacts } from "../catalog/pool";
import { KvCacheDtype, ModelFacts } from "../catalog/model-math";
import { Backend, ResolvedInference, ResolvedRole, ResolvedWorkload } from "./args";
import { efaPerWorker, usesEfa } from "./derive";
import { kvLink, modelFacts, workerFit } from "./fit";
import { decodeStepMs, maxDecodeBatch, prefillMs, servingShape, WorkerSpeed } from "./serving";
import {
  aggregated,
  atLoad,
  balancedSplit,
  decodeCapacity,
  disaggregated,
  Layout,
  layoutThroughputs,
  LoadPoint,
  meetsObjectives,
  prefillCapacity,
  requestKvTransferMs,
  servedAtLoad,
} from "./serving-load";
import { GpuRates, ratesFor } from "./serving-rates";

/** Batch sizes `serving.roles.decode.decodeStepMs` is keyed by. */
export const REPORTED_BATCHES = [1, 8, 32, 64, 128] as const;

/** Gain within which neither layout is said to win (the model's resolution is coarser than 2%). */
export const EVEN_WITHIN = 0.02;

/** One role's workers as the graph runs them. */
export interface ServingRoleInput {
  readonly replicas: number;
  readonly tensorParallel: number;
  readonly maxModelLen: number;
  readonly gpuMemoryUtilization: number;
  /** EFA devices of one worker (0 = KV over TCP). */
  readonly efaDevices: number;
}

/** What the estimate is computed from. */
export interface ServingInput {
  readonly model: ModelFacts;
  readonly kvCacheDtype: KvCacheDtype;
  readonly backend: Backend;
  readonly pool: Pick<GpuPoolFacts, "instanceType">;
  readonly prefill: ServingRoleInput;
  readonly decode: ServingRoleInput;
  readonly workload: ResolvedWorkload;
}

/** Latencies at a load; null when the layout cannot keep up with it (saturated). */
export interface ServingLatency {
  readonly requestsPerSecond: number;
  readonly ttftMs: number | null;
  readonly itlMs: number | null;
}

/** `plan.json` `serving`. */
export interface ServingEstimate extends ServingLatency {
  readonly workload: ResolvedWorkload;
  readonly calibration: { readonly gpu: string; readonly scaled: boolean; readonly basis: string };
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
    };
    readonly decode: {
      readonly replicas: number;
      readonly gpusPerWorker: number;
      /** Context of `decodeStepMs`: ISL + OSL. */
      readonly contextTokens: number;
      readonly decodeStepMs: Readonly<Record<string, number>>;
      /** Sequences the KV cache holds at once (at most the engine's 256). */
      readonly maxBatch: number;
      readonly tokensPerSecond: number;
      readonly requestsPerSecond: number;
    };
  };
  /** Requests per second the layout sustains at most. */
  readonly capacityRequestsPerSecond: number;
  readonly aggregated: ServingLatency & {
    readonly replicas: number;
    readonly gpusPerWorker: number;
    readonly capacityRequestsPerSecond: number;
  };
  /** Disaggregated / aggregated requests per second within the objectives (at the load when none); null when aggregated serves none. */
  readonly disaggGain: number | null;
  readonly winner: "disaggregated" | "aggregated" | "even";
  /** Whether the estimate at the load meets each declared objective. */
  readonly objectives: { readonly ttft?: boolean; readonly itl?: boolean };
  /** Prefill and decode workers that balance the two roles on the same GPUs. */
  readonly recommended: { readonly prefill: number; readonly decode: number; readonly requestsPerSecond: number };
  /** TTFT and ITL of both layouts over a range of arrival rates (the plan's chart). */
  readonly curve: readonly {
    readonly requestsPerSecond: number;
    readonly disaggregated: ServingLatency;
    readonly aggregated: ServingLatency;
  }[];
}

const r3 = (n: number) => (n >= 100 ? Math.round(n * 10) / 10 : Math.round(n * 1000) / 1000);

function latency(p: LoadPoint, served: number): ServingLatency {
  return {
    requestsPerSecond: r3(served),
    ttftMs: p.ttftMs === undefined ? null : r3(p.ttftMs),
    itlMs: p.itlMs === undefined ? null : r3(p.itlMs),
  };
}

/** One worker of a role: its speed on the pool's GPUs and its KV capacity from the fit. */
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
  const shape = servingShape(i.model);
  return { shape, tp: r.tensorParallel, rates, kvCacheDtype: i.kvCacheDtype, kvCapacityTokens: fit.kvCapacityTokens };
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

/** Which layout serves more; "even" within `EVEN_WITHIN`, or when neither serves any. */
function winnerOf(t: { disagg: number; agg: number }): ServingEstimate["winner"] {
  if (t.agg <= 0) return t.disagg > 0 ? "disaggregated" : "even";
  const gain = t.disagg / t.agg;
  if (gain < 1 - EVEN_WITHIN) return "aggregated";
  return gain > 1 + EVEN_WITHIN ? "disaggregated" : "even";
}

function roles(i: ServingInput, p: WorkerSpeed, d: WorkerSpeed, kvMs: number): ServingEstimate["roles"] {
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
      kvTransferMs: r3(kvMs),
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

/** The estimate, or why there is none (a GPU without datasheet rates, a worker whose weights do not fit). */
export function servingEstimate(i: ServingInput): ServingEstimate | { why: string } {
  const instance = INSTANCES.get(i.pool.instanceType);
  if (!instance) return { why: `instance type ${i.pool.instanceType} is not in the instance catalog` };
  const rates = ratesFor(instance.gpuModel);
  if (!rates)
    return {
      why: `no datasheet rates for the ${instance.gpuModel} (components/catalog/gpu-datasheet.ts) to scale the H200 calibration to`,
    };
  const wl = i.workload;
  const p = speedOf(i, i.prefill, rates);
  const d = speedOf(i, i.decode, rates);
  if (maxDecodeBatch(d, wl.isl, wl.osl) < 1)
    return { why: `the decode worker's KV cache does not hold one request of ${wl.isl + wl.osl} tokens` };
  const kvMs = requestKvTransferMs(
    i.model,
    i.kvCacheDtype,
    wl.isl,
    i.prefill.tensorParallel,
    kvLink(i.pool as GpuPoolFacts, i.prefill.efaDevices),
  );
  const dis = disaggregated(
    { speed: p, replicas: i.prefill.replicas },
    { speed: d, replicas: i.decode.replicas },
    wl,
    kvMs,
  );
  const gpus = i.prefill.replicas * i.prefill.tensorParallel + i.decode.replicas * i.decode.tensorParallel;
  const aggReplicas = Math.max(1, Math.floor(gpus / i.decode.tensorParallel));
  const agg = aggregated({ speed: d, replicas: aggReplicas }, wl);
  const atD = atLoad(dis, wl);
  const atA = atLoad(agg, wl);
  const served = layoutThroughputs(dis, agg, wl);
  const gain = served.agg > 0 ? served.disagg / served.agg : undefined;
  const split = balancedSplit(p, d, gpus, wl);
  return {
    workload: wl,
    calibration: { gpu: rates.gpuModel, scaled: rates.scaled, basis: rates.basis },
    roles: roles(i, p, d, kvMs),
    ...latency(atD, servedAtLoad(dis, wl)),
    capacityRequestsPerSecond: r3(dis.capacityRequestsPerSecond),
    aggregated: {
      replicas: aggReplicas,
      gpusPerWorker: i.decode.tensorParallel,
      ...latency(atA, servedAtLoad(agg, wl)),
      capacityRequestsPerSecond: r3(agg.capacityRequestsPerSecond),
    },
    disaggGain: gain === undefined ? null : r3(gain),
    winner: winnerOf(served),
    objectives: {
      ...(wl.ttftMs !== undefined ? { ttft: meetsObjectives(atD, { ...wl, itlMs: undefined }) } : {}),
      ...(wl.itlMs !== undefined ? { itl: meetsObjectives(atD, { ...wl, ttftMs: undefined }) } : {}),
    },
    recommended: split
      ? { prefill: split.prefill, decode: split.decode, requestsPerSecond: r3(split.requestsPerSecond) }
      : { prefill: i.prefill.replicas, decode: i.decode.replicas, requestsPerSecond: 0 },
    curve: curveOf(dis, agg),
  };
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
