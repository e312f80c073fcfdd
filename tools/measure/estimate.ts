/**
 * The render's serving estimate, seen through the few numbers `measure` compares with: TTFT and ITL of either
 * layout at a given arrival rate with the estimate's own ranges (none where its regime has no validated range), each
 * role's per-worker rate, and the split the estimate recommends. The one place of measure that reads the serving wing
 * (serving/). Pure.
 */
import type { ResolvedInference } from "../../components/inference/args";
import { ServingEstimate, servingEstimate, ServingInput, servingInputOf } from "../../serving";
import { inferencePlan } from "../../components/inference/plan";

/** Which layout a number is for. */
export const Layout = { Disaggregated: "disaggregated", Aggregated: "aggregated" } as const;
export type Layout = (typeof Layout)[keyof typeof Layout];

/** A lower and upper bound, ms. */
export interface Range {
  readonly lo: number;
  readonly hi: number;
}

/** The estimate at one arrival rate; null latencies = the layout cannot keep up (saturated). */
export interface EstimatePoint {
  readonly requestsPerSecond: number;
  readonly ttftMs: number | null;
  readonly itlMs: number | null;
  /**
   * The estimate's own range (`plan.json` `serving.uncertainty.ranges`), when its regime has a validated one.
   * @default - none (not validated in the regime): the report then uses `AGREE_WITHIN` and says so
   */
  readonly ttftRange?: Range;
  readonly itlRange?: Range;
}

/**
 * Relative distance within which a measurement counts as agreeing with an estimate that states no range of its own:
 * the project's choice, the spread the H200 calibration's residuals leave (docs/MEASURE.md#reading-the-report).
 */
export const AGREE_WITHIN = 0.25;

/** What the report needs of the estimate. */
export interface EstimateView {
  /** The estimate at the declared workload (plan.json's `serving`). */
  readonly atWorkload: ServingEstimate;
  /** The estimate of `layout` at `requestsPerSecond` arrivals (the rest of the workload unchanged). */
  at(layout: Layout, requestsPerSecond: number): EstimatePoint;
}

/** The estimate's numbers of one layout, with their ranges where the regime has validated ones, as an `EstimatePoint`. */
export function estimatePoint(e: ServingEstimate, layout: Layout): EstimatePoint {
  const aggregated = layout === Layout.Aggregated;
  const l = aggregated ? e.aggregated : e;
  const r = aggregated ? e.uncertainty.ranges.aggregated : e.uncertainty.ranges;
  const range = (x: readonly [number, number] | null) => (x ? { lo: x[0], hi: x[1] } : undefined);
  const ttftRange = range(r.ttftMs);
  const itlRange = range(r.itlMs);
  return {
    requestsPerSecond: l.requestsPerSecond,
    ttftMs: l.ttftMs,
    itlMs: l.itlMs,
    ...(ttftRange ? { ttftRange } : {}),
    ...(itlRange ? { itlRange } : {}),
  };
}

/** The estimate of a serving input at an open-loop rate; the same model the plan runs. */
function atRate(input: ServingInput, requestsPerSecond: number): ServingEstimate | { why: string } {
  const { concurrency: _closedLoop, ...rest } = input.workload;
  return servingEstimate({ ...input, workload: { ...rest, requestsPerSecond } });
}

/** The view of resolved stack settings, or why the render has no estimate for them. */
export function estimateView(r: ResolvedInference): EstimateView | { why: string } {
  const input = servingInputOf(inferencePlan(r), r.pool);
  if ("why" in input) return { why: `model ${r.model} has no known shape, so the render made no serving estimate` };
  const atWorkload = servingEstimate(input);
  if ("why" in atWorkload) return atWorkload;
  return {
    atWorkload,
    at(layout, rps) {
      const e = atRate(input, rps);
      if ("why" in e) return { requestsPerSecond: rps, ttftMs: null, itlMs: null };
      return { ...estimatePoint(e, layout), requestsPerSecond: rps };
    },
  };
}
