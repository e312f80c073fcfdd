/**
 * How far the serving estimate can be off, from its own validation: each number of `plan.json` `serving` is the
 * model's value corrected by the mean bias of its regime's validation points (published / predicted, geometric
 * mean) and shown with the range those points' lowest and highest ratios put around the model's value
 * (serving/bands.json, written by serving/validation.ts; docs/SERVING.md lists the points), so the number shown
 * always lies inside its range. A regime with too few validation points for a quantity gets no range and says so,
 * never another regime's band. Also the assumptions this configuration extrapolates, and the verdict on
 * disaggregation that the gain's range supports. Pure.
 */
import errors from "./bands.json";
import ucxFacts from "./facts/dynamo-ucx-kv.json";

/** A range [low, high] around an estimate. */
export type Range = readonly [number, number];

/** The verdict on disaggregation: only a gain range that excludes 1 decides. */
export type Verdict = "disaggregated" | "aggregated" | "too close to call";

/** What a range is taken for. */
export type Quantity = "throughput" | "ttft" | "itl" | "gain";

/** The published/predicted ratios of one regime and quantity in the validation set. */
export interface ErrorBand {
  readonly regime: string;
  readonly quantity: Quantity;
  readonly points: number;
  /** Lowest and highest published / predicted ratio: the true value lies in predicted x [low, high]. */
  readonly low: number;
  readonly high: number;
  /** Geometric mean of published / predicted: the factor the shown number is corrected by. */
  readonly bias: number;
  readonly meanAbsError: number;
}

/** The regime of a worker for the error bands: dense or MoE, and TP 1-2 or 4-8. */
export function regimeOf(r: { readonly moe: boolean; readonly tp: number }): string {
  return `${r.moe ? "MoE" : "dense"} TP${r.tp <= 2 ? "1-2" : "4-8"}`;
}

/**
 * How requests arrive, which TTFT's error depends on most: one at a time (no queue), a closed loop of several (its
 * waves queue prompts together), or an open loop (Poisson arrivals).
 */
export type Load = "1 in flight" | "closed loop" | "open loop";

/** The load of a workload: its concurrency or its arrival rate. */
export function loadOf(w: { readonly requestsPerSecond?: number; readonly concurrency?: number }): Load {
  if (w.requestsPerSecond !== undefined) return "open loop";
  return (w.concurrency ?? 1) > 1 ? "closed loop" : "1 in flight";
}

/** The regime TTFT's band is keyed by: the worker's regime and the load. */
export const ttftRegime = (regime: string, load: Load) => `${regime}, ${load}`;

const BANDS = errors.bands as readonly ErrorBand[];
/** Fewer validation points than this in a regime: no range for the quantity (the plan says it is not validated). */
export const MIN_POINTS = 3;

/** The band for a regime and quantity when its own validation has at least `MIN_POINTS` points; none otherwise. */
export function bandFor(regime: string, q: Quantity, bands: readonly ErrorBand[] = BANDS): ErrorBand | undefined {
  const own = bands.find((b) => b.regime === regime && b.quantity === q);
  return own && own.points >= MIN_POINTS ? own : undefined;
}

/** A model value corrected by its band's bias (the model's value where the regime has no band). */
export function corrected(v: number, b: ErrorBand | undefined): number {
  return b ? v * b.bias : v;
}

const UCX = ucxFacts.facts;
/** KV bytes of the published TCP case (Llama-3.1-8B, bf16 KV: 32 layers x 8 KV heads x 128 x 2 (K, V) x 2 bytes). */
const TCP_CASE_BYTES = UCX.tcpTtfCase.isl * 32 * 8 * 128 * 2 * 2;

/**
 * The span of published figures for moving `bytes` of KV over UCX/TCP: from the guide's best UCX rate to its
 * ~98 s TTFT case scaled by bytes (the case's TTFT less its EFA TTFT, all of it charged to the transfer).
 */
export function ucxKvRangeMs(bytes: number): Range {
  const best = (bytes / (UCX.ucxAcrossNodesGBs.high * 1e9)) * 1000;
  const worst = ((UCX.tcpTtfCase.ttftMsTcp - UCX.tcpTtfCase.ttftMsEfa) * bytes) / TCP_CASE_BYTES;
  return [best, Math.max(best, worst)];
}

