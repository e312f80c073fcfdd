/**
 * The captured resource graph: deployment order edges, the critical path (the dependency chain that
 * takes longest to deploy) and a Mermaid diagram. Pure functions over captured resources.
 */
import { isDgdType } from "../../../components/inference/dgd-v1beta1";
import type { InferencePlan } from "../../../components/inference/plan";
import type { CapturedResource } from "../capture/capture";
import { BUILD_MINUTES } from "../../../components/image/sources";
import { VENDOR_COMBINED_DOCKERFILE } from "../../../components/image/plan";

/** The fields of a captured resource this module reads (type-only import: this module stays pure). */
export type GraphNode = Pick<
  CapturedResource,
  "urn" | "type" | "name" | "custom" | "remote" | "parent" | "dependsOn" | "provider"
> &
  Partial<Pick<CapturedResource, "inputs">>;

/**
 * Rough minutes each resource type takes to create, for weighting the critical path. Sources:
 * components/image/sources.ts BUILD_MINUTES (the middle of each build's range, components/catalog/images.ts); EKS control plane ~10-15
 * min and a managed node group ~5-10 min (AWS EKS user guide, observed); the DGD waits for its model
 * to load (its load budget, `graphCreateMinutes`); the first-token check's Job ~2 min. Anything else: 0.1 min (one API
 * call).
 */
export const CREATE_MINUTES: Readonly<Record<string, number>> = {
  "docker-build:index:Image": BUILD_MINUTES.source,
  "eks:index:Cluster": 12,
  "aws:eks/cluster:Cluster": 12,
  "aws:eks/nodeGroup:NodeGroup": 8,
  "awsx:ec2:Vpc": 3,
  "aws:ec2/natGateway:NatGateway": 2,
  "aws:eks/addon:Addon": 2,
  "kubernetes:helm.sh/v3:Release": 2,
  "kubernetes:core/v1:PersistentVolumeClaim": 0.5,
  "aws:efs/fileSystem:FileSystem": 1,
  /**
   * The first-token check: its pod starts on a system node, then a few requests to a Ready graph. Its budget is
   * the most it may take (plan.md's section on what `pulumi up` waits for).
   */
  "kubernetes:batch/v1:Job": 2,
};
const DEFAULT_MINUTES = 0.1;
/** Minutes of a graph whose budgets are not known (no plan facts). */
const GRAPH_DEFAULT_MINUTES = 10;

/** Minutes the graph takes to become Ready, from its plan facts' budgets; undefined without facts. */
export function graphCreateMinutes(
  p: Pick<InferencePlan, "modelLoadBudgetSeconds" | "modelDownloadBudgetSeconds"> | undefined,
): number | undefined {
  // local-nvme: the per-node download runs in init containers before the load budget starts.
  const budget = p ? p.modelLoadBudgetSeconds + (p.modelDownloadBudgetSeconds ?? 0) : 0;
  return budget > 0 ? budget / 60 : undefined;
}

/** Minutes to create `n`; a graph takes `graphMinutes` (`graphCreateMinutes`), 10 when unknown. */
export function createMinutes(n: GraphNode, graphMinutes?: number): number {
  if (isDgdType(n.type)) return graphMinutes ?? GRAPH_DEFAULT_MINUTES;
  const dockerfile = (n.inputs?.dockerfile as { location?: unknown } | undefined)?.location;
  if (typeof dockerfile === "string" && dockerfile.endsWith(VENDOR_COMBINED_DOCKERFILE))
    return BUILD_MINUTES.vendorCombined;
  return CREATE_MINUTES[n.type] ?? DEFAULT_MINUTES;
}

/** A resource the engine actually creates (custom, or a remote component whose inside we cannot see). */
export function isDeployable(n: GraphNode): boolean {
  return n.custom || n.remote;
}

/** URN of a provider reference (`<urn>::<id>`). */
export function providerUrn(ref: string): string {
  return ref.slice(0, ref.lastIndexOf("::"));
}

/**
 * For each deployable resource, the deployable resources it waits for: its dependencies (a
 * component stands for every deployable resource under it, as in the engine) and its provider.
 */
export function deployEdges(nodes: readonly GraphNode[]): Map<string, string[]> {
  const byUrn = new Map(nodes.map((n) => [n.urn, n]));
  const children = new Map<string, string[]>();
  for (const n of nodes) if (n.parent) children.set(n.parent, [...(children.get(n.parent) ?? []), n.urn]);
  const expand = (urn: string, out: Set<string>): void => {
    const n = byUrn.get(urn);
    if (!n) return;
    if (isDeployable(n)) {
      out.add(urn);
      return;
    }
    for (const c of children.get(urn) ?? []) expand(c, out);
  };
  const edges = new Map<string, string[]>();
  for (const n of nodes.filter(isDeployable)) {
    const deps = new Set<string>();
    for (const d of n.dependsOn) expand(d, deps);
    if (n.provider) expand(providerUrn(n.provider), deps);
    deps.delete(n.urn);
    edges.set(n.urn, [...deps].sort());
  }
  return edges;
}

/** One step of the critical path. */
export interface PathStep {
  readonly name: string;
  readonly type: string;
  readonly minutes: number;
  /** The DynamoGraphDeployment's step when `minutes` is its expected time: the most its budgets let it wait. */
  readonly budgetMinutes?: number;
}

