/**
 * `plan.json` and `plan.md`: the deployment at a glance — GPU pools, workers per role, GPUs and EFA
 * rails requested vs provisioned, the critical path and a rough $/hour. Pure.
 *
 * Workers are read from the rendered DynamoGraphDeployment (what would really be applied), pools
 * from the cluster's plain `GpuPoolFacts`, so a mismatch between the two shows up here.
 */
import type { GpuPoolFacts } from "../../components/catalog/pool";
import { OperatorLabel } from "../../components/_shared/names";
import { DGD_TYPE_TOKEN, EFA_RESOURCE } from "../../components/inference/dgd-types";
import { CriticalPath } from "./graph";
import { kvTransportMarkdown, kvTransportOf, PlanKvTransport } from "./transport";
import { ModelPlanSection, modelMarkdown, modelPlan } from "./plan-model";
import {
  CostLine,
  EKS_CLUSTER_USD_PER_HOUR,
  instanceLine,
  PRICE_SOURCE,
  PRICED_REGIONS,
  PRICES_REVIEWED,
  totalUsdPerHour,
} from "./prices";

/** One GPU pool in the plan. */
export interface PlanPool {
  readonly name: string;
  readonly instanceType: string;
  readonly nodes: number;
  readonly gpusPerNode: number;
  readonly efaPerNode: number;
  readonly smArch: string;
  readonly availabilityZone?: string;
}

/** One service of the graph. */
export interface PlanWorker {
  readonly role: string;
  readonly service: string;
  readonly replicas: number;
  readonly gpusPerWorker: number;
  readonly efaPerWorker: number;
  /** EFA rails NIXL uses per worker: every EFA device the pod is given (docs/FIELD-FAILURES.md#f13). */
  readonly nixlRails: number;
  /** Requests of one worker's pod, as rendered: CPU cores, memory and 2 MiB hugepages (Kubernetes quantities). */
  readonly cpu: string;
  readonly memory: string;
  readonly hugepages2Mi: string;
  /** Services this worker never shares a node with (its required pod anti-affinity). */
  readonly avoids: readonly string[];
}

/** The plan. */
export interface Plan extends ModelPlanSection {
  readonly stack: string;
  readonly region: string;
  readonly gpuPools: readonly PlanPool[];
  readonly workers: readonly PlanWorker[];
  readonly gpus: { readonly requested: number; readonly provisioned: number };
  readonly efaRails: { readonly used: number; readonly provisioned: number };
  /** NIXL backend for KV cache and whether it moves over RDMA or TCP. */
  readonly kvTransport?: PlanKvTransport;
  readonly image: {
    readonly cudaArchs: readonly string[];
    readonly cudaToolkit: string;
    readonly ref?: string;
    readonly build: boolean;
  };
  readonly criticalPath: readonly string[];
  readonly criticalPathDetail: CriticalPath;
  readonly resources: { readonly total: number; readonly byType: Readonly<Record<string, number>> };
  readonly costPerHourUsd: number;
  readonly cost: {
    readonly lines: readonly CostLine[];
    readonly source: string;
    readonly reviewed: string;
    readonly regionPriced: boolean;
  };
}

/** The fields of a captured resource the plan reads. */
export interface PlanSourceResource {
  readonly urn: string;
  readonly type: string;
  readonly name: string;
  readonly inputs: Record<string, unknown>;
  readonly propertyDependencies: Readonly<Record<string, readonly string[]>>;
}

/** What the plan is computed from. */
export interface PlanInput {
  readonly stack: string;
  readonly region: string;
  readonly pools: readonly GpuPoolFacts[];
  readonly image: Plan["image"];
  readonly resources: readonly PlanSourceResource[];
  readonly criticalPath: CriticalPath;
}

type Obj = Record<string, any>;

function num(v: unknown): number {
  const n = typeof v === "string" ? Number(v) : typeof v === "number" ? v : 0;
  return Number.isFinite(n) ? n : 0;
}

/** A service's CPU, memory and hugepages requests, and the services its required anti-affinity keeps off its node. */
function podRequests(s: Obj): Pick<PlanWorker, "cpu" | "memory" | "hugepages2Mi" | "avoids"> {
  const req = (s.resources?.requests ?? {}) as Obj;
  const terms = (s.extraPodSpec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ??
    []) as Obj[];
  const avoids = terms
    .map((t) => t.labelSelector?.matchLabels?.[OperatorLabel.Component])
    .filter((x): x is string => typeof x === "string");
  return {
    cpu: String(req.cpu ?? "-"),
    memory: String(req.memory ?? "-"),
    hugepages2Mi: String(req.custom?.["hugepages-2Mi"] ?? "-"),
    avoids,
  };
}

