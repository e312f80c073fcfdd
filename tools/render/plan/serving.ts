/**
 * The serving section of `plan.json` / `plan.md`: what the graph delivers for the declared workload (TTFT, ITL,
 * requests per second), what aggregated workers on the same GPUs would, whether disaggregation pays and the
 * prefill:decode split that balances the roles. Computed by the serving wing (serving/) from the graph's plan
 * (`DisaggInference.plan`, turned into the estimate's input by `servingInputOf`, which verify and measure use too),
 * not parsed back from the rendered graph. Pure.
 */
import type { GpuPoolFacts } from "../../../components/catalog/pool";
import type { InferencePlan } from "../../../components/inference/plan";
import {
  type Range,
  type ServingEstimate,
  servingEstimate,
  servingInputOf,
  type ServingLatency,
} from "../../../serving";
import { table } from "../output/md-table";
import { planPool } from "./model";

/** What `buildPlan` adds for serving: the estimate, or why there is none. */
export interface ServingPlanSection {
  readonly serving?: ServingEstimate;
  readonly servingUnknown?: string;
}

/** The serving section of the plan, from the graph's plan and the pools. */
export function servingPlan(p: InferencePlan | undefined, pools: readonly GpuPoolFacts[]): ServingPlanSection {
  if (!p) return {};
  const pool = planPool(p, pools);
  if (!pool) return { servingUnknown: "the cluster has no GPU pool" };
  const input = servingInputOf(p, pool);
  if ("why" in input) return { servingUnknown: input.why };
  const e = servingEstimate(input);
  return "why" in e ? { servingUnknown: e.why } : { serving: e };
}

const ms = (v: number | null) => (v === null ? "saturated" : `${v}`);
/** A number's range; "not validated" where its regime has no band (and the number is the model's own). */
const span = (r: Range | null | undefined, v: number | null = null) =>
  r ? ` (${r[0]}-${r[1]})` : v === null ? "" : " (not validated)";
const load = (e: ServingEstimate) =>
  e.workload.requestsPerSecond !== undefined
    ? `${e.workload.requestsPerSecond} requests/s (open loop)`
    : `${e.workload.concurrency} requests in flight (closed loop)`;

function verdict(e: ServingEstimate): string {
  const u = e.uncertainty;
  const basis =
    e.workload.ttftMs !== undefined || e.workload.itlMs !== undefined ? "within the objectives" : "at the load";
  const gpus = e.aggregated.replicas * e.aggregated.gpusPerWorker;
  if (e.disaggGain === null)
    return e.winner === "disaggregated"
      ? `**Disaggregation pays for this workload**: aggregated workers on the same ${gpus} GPUs serve none of it ${basis}, the disaggregated graph ${e.tokensPerSecondPerGpu} tokens/s per GPU.`
      : `**Too close to call**: ${(u.settle ?? "neither layout serves this workload").replace(/\.?$/, ".")}`;
  // The table's requests/s are the model's; a gain shown corrected by its own validation bias says so.
  const band = u.bands.gain;
  const ofModel =
    band && u.model.disaggGain !== null
      ? `; the model's ${u.model.disaggGain} x the gain's validation bias ${band.bias}`
      : "";
  const range = u.ranges.disaggGain;
  const spanText = range ? ` (range ${range[0]}-${range[1]}${ofModel})` : " (not validated)";
  const gain = `disaggregated / aggregated requests/s ${basis} = ${e.disaggGain}${spanText}`;
  if (e.winner === "disaggregated") return `**Disaggregation pays for this workload**: ${gain}; the range excludes 1.`;
  if (e.winner === "aggregated")
    return `**Disaggregation does not pay for this workload**: aggregated workers on the same ${gpus} GPUs serve more (${gain}; the range excludes 1). Consider aggregated serving, or the split below.`;
  const settle = u.settle ? ` ${u.settle.replace(/\.?$/, ".")}` : "";
  return `**Too close to call**: ${gain}.${settle}`;
}

function objectivesLine(e: ServingEstimate): string[] {
  const w = e.workload;
  const parts = [
    ...(w.ttftMs !== undefined ? [`TTFT <= ${w.ttftMs} ms: ${e.objectives.ttft ? "met" : "MISSED"}`] : []),
    ...(w.itlMs !== undefined ? [`ITL <= ${w.itlMs} ms: ${e.objectives.itl ? "met" : "MISSED"}`] : []),
  ];
  return parts.length ? [`- Objectives: ${parts.join("; ")}`] : [];
}

const cells = (l: ServingLatency) => [ms(l.ttftMs), ms(l.ttftP90Ms), ms(l.itlMs), ms(l.itlP90Ms)];

function splitLine(e: ServingEstimate): string {
  const r = e.recommended;
  const nodes = `${r.nodes.prefill} + ${r.nodes.decode} = ${r.nodes.total} node(s) under separate-nodes`;
  const fit = r.fitsPool ? "fits the pool" : "needs more nodes than the pool has";
  return `- Balanced split on the same GPUs: ${r.prefill} prefill + ${r.decode} decode workers (${r.requestsPerSecond} requests/s through the slower role; ${nodes}, ${fit}). The ${e.bottleneck} role limits this graph's capacity.`;
}

