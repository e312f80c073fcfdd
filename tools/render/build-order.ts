/**
 * When the image and the GPU nodes are ready on a first `pulumi up`, from the same rough create
 * minutes as the critical path (`./graph.ts`), and which resources a targeted update must name to
 * build the image alone. Pure.
 */
import { createMinutes, deployEdges, GraphNode } from "./graph";

/** Resource type of the image build. */
export const IMAGE_TYPE = "docker-build:index:Image";
/** Resource type of a managed node group. */
const NODE_GROUP_TYPE = "aws:eks/nodeGroup:NodeGroup";

/** Minutes from the start until each deployable resource is created (longest chain of its dependencies). */
export function readyMinutes(nodes: readonly GraphNode[]): Map<string, number> {
  const byUrn = new Map(nodes.map((n) => [n.urn, n]));
  const edges = deployEdges(nodes);
  const done = new Map<string, number>();
  const solve = (urn: string, seen: Set<string>): number => {
    const known = done.get(urn);
    if (known !== undefined) return known;
    if (seen.has(urn)) throw new Error(`internal: dependency cycle through ${urn}`);
    seen.add(urn);
    const before = Math.max(0, ...(edges.get(urn) ?? []).map((d) => solve(d, seen)));
    const t = before + createMinutes(byUrn.get(urn)!);
    done.set(urn, t);
    return t;
  };
  for (const urn of edges.keys()) solve(urn, new Set());
  return done;
}

/** The image's and the GPU node groups' ready times; undefined when the stack builds no image. */
export function imageVsGpuNodes(
  nodes: readonly GraphNode[],
  gpuInstanceTypes: readonly string[],
): { imageMinutes: number; gpuNodesMinutes: number } | undefined {
  const ready = readyMinutes(nodes);
  const image = nodes.filter((n) => n.type === IMAGE_TYPE).map((n) => ready.get(n.urn) ?? 0);
  const gpu = nodes
    .filter((n) => n.type === NODE_GROUP_TYPE && isGpuNodeGroup(n, nodes, gpuInstanceTypes))
    .map((n) => ready.get(n.urn) ?? 0);
  if (image.length === 0 || gpu.length === 0) return undefined;
  return {
    imageMinutes: Math.round(Math.max(...image) * 10) / 10,
    gpuNodesMinutes: Math.round(Math.min(...gpu) * 10) / 10,
  };
}

/** A node group whose instance type (own or its launch template's) is a GPU pool's. */
function isGpuNodeGroup(ng: GraphNode, nodes: readonly GraphNode[], gpuTypes: readonly string[]): boolean {
  const own = (ng.inputs?.instanceTypes as string[] | undefined) ?? [];
  const lts = nodes.filter((n) => ng.dependsOn.includes(n.urn) && n.type === "aws:ec2/launchTemplate:LaunchTemplate");
  const types = [...own, ...lts.map((l) => String(l.inputs?.instanceType ?? ""))];
  return types.some((t) => gpuTypes.includes(t));
}

/** URNs of the image builds and every deployable resource they wait for: the `--target` list that builds the image alone. */
export function imageTargets(nodes: readonly GraphNode[]): string[] {
  const edges = deployEdges(nodes);
  const out = new Set<string>();
  const visit = (urn: string) => {
    if (out.has(urn)) return;
    out.add(urn);
    for (const d of edges.get(urn) ?? []) visit(d);
  };
  for (const n of nodes.filter((x) => x.type === IMAGE_TYPE)) visit(n.urn);
  return [...out].sort();
}