/** Workers of every DGD, in role order (frontend, prefill, decode, others). */
export function workersOf(resources: PlanInput["resources"]): PlanWorker[] {
  const order = ["frontend", "prefill", "decode"];
  const out: PlanWorker[] = [];
  for (const dgd of resources.filter((r) => r.type === DGD_TYPE_TOKEN)) {
    const services = ((dgd.inputs.spec as Obj | undefined)?.services ?? {}) as Obj;
    for (const [service, s] of Object.entries(services)) {
      const limits = (s.resources?.limits ?? {}) as Obj;
      const efa = num(limits.custom?.[EFA_RESOURCE]);
      out.push({
        role: String(s.subComponentType ?? s.componentType ?? service),
        service,
        replicas: num(s.replicas ?? 1),
        gpusPerWorker: num(limits.gpu),
        efaPerWorker: efa,
        nixlRails: efa,
        ...podRequests(s),
      });
    }
  }
  const rank = (r: string) => (order.indexOf(r) < 0 ? order.length : order.indexOf(r));
  return out.sort((a, b) => rank(a.role) - rank(b.role) || a.service.localeCompare(b.service));
}

function costLines(input: PlanInput): CostLine[] {
  const lines = input.pools.map((p) => instanceLine(`GPU pool ${p.name}`, p.instanceType, p.nodes));
  const gpuTypes = new Set(input.pools.map((p) => p.instanceType));
  const byUrn = new Map(input.resources.map((r) => [r.urn, r]));
  for (const ng of input.resources.filter((r) => r.type === "aws:eks/nodeGroup:NodeGroup")) {
    // The instance type is on the node group, or (with a custom launch template) on the template.
    const lt = (ng.propertyDependencies.launchTemplate ?? [])
      .map((u) => byUrn.get(u))
      .find((r) => r?.type === "aws:ec2/launchTemplate:LaunchTemplate");
    const fromLt = typeof lt?.inputs.instanceType === "string" ? [lt.inputs.instanceType] : [];
    const types = (ng.inputs.instanceTypes as string[] | null | undefined) ?? fromLt;
    const size = num((ng.inputs.scalingConfig as Obj | undefined)?.desiredSize);
    if (types.length > 0 && !types.some((t) => gpuTypes.has(t)))
      lines.push(instanceLine(`node group ${ng.name}`, types[0], size));
  }
  const clusters = input.resources.filter(
    (r) => r.type === "eks:index:Cluster" || r.type === "aws:eks/cluster:Cluster",
  ).length;
  if (clusters > 0)
    lines.push({
      item: "EKS control plane",
      count: clusters,
      usdPerHourEach: EKS_CLUSTER_USD_PER_HOUR,
      usdPerHour: EKS_CLUSTER_USD_PER_HOUR * clusters,
    });
  return lines;
}

const kvOf = (input: PlanInput) => kvTransportOf(input.resources);

/** Builds the plan. */
export function buildPlan(input: PlanInput): Plan {
  const workers = workersOf(input.resources);
  const byType: Record<string, number> = {};
  for (const r of input.resources) byType[r.type] = (byType[r.type] ?? 0) + 1;
  const lines = costLines(input);
  return {
    stack: input.stack,
    region: input.region,
    gpuPools: input.pools.map((p) => ({
      name: p.name,
      instanceType: p.instanceType,
      nodes: p.nodes,
      gpusPerNode: p.gpusPerNode,
      efaPerNode: p.efaPerNode,
      smArch: p.smArch,
      ...(p.availabilityZone ? { availabilityZone: p.availabilityZone } : {}),
    })),
    workers,
    ...modelPlan(
      input.resources.filter((r) => r.type === DGD_TYPE_TOKEN),
      input.pools,
    ),
    gpus: {
      requested: workers.reduce((s, w) => s + w.replicas * w.gpusPerWorker, 0),
      provisioned: input.pools.reduce((s, p) => s + p.nodes * p.gpusPerNode, 0),
    },
    efaRails: {
      used: workers.reduce((s, w) => s + w.replicas * w.efaPerWorker, 0),
      provisioned: input.pools.reduce((s, p) => s + p.nodes * p.efaPerNode, 0),
    },
    ...(kvOf(input) ? { kvTransport: kvOf(input) } : {}),
    image: input.image,
    criticalPath: input.criticalPath.steps.map((s) => s.name),
    criticalPathDetail: input.criticalPath,
    resources: {
      total: input.resources.length,
      byType: Object.fromEntries(Object.entries(byType).sort(([a], [b]) => a.localeCompare(b))),
    },
    costPerHourUsd: totalUsdPerHour(lines),
    cost: {
      lines,
      source: PRICE_SOURCE,
      reviewed: PRICES_REVIEWED,
      regionPriced: PRICED_REGIONS.includes(input.region),
    },
  };
}

