/**
 * Measured beside estimated: each benchmark point's AIPerf numbers next to the render's serving estimate at the
 * rate the point really served, where they agree and where not, the prefill:decode split re-derived from the
 * measured per-worker rates, the aggregated twin's numbers and the gain of disaggregation with its spread. Pure:
 * `run.ts` measures, this judges.
 */
import { recommendedSplit } from "../../serving";
import { Placement } from "../../components/inference/args";
import type { AiperfSummary, Load, Percentiles } from "./aiperf";
import { AGREE_WITHIN, EstimatePoint, EstimateView, Layout, Range } from "./estimate";
import { KvReading, kvVerdict, KvVerdict, KvPlan } from "./kv";

/** One role as deployed. */
export interface RoleShape {
  readonly replicas: number;
  readonly gpusPerWorker: number;
}

/** The pool and placement a split must fit (the graph's own), as the estimate's recommendation fits them. */
export interface SplitPool {
  readonly gpusPerNode: number;
  readonly nodes: number;
  readonly placement: Placement;
}

/** One benchmark point as run. */
export interface MeasuredRun {
  /** The load AIPerf offered. */
  readonly load: Load;
  readonly summary: AiperfSummary;
  /** NIXL's KV counters over the run (disaggregated layout only). */
  readonly kv?: KvReading;
}

/** Whether a measurement agrees with the estimate. */
export const Agreement = { Agrees: "agrees", Above: "above", Below: "below", Unknown: "unknown" } as const;
export type Agreement = (typeof Agreement)[keyof typeof Agreement];

/** One latency, measured (P50/P90/P99) beside estimated. */
export interface LatencyComparison {
  readonly measured?: Percentiles;
  readonly estimated: number | null;
  /** The band the P50 is judged against: the estimate's own range, else +-AGREE_WITHIN around it. */
  readonly band?: Range;
  /** Whether `band` is the estimate's validated range (false: +-AGREE_WITHIN, its regime has none). */
  readonly validated?: boolean;
  /** measured P50 / estimated. */
  readonly ratio?: number;
  readonly agreement: Agreement;
}

/** One point of one layout. */
export interface PointReport {
  readonly load: Load;
  readonly measured: {
    readonly requestsPerSecond: number;
    readonly outputTokensPerSecond: number;
    readonly perGpu: { readonly requestsPerSecond: number; readonly outputTokensPerSecond: number };
    readonly goodputRequestsPerSecond?: number;
    readonly requests: number;
    readonly errorRequests: number;
    readonly durationS: number;
  };
  readonly ttft: LatencyComparison;
  readonly itl: LatencyComparison;
  readonly kv?: KvVerdict;
}

/** One layout's points. */
export interface LayoutReport {
  readonly layout: Layout;
  readonly gpus: number;
  readonly points: readonly PointReport[];
}

/** The split, as deployed, as estimated and as the measured rates give it. */
export interface SplitReport {
  readonly deployed: { readonly prefill: number; readonly decode: number };
  readonly estimated: { readonly prefill: number; readonly decode: number };
  /** From the per-worker rates the lightest-load point implies; undefined when no point measured TTFT and ITL. */
  readonly measured?: {
    readonly prefill: number;
    readonly decode: number;
    /** Requests per second one worker of each role serves, as measured (the estimate's scaled by measured/estimated latency). */
    readonly prefillWorkerRequestsPerSecond: number;
    readonly decodeWorkerRequestsPerSecond: number;
    readonly basis: string;
  };
}

/** Disaggregated over aggregated, measured at the same offered loads. */
export interface GainReport {
  /** Throughput ratio (goodput when objectives are declared) at each common load, lowest load first. */
  readonly perLoad: readonly { readonly load: Load; readonly gain: number }[];
  /** Median of `perLoad`, and its lowest and highest: the spread. */
  readonly median: number;
  readonly min: number;
  readonly max: number;
  /** What the estimate said (plan.json `serving.disaggGain`). */
  readonly estimated: number | null;
}

const r3 = (n: number) => Math.round(n * 1000) / 1000;

/** The band a P50 is judged against. */
function bandOf(estimated: number | null, range: Range | undefined): Range | undefined {
  if (range) return range;
  return estimated === null
    ? undefined
    : { lo: r3(estimated * (1 - AGREE_WITHIN)), hi: r3(estimated * (1 + AGREE_WITHIN)) };
}

/** A measured latency beside its estimate. */
export function compareLatency(
  measured: Percentiles | undefined,
  estimated: number | null,
  range?: Range,
): LatencyComparison {
  const band = bandOf(estimated, range);
  const judged = band ? { band, validated: range !== undefined } : {};
  if (!measured || estimated === null || !band)
    return { ...(measured ? { measured } : {}), estimated, ...judged, agreement: Agreement.Unknown };
  const agreement =
    measured.p50 < band.lo ? Agreement.Below : measured.p50 > band.hi ? Agreement.Above : Agreement.Agrees;
  return { measured, estimated, ...judged, ratio: r3(measured.p50 / estimated), agreement };
}

