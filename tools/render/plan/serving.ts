/**
 * The serving section of `plan.json` / `plan.md`: what the graph delivers for the declared workload (TTFT, ITL,
 * requests per second), what aggregated workers on the same GPUs would, whether disaggregation pays and the
 * prefill:decode split that balances the roles. Computed by components/inference/serving.ts from the
 * graph's plan (`DisaggInference.plan`, turned into the estimate's input by `servingInputOf`, which verify uses
 * too), not parsed back from the rendered graph; the policy `serving-estimate-meets-workload` reads whatever graph
 * it is given into the same input (policy/rules/_serving.ts). Pure.
 */
import type { GpuPoolFacts } from "../../../components/catalog/pool";
import { InferencePlan, servingInputOf } from "../../../components/inference/plan";
import {
  ServingEstimate,
  servingEstimate,
  ServingLatency,
  PREFILL_BATCH_TOKENS,
} from "../../../components/inference/serving";
import { MAX_DECODE_BATCH } from "../../../components/inference/worker-speed";
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
const load = (e: ServingEstimate) =>
  e.workload.requestsPerSecond !== undefined
    ? `${e.workload.requestsPerSecond} requests/s (open loop)`
    : `${e.workload.concurrency} requests in flight (closed loop)`;

function verdict(e: ServingEstimate): string {
  const gain = e.disaggGain === null ? "aggregated serves none of it" : `disaggregated / aggregated = ${e.disaggGain}`;
  const basis =
    e.workload.ttftMs !== undefined || e.workload.itlMs !== undefined ? "within the objectives" : "at the load";
  if (e.winner === "disaggregated") return `**Disaggregation pays for this workload**: ${gain} requests/s ${basis}.`;
  if (e.winner === "even")
    return `**Disaggregation does not pay for this workload**: the two layouts are even (${gain} requests/s ${basis}); aggregated workers are simpler and need no KV transfer.`;
  return `**Disaggregation does not pay for this workload**: aggregated workers on the same ${e.aggregated.replicas * e.aggregated.gpusPerWorker} GPUs serve more (${gain} requests/s ${basis}). Consider aggregated serving, or the split below.`;
}

function objectivesLine(e: ServingEstimate): string[] {
  const w = e.workload;
  const parts = [
    ...(w.ttftMs !== undefined ? [`TTFT <= ${w.ttftMs} ms: ${e.objectives.ttft ? "met" : "MISSED"}`] : []),
    ...(w.itlMs !== undefined ? [`ITL <= ${w.itlMs} ms: ${e.objectives.itl ? "met" : "MISSED"}`] : []),
  ];
  return parts.length ? [`- Objectives: ${parts.join("; ")}`] : [];
}

const cells = (l: ServingLatency) => [ms(l.ttftMs), ms(l.itlMs)];

/** The `plan.md` lines of the serving section. */
export function servingMarkdown(p: ServingPlanSection): string[] {
  if (p.servingUnknown) return ["## Serving estimate", "", `No estimate: ${p.servingUnknown}.`, ""];
  const e = p.serving;
  if (!e) return [];
  const w = e.workload;
  const { prefill, decode } = e.roles;
  const steps = Object.entries(decode.decodeStepMs).map(([b, v]) => `${b}: ${v}`);
  return [
    "## Serving estimate",
    "",
    `Workload${w.declared ? "" : " (the defaults: set inference.workload)"}: ISL ${w.isl}, OSL ${w.osl}, ${load(e)}. GPU rates: ${e.calibration.scaled ? "SCALED, not measured: " : ""}${e.calibration.basis}.`,
    "",
    verdict(e),
    "",
    table(
      ["layout", "workers", "requests/s served", "capacity requests/s", "TTFT ms", "ITL ms"],
      [
        [
          "disaggregated (this graph)",
          `${prefill.replicas} prefill x ${prefill.gpusPerWorker} GPU + ${decode.replicas} decode x ${decode.gpusPerWorker} GPU`,
          e.requestsPerSecond,
          e.capacityRequestsPerSecond,
          ...cells(e),
        ],
        [
          "aggregated, same GPUs",
          `${e.aggregated.replicas} x ${e.aggregated.gpusPerWorker} GPU`,
          e.aggregated.requestsPerSecond,
          e.aggregated.capacityRequestsPerSecond,
          ...cells(e.aggregated),
        ],
      ],
    ),
    "",
    ...objectivesLine(e),
    `- Prefill worker: ${prefill.prefillMs} ms per ISL prompt; ${prefill.promptsPerForward} prompts per forward, ${prefill.requestsPerSecond} requests/s; KV transfer ${prefill.kvTransferMs} ms per request (the fit section's expected time for an ISL prompt).`,
    `- Decode worker at context ${decode.contextTokens}: step ms by batch ${steps.join(", ")}; KV cache holds ${decode.maxBatch} requests; ${decode.tokensPerSecond} tokens/s, ${decode.requestsPerSecond} requests/s.`,
    `- Balanced split on the same GPUs: ${e.recommended.prefill} prefill + ${e.recommended.decode} decode workers (${e.recommended.requestsPerSecond} requests/s through the slower role).`,
    "",
    "TTFT and ITL (ms) against the arrival rate:",
    "",
    table(
      ["requests/s", "disagg TTFT", "disagg ITL", "agg TTFT", "agg ITL"],
      e.curve.map((c) => [c.requestsPerSecond, ...cells(c.disaggregated), ...cells(c.aggregated)]),
    ),
    "",
    `Estimated, not measured: prefill and decode from GEMM, attention and decode-step rates measured on an H200 (docs/SERVING.md), prompts batched to ${PREFILL_BATCH_TOKENS} tokens per forward, at most ${MAX_DECODE_BATCH} sequences per decode worker, prefill queues M/D/c, aggregated prefill stalling decode steps. \`npm run verify\` compares the measured TTFT and ITL with these numbers.`,
    "",
  ];
}
