/**
 * The `plan.md` sections that put the plan in front of a person: the summary (`./md-summary.ts`), the topology picture
 * and the resource graph, per-worker CPU / memory / hugepages, the policy results, the GPU idle time of a
 * first deploy with the per-node timeline (`./idle.ts`), what the resource count leaves out, and
 * which files to read next. Pure: from the plan, the captured resources and the policy run.
 */
import { policyTally, type PolicyRun } from "../../../policy/run";
import type { Plan } from "./plan";
import { table } from "../output/md-table";
import { gpuIdleMarkdown } from "./idle";
import type { PlanMdSlots } from "./md";
import { summaryMarkdown } from "./md-summary";

/** What the sections read besides the plan. */
export interface PlanMdExtras {
  /** `graph.mmd`'s text. */
  readonly mermaid: string;
  readonly policy: PolicyRun;
}

/** The topology picture and the resource graph, inline. */
export function pictureMarkdown(mermaid: string): string[] {
  return [
    "## Topology",
    "",
    "![GPU nodes, GPUs, EFA rails and the workers on them](topology.svg)",
    "",
    "Each GPU node with its GPUs and EFA rails; workers in role colours on the GPUs and rails they are expected to get (the scheduler decides); grey dashed = idle. The red arrow is the KV path from prefill to decode.",
    "",
    "### Resource graph",
    "",
    "```mermaid",
    mermaid.trimEnd(),
    "```",
    "",
  ];
}

/** CPU, memory and hugepages each worker pod requests. */
export function podResourcesMarkdown(plan: Plan): string[] {
  return [
    "## Pod requests per worker",
    "",
    table(
      ["service", "role", "replicas", "CPU", "memory", "hugepages-2Mi", "GPUs", "EFA", "never shares a node with"],
      plan.workers.map((w) => [
        w.service,
        w.role,
        w.replicas,
        w.cpu,
        w.memory,
        w.hugepages2Mi,
        w.gpusPerWorker,
        w.efaPerWorker,
        w.avoids.join(", ") || "-",
      ]),
    ),
    "",
  ];
}

/** One line per policy: passed / violated, how many resources it checked. */
export function policyMarkdown(run: PolicyRun): string[] {
  const head = `## Policies: ${policyTally(run)}`;
  const state = (r: PolicyRun["results"][number]) =>
    !r.passed
      ? `**violated** (${r.violations.length})`
      : r.checked === 0
        ? `not applicable: ${r.notApplicable.join("; ")}`
        : "passed";
  return [
    head,
    "",
    table(
      ["policy", "level", "checked", "result"],
      run.results.map((r) => [`\`${r.name}\``, r.enforcementLevel, r.checked, state(r)]),
    ),
    "",
    ...run.results.flatMap((r) => r.violations.map((v) => `- \`${r.name}\`: ${v.message}`)),
    "Details: `policy.json`.",
    "",
  ];
}

/** The awsx VPC's and EKS cluster's children the offline render cannot see, with the counts our args imply. */
export function remoteChildren(
  resources: readonly { readonly type: string; readonly inputs: Record<string, unknown> }[],
): string[][] {
  const rows: string[][] = [];
  for (const vpc of resources.filter((r) => r.type === "awsx:ec2:Vpc")) {
    const azs = Array.isArray(vpc.inputs.availabilityZoneNames) ? vpc.inputs.availabilityZoneNames.length : 0;
    const specs = Array.isArray(vpc.inputs.subnetSpecs) ? vpc.inputs.subnetSpecs.length : 0;
    const nat = (vpc.inputs.natGateways as { strategy?: string } | undefined)?.strategy;
    const nats = nat === "Single" ? 1 : nat === "OnePerAz" ? azs : 0;
    rows.push(
      ["`aws:ec2/vpc:Vpc`", "1", "awsx VPC"],
      ["`aws:ec2/subnet:Subnet`", String(azs * specs), `${specs} subnet types (subnetSpecs) x ${azs} AZs`],
      [
        "`aws:ec2/natGateway:NatGateway` + `aws:ec2/eip:Eip`",
        `${nats} + ${nats}`,
        `natGateways.strategy ${nat ?? "?"}`,
      ],
      ["`aws:ec2/internetGateway:InternetGateway`", "1", "public subnets"],
      [
        "`aws:ec2/routeTable:RouteTable`, routes, associations",
        "several",
        "awsx's per-subnet routing (not counted offline)",
      ],
    );
  }
  for (const eks of resources.filter((r) => r.type === "eks:index:Cluster")) {
    rows.push(
      ["`aws:eks/cluster:Cluster`", "1", "the EKS control plane"],
      [
        "`aws:iam/openIdConnectProvider:OpenIdConnectProvider`",
        eks.inputs.createOidcProvider ? "1" : "0",
        "createOidcProvider",
      ],
      ["`aws:iam/role:Role`, security groups, access entries", "several", "the eks component's own"],
    );
  }
  return rows;
}

/** The resource count, with what it cannot count. */
export function resourcesMarkdown(plan: Plan, hidden: readonly string[][]): string[] {
  const out = [
    `## Resources: ${plan.resources.total} registered by this program (not the whole stack)`,
    "",
    table(
      ["type", "count"],
      Object.entries(plan.resources.byType).map(([t, n]) => [`\`${t}\``, n]),
    ),
    "",
  ];
  if (hidden.length === 0) return out;
  return [
    ...out,
    "Not counted above: the children of remote components (awsx VPC, eks Cluster) are created by their providers and are invisible offline. Expected from the arguments this program passes:",
    "",
    table(
      ["kind", "count", "why"],
      hidden.map((r) => [...r]),
    ),
    "",
  ];
}

/** Which files to read next. */
export function readNextMarkdown(): string[] {
  return [
    "## Read next",
    "",
    "- `topology.svg`: the picture above; `graph.mmd`: the resource graph (Mermaid)",
    "- `manifests/`: the Kubernetes objects, the DynamoGraphDeployment first; `helm/`: every Helm release's values",
    "- `policy.json`: every policy's result with its violations; `image.json`: the image build plan and its build args",
    "- `resources.json`: every registered resource with its inputs (secrets redacted); `outputs.json`: the stack outputs",
    '- README "First request" once `pulumi up` is done, then `npm run verify`',
    "",
  ];
}

/** Every slot of `plan.md` this file fills. */
export function planMdSlots(plan: Plan, x: PlanMdExtras, hidden: readonly string[][]): PlanMdSlots {
  return {
    afterTitle: [...summaryMarkdown(plan, x.policy), ...pictureMarkdown(x.mermaid)],
    afterWorkers: podResourcesMarkdown(plan),
    afterImage: gpuIdleMarkdown(plan.gpuIdle, plan.image?.build ?? false, table),
    resources: [...resourcesMarkdown(plan, hidden), ...policyMarkdown(x.policy)],
    end: readNextMarkdown(),
  };
}