function layoutTable(e: ServingEstimate): string {
  const { prefill, decode } = e.roles;
  const u = e.uncertainty.ranges;
  return table(
    [
      "layout",
      "workers",
      "requests/s served",
      "tokens/s per GPU",
      "TTFT ms mean",
      "TTFT P90",
      "ITL ms mean",
      "ITL P90",
    ],
    [
      [
        "disaggregated (this graph)",
        `${prefill.replicas} prefill x ${prefill.gpusPerWorker} GPU + ${decode.replicas} decode x ${decode.gpusPerWorker} GPU`,
        e.requestsPerSecond,
        `${e.tokensPerSecondPerGpu}${span(u.tokensPerSecondPerGpu, e.tokensPerSecondPerGpu)}`,
        `${ms(e.ttftMs)}${span(u.ttftMs, e.ttftMs)}`,
        `${ms(e.ttftP90Ms)}${span(u.ttftP90Ms, e.ttftP90Ms)}`,
        `${ms(e.itlMs)}${span(u.itlMs, e.itlMs)}`,
        `${ms(e.itlP90Ms)}${span(u.itlP90Ms, e.itlP90Ms)}`,
      ],
      [
        "aggregated, same GPUs",
        `${e.aggregated.replicas} x ${e.aggregated.gpusPerWorker} GPU`,
        e.aggregated.requestsPerSecond,
        `${e.aggregated.tokensPerSecondPerGpu}${span(u.aggregatedTokensPerSecondPerGpu, e.aggregated.tokensPerSecondPerGpu)}`,
        `${ms(e.aggregated.ttftMs)}${span(u.aggregated.ttftMs, e.aggregated.ttftMs)}`,
        `${ms(e.aggregated.ttftP90Ms)}${span(u.aggregated.ttftP90Ms, e.aggregated.ttftP90Ms)}`,
        `${ms(e.aggregated.itlMs)}${span(u.aggregated.itlMs, e.aggregated.itlMs)}`,
        `${ms(e.aggregated.itlP90Ms)}${span(u.aggregated.itlP90Ms, e.aggregated.itlP90Ms)}`,
      ],
    ],
  );
}

function uncertaintyLines(e: ServingEstimate): string[] {
  const u = e.uncertainty;
  const bands = Object.values(u.bands)
    .map((b) => `${b.quantity} x${b.bias}, range x${b.low}-${b.high} (${b.regime}, ${b.points} published points)`)
    .join("; ");
  const none = u.unvalidated.length
    ? ` Not validated in this regime (fewer than 3 published points; the model's own value, no range): ${u.unvalidated.join(", ")}.`
    : "";
  const chartTtft = u.curveBands.ttft
    ? `its TTFT by the open-loop band (x${u.curveBands.ttft.bias}, ${u.curveBands.ttft.points} published points)`
    : "its TTFT not validated for open-loop arrivals in this regime (the model's own)";
  return [
    `Each number with a range (in parentheses) is the model's value corrected by the mean bias of the published measurements of its regime (${u.regime}; docs/SERVING.md#validation), and the range is their lowest to highest published/estimated ratio around the model's value, so the number always lies inside it: ${bands || "none"}.${none} The chart below is of open-loop arrival rates: its ITL corrected as above, ${chartTtft}.`,
    "",
    ...(u.assumptions.length
      ? ["Assumptions this configuration extrapolates:", "", ...u.assumptions.map((a) => `- ${a}`), ""]
      : []),
  ];
}

/** The `plan.md` lines of the serving section. */
export function servingMarkdown(p: ServingPlanSection): string[] {
  if (p.servingUnknown) return ["## Serving estimate", "", `No estimate: ${p.servingUnknown}.`, ""];
  const e = p.serving;
  if (!e) return [];
  const w = e.workload;
  const { prefill, decode } = e.roles;
  const steps = Object.entries(decode.decodeStepMs).map(([b, v]) => `${b}: ${v}`);
  const kv = prefill.kvTransferMsRange
    ? `KV transfer ${prefill.kvTransferMs} ms expected, ${prefill.kvTransferMsRange[0]}-${prefill.kvTransferMsRange[1]} ms across the published UCX/TCP figures`
    : `KV transfer ${prefill.kvTransferMs} ms per request (the fit section's expected time for an ISL prompt)`;
  return [
    "## Serving estimate",
    "",
    `Workload${w.declared ? "" : " (the defaults: set inference.workload)"}: ISL ${w.isl}, OSL ${w.osl}, ${load(e)}. GPU rates: ${e.calibration.scaled ? "SCALED, not measured: " : ""}${e.calibration.basis}. Engine: ${e.engine.basis}.`,
    "",
    verdict(e),
    "",
    layoutTable(e),
    "",
    ...objectivesLine(e),
    `- Prefill worker: ${prefill.prefillMs} ms per ISL prompt; ${prefill.promptsPerForward} prompts per forward, ${prefill.requestsPerSecond} requests/s; ${kv}.`,
    `- Decode worker at context ${decode.contextTokens}: step ms by batch ${steps.join(", ")}; ${decode.maxBatch} requests at once (KV cache, at most the engine's ${e.engine.maxNumSeqs}); ${decode.tokensPerSecond} tokens/s, ${decode.requestsPerSecond} requests/s.`,
    splitLine(e),
    "",
    ...uncertaintyLines(e),
    "TTFT and ITL (ms, mean and P90; a P90 below the mean is a wait most requests never have) against the arrival rate:",
    "",
    table(
      ["requests/s", "disagg TTFT", "P90", "disagg ITL", "P90", "agg TTFT", "P90", "agg ITL", "P90"],
      e.curve.map((c) => [c.requestsPerSecond, ...cells(c.disaggregated), ...cells(c.aggregated)]),
    ),
    "",
    `Estimated, not measured: prefill and decode from GEMM, attention and decode-step rates measured on an H200 (docs/SERVING.md), the engine's own batch limits, prefill queues M/D/c with P50/P90 from its tail, closed loops queuing half their waves, aggregated chunked prefill sharing the decode steps. \`npm run verify\` compares the measured TTFT and ITL with these numbers.`,
    "",
  ];
}