/** One point: measured at the rate it served, against the estimate at that same rate. */
export function pointReport(run: MeasuredRun, gpus: number, est: EstimatePoint, kvPlan?: KvPlan): PointReport {
  const s = run.summary;
  return {
    load: run.load,
    measured: {
      requestsPerSecond: r3(s.requestsPerSecond),
      outputTokensPerSecond: r3(s.outputTokensPerSecond),
      perGpu: {
        requestsPerSecond: r3(s.requestsPerSecond / gpus),
        outputTokensPerSecond: r3(s.outputTokensPerSecond / gpus),
      },
      ...(s.goodputRequestsPerSecond !== undefined ? { goodputRequestsPerSecond: r3(s.goodputRequestsPerSecond) } : {}),
      requests: s.requests,
      errorRequests: s.errorRequests,
      durationS: r3(s.durationS),
    },
    ttft: compareLatency(s.ttftMs, est.ttftMs, est.ttftRange),
    itl: compareLatency(s.itlMs, est.itlMs, est.itlRange),
    ...(run.kv && kvPlan ? { kv: kvVerdict(run.kv, kvPlan, s) } : {}),
  };
}

/** A layout's points, each against the estimate of that layout. */
export function layoutReport(
  layout: Layout,
  gpus: number,
  runs: readonly MeasuredRun[],
  view: EstimateView,
  kvPlan?: KvPlan,
): LayoutReport {
  return {
    layout,
    gpus,
    points: runs.map((run) => pointReport(run, gpus, view.at(layout, run.summary.requestsPerSecond), kvPlan)),
  };
}

/**
 * The split the measured rates give. At the lightest load queueing is least, so TTFT there is mostly one prefill
 * and ITL one decode step: measured/estimated of each is how much slower (or faster) each role's worker really is.
 * The estimate's per-worker rates divided by those ratios are the measured per-worker rates; the split of the same
 * GPUs whose slower role serves the most requests per second follows from them.
 */
export function measuredSplit(
  disagg: LayoutReport,
  e: EstimateView["atWorkload"],
  prefill: RoleShape,
  decode: RoleShape,
  pool?: SplitPool,
): SplitReport["measured"] {
  const light = [...disagg.points].sort((a, b) => a.measured.requestsPerSecond - b.measured.requestsPerSecond)[0];
  const tr = light?.ttft.ratio;
  const ir = light?.itl.ratio;
  if (!light || tr === undefined || ir === undefined || tr <= 0 || ir <= 0) return undefined;
  const pr = e.roles.prefill.requestsPerSecond / tr;
  const dr = e.roles.decode.requestsPerSecond / ir;
  const gpus = prefill.replicas * prefill.gpusPerWorker + decode.replicas * decode.gpusPerWorker;
  // The estimate's own rule (whole nodes per role under separate-nodes), so measured and estimated splits compare.
  const best = recommendedSplit({
    prefillTp: prefill.gpusPerWorker,
    decodeTp: decode.gpusPerWorker,
    prefillRps: pr,
    decodeRps: dr,
    gpus,
    gpusPerNode: pool?.gpusPerNode ?? gpus,
    ...(pool ? { nodes: pool.nodes } : {}),
    placement: pool?.placement ?? Placement.Any,
    current: { prefill: prefill.replicas, decode: decode.replicas },
  });
  return {
    prefill: best.prefill,
    decode: best.decode,
    prefillWorkerRequestsPerSecond: r3(pr),
    decodeWorkerRequestsPerSecond: r3(dr),
    basis: `at ${light.measured.requestsPerSecond} requests/s TTFT P50 was ${tr}x and ITL P50 ${ir}x the estimate; the estimate's ${e.roles.prefill.requestsPerSecond} (prefill) and ${e.roles.decode.requestsPerSecond} (decode) requests/s per worker divided by those`,
  };
}

const loadKey = (l: Load) => ("concurrency" in l ? `c${l.concurrency}` : `r${l.requestsPerSecond}`);
const served = (p: PointReport) => p.measured.goodputRequestsPerSecond ?? p.measured.requestsPerSecond;

/** Disaggregated over aggregated at each load both ran; undefined without a common load. */
export function gainReport(disagg: LayoutReport, agg: LayoutReport, estimated: number | null): GainReport | undefined {
  const perLoad = disagg.points.flatMap((d) => {
    const a = agg.points.find((p) => loadKey(p.load) === loadKey(d.load));
    return a && served(a) > 0 ? [{ load: d.load, gain: r3(served(d) / served(a)) }] : [];
  });
  if (perLoad.length === 0) return undefined;
  const g = perLoad.map((p) => p.gain).sort((x, y) => x - y);
  const mid = g.length % 2 ? g[(g.length - 1) / 2]! : (g[g.length / 2 - 1]! + g[g.length / 2]!) / 2;
  return { perLoad, median: r3(mid), min: g[0]!, max: g[g.length - 1]!, estimated };
}
