/**
 * The measure report as written (`measure.json`), built from the comparisons of `./report.ts`: the layouts' points,
 * the estimate's curves the picture draws, the split, the gain and one line per finding. Pure.
 */
import type { ResolvedWorkload } from "../../components/inference/args";
import { AIPERF } from "./aiperf";
import { AGREE_WITHIN, type EstimatePoint, type EstimateView, Layout } from "./estimate";
import type { KvPlan } from "./kv";
import {
  Agreement,
  gainReport,
  type GainReport,
  type LatencyComparison,
  layoutReport,
  type LayoutReport,
  measuredSplit,
  type MeasuredRun,
  type RoleShape,
  type SplitPool,
  type SplitReport,
} from "./report";

/** The whole report (`measure.json`). */
export interface MeasureReport {
  readonly stack: string;
  readonly graph: string;
  readonly namespace: string;
  /**
   * The AIPerf that ran: its version as its exports state it ("unknown" when they state none), the image it ran
   * from, and where the command line measure passes it was read (`AIPERF`).
   */
  readonly aiperf: { readonly version: string; readonly image: string; readonly cliReadAt: string };
  readonly workload: ResolvedWorkload;
  readonly layouts: readonly LayoutReport[];
  /** The estimate of each measured layout from light load to past its capacity (what the picture draws). */
  readonly curves: readonly { readonly layout: Layout; readonly points: readonly EstimatePoint[] }[];
  readonly split: SplitReport;
  readonly gain?: GainReport;
  /** One line per finding, what a person reads first. */
  readonly findings: readonly string[];
}

/** What `buildReport` is given. */
export interface ReportInput {
  readonly stack: string;
  readonly graph: string;
  readonly namespace: string;
  readonly image: string;
  readonly workload: ResolvedWorkload;
  readonly prefill: RoleShape;
  readonly decode: RoleShape;
  /** The graph's pool and placement, which the re-derived split fits as the estimate's does. */
  readonly pool?: SplitPool;
  readonly estimate: EstimateView;
  readonly disaggregated: readonly MeasuredRun[];
  /** The aggregated twin's runs, at the same loads. @default - no twin was measured */
  readonly aggregated?: { readonly gpus: number; readonly runs: readonly MeasuredRun[] };
  readonly kvPlan?: KvPlan;
}

/** Fractions of the larger capacity the curves are sampled at. */
export const CURVE_FRACTIONS = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.98, 1.05] as const;

function curves(view: EstimateView, layouts: readonly Layout[]): MeasureReport["curves"] {
  const e = view.atWorkload;
  const top = Math.max(e.capacityRequestsPerSecond, e.aggregated.capacityRequestsPerSecond);
  return layouts.map((layout) => ({
    layout,
    points: CURVE_FRACTIONS.map((f) => view.at(layout, Math.round(top * f * 1000) / 1000)),
  }));
}

const loadText = (p: LayoutReport["points"][number]) =>
  "concurrency" in p.load ? `concurrency ${p.load.concurrency}` : `${p.load.requestsPerSecond} requests/s offered`;

function latencyFinding(layout: Layout, what: string, at: string, c: LatencyComparison): string | undefined {
  if (!c.measured) return `${layout} ${what} at ${at}: AIPerf measured none (was the run streamed?)`;
  if (c.estimated === null)
    return `${layout} ${what} at ${at}: measured P50 ${c.measured.p50} ms where the estimate says this rate saturates the layout`;
  if (c.agreement === Agreement.Agrees) return undefined;
  const dir = c.agreement === Agreement.Above ? "slower" : "faster";
  const band = `band ${c.band?.lo}-${c.band?.hi}${c.validated ? "" : `, +-${AGREE_WITHIN * 100}%: no validated range in this regime`}`;
  return `${layout} ${what} at ${at}: measured P50 ${c.measured.p50} ms is ${dir} than the estimate's ${c.estimated} ms (x${c.ratio}; ${band})`;
}

