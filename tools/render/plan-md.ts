/**
 * `plan.md`: the plan for people, section by section in a fixed order; the sections written elsewhere
 * (`./plan-md-sections.ts`, `./plan-model.ts`, `./transport.ts`) go into the slots named here. Pure.
 */
import type { Plan } from "./plan";
import { table } from "./md-table";
import { modelMarkdown } from "./plan-model";
import { servingMarkdown } from "./plan-serving";
import { kvTransportMarkdown } from "./transport";

/** Sections of `plan.md` written elsewhere (`./plan-md-sections.ts`), by where they go. */
export interface PlanMdSlots {
  readonly afterTitle?: readonly string[];
  readonly afterWorkers?: readonly string[];
  readonly afterImage?: readonly string[];
  /** Replaces the plain resource count. */
  readonly resources?: readonly string[];
  readonly end?: readonly string[];
}

function pct(a: number, b: number): string {
  return b === 0 ? "-" : `${Math.round((100 * a) / b)}%`;
}

function poolsSection(plan: Plan): string[] {
  const rows = plan.gpuPools.map((p) => [
    p.name,
    p.instanceType,
    p.nodes,
    p.gpusPerNode,
    p.efaPerNode,
    p.smArch,
    p.availabilityZone ?? "-",
  ]);
  return ["## GPU pools", "", table(["pool", "instance", "nodes", "GPUs/node", "EFA/node", "SM", "AZ"], rows), ""];
}

function workersSection(plan: Plan): string[] {
  const head = ["role", "service", "replicas", "GPUs/worker", "EFA/worker", "NIXL rails/worker"];
  const rows = plan.workers.map((w) => [w.role, w.service, w.replicas, w.gpusPerWorker, w.efaPerWorker, w.nixlRails]);
  return ["## Workers", "", table(head, rows), ""];
}

function capacitySection(plan: Plan): string[] {
  const { gpus, efaRails } = plan;
  return [
    "## Capacity",
    "",
    table(
      ["", "used", "provisioned", "use"],
      [
        ["GPUs", gpus.requested, gpus.provisioned, pct(gpus.requested, gpus.provisioned)],
        ["EFA rails", efaRails.used, efaRails.provisioned, pct(efaRails.used, efaRails.provisioned)],
      ],
    ),
    "",
    "NIXL's LIBFABRIC plugin uses every EFA device a worker's pod is given, aligned to its GPUs by the EFA device plugin; \"EFA rails used\" is the sum over workers.",
    "",
  ];
}

function imageSection(plan: Plan): string[] {
  const { image } = plan;
  return [
    "## Image",
    "",
    `- CUDA archs: ${image.cudaArchs.join(", ")} (toolkit ${image.cudaToolkit})`,
    `- ${image.build ? "built by this stack" : "prebuilt, not built by this stack"}${image.ref ? `: \`${image.ref}\`` : ""}`,
    "",
  ];
}

function criticalPathSection(plan: Plan): string[] {
  const path = plan.criticalPathDetail;
  return [
    `## Critical path (~${path.minutes} min)`,
    "",
    "The dependency chain that takes longest to create (rough minutes per resource type, see `tools/render/graph.ts`):",
    "",
    ...path.steps.map((s, i) => `${i + 1}. \`${s.name}\` (${s.type}, ~${s.minutes} min)`),
    "",
  ];
}

function costSection(plan: Plan): string[] {
  const { cost } = plan;
  const unpriced = cost.regionPriced ? "" : ` The table has no prices for ${plan.region}; us-east-1 prices were used.`;
  return [
    `## Cost: ~$${plan.costPerHourUsd.toFixed(2)}/hour on demand`,
    "",
    table(
      ["item", "count", "$/h each", "$/h", "note"],
      cost.lines.map((l) => [l.item, l.count, l.usdPerHourEach ?? "?", l.usdPerHour ?? "?", l.note ?? ""]),
    ),
    "",
    `Prices: ${cost.source}; reviewed ${cost.reviewed}.${unpriced} Storage, data transfer, NAT and load balancers are not included.`,
    "",
  ];
}

function resourcesSection(plan: Plan): string[] {
  const rows = Object.entries(plan.resources.byType).map(([t, n]) => [`\`${t}\``, n]);
  return [`## Resources (${plan.resources.total})`, "", table(["type", "count"], rows), ""];
}

/** `plan.md`: the same plan, for people. */
export function planMarkdown(plan: Plan, slots: PlanMdSlots = {}): string {
  return [
    `# Plan for stack \`${plan.stack}\` (${plan.region})`,
    "",
    ...(slots.afterTitle ?? []),
    ...poolsSection(plan),
    ...workersSection(plan),
    ...(slots.afterWorkers ?? []),
    ...modelMarkdown(plan),
    ...servingMarkdown(plan),
    ...capacitySection(plan),
    ...kvTransportMarkdown(plan.kvTransport),
    ...imageSection(plan),
    ...(slots.afterImage ?? []),
    ...criticalPathSection(plan),
    ...costSection(plan),
    ...(slots.resources ?? resourcesSection(plan)),
    ...(slots.end ?? []),
  ].join("\n");
}
