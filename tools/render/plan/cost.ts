/**
 * The plan's cost lines: the GPU pools, any other node group the stack creates (its instance type from the node
 * group or its launch template) and the EKS control plane, priced from `./prices.ts`. Pure.
 */
import { POOL_LABEL, type GpuPoolFacts } from "../../../components/catalog/pool";
import { CostLine, EKS_CLUSTER_USD_PER_HOUR, instanceLine, RESERVATION_BILLING } from "./prices";
import { num, PlanSourceResource } from "./workers";
import { totalUsdPerHour } from "./prices";
import type { SharedClusterFacts } from "../../../program/run";

/** How a pool's nodes are bought, read from its node group and launch template as rendered. */
export type PoolBilling = "on-demand" | "capacity-block" | "odcr";

/** The billing of pool `pool`: its node group (labelled with the pool) and that group's launch template. */
export function poolBilling(pool: string, resources: readonly PlanSourceResource[]): PoolBilling {
  const byUrn = new Map(resources.map((r) => [r.urn, r]));
  const ng = resources.find(
    (r) =>
      r.type === "aws:eks/nodeGroup:NodeGroup" &&
      (r.inputs.labels as Record<string, unknown> | undefined)?.[POOL_LABEL] === pool,
  );
  if (!ng) return "on-demand";
  if (ng.inputs.capacityType === "CAPACITY_BLOCK") return "capacity-block";
  const lt = (ng.propertyDependencies.launchTemplate ?? []).map((u) => byUrn.get(u)).find((r) => r);
  const spec = lt?.inputs.capacityReservationSpecification as { capacityReservationTarget?: unknown } | undefined;
  return spec?.capacityReservationTarget ? "odcr" : "on-demand";
}

function poolLine(p: GpuPoolFacts, resources: readonly PlanSourceResource[]): CostLine {
  const line = instanceLine(`GPU pool ${p.name}`, p.instanceType, p.nodes);
  switch (poolBilling(p.name, resources)) {
    case "capacity-block":
      return { ...line, usdPerHourEach: null, usdPerHour: null, note: RESERVATION_BILLING.capacityBlock };
    case "odcr":
      return { ...line, note: [RESERVATION_BILLING.odcr, line.note].filter(Boolean).join("; ") };
    default:
      return line;
  }
}

/** Cost lines of the pools and the captured resources. */
export function costLines(pools: readonly GpuPoolFacts[], resources: readonly PlanSourceResource[]): CostLine[] {
  const lines = pools.map((p) => poolLine(p, resources));
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

/** The shared cluster's cost: its control plane and system nodes, paid once by its stack for every model on it. */
export interface SharedClusterCost {
  /** The cluster stack. */
  readonly stack: string;
  readonly clusterName: string;
  readonly lines: readonly CostLine[];
  readonly usdPerHour: number;
}

/** The cost of the cluster a model stack shares (from its handoff: the system node group, one control plane). */
export function sharedClusterCost(sc: SharedClusterFacts): SharedClusterCost {
  const lines: CostLine[] = [
    instanceLine("system nodes (shared)", sc.systemNodes.instanceType, sc.systemNodes.count),
    {
      item: "EKS control plane (shared)",
      count: 1,
      usdPerHourEach: EKS_CLUSTER_USD_PER_HOUR,
      usdPerHour: EKS_CLUSTER_USD_PER_HOUR,
    },
  ];
  return { stack: sc.stack, clusterName: sc.clusterName, lines, usdPerHour: totalUsdPerHour(lines) };
}