/** What the uncertainty is computed from. */
export interface UncertaintyInput {
  readonly moe: boolean;
  readonly tp: number;
  readonly fp8Weights: boolean;
  readonly fp8Kv: boolean;
  readonly scaledGpu: boolean;
  readonly statedShape: boolean;
  readonly maxBatch: number;
  /** How requests arrive (TTFT's band depends on it, and a closed loop's waves). */
  readonly load: Load;
  readonly kv: { readonly ms: number; readonly range?: Range };
  readonly values: {
    readonly ttftMs: number | null;
    readonly itlMs: number | null;
    readonly ttftP90Ms: number | null;
    readonly itlP90Ms: number | null;
    readonly tokensPerSecondPerGpu: number;
    readonly aggregatedTokensPerSecondPerGpu: number;
    readonly disaggGain: number | null;
    readonly aggregated: Pick<UncertaintyInput["values"], "ttftMs" | "itlMs" | "ttftP90Ms" | "itlP90Ms">;
  };
}

/** `plan.json` `serving.uncertainty`. */
export interface Uncertainty {
  /** The regime whose validation errors give the ranges. */
  readonly regime: string;
  readonly bands: Readonly<Partial<Record<Quantity, ErrorBand>>>;
  /**
   * The bands of the chart (`curve`): its points are open-loop arrival rates, so its TTFT takes the regime's open-loop
   * band (none when that is not validated, whatever the declared load's), its ITL the regime's.
   */
  readonly curveBands: Readonly<Partial<Record<"ttft" | "itl", ErrorBand>>>;
  readonly ranges: {
    readonly ttftMs: Range | null;
    readonly itlMs: Range | null;
    readonly ttftP90Ms: Range | null;
    readonly itlP90Ms: Range | null;
    readonly tokensPerSecondPerGpu: Range | null;
    readonly aggregatedTokensPerSecondPerGpu: Range | null;
    readonly disaggGain: Range | null;
    /** The aggregated layout's latencies (no KV transfer). */
    readonly aggregated: {
      readonly ttftMs: Range | null;
      readonly itlMs: Range | null;
      readonly ttftP90Ms: Range | null;
      readonly itlP90Ms: Range | null;
    };
  };
  /** The quantities this regime has no validated range for (fewer than `MIN_POINTS` published points). */
  readonly unvalidated: readonly Quantity[];
  /** The model's own values, before the regime's bias correction (the ranges are drawn around them). */
  readonly model: UncertaintyInput["values"];
  /** What this configuration extrapolates beyond the measurements. */
  readonly assumptions: readonly string[];
  readonly verdict: Verdict;
  /** When too close to call: what would settle it. */
  readonly settle?: string;
}

const r3 = (n: number) => (n >= 100 ? Math.round(n * 10) / 10 : Math.round(n * 1000) / 1000);
const around = (v: number | null, b: ErrorBand | undefined, shift: Range = [0, 0]): Range | null =>
  v === null || b === undefined ? null : [r3(Math.max(0, v * b.low + shift[0])), r3(v * b.high + shift[1])];

/** What this configuration takes beyond what was measured or validated. */
function assumptionsOf(u: UncertaintyInput): string[] {
  const out: string[] = [];
  if (u.scaledGpu) out.push("GPU rates scaled from the H200 measurements by datasheet ratios");
  if (u.fp8Weights)
    out.push("FP8 GEMM at the rate measured with torch._scaled_mm (per-tensor scales), not an engine's kernels");
  if (u.fp8Kv)
    out.push("FP8 KV cache priced as half the bytes at the measured bf16 KV read rate (no FP8-KV attention measured)");
  if (u.maxBatch > 1024)
    out.push(`decode batch up to ${u.maxBatch}: step overhead beyond the measured 1024 held at its batch-1024 value`);
  if (u.tp > 1) out.push("TP all-reduce at the engine's published H100 custom all-reduce latency (sglang PR #2904)");
  if (u.moe)
    out.push(
      "MoE: expected distinct experts per batch, tensor parallel only (no attention data-parallel or expert parallel)",
    );
  if (u.statedShape) out.push("model shape stated, not from the catalog: every parameter taken as a GEMM parameter");
  if (u.load === "closed loop")
    out.push(
      "closed loop: half of its waves queue (a prompt waits for those of its wave ahead of it); engines break waves up in part, NIM's 8B set queued nearly all, its 70B set hardly any (docs/SERVING.md#the-model)",
    );
  if (u.kv.range)
    out.push("KV over UCX/TCP: the transfer time spans the published figures (kvTransferMsRange), not one rate");
  return out;
}

