/**
 * `plan.md`: the plan for people, section by section in a fixed order; the sections written elsewhere
 * (`./md-sections.ts`, `./model.ts`) go into the slots named here. Pure.
 */
import { pairingLine } from "./pairing";
import type { Plan, PlanImage } from "./plan";
import type { KvWire } from "../../../components/inference/args";
import { table } from "../output/md-table";
import { modelMarkdown } from "./model";
import { servingMarkdown } from "./serving";
import { archListsOf, compileStageLines, PREBUILT_KERNELS_NOTE } from "../../../components/image/compile-stages";
import type { CudaToolkit } from "../../../components/catalog";
import * as versions from "../../../components/versions";
import { idleNodesLine } from "./placement";

/** Sections of `plan.md` written elsewhere (`./md-sections.ts`), by where they go. */
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
    "NIXL's LIBFABRIC plugin uses every EFA device a worker's pod is given; \"EFA rails used\" is the sum over workers. Which EFA devices each worker gets, and by what rule:",
    "",
    ...plan.workers
      .map(pairingLine)
      .filter((l): l is string => l !== undefined)
      .map((l) => `- ${l}`),
    "",
    ...placementLines(plan),
  ];
}

function placementLines(plan: Plan): string[] {
  const p = plan.placement;
  const roles = Object.entries(p.nodesByRole).map(([role, nodes]) => `${role} on ${nodes.join(", ")}`);
  const how =
    p.mode === "separate-nodes"
      ? "no node holds both roles (required pod anti-affinity between them; each role prefers the nodes it already holds)"
      : "roles may share a node";
  const idle = idleNodesLine(p);
  return [
    `Placement: ${how}; expected ${roles.join("; ") || "no GPU worker"} (${p.nodesUsed}/${p.nodesProvisioned} GPU nodes in use).`,
    "",
    ...(idle ? [`**${idle}.**`, ""] : []),
  ];
}

/** What the render cannot know: the digest a vendor tag names at `pulumi up`. */
const PLACEHOLDER_LINE =
  "- **the digest above is a placeholder** (all zeros): the render cannot reach the registry. `pulumi up` resolves the tag once and keeps the digest in the stack's state (ImageDigest); a tag pushed again is not taken until the release or tag changes, or `pulumi up --replace <the ImageDigest's URN>`";

function imageSection(plan: Plan): string[] {
  const { image } = plan;
  if (!image)
    return ["## Image", "", "- none: this stack serves no graph (each model stack on it deploys its own image)", ""];
  return [
    "## Image",
    "",
    `- CUDA archs: ${image.cudaArchs.join(", ")} (toolkit ${image.cudaToolkit})`,
    `- ${image.build ? "built by this stack" : "prebuilt, not built by this stack"}${image.ref ? `: \`${image.ref}\`` : ""}`,
    ...(image.digestPlaceholder ? [PLACEHOLDER_LINE] : []),
    ...(plan.frontendImage ? [`- Frontend: \`${plan.frontendImage.image}\`: ${plan.frontendImage.resolution}`] : []),
    ...pullLine(plan),
    ...compileStagesMarkdown(image),
    "",
  ];
}

/** What each GPU node pulls, from where, how big and how long (the GPU idle section's timeline). */
function pullLine(plan: Plan): string[] {
  const g = plan.gpuIdle;
  const pull = g?.timeline.find((s) => s.step === "serving image on node");
  if (!g || !pull) return [];
  const i = g.fleet.image;
  const mmss = `${Math.floor(pull.atSeconds / 60)}:${String(pull.atSeconds % 60).padStart(2, "0")}`;
  return [
    `- each GPU node pulls ${/[/:@]/.test(i.name) ? `\`${i.name}\`` : i.name} from ${i.registry}: ${i.size}; ~${mmss} (m:ss) at ${g.fleet.perNodeMBps} MB/s (see "GPU idle time")`,
  ];
}

/** For a build: each compile stage and the arch list it uses (from the image's archs, as the build derives them). */
function compileStagesMarkdown(image: PlanImage): string[] {
  const lists = image.build
    ? archListsOf(image.cudaArchs, image.cudaToolkit as CudaToolkit, versions.image.pytorchImageTag)
    : undefined;
  if (!lists) return [];
  return [
    "- compile stages and the arch list each uses:",
    ...compileStageLines(lists).map((l) => `  - \`${l.replace(/: /, "`: ")}`),
    `- ${PREBUILT_KERNELS_NOTE}.`,
  ];
}

