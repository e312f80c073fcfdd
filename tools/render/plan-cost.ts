/**
 * The plan's cost lines: the GPU pools, any other node group the stack creates (its instance type from the node
 * group or its launch template) and the EKS control plane, priced from `./prices.ts`. Pure.
 */
import type { GpuPoolFacts } from "../../components/catalog/pool";
import { CostLine, EKS_CLUSTER_USD_PER_HOUR, instanceLine } from "./prices";
import { num, PlanSourceResource } from "./plan-workers";

/** Cost lines of the pools and the captured resources. */
export function costLines(pools: readonly GpuPoolFacts[], resources: readonly PlanSourceResource[]): CostLine[] {
  const lines = pools.map((p) => instanceLine(`GPU pool ${p.name}`, p.instanceType, p.nodes));
  const gpuTypes = new Set(pools.map((p) => p.instanceType));
  const byUrn = new Map(resources.map((r) => [r.urn, r]));
  for (const ng of resources.filter((r) => r.type === "aws:eks/nodeGroup:NodeGroup")) {
    // The instance type is on the node group, or (with a custom launch template) on the template.
    const lt = (ng.propertyDependencies.launchTemplate ?? [])
      .map((u) => byUrn.get(u))
      .find((r) => r?.type === "aws:ec2/launchTemplate:LaunchTemplate");
    const fromLt = typeof lt?.inputs.instanceType === "string" ? [lt.inputs.instanceType] : [];
    const types = (ng.inputs.instanceTypes as string[] | null | undefined) ?? fromLt;
    const size = num((ng.inputs.scalingConfig as { desiredSize?: unknown } | undefined)?.desiredSize);
    if (types.length > 0 && !types.some((t) => gpuTypes.has(t)))
      lines.push(instanceLine(`node group ${ng.name}`, types[0], size));
  }
  const clusters = resources.filter(
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