const MEASURE_BOTH =
  '("npm run measure -- <stack> --twin": the aggregated twin and the AIPerf benchmark) and compare tokens/s per GPU within the objectives';

/**
 * The verdict the gain's validated range supports: no gain (aggregated serves none) means disaggregation pays if it
 * serves any; a gain without a validated range in this regime decides nothing.
 */
function verdictOf(
  gainValue: number | null,
  gain: Range | null,
  regime: string,
  disagg: number,
): Pick<Uncertainty, "verdict" | "settle"> {
  if (gainValue !== null && gain === null)
    return {
      verdict: "too close to call",
      settle: `The gain has no validated range for ${regime} (fewer than ${MIN_POINTS} published disaggregated/aggregated pairs): measure both layouts on this stack at this workload ${MEASURE_BOTH}`,
    };
  if (gain === null)
    return disagg > 0
      ? { verdict: "disaggregated" }
      : {
          verdict: "too close to call",
          settle: "neither layout serves this workload within its objectives: relax them or add GPUs",
        };
  if (gain[0] > 1) return { verdict: "disaggregated" };
  if (gain[1] < 1) return { verdict: "aggregated" };
  return {
    verdict: "too close to call",
    settle: `The gain's range (${gain[0]}-${gain[1]}) includes 1: measure both layouts on this stack at this workload ${MEASURE_BOTH}`,
  };
}

/** The uncertainty of one estimate. */
export function uncertaintyOf(u: UncertaintyInput): Uncertainty {
  const regime = regimeOf(u);
  const bands = {
    throughput: bandFor(regime, "throughput"),
    ttft: bandFor(ttftRegime(regime, u.load), "ttft"),
    itl: bandFor(regime, "itl"),
    gain: bandFor(regime, "gain"),
  };
  const v = u.values;
  const kvShift: Range = u.kv.range ? [u.kv.range[0] - u.kv.ms, u.kv.range[1] - u.kv.ms] : [0, 0];
  const gain = around(v.disaggGain, bands.gain);
  const defined = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, b]) => b !== undefined));
  return {
    regime,
    bands: defined(bands),
    curveBands: defined({ ttft: bandFor(ttftRegime(regime, "open loop"), "ttft"), itl: bands.itl }),
    unvalidated: (Object.keys(bands) as Quantity[]).filter((q) => bands[q] === undefined),
    model: v,
    ranges: {
      ttftMs: around(v.ttftMs, bands.ttft, kvShift),
      itlMs: around(v.itlMs, bands.itl),
      ttftP90Ms: around(v.ttftP90Ms, bands.ttft, kvShift),
      itlP90Ms: around(v.itlP90Ms, bands.itl),
      tokensPerSecondPerGpu: around(v.tokensPerSecondPerGpu, bands.throughput),
      aggregatedTokensPerSecondPerGpu: around(v.aggregatedTokensPerSecondPerGpu, bands.throughput),
      disaggGain: gain,
      aggregated: {
        ttftMs: around(v.aggregated.ttftMs, bands.ttft),
        itlMs: around(v.aggregated.itlMs, bands.itl),
        ttftP90Ms: around(v.aggregated.ttftP90Ms, bands.ttft),
        itlP90Ms: around(v.aggregated.itlP90Ms, bands.itl),
      },
    },
    assumptions: assumptionsOf(u),
    ...verdictOf(v.disaggGain, gain, regime, v.tokensPerSecondPerGpu),
  };
}
