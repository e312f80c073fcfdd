/**
 * The serving estimate: what the prefill and decode workers serve under a declared workload (TTFT, ITL, requests
 * per second), against aggregated workers on the same GPUs, and the prefill:decode split that balances the two
 * roles. Pure; one worker's speed comes from `./worker-speed.ts` (the H200 measurements and the rates of other GPUs
 * scaled from datasheets), the layouts under load from `./layouts.ts`, the workload's checks from `./workload.ts`.
 */
import { KvCacheDtype, ModelFacts } from "../components/catalog/models";
import { kvTransfer, kvLink, workerFit } from "../components/inference/fit";
import { nodesOfSplit, RecommendedSplit, recommendedSplit, SplitInput } from "./split";
import {
  corrected,
  ErrorBand,
  loadOf,
  Range,
  ucxKvRangeMs,
  uncertaintyOf,
  Uncertainty,
  UncertaintyInput,
  Verdict,
} from "./errors";
import type { EngineSettings } from "./engine-settings";
import { Backend, Placement, ResolvedWorkload } from "../components/inference/args";
import {
  aggregated,
  atLoad,
  decodeCapacity,
  disaggregated,
  Layout,
  layoutThroughputs,
  LoadPoint,
  meetsObjectives,
  prefillCapacity,
  servedAtLoad,
} from "./layouts";
import { INSTANCES } from "../components/catalog/instances";
import type { GpuPoolFacts } from "../components/catalog/pool";
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
 * The serving estimate of a graph (`plan.json` `serving`): from the model, the two roles' workers and the
 * declared workload, what one worker of each role does, what the layout gives at the load and
 * what aggregated workers on the same GPUs would give (the sections above), the gain of disaggregation and the
 * balanced split that deploys on the pool, each number with the range the validation errors of its regime give
 * (./errors.ts). Pure; a graph's plan becomes `ServingInput` in `servingInputOf` (./input.ts).
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
      why: `no datasheet rates for the ${instance.gpuModel} (serving/gpu-datasheet.ts) to scale the H200 calibration to`,
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
  return { ...correctedBy(e, uncertainty), uncertainty, winner: uncertainty.verdict };
}

type Bands = Uncertainty["bands"];

/** Latencies corrected by their regime's bias (TTFT and ITL each by its own band). */
function correctedLatency<T extends ServingLatency>(l: T, b: Bands): T {
  const at = (v: number | null, band: ErrorBand | undefined) => (v === null ? null : r3(corrected(v, band)));
  return {
    ...l,
    ttftMs: at(l.ttftMs, b.ttft),
    ttftP50Ms: at(l.ttftP50Ms, b.ttft),
    ttftP90Ms: at(l.ttftP90Ms, b.ttft),
    itlMs: at(l.itlMs, b.itl),
    itlP50Ms: at(l.itlP50Ms, b.itl),
    itlP90Ms: at(l.itlP90Ms, b.itl),
  };
}

/**
 * The estimate as the plan shows it: every number that has a range corrected by its regime's validation bias (so
 * it lies inside the range drawn around the model's value), the curve's latencies by the chart's own bands (open
 * loop); the model's own values stay in `uncertainty.model`.
 */
function correctedBy(e: Omit<ServingEstimate, "uncertainty" | "winner">, u: Uncertainty) {
  const b = u.bands;
  const perGpu = (v: number) => r3(corrected(v, b.throughput));
  return {
    ...correctedLatency(e, b),
    tokensPerSecondPerGpu: perGpu(e.tokensPerSecondPerGpu),
    aggregated: {
      ...correctedLatency(e.aggregated, b),
      tokensPerSecondPerGpu: perGpu(e.aggregated.tokensPerSecondPerGpu),
    },
    disaggGain: e.disaggGain === null ? null : r3(corrected(e.disaggGain, b.gain)),
    curve: e.curve.map((c) => ({
      ...c,
      disaggregated: correctedLatency(c.disaggregated, u.curveBands),
      aggregated: correctedLatency(c.aggregated, u.curveBands),
    })),
  };
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
    load: loadOf(i.workload),
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
    // recommendation does not depend on which nodes the pool has beyond those.
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