/** A Markdown table. */
export function table(head: string[], rows: (string | number)[][]): string {
  return [
    `| ${head.join(" | ")} |`,
    `|${head.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ].join("\n");
}

function pct(a: number, b: number): string {
  return b === 0 ? "-" : `${Math.round((100 * a) / b)}%`;
}

/** Sections of `plan.md` written elsewhere (`./plan-md-sections.ts`), by where they go. */
export interface PlanMdSlots {
  readonly afterTitle?: readonly string[];
  readonly afterWorkers?: readonly string[];
  readonly afterImage?: readonly string[];
  /** Replaces the plain resource count. */
  readonly resources?: readonly string[];
  readonly end?: readonly string[];
}

/** `plan.md`: the same plan, for people. */
export function planMarkdown(plan: Plan, slots: PlanMdSlots = {}): string {
  const out = [`# Plan for stack \`${plan.stack}\` (${plan.region})`, "", ...(slots.afterTitle ?? [])];
  out.push(
    "## GPU pools",
    "",
    table(
      ["pool", "instance", "nodes", "GPUs/node", "EFA/node", "SM", "AZ"],
      plan.gpuPools.map((p) => [
        p.name,
        p.instanceType,
        p.nodes,
        p.gpusPerNode,
        p.efaPerNode,
        p.smArch,
        p.availabilityZone ?? "-",
      ]),
    ),
    "",
  );
  out.push(
    "## Workers",
    "",
    table(
      ["role", "service", "replicas", "GPUs/worker", "EFA/worker", "NIXL rails/worker"],
      plan.workers.map((w) => [w.role, w.service, w.replicas, w.gpusPerWorker, w.efaPerWorker, w.nixlRails]),
    ),
    "",
    ...(slots.afterWorkers ?? []),
  );
  out.push(...modelMarkdown(plan));
  out.push(
    "## Capacity",
    "",
    table(
      ["", "used", "provisioned", "use"],
      [
        ["GPUs", plan.gpus.requested, plan.gpus.provisioned, pct(plan.gpus.requested, plan.gpus.provisioned)],
        [
          "EFA rails",
          plan.efaRails.used,
          plan.efaRails.provisioned,
          pct(plan.efaRails.used, plan.efaRails.provisioned),
        ],
      ],
    ),
    "",
    "NIXL's LIBFABRIC plugin uses every EFA device a worker's pod is given, aligned to its GPUs by the EFA device plugin; \"EFA rails used\" is the sum over workers.",
    "",
  );
  out.push(...kvTransportMarkdown(plan.kvTransport));
  out.push(
    "## Image",
    "",
    `- CUDA archs: ${plan.image.cudaArchs.join(", ")} (toolkit ${plan.image.cudaToolkit})`,
    `- ${plan.image.build ? "built by this stack" : "prebuilt, not built by this stack"}${plan.image.ref ? `: \`${plan.image.ref}\`` : ""}`,
    "",
    ...(slots.afterImage ?? []),
  );
  out.push(
    `## Critical path (~${plan.criticalPathDetail.minutes} min)`,
    "",
    "The dependency chain that takes longest to create (rough minutes per resource type, see `tools/render/graph.ts`):",
    "",
    ...plan.criticalPathDetail.steps.map((s, i) => `${i + 1}. \`${s.name}\` (${s.type}, ~${s.minutes} min)`),
    "",
  );
  out.push(
    `## Cost: ~$${plan.costPerHourUsd.toFixed(2)}/hour on demand`,
    "",
    table(
      ["item", "count", "$/h each", "$/h", "note"],
      plan.cost.lines.map((l) => [l.item, l.count, l.usdPerHourEach ?? "?", l.usdPerHour ?? "?", l.note ?? ""]),
    ),
    "",
    `Prices: ${plan.cost.source}; reviewed ${plan.cost.reviewed}.${plan.cost.regionPriced ? "" : ` The table has no prices for ${plan.region}; us-east-1 prices were used.`} Storage, data transfer, NAT and load balancers are not included.`,
    "",
  );
  out.push(
    ...(slots.resources ?? [
      `## Resources (${plan.resources.total})`,
      "",
      table(
        ["type", "count"],
        Object.entries(plan.resources.byType).map(([t, n]) => [`\`${t}\``, n]),
      ),
      "",
    ]),
  );
  out.push(...(slots.end ?? []));
  return out.join("\n");
}
