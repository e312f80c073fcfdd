/**
 * Pure derivations of `EfaCluster` (docs/CONTRIBUTING.md rule 7): network interface layout, EFA security group
 * rules, capacity settings, per-pool facts and node labels. They read the catalog, never an AWS
 * invoke, so the plan is the same offline and online. No Pulumi import.
 */
import { Checked, failed, joinPath, ok, ValidationError } from "../_shared/problems";
import { GpuInstance, instance } from "../catalog/instances";
import { DeviceAllocation, GpuPoolFacts, gpuPoolFacts, GPU_POOL_TAINTS, POOL_LABEL, Taint } from "../catalog/pool";
import { charts } from "../versions";
import { CapacityType, defaultEfa, EfaLayout, ResolvedClusterArgs, ResolvedPool } from "./args";
import { NODEADM } from "./user-data";

/** `interfaceType` of an EC2 launch-template network interface. */
export const InterfaceType = { Ena: "interface", Efa: "efa", EfaOnly: "efa-only" } as const;
export type InterfaceType = (typeof InterfaceType)[keyof typeof InterfaceType];

/** One network interface slot of a launch template. */
export interface InterfaceSlot {
  readonly networkCardIndex: number;
  readonly deviceIndex: number;
  readonly interfaceType: InterfaceType;
}

/** Whether a slot carries an EFA device (`efa` or `efa-only`). */
export function isEfa(s: InterfaceSlot): boolean {
  return s.interfaceType !== InterfaceType.Ena;
}

/** The network cards that carry an EFA device: the first `efaDevices` cards, skipping card 0 when it has none. */
export function efaCards(row: GpuInstance): number[] {
  const first = row.card0SupportsEfa ? 0 : 1;
  return Array.from({ length: row.efaDevices }, (_, i) => first + i);
}

/**
 * Network interfaces of a GPU node with EFA, from its catalog row.
 * - `current` (AWS guidance, needs VPC CNI >= 1.18.5): card 0 / device 0 ENA `interface`; card 0 /
 *   device 1 `efa-only` when card 0 has EFA; device 0 of every other EFA card `efa-only`. `efa-only`
 *   interfaces take no IP address, so pods keep the VPC's IPs.
 * - `legacy`: the layout from before `efa-only` existed: card 0 / device 0 `efa` (ENA + EFA), device 1
 *   of every other EFA card `efa` (each takes a VPC IP). Needs EFA on card 0. It is NOT what pulumi-eks
 *   or terraform-aws-eks render: both put `efa` on card 0 / device 0 and `efa-only` on device 1 of every
 *   other card (pulumi/pulumi-eks@10022eeef70dc3904fc126e877b5ca777227ffcf `nodejs/eks/nodes/instances.ts`
 *   `getEfaNetworkInterfaces`; terraform-aws-eks `modules/eks-managed-node-group/main.tf`
 *   `efa_network_interfaces` with `enable_efa_only`, default true).
 * Returns the problems instead for a type without EFA (at `<poolPath>.efa`) or a layout it cannot use (at
 * `<poolPath>.efaLayout`); the pool validator reports them, and the node group asserts the value after validation.
 * @see https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html
 */
export function efaInterfaceLayout(row: GpuInstance, layout: EfaLayout, poolPath = ""): Checked<InterfaceSlot[]> {
  if (row.efaDevices === 0) {
    return failed([
      {
        propertyPath: joinPath(poolPath, "efa"),
        reason: `${row.name} has no EFA device; set efa to false or pick an EFA type such as "p5en.48xlarge"`,
      },
    ]);
  }
  const cards = efaCards(row);
  if (cards[cards.length - 1] >= row.networkCards) {
    return failed([
      {
        propertyPath: joinPath(poolPath, "instanceType"),
        reason: `catalog row ${row.name} lists ${row.efaDevices} EFA devices on ${row.networkCards} network cards; fix the catalog`,
      },
    ]);
  }
  if (layout === EfaLayout.Legacy) {
    if (!row.card0SupportsEfa) {
      return failed([
        {
          propertyPath: joinPath(poolPath, "efaLayout"),
          reason: `"legacy" puts EFA on network card 0, which has no EFA on ${row.name}; use "current"`,
        },
      ]);
    }
    return ok(
      cards.map((card) => ({
        networkCardIndex: card,
        deviceIndex: card === 0 ? 0 : 1,
        interfaceType: InterfaceType.Efa,
      })),
    );
  }
  const primary: InterfaceSlot = { networkCardIndex: 0, deviceIndex: 0, interfaceType: InterfaceType.Ena };
  const efa = cards.map((card) => ({
    networkCardIndex: card,
    deviceIndex: card === 0 ? 1 : 0,
    interfaceType: InterfaceType.EfaOnly,
  }));
  return ok([primary, ...efa]);
}