/** The critical path: the dependency chain with the largest total create time. */
export interface CriticalPath {
  readonly steps: readonly PathStep[];
  readonly minutes: number;
}

/**
 * Longest (by create minutes) dependency chain; ties go to the lexicographically smaller URN. `waits` adds edges
 * that are not deployment dependencies but still hold a resource back (the graph's pods need the GPU nodes);
 * `graphMinutes` is the graph's expected time (node join -> Ready, the GPU idle timeline) and `graphBudgetMinutes`
 * its budgets (`graphCreateMinutes`, the most it may wait); without the first, the budgets stand in.
 */
export function criticalPath(
  nodes: readonly GraphNode[],
  waits: ReadonlyMap<string, readonly string[]> = new Map(),
  graphMinutes?: number,
  graphBudgetMinutes?: number,
): CriticalPath {
  const budgetOf = (n: GraphNode) => createMinutes(n, graphBudgetMinutes);
  const minutesOf = (n: GraphNode) => (graphMinutes !== undefined && isDgdType(n.type) ? graphMinutes : budgetOf(n));
  const byUrn = new Map(nodes.map((n) => [n.urn, n]));
  const edges = new Map([...deployEdges(nodes)].map(([u, d]) => [u, [...d, ...(waits.get(u) ?? [])]]));
  const best = new Map<string, { total: number; prev?: string }>();
  const visiting = new Set<string>();
  const solve = (urn: string): number => {
    const done = best.get(urn);
    if (done) return done.total;
    if (visiting.has(urn)) throw new Error(`internal: dependency cycle through ${urn}`);
    visiting.add(urn);
    let prev: string | undefined;
    let longest = 0;
    for (const d of edges.get(urn) ?? []) {
      const t = solve(d);
      if (t > longest + 1e-9 || (Math.abs(t - longest) <= 1e-9 && prev !== undefined && d < prev)) {
        longest = t;
        prev = d;
      }
    }
    visiting.delete(urn);
    const total = longest + minutesOf(byUrn.get(urn)!);
    best.set(urn, { total, ...(prev ? { prev } : {}) });
    return total;
  };
  let end: string | undefined;
  let max = -1;
  for (const urn of [...edges.keys()].sort()) {
    const t = solve(urn);
    if (t > max + 1e-9) {
      max = t;
      end = urn;
    }
  }
  const steps: PathStep[] = [];
  for (let u = end; u; u = best.get(u)!.prev) {
    const n = byUrn.get(u)!;
    const budget = minutesOf(n) !== budgetOf(n) ? { budgetMinutes: round1(budgetOf(n)) } : {};
    steps.unshift({ name: n.name, type: n.type, minutes: round1(minutesOf(n)), ...budget });
  }
  return { steps, minutes: round1(Math.max(max, 0)) };
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}

/** Types left out of the diagram: many small attachments that hide the shape. */
const DIAGRAM_NOISE = new Set([
  "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
  "aws:ec2/securityGroupRule:SecurityGroupRule",
  "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
  "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule",
]);

function shortType(type: string): string {
  const parts = type.split(":");
  return parts[parts.length - 1];
}

function label(s: string): string {
  return s.replace(/"/g, "'");
}

/**
 * A Mermaid flowchart: each top-level component is a subgraph holding its main resources, edges are
 * deployment dependencies, and the critical path is highlighted.
 */
export function mermaid(nodes: readonly GraphNode[], path: CriticalPath): string {
  const sorted = [...nodes].sort((a, b) => a.urn.localeCompare(b.urn));
  const id = new Map(sorted.map((n, i) => [n.urn, `n${i}`]));
  const byUrn = new Map(sorted.map((n) => [n.urn, n]));
  const topOf = (n: GraphNode): GraphNode => (n.parent && byUrn.has(n.parent) ? topOf(byUrn.get(n.parent)!) : n);
  const shown = sorted.filter((n) => isDeployable(n) && !DIAGRAM_NOISE.has(n.type));
  const groups = new Map<string, GraphNode[]>();
  for (const n of shown) {
    const top = topOf(n);
    const key = top.urn === n.urn ? "" : top.urn;
    groups.set(key, [...(groups.get(key) ?? []), n]);
  }
  const lines = ["flowchart LR"];
  const node = (n: GraphNode) => `${id.get(n.urn)}["${label(n.name)}<br/><small>${label(shortType(n.type))}</small>"]`;
  for (const [key, members] of [...groups.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    if (key === "") {
      for (const n of members) lines.push(`  ${node(n)}`);
      continue;
    }
    const top = byUrn.get(key)!;
    lines.push(`  subgraph ${id.get(key)}["${label(top.name)} (${label(shortType(top.type))})"]`);
    for (const n of members) lines.push(`    ${node(n)}`);
    lines.push("  end");
  }
  const shownSet = new Set(shown.map((n) => n.urn));
  const edges = deployEdges(nodes);
  for (const n of shown)
    for (const d of edges.get(n.urn) ?? []) if (shownSet.has(d)) lines.push(`  ${id.get(d)} --> ${id.get(n.urn)}`);
  const onPath = new Set(path.steps.map((s) => `${s.type}::${s.name}`));
  const critical = shown.filter((n) => onPath.has(`${n.type}::${n.name}`)).map((n) => id.get(n.urn));
  lines.push("  classDef critical stroke:#d33,stroke-width:3px");
  if (critical.length > 0) lines.push(`  class ${critical.join(",")} critical`);
  return lines.join("\n") + "\n";
}
