/**
 * Walking the stack graph that `StackValidationArgs` gives (and the offline runner links the same
 * way): resources by type and their transitive dependencies.
 */
import { DGD_TYPE_TOKEN } from "../../components/inference/dgd";
import { isDgdType } from "../../components/inference/dgd-v1beta1";

/** The minimal resource shape stack helpers need (a `PolicyResource` satisfies it). */
export interface GraphNode {
  readonly type: string;
  readonly name: string;
  readonly urn: string;
  readonly props: Readonly<Record<string, unknown>>;
  readonly dependencies: readonly GraphNode[];
  readonly propertyDependencies: Readonly<Record<string, readonly GraphNode[]>>;
  readonly parent?: GraphNode;
}

/** Resources of one type. */
export function ofType<R extends GraphNode>(resources: readonly R[], type: string): R[] {
  // Both graph API versions are "the graph" (rawPropsOf reads a v1beta1 one in the model's shape).
  return resources.filter((r) => r.type === type || (type === DGD_TYPE_TOKEN && isDgdType(r.type)));
}

/** Direct dependencies of `r` (explicit and per-property), de-duplicated. */
export function directDependencies(r: GraphNode): GraphNode[] {
  const all = [...(r.dependencies ?? []), ...Object.values(r.propertyDependencies ?? {}).flat()];
  return [...new Map(all.map((d) => [d.urn, d])).values()];
}

/** Resources `r` depends on, transitively (breadth first, each once). */
export function transitiveDependencies(r: GraphNode): GraphNode[] {
  const seen = new Map<string, GraphNode>();
  const queue = directDependencies(r);
  while (queue.length > 0) {
    const d = queue.shift()!;
    if (seen.has(d.urn) || d.urn === r.urn) continue;
    seen.set(d.urn, d);
    queue.push(...directDependencies(d));
  }
  return [...seen.values()];
}
