/**
 * When the image and the GPU nodes are ready on a first `pulumi up`, from the same rough create minutes as the
 * critical path (`./graph.ts`): whether the GPU node groups wait for the image build, and the wait the graph has
 * for its GPU nodes (its pods are scheduled only once the nodes joined). Pure.
 */
import { createMinutes, deployEdges, GraphNode } from "./graph";
import { isDgdType } from "../../../components/inference/dgd-v1beta1";

/** Resource type of the image build. */
export const IMAGE_TYPE = "docker-build:index:Image";
/** Resource type of a managed node group. */
export const NODE_GROUP_TYPE = "aws:eks/nodeGroup:NodeGroup";

/** Extra "waits for" edges beside the deployment dependencies, by URN. */
export type WaitEdges = ReadonlyMap<string, readonly string[]>;

/** Minutes from the start until each deployable resource is created (longest chain of its dependencies). */
export function readyMinutes(nodes: readonly GraphNode[], extra: WaitEdges = new Map()): Map<string, number> {
  const byUrn = new Map(nodes.map((n) => [n.urn, n]));
  const edges = deployEdges(nodes);
  const done = new Map<string, number>();
  const solve = (urn: string, seen: Set<string>): number => {
    const known = done.get(urn);
    if (known !== undefined) return known;
    if (seen.has(urn)) throw new Error(`internal: dependency cycle through ${urn}`);
    seen.add(urn);
    const deps = [...(edges.get(urn) ?? []), ...(extra.get(urn) ?? [])];
    const before = Math.max(0, ...deps.map((d) => solve(d, seen)));
    const t = before + createMinutes(byUrn.get(urn)!);
    done.set(urn, t);
    return t;
  };
  for (const urn of edges.keys()) solve(urn, new Set());
  return done;
}

/** The managed node groups of the GPU pools (their instance type, own or their launch template's, is a pool's). */
export function gpuNodeGroups(nodes: readonly GraphNode[], gpuTypes: readonly string[]): GraphNode[] {
  return nodes.filter((n) => n.type === NODE_GROUP_TYPE && isGpuNodeGroup(n, nodes, gpuTypes));
}

function isGpuNodeGroup(ng: GraphNode, nodes: readonly GraphNode[], gpuTypes: readonly string[]): boolean {
  const own = (ng.inputs?.instanceTypes as string[] | undefined) ?? [];
  const lts = nodes.filter((n) => ng.dependsOn.includes(n.urn) && n.type === "aws:ec2/launchTemplate:LaunchTemplate");
  const types = [...own, ...lts.map((l) => String(l.inputs?.instanceType ?? ""))];
  return types.some((t) => gpuTypes.includes(t));
}

/** Every deployable resource `urn` waits for, directly or through others. */
export function waitsFor(nodes: readonly GraphNode[], urn: string): Set<string> {
  const edges = deployEdges(nodes);
  const out = new Set<string>();
  const visit = (u: string) => {
    for (const d of edges.get(u) ?? [])
      if (!out.has(d)) {
        out.add(d);
        visit(d);
      }
  };
  visit(urn);
  return out;
}

/** True when there is an image build and every GPU node group waits for it (the program's `gpuNodesDependOn`). */
export function gpuNodesWaitForImage(nodes: readonly GraphNode[], gpuTypes: readonly string[]): boolean {
  const images = nodes.filter((n) => n.type === IMAGE_TYPE).map((n) => n.urn);
  const groups = gpuNodeGroups(nodes, gpuTypes);
  if (images.length === 0 || groups.length === 0) return false;
  return groups.every((g) => {
    const before = waitsFor(nodes, g.urn);
    return images.every((i) => before.has(i));
  });
}

/** The graph waits for the GPU node groups: its worker pods are scheduled only once those nodes joined. */
export function schedulingEdges(nodes: readonly GraphNode[], gpuTypes: readonly string[]): WaitEdges {
  const groups = gpuNodeGroups(nodes, gpuTypes).map((g) => g.urn);
  return new Map(nodes.filter((n) => isDgdType(n.type)).map((d) => [d.urn, groups]));
}

/** The image's and the GPU node groups' ready times; undefined when the stack builds no image. */
export function imageVsGpuNodes(
  nodes: readonly GraphNode[],
  gpuInstanceTypes: readonly string[],
): { imageMinutes: number; gpuNodesMinutes: number } | undefined {
  const ready = readyMinutes(nodes);
  const image = nodes.filter((n) => n.type === IMAGE_TYPE).map((n) => ready.get(n.urn) ?? 0);
  const gpu = gpuNodeGroups(nodes, gpuInstanceTypes).map((n) => ready.get(n.urn) ?? 0);
  if (image.length === 0 || gpu.length === 0) return undefined;
  return {
    imageMinutes: Math.round(Math.max(...image) * 10) / 10,
    gpuNodesMinutes: Math.round(Math.min(...gpu) * 10) / 10,
  };
}

/** The GPU node groups' ready time on a first `pulumi up` (with or without an image build); undefined without one. */
export function gpuNodesReadyMinutes(nodes: readonly GraphNode[], gpuTypes: readonly string[]): number | undefined {
  const ready = readyMinutes(nodes);
  const gpu = gpuNodeGroups(nodes, gpuTypes).map((n) => ready.get(n.urn) ?? 0);
  return gpu.length === 0 ? undefined : Math.round(Math.min(...gpu) * 10) / 10;
}
