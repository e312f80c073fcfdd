/**
 * The summary that opens `plan.md`: what gets deployed, what it costs per hour and per day, the time to Ready (the
 * deploy; "TTFT" is only ever the serving estimate's first-token latency), what the serving estimate says, and what
 * to check before and after `pulumi up`. Every line
 * restates a number of a later section (which says how it was computed), so a reader who stops here decides on
 * the same numbers as one who reads on. Pure.
 */
import { policyTally, type PolicyRun } from "../../../policy/run";
import type { Plan } from "./plan";
import { table } from "../output/md-table";
import { idleNodesLine } from "./placement";

export const HOURS_PER_DAY = 24;

/** "$3,060" with `digits` decimals (the plan's and the docs' one way to write money). */
export const money = (usd: number, digits: number): string =>
  `$${usd.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })}`;

/** "2 x p5en.48xlarge (16 GPUs, 32 EFA rails) in us-east-2b". */
function hardwareLine(plan: Plan): string {
  const pools = plan.gpuPools.map(
    (p) =>
      `${p.nodes} x ${p.instanceType} (${p.nodes * p.gpusPerNode} GPUs, ${p.nodes * p.efaPerNode} EFA rails)${p.availabilityZone ? ` in ${p.availabilityZone}` : ""}`,
  );
  return pools.join("; ") || "no GPU pool";
}

/** "8 prefill x 1 GPU + 8 decode x 1 GPU, KV over LIBFABRIC (RDMA)". */
function servingLayoutLine(plan: Plan): string {
  const roles = plan.workers
    .filter((w) => w.gpusPerWorker > 0)
    .map((w) => `${w.replicas} ${w.role} x ${w.gpusPerWorker} GPU`);
  const kv = plan.kvTransport
    ? `, KV over ${plan.kvTransport.transport} (${plan.kvTransport.rdma ? "RDMA" : "TCP"})`
    : "";
  const model = plan.model ? `\`${plan.model.id}\`: ` : "";
  return `${model}${roles.join(" + ") || "no GPU worker"}${kv}`;
}

function timeLine(plan: Plan): string {
  const path = plan.criticalPathDetail;
  const steps = path.steps.filter((s) => s.minutes >= 1).map((s) => `${s.name} ~${s.minutes} min`);
  const idle =
    plan.gpuIdleMinutes !== undefined
      ? `; each GPU node is billed ~${plan.gpuIdleMinutes} min before its first worker loads`
      : "";
  return `~${path.minutes} min from an empty account to Ready (${steps.join(", ")})${idle}`;
}

function servingLine(plan: Plan): string {
  const s = plan.serving;
  if (!s) return plan.servingUnknown ?? "no estimate";
  const load = s.workload.declared ? "the declared workload" : "the default workload (set `inference.workload`)";
  // Each number with its validated range, or "not validated" where its regime has none (as the section says).
  const r = s.uncertainty.ranges;
  const span = (x: readonly [number, number] | null) => (x ? ` (${x[0]}-${x[1]})` : " (not validated)");
  const at =
    s.ttftMs === null || s.itlMs === null
      ? "the layout cannot keep up with the load"
      : `TTFT ~${s.ttftMs} ms${span(r.ttftMs)}, ITL ~${s.itlMs} ms${span(r.itlMs)}, ${s.requestsPerSecond} requests/s`;
  return `${at} at ${load}; see "Serving estimate"`;
}

/** What to look at before paying, and the command that checks the deployment after. */
function checkLines(plan: Plan, policy: PolicyRun, stack: string): string[] {
  const idle = idleNodesLine(plan.placement);
  const clean = policy.results.every((r) => r.passed);
  return [
    clean ? `- Policies: all ${policy.results.length} passed.` : `- Policies: ${policyTally(policy)}: see "Policies".`,
    ...(plan.gpus.requested < plan.gpus.provisioned
      ? [`- Capacity: ${plan.gpus.requested} of ${plan.gpus.provisioned} GPUs used: the rest is billed and idle.`]
      : []),
    ...(idle ? [`- ${idle}.`] : []),
    `- After \`pulumi up\`: \`npm run verify -- ${stack}\` checks the pods, the served model, the KV path and the latency.`,
  ];
}

/** The `## Summary` section. */
export function summaryMarkdown(plan: Plan, policy: PolicyRun): string[] {
  const perHour = plan.costPerHourUsd;
  return [
    "## Summary",
    "",
    table(
      ["", ""],
      [
        ["what", `${hardwareLine(plan)}; ${servingLayoutLine(plan)}`],
        ["cost", `~${money(perHour, 2)}/hour on demand, ~${money(perHour * HOURS_PER_DAY, 0)}/day (see "Cost")`],
        ["time to Ready", timeLine(plan)],
        ["serving estimate", servingLine(plan)],
      ],
    ),
    "",
    ...checkLines(plan, policy, plan.stack),
    "",
  ];
}