function criticalPathSection(plan: Plan): string[] {
  const path = plan.criticalPathDetail;
  return [
    `## Critical path (~${path.minutes} min)`,
    "",
    "The dependency chain that takes longest to create (rough minutes per resource type, see `tools/render/plan/graph.ts`):",
    "",
    ...path.steps.map(
      (s, i) =>
        `${i + 1}. \`${s.name}\` (${s.type}, ~${s.minutes} min${s.budgetMinutes !== undefined ? `: node join -> Ready in the GPU idle timeline; its load and download budgets let it wait up to ~${s.budgetMinutes} min before the deploy fails` : ""})`,
    ),
    "",
  ];
}

/** A model stack's shared cluster, priced apart: what every model on the cluster shares, paid once. */
function sharedClusterMarkdown(plan: Plan): string[] {
  const sc = plan.sharedCluster;
  if (!sc) return [];
  return [
    `### Shared cluster: ~$${sc.usdPerHour.toFixed(2)}/hour, paid once by \`${sc.stack}\``,
    "",
    `This stack runs on the cluster \`${sc.clusterName}\` of the cluster stack \`${sc.stack}\`, which pays for its control plane and system nodes whatever the number of model stacks on it; the total above is this stack's own cost.`,
    "",
    table(
      ["item", "count", "$/h each", "$/h", "note"],
      sc.lines.map((l) => [l.item, l.count, l.usdPerHourEach ?? "?", l.usdPerHour ?? "?", l.note ?? ""]),
    ),
    "",
  ];
}

/** Minutes, to one decimal, of a wait in seconds. */
const minutes = (s: number) => `${Math.round(s / 6) / 10} min`;

/** What `pulumi up` waits for on the graph, in order, with the most each may take before the deploy fails. */
function upWaitsSection(plan: Plan): string[] {
  const waits = plan.pulumiUpWaits;
  if (waits.length === 0) return [];
  const total = waits.reduce((a, w) => a + w.seconds, 0);
  return [
    `## What \`pulumi up\` waits for (at most ~${minutes(total)} after the graph is sent)`,
    "",
    ...waits.flatMap((w, i) => [
      `${i + 1}. ${w.what}: \`${w.resource}\`, at most ${w.seconds} s (~${minutes(w.seconds)}); until ${w.until}.`,
      ...(w.steps ?? []).map((s) => `   - ${s.step}: ${s.seconds} s`),
    ]),
    "",
    ...(waits.length === 1
      ? [
          "The first-token check is off (`inference.firstTokenCheck.enabled: false`): a Ready graph is not proof that a token comes back.",
          "",
        ]
      : []),
  ];
}

function costSection(plan: Plan): string[] {
  const { cost } = plan;
  const unpriced = cost.regionPriced ? "" : ` The table has no prices for ${plan.region}; us-east-1 prices were used.`;
  return [
    `## Cost: ~$${plan.costPerHourUsd.toFixed(2)}/hour on demand${plan.sharedCluster ? " (this stack's own)" : ""}`,
    "",
    table(
      ["item", "count", "$/h each", "$/h", "note"],
      cost.lines.map((l) => [l.item, l.count, l.usdPerHourEach ?? "?", l.usdPerHour ?? "?", l.note ?? ""]),
    ),
    "",
    `Prices: ${cost.source}; reviewed ${cost.reviewed}.${unpriced} Storage, data transfer, NAT and load balancers are not included.`,
    "",
    ...sharedClusterMarkdown(plan),
    ...(prepaidLines(plan).length > 0
      ? [
          `The total leaves out ${prepaidLines(plan)
            .map((l) => l.item)
            .join(", ")}: a Capacity Block is prepaid up front for every hour of the block, used or not.`,
          "",
        ]
      : []),
  ];
}

/** Cost lines of Capacity Block pools: prepaid, so outside the on-demand total. */
export function prepaidLines(plan: Pick<Plan, "cost">): Plan["cost"]["lines"] {
  return plan.cost.lines.filter((l) => l.note?.startsWith("Capacity Block:"));
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
    ...upWaitsSection(plan),
    ...costSection(plan),
    ...(slots.resources ?? resourcesSection(plan)),
    ...(slots.end ?? []),
  ].join("\n");
}

/** The plan.md section on the KV transport: the backend and RDMA vs TCP. */
export function kvTransportMarkdown(kv: KvWire | undefined): string[] {
  if (!kv) return ["## KV transfer", "", "- no DynamoGraphDeployment records a KV transport", ""];
  return [
    "## KV transfer",
    "",
    `- NIXL backend: **${kv.transport}** (\`inference.kvTransport\`)`,
    `- KV moves over: **${kv.rdma ? "RDMA" : "TCP"}**: ${kv.description}`,
    "",
  ];
}
