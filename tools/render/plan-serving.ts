/**
 * The serving section of `plan.json` / `plan.md`: what the graph delivers for the declared workload (TTFT, ITL,
 * requests per second), what aggregated workers on the same GPUs would, whether disaggregation pays and the
 * prefill:decode split that balances the roles. Read from the rendered DynamoGraphDeployment the way the policy
 * reads it (policy/rules/_serving.ts), computed by components/inference/serving-estimate.ts. Pure.
 */
import type { GpuPoolFacts } from "../../components/catalog/pool";
import { PlanAnnotation } from "../../components/_shared/names";
import type { ServingEstimate, ServingLatency } from "../../components/inference/serving-estimate";
import { PREFILL_BATCH_TOKENS } from "../../components/inference/serving-load";
import { MAX_DECODE_BATCH } from "../../components/inference/serving";
import { graphServing } from "../../policy/rules/_serving";
import type { PlanDgd } from "../../policy/rules/_dgd";
import { annotationsOf } from "./dgd-inputs";
import { table } from "./md-table";
import type { PlanSourceResource } from "./plan-workers";

/** What `buildPlan` adds for serving: the estimate, or why there is none. */
export interface ServingPlanSection {
  readonly serving?: ServingEstimate;
  readonly servingUnknown?: string;
}

/** The serving section of the plan, from the rendered graph and the pools. */
export function servingPlan(
  dgds: readonly Pick<PlanSourceResource, "inputs" | "name">[],
  pools: readonly GpuPoolFacts[],
): ServingPlanSection {
  const dgd = dgds[0];
  if (!dgd) return {};
  const pool = pools.find((p) => p.name === annotationsOf(dgd)[PlanAnnotation.GpuPool]) ?? pools[0];
  const s = graphServing((dgd.inputs ?? {}) as PlanDgd, dgd.name, pool?.instanceType);
  return "why" in s ? { servingUnknown: s.why } : { serving: s };
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