/** One rule of the EFA security group, in `aws.ec2.SecurityGroupRule` terms. */
export interface SecurityGroupRuleSpec {
  readonly type: "ingress" | "egress";
  readonly protocol: "-1";
  readonly fromPort: 0;
  readonly toPort: 0;
  /** The rule references the group itself. */
  readonly self: true;
  readonly description: string;
}

/**
 * EFA needs ALL traffic to and from the same security group, in both directions (EFA's SRD traffic
 * is not TCP/UDP; an egress rule is required as well as ingress).
 * @see https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-start.html#efa-start-security
 */
export function efaSecurityGroupRules(): SecurityGroupRuleSpec[] {
  return (["ingress", "egress"] as const).map((type) => ({
    type,
    protocol: "-1",
    fromPort: 0,
    toPort: 0,
    self: true,
    description: `EFA: all traffic ${type === "ingress" ? "from" : "to"} members of this group`,
  }));
}

/** Launch-template and node-group fields for a pool's capacity choice. */
export interface CapacitySettings {
  /** `aws.eks.NodeGroup.capacityType`. */
  readonly nodeGroupCapacityType: "ON_DEMAND" | "CAPACITY_BLOCK";
  /** `aws.ec2.LaunchTemplate.instanceMarketOptions`, when any. */
  readonly instanceMarketOptions?: { readonly marketType: "capacity-block" };
  /** `aws.ec2.LaunchTemplate.capacityReservationSpecification`, when any. */
  readonly capacityReservationSpecification?: {
    readonly capacityReservationTarget: { readonly capacityReservationId: string };
  };
}

/**
 * Maps on-demand / capacity-block / odcr to launch-template and node-group fields. The instance
 * type always goes in the launch template (required for Capacity Blocks, harmless otherwise).
 * @see https://docs.aws.amazon.com/eks/latest/userguide/capacity-blocks-mng.html
 */
export function capacitySettings(pool: Pick<ResolvedPool, "capacity" | "capacityReservationId">): CapacitySettings {
  const target =
    pool.capacityReservationId !== undefined
      ? { capacityReservationTarget: { capacityReservationId: pool.capacityReservationId } }
      : undefined;
  switch (pool.capacity) {
    case CapacityType.CapacityBlock:
      return {
        nodeGroupCapacityType: "CAPACITY_BLOCK",
        instanceMarketOptions: { marketType: "capacity-block" },
        ...(target ? { capacityReservationSpecification: target } : {}),
      };
    case CapacityType.Odcr:
      return { nodeGroupCapacityType: "ON_DEMAND", ...(target ? { capacityReservationSpecification: target } : {}) };
    default:
      return { nodeGroupCapacityType: "ON_DEMAND" };
  }
}

/** `aws.eks.NodeGroup.scalingConfig` of a pool. */
export interface PoolScaling {
  readonly desiredSize: number;
  readonly minSize: number;
  readonly maxSize: number;
}

/**
 * Scaling of a pool's node group: min = desired = max = nodes, except for a Capacity Block, whose
 * minimum is 0. A block has no surge capacity, EKS scales the group to 0 about 40 minutes before the
 * block ends, and the EKS guide asks for desired size 0 to update the group
 * (https://docs.aws.amazon.com/eks/latest/userguide/capacity-blocks-mng.html); a minimum of `nodes`
 * would make every one of those states an invalid scaling config.
 */
export function poolScaling(pool: Pick<ResolvedPool, "nodes" | "capacity">): PoolScaling {
  const min = pool.capacity === CapacityType.CapacityBlock ? 0 : pool.nodes;
  return { desiredSize: pool.nodes, minSize: min, maxSize: pool.nodes };
}

/**
 * Whether `pulumi up` leaves the node group's desired size alone after creation. For a Capacity
 * Block, EKS owns it: it scales the group down before the block ends and the operator sets it to 0
 * to update. Managing it from the program would scale the group back up on every `pulumi up` (into a
 * block that has ended, which fails) or fight the update procedure. Other pools keep it managed, so
 * a changed `count` takes effect.
 */
export function ignoresDesiredSize(pool: Pick<ResolvedPool, "capacity">): boolean {
  return pool.capacity === CapacityType.CapacityBlock;
}

/** Label on every EFA-enabled GPU node; the EFA device plugin selects on it. */
export const EFA_LABEL = "dynamo-efa/efa";
/** Label with the EC2 instance type that the component sets itself (the kubelet's own label is `node.kubernetes.io/instance-type`). */
export const POOL_INSTANCE_TYPE_LABEL = "dynamo-efa/instance-type";

/** Node labels of a pool's managed node group. */
export function poolLabels(pool: ResolvedPool): Record<string, string> {
  return {
    ...pool.labels,
    [POOL_LABEL]: pool.name,
    [POOL_INSTANCE_TYPE_LABEL]: pool.instanceType,
    ...(pool.efa ? { [EFA_LABEL]: "true" } : {}),
  };
}