/** One line per disagreement, error, KV finding, split change and the gain. */
export function findings(r: Omit<MeasureReport, "findings">): string[] {
  const out: string[] = [];
  for (const l of r.layouts)
    for (const p of l.points) {
      const at = `${p.measured.requestsPerSecond} requests/s (${loadText(p)})`;
      for (const f of [latencyFinding(l.layout, "TTFT", at, p.ttft), latencyFinding(l.layout, "ITL", at, p.itl)])
        if (f) out.push(f);
      if (p.measured.errorRequests > 0) out.push(`${l.layout} at ${at}: ${p.measured.errorRequests} requests failed`);
      for (const k of p.kv?.findings ?? []) out.push(`${l.layout} at ${at}: ${k}`);
    }
  const agreeing = r.layouts.flatMap((l) => l.points).flatMap((p) => [p.ttft, p.itl]);
  const n = agreeing.filter((c) => c.agreement === Agreement.Agrees).length;
  out.unshift(`the estimate agreed with ${n} of ${agreeing.length} measured latencies (P50 within its band)`);
  const m = r.split.measured;
  if (m && (m.prefill !== r.split.deployed.prefill || m.decode !== r.split.deployed.decode))
    out.push(
      `measured per-worker rates balance at ${m.prefill} prefill : ${m.decode} decode on these GPUs (deployed ${r.split.deployed.prefill}:${r.split.deployed.decode}, estimated ${r.split.estimated.prefill}:${r.split.estimated.decode})`,
    );
  if (r.gain)
    out.push(
      `disaggregated / aggregated, measured: ${r.gain.median} (spread ${r.gain.min}-${r.gain.max} over ${r.gain.perLoad.length} load(s)); estimated ${r.gain.estimated ?? "n/a"}`,
    );
  return out;
}

/** The AIPerf version(s) the runs' exports state, or "unknown". */
function ranVersion(runs: readonly MeasuredRun[]): string {
  const versions = [...new Set(runs.flatMap((r) => (r.summary.aiperfVersion ? [r.summary.aiperfVersion] : [])))];
  return versions.length > 0 ? versions.join(", ") : "unknown";
}

/** The report. */
export function buildReport(i: ReportInput): MeasureReport {
  const gpus = i.prefill.replicas * i.prefill.gpusPerWorker + i.decode.replicas * i.decode.gpusPerWorker;
  const disagg = layoutReport(Layout.Disaggregated, gpus, i.disaggregated, i.estimate, i.kvPlan);
  const agg = i.aggregated
    ? layoutReport(Layout.Aggregated, i.aggregated.gpus, i.aggregated.runs, i.estimate)
    : undefined;
  const e = i.estimate.atWorkload;
  const split = measuredSplit(disagg, e, i.prefill, i.decode, i.pool);
  const gain = agg ? gainReport(disagg, agg, e.disaggGain) : undefined;
  const body: Omit<MeasureReport, "findings"> = {
    stack: i.stack,
    graph: i.graph,
    namespace: i.namespace,
    aiperf: {
      version: ranVersion([...i.disaggregated, ...(i.aggregated?.runs ?? [])]),
      image: i.image,
      cliReadAt: `${AIPERF.repository}@${AIPERF.commit} (${AIPERF.version})`,
    },
    workload: i.workload,
    layouts: agg ? [disagg, agg] : [disagg],
    curves: curves(i.estimate, agg ? [Layout.Disaggregated, Layout.Aggregated] : [Layout.Disaggregated]),
    split: {
      deployed: { prefill: i.prefill.replicas, decode: i.decode.replicas },
      estimated: { prefill: e.recommended.prefill, decode: e.recommended.decode },
      ...(split ? { measured: split } : {}),
    },
    ...(gain ? { gain } : {}),
  };
  return { ...body, findings: findings(body) };
}