/** A node-group taint in EKS API terms (`NO_SCHEDULE`, not `NoSchedule`). */
export function eksTaint(t: Taint): {
  key: string;
  value: string;
  effect: "NO_SCHEDULE" | "PREFER_NO_SCHEDULE" | "NO_EXECUTE";
} {
  const effect = (
    { NoSchedule: "NO_SCHEDULE", PreferNoSchedule: "PREFER_NO_SCHEDULE", NoExecute: "NO_EXECUTE" } as const
  )[t.effect];
  return { key: t.key, value: t.value, effect };
}

/** The taints of every GPU pool, in EKS API terms. */
export function poolTaints(): ReturnType<typeof eksTaint>[] {
  return GPU_POOL_TAINTS.map(eksTaint);
}

/** Plain facts of one pool (what `EfaCluster.gpuPools` holds). */
export function poolFacts(
  pool: ResolvedPool,
  deviceAllocation: DeviceAllocation = DeviceAllocation.DevicePlugin,
): GpuPoolFacts {
  return gpuPoolFacts(instance(pool.instanceType, `gpuPools.${pool.name}.instanceType`), {
    name: pool.name,
    nodes: pool.nodes,
    efaEnabled: pool.efa,
    ...(pool.availabilityZone !== undefined ? { availabilityZone: pool.availabilityZone } : {}),
    ...(pool.hugepages2MiPerNode !== undefined ? { hugepages2MiPerNode: pool.hugepages2MiPerNode } : {}),
    ...(pool.localNvme ? { localNvmeMountPath: NODEADM.raidMountPoint } : {}),
    deviceAllocation,
  });
}

/** Facts of every pool, keyed by pool name. */
export function gpuPoolsFacts(
  pools: readonly ResolvedPool[],
  deviceAllocation: DeviceAllocation = DeviceAllocation.DevicePlugin,
): Record<string, GpuPoolFacts> {
  return Object.fromEntries(pools.map((p) => [p.name, poolFacts(p, deviceAllocation)]));
}

/**
 * Index of an AZ in the VPC's AZ list. awsx's `Vpc` creates subnets AZ by AZ in the order of
 * `availabilityZoneNames`, one private subnet per AZ with our `subnetSpecs`, and pushes their ids in
 * that order (pulumi-awsx `awsx/ec2/vpc.ts`), so `privateSubnetIds[i]` lies in `availabilityZones[i]`.
 */
export function azIndex(availabilityZones: readonly string[], az: string): number {
  const i = availabilityZones.indexOf(az);
  if (i < 0)
    throw new ValidationError("subnet lookup", [
      {
        propertyPath: "availabilityZones",
        reason: `${JSON.stringify(az)} is not one of the VPC's AZs ${JSON.stringify(availabilityZones)}`,
      },
    ]);
  return i;
}

/** The instance types the cluster's EFA device plugin (or EFA DRA driver) serves: its own EFA pools', and the types other stacks' pools will have. */
export function efaInstanceTypes(a: Pick<ResolvedClusterArgs, "pools" | "poolInstanceTypes">): string[] {
  return [...a.pools.filter((p) => p.efa).map((p) => p.instanceType), ...a.poolInstanceTypes.filter(defaultEfa)];
}

/** A Helm chart at a version, as a release installs it. */
export interface ChartAt {
  readonly chart: string;
  readonly version: string;
}

/**
 * The node DaemonSets' charts the cluster installs in kube-system: the NVIDIA and (with an EFA type) EFA device
 * plugins, or under `deviceAllocation: dra` the GPU and (with an EFA type) EFA DRA drivers. `verify` checks a
 * cluster stack's DaemonSets by them (tests/contracts/cluster-daemonsets.spec.ts holds them to the render).
 */
export function nodeDeviceCharts(
  a: Pick<
    ResolvedClusterArgs,
    | "pools"
    | "poolInstanceTypes"
    | "deviceAllocation"
    | "nvidiaDevicePluginChartVersion"
    | "efaDevicePluginChartVersion"
    | "gpuDraDriverChartVersion"
    | "efaDraDriverChartVersion"
  >,
): ChartAt[] {
  const efa = efaInstanceTypes(a).length > 0;
  const [gpu, efaChart] =
    a.deviceAllocation === DeviceAllocation.Dra
      ? [
          { chart: charts.gpuDraDriver.chart, version: a.gpuDraDriverChartVersion },
          { chart: charts.efaDraDriver.chart, version: a.efaDraDriverChartVersion },
        ]
      : [
          { chart: charts.nvidiaDevicePlugin.chart, version: a.nvidiaDevicePluginChartVersion },
          { chart: charts.efaDevicePlugin.chart, version: a.efaDevicePluginChartVersion },
        ];
  return efa ? [gpu, efaChart] : [gpu];
}
