/**
 * `EfaClusterArgs` and its pool args, the closed choices they use, and `resolveArgs()`, which fills
 * every default in one pure place (docs/CONTRIBUTING.md rule 5), with what it records of the args as written
 * (`source`) and the AZs and region it derives. No Pulumi runtime import: `Input` is a type only.
 */
import { bool, int, KeyShape, listOf, mapOf, rows, str } from "../_shared/keys";
import { CLUSTER_LIMITS } from "./limits";
import type { Input, Resource } from "@pulumi/pulumi";
import { INSTANCES, supportsNixlOverEfa } from "../catalog/instances";
import { DeviceAllocation } from "../catalog/pool";
import { charts, kubernetes } from "../versions";
import { AwsPartition, AZ_NAME, DEFAULT_PARTITION, partitionOf, regionOfAz } from "./partition";
import { gpuRootVolume } from "./root-volume";

/** EFA interface layout of a GPU node's launch template. */
export const EfaLayout = {
  /** Current AWS guidance: card 0 / device 0 ENA (`interface`), card 0 / device 1 and device 0 of every other EFA card `efa-only`. */
  Current: "current",
  /**
   * The layout from before `efa-only` interfaces existed: card 0 / device 0 `efa` (ENA + EFA), device 1
   * of every other EFA card `efa` too (each takes a VPC IP). For VPC CNI older than 1.18.5. Needs EFA on
   * card 0. (pulumi-eks and terraform-aws-eks do NOT use it: both put `efa` on card 0 and `efa-only` on
   * device 1 of the other cards.)
   */
  Legacy: "legacy",
} as const;
export type EfaLayout = (typeof EfaLayout)[keyof typeof EfaLayout];

export { DeviceAllocation };

/** How a GPU pool's instances are bought. */
export const CapacityType = {
  /** Plain On-Demand instances (open capacity reservations still match). */
  OnDemand: "on-demand",
  /** An EC2 Capacity Block for ML: market type `capacity-block`, node group capacity type `CAPACITY_BLOCK`. */
  CapacityBlock: "capacity-block",
  /** A targeted On-Demand Capacity Reservation; node group capacity type `ON_DEMAND`. */
  Odcr: "odcr",
} as const;
export type CapacityType = (typeof CapacityType)[keyof typeof CapacityType];

/** NAT gateways of a VPC the component creates. */
export const NatGateways = {
  /** One NAT gateway for the whole VPC (cheapest; egress depends on one AZ). */
  Single: "Single",
  /** One NAT gateway per AZ (highly available egress). */
  OnePerAz: "OnePerAz",
} as const;
export type NatGateways = (typeof NatGateways)[keyof typeof NatGateways];

/** EKS control-plane log types. @see https://docs.aws.amazon.com/eks/latest/userguide/control-plane-logs.html */
export const CLUSTER_LOG_TYPES = ["api", "audit", "authenticator", "controllerManager", "scheduler"] as const;
export type ClusterLogType = (typeof CLUSTER_LOG_TYPES)[number];

/** One GPU node pool: a managed node group of identical instances. */
export interface GpuPoolArgs {
  /** EC2 instance type from the catalog, e.g. `p5en.48xlarge` (x86_64 only). */
  readonly instanceType: string;
  /** Number of nodes (the node group's min = desired = max). */
  readonly nodes: number;
  /**
   * The one AZ the pool lives in (EFA traffic does not cross AZs). Required when EFA is on; it must
   * offer the instance type (or hold your reservation). @default - every private subnet (non-EFA pools only)
   */
  readonly availabilityZone?: string;
  /** Attach EFA interfaces for NIXL KV-cache transfer. @default - true when the type has EFA and GPUDirect RDMA (P family) */
  readonly efa?: boolean;
  /**
   * Allow EFA on a type without GPUDirect RDMA (g family): NIXL's LIBFABRIC plugin cannot move KV
   * cache from GPU memory there, so this is for experiments only. @default false
   */
  readonly allowEfaWithoutGpuDirectRdma?: boolean;
  /** EFA interface layout. @default "current" */
  readonly efaLayout?: EfaLayout;
  /**
   * How the instances are bought. A `capacity-block` node group can only launch while its block is
   * active; AWS asks for desired size 0 while upgrading such a node group. @default "on-demand"
   * @see https://docs.aws.amazon.com/eks/latest/userguide/capacity-blocks-mng.html
   */
  readonly capacity?: CapacityType;
  /** Capacity reservation id (`cr-` + hex); required for `capacity-block` and `odcr`. @default - none */
  readonly capacityReservationId?: string;
  /**
   * Launch into a `cluster` placement group. Reserved capacity already has its own placement, and a
   * placement group can make it unusable. @default - true for on-demand EFA pools, false otherwise
   */
  readonly placementGroup?: boolean;
  /**
   * Root volume size in GiB (encrypted gp3). With `localNvme` the images and kubelet state live on the NVMe array;
   * without it the root volume holds the largest serving image twice (compressed layers and unpacked) under the
   * kubelet's image-GC threshold, and a smaller value is refused. @default - 100 with `localNvme`, else what
   * `gpuRootVolume` computes for the largest image (components/catalog/images.ts)
   */
  readonly rootVolumeSizeGiB?: number;
  /**
   * EKS AL2023 NVIDIA AMI release version of the cluster's Kubernetes version, e.g. `1.35.6-20260714`. A release older
   * than the first with the R580 NVIDIA driver may not run release dynamo-1.6's CUDA 13 runtime images (every 1.35 and
   * 1.36 release has R580; for older versions see tests/contracts/facts/eks-ami-releases.json). @default - latest
   * release for the Kubernetes version
   */
  readonly amiReleaseVersion?: string;
  /** 2 MiB hugepages the EFA driver pre-allocates per node, when you measured a different value. @default - catalog value */
  readonly hugepages2MiPerNode?: number;
  /**
   * Turn the instance-store NVMe disks into one RAID0 array (nodeadm `localStorage.strategy: RAID0`, mounted at
   * `/mnt/k8s-disks/0`; kubelet and containerd state move onto it), where the `local-nvme` model cache
   * lives. @default - true when the instance type has instance-store NVMe (every catalogued GPU type)
   */
  readonly localNvme?: boolean;
  /** Extra node labels. @default {} */
  readonly labels?: Readonly<Record<string, string>>;
}

/** A VPC you already own. */
export interface ExistingVpcArgs {
  /** VPC id. */
  readonly vpcId: Input<string>;
  /** Private subnet id per availability zone (at least 2 AZs; every EFA pool's AZ must be a key). */
  readonly privateSubnetIds: Readonly<Record<string, Input<string>>>;
  /** Public subnets for internet-facing load balancers. @default [] */
  readonly publicSubnetIds?: readonly Input<string>[];
}

/** Arguments of `EfaCluster`. */
export interface EfaClusterArgs {
  /**
   * GPU pools keyed by pool name (the name becomes the `dynamo-efa/pool` node label). A cluster shared by several
   * stacks has none of its own: each model stack brings its pool (`EfaGpuPool`), and `poolInstanceTypes` says
   * which instance types the cluster is set up for. @default {} (then `poolInstanceTypes` is required)
   */
  readonly gpuPools?: Readonly<Record<string, GpuPoolArgs>>;
  /**
   * Instance types of the GPU pools other stacks add to this cluster with `EfaGpuPool`: the EFA device plugin (or
   * the EFA DRA driver) serves them and, for EFA types, the EFA security group exists for them to join. A pool of a
   * type not listed gets no EFA devices from the plugin. @default []
   */
  readonly poolInstanceTypes?: readonly string[];
  /**
   * AWS region the cluster is created in. The children are created in the region of the AWS provider the component
   * resolves (its `providers: { aws }` option, its parent's, or the default provider of `aws:region`), so this must
   * be that region: the component asks the provider (`aws.getRegion`) and fails with a clear error when it is not.
   * Every AZ must be in it, and its partition (`aws`, `aws-cn`, `aws-us-gov`) gives the ARNs of AWS managed policies.
   * The component reads no stack config: without `region` the AZs, which name their region, decide it.
   * @default - the region of the first AZ (of `availabilityZones` as listed, else of the existing VPC's subnet AZs or
   * the pools' AZs in name order); every other AZ must be in the same region
   */
  readonly region?: string;
  /** EKS Kubernetes version. @default "1.35" (`versions.kubernetes.defaultVersion`) */
  readonly kubernetesVersion?: string;
  /** AZs of the VPC this component creates (EKS needs 2). @default - the distinct AZs of the GPU pools */
  readonly availabilityZones?: readonly string[];
  /** CIDR of the VPC this component creates. @default "10.0.0.0/16" */
  readonly vpcCidr?: string;
  /** NAT gateways of the VPC this component creates. @default "OnePerAz" */
  readonly natGateways?: NatGateways;
  /** Use an existing VPC instead of creating one. @default - a new VPC with private and public subnets in each AZ */
  readonly existingVpc?: ExistingVpcArgs;
  /**
   * CIDRs allowed to reach the public API endpoint; the machine running `pulumi up` must be in one of them, since
   * the same run installs Helm releases through the endpoint. An empty list means a private endpoint only, which
   * needs `deployFromInsideVpc: true`. `0.0.0.0/0` is refused. @default []
   */
  readonly publicAccessCidrs?: readonly string[];
  /**
   * States that `pulumi up` runs inside the VPC (a bastion, a VPN, CI in the VPC), so a private endpoint
   * (`publicAccessCidrs: []`) is reachable. Without it an empty `publicAccessCidrs` is refused. @default false
   */
  readonly deployFromInsideVpc?: boolean;
  /** IAM principals (by a name of your choice) granted cluster admin through EKS access entries. @default {} */
  readonly adminPrincipalArns?: Readonly<Record<string, Input<string>>>;
  /** Control-plane log types sent to CloudWatch. @default ["api", "audit", "authenticator", "controllerManager", "scheduler"] */
  readonly clusterLogTypes?: readonly ClusterLogType[];
  /** KMS key for envelope encryption of Kubernetes secrets. @default - a new key with yearly rotation */
  readonly secretsKmsKeyArn?: Input<string>;
  /** Instance type of the CPU system node group (operator, frontend, controllers). @default "m7i.2xlarge" */
  readonly systemInstanceType?: string;
  /** Nodes in the CPU system node group. @default 2 */
  readonly systemNodeCount?: number;
  /**
   * Let pods reach the instance metadata service (IMDS hop limit 2 instead of 1). Off, only
   * host-network pods (VPC CNI, device plugins) reach IMDS and workloads cannot borrow the node
   * role; AWS access goes through IRSA. @default false
   */
  readonly podImdsAccess?: boolean;
  /** VPC CNI add-on version (`vX.Y.Z-eksbuild.N`, >= 1.18.5 for `efa-only`). @default - EKS's default for the Kubernetes version */
  readonly vpcCniAddonVersion?: string;
  /** EBS CSI driver add-on version. @default - EKS's default for the Kubernetes version */
  readonly ebsCsiAddonVersion?: string;
  /** `aws-efa-k8s-device-plugin` chart version. @default "v0.5.30" (`versions.charts.efaDevicePlugin`) */
  readonly efaDevicePluginChartVersion?: string;
  /** `nvidia-device-plugin` chart version. @default "0.20.0" (`versions.charts.nvidiaDevicePlugin`) */
  readonly nvidiaDevicePluginChartVersion?: string;
  /**
   * How pods get GPUs and EFA devices. `device-plugin`: the NVIDIA and EFA device plugins (extended-resource counts;
   * AWS documents GPU-EFA alignment by the EFA device plugin on the EKS AL2023 accelerated AMIs only, by a mechanism
   * it does not publish). `dra`: NVIDIA's GPU DRA driver and the EFA DRA driver (DRANET) instead, and every worker
   * claims each of its GPUs together with that GPU's EFA devices on one PCIe root (`resource.kubernetes.io/pcieRoot`).
   * `dra` needs Kubernetes 1.34 or later (resource.k8s.io/v1) and a whole number of EFA devices per GPU.
   * @default "device-plugin"
   * @see https://docs.aws.amazon.com/eks/latest/userguide/device-management-efa.html
   */
  readonly deviceAllocation?: DeviceAllocation;
  /** `aws-dranet` (EFA DRA driver) chart version, with `deviceAllocation: dra`. @default "1.0.0" (`versions.charts.efaDraDriver`) */
  readonly efaDraDriverChartVersion?: string;
  /** `dra-driver-nvidia-gpu` chart version, with `deviceAllocation: dra`. @default "0.4.1" (`versions.charts.gpuDraDriver`) */
  readonly gpuDraDriverChartVersion?: string;
  /** Create an encrypted EFS file system, the EFS CSI driver and a ReadWriteMany StorageClass (shared model cache). @default false */
  readonly efs?: boolean;
  /** Install the AWS Load Balancer Controller (internal NLB for the frontend). @default false */
  readonly loadBalancerController?: boolean;
  /** AWS Load Balancer Controller chart version. @default "3.6.0" (`versions.charts.awsLoadBalancerController`) */
  readonly loadBalancerControllerChartVersion?: string;
  /** Tags on every AWS resource. @default {} */
  readonly tags?: Readonly<Record<string, string>>;
  /**
   * Resources every GPU node group waits for (added to its `dependsOn`), such as the image build: GPU nodes are
   * billed from launch, so on a first deploy they should join when the image they run has been pushed, not idle
   * through its build. Only the GPU node groups wait; the VPC, control plane, system nodes and add-ons do not.
   * @default [] (the GPU node groups are created with the cluster)
   */
  readonly gpuNodesDependOn?: readonly Resource[];
}

/**
 * Arguments of `EfaGpuPool`: one GPU pool on an EKS cluster the pool did not create (pulumi-eks's `ManagedNodeGroup`
 * takes a cluster the same way). `EfaCluster` passes its own cluster; a stack that only adds a model passes what
 * the cluster's stack exports. The pool's own settings are plain (they decide what exists); what connects it to the
 * cluster is an `Input`.
 */
export interface EfaGpuPoolArgs {
  /** Pool name: the `dynamo-efa/pool` node label value the graph selects, and the pool's tag. */
  readonly poolName: string;
  /** The pool: instance type, nodes, AZ, EFA, capacity. */
  readonly pool: GpuPoolArgs;
  /** EKS cluster name. */
  readonly clusterName: Input<string>;
  /** The cluster's Kubernetes version: the node group's, and the minor an `amiReleaseVersion` must match. */
  readonly kubernetesVersion: string;
  /** ARN of the node role (EKS must already map it to nodes: the cluster's access entry or aws-auth). */
  readonly nodeRoleArn: Input<string>;
  /** Subnets of the node group: the private subnet of the pool's AZ (an EFA pool lives in one AZ). */
  readonly subnetIds: Input<Input<string>[]>;
  /** The EKS cluster security group, attached to every interface. */
  readonly clusterSecurityGroupId: Input<string>;
  /** The cluster's EFA security group (all traffic among its members). Required for an EFA pool. @default - none */
  readonly efaSecurityGroupId?: Input<string>;
  /** Let pods reach IMDS (hop limit 2 instead of 1), as the cluster's `podImdsAccess`. @default false */
  readonly podImdsAccess?: boolean;
  /** How pods get the pool's GPUs and EFA devices: the cluster's `deviceAllocation`. @default "device-plugin" */
  readonly deviceAllocation?: DeviceAllocation;
  /** Tags on every AWS resource of the pool. @default {} */
  readonly tags?: Readonly<Record<string, string>>;
  /** Resources the node group waits for (the node role's policy attachments, an image build). @default [] */
  readonly nodeGroupDependsOn?: readonly Resource[];
}

/** The stack keys of one GPU pool and the kind of each value (components/_shared/keys.ts): one row per argument. */
export const GPU_POOL_KEYS = {
  ...rows(str, "instanceType", "availabilityZone", "efaLayout", "capacity", "capacityReservationId"),
  ...rows(str, "amiReleaseVersion"),
  nodes: int(CLUSTER_LIMITS.nodes),
  ...rows(bool, "efa", "allowEfaWithoutGpuDirectRdma", "placementGroup", "localNvme"),
  rootVolumeSizeGiB: int(CLUSTER_LIMITS.rootVolumeSizeGiB),
  hugepages2MiPerNode: int(CLUSTER_LIMITS.hugepages2MiPerNode),
  labels: mapOf(str),
} as const satisfies KeyShape<GpuPoolArgs>;

/** The stack keys of `dynamo-efa:cluster` and the kind of each value (components/_shared/keys.ts). */
export const CLUSTER_KEYS = {
  gpuPools: { each: GPU_POOL_KEYS },
  poolInstanceTypes: listOf(str),
  region: { wired: "aws:region" },
  ...rows(str, "kubernetesVersion", "vpcCidr", "natGateways", "secretsKmsKeyArn", "systemInstanceType"),
  ...rows(str, "vpcCniAddonVersion", "ebsCsiAddonVersion", "efaDevicePluginChartVersion"),
  ...rows(str, "nvidiaDevicePluginChartVersion", "loadBalancerControllerChartVersion"),
  ...rows(str, "deviceAllocation", "efaDraDriverChartVersion", "gpuDraDriverChartVersion"),
  availabilityZones: listOf(str),
  existingVpc: { vpcId: str, privateSubnetIds: mapOf(str), publicSubnetIds: listOf(str) },
  publicAccessCidrs: listOf(str),
  ...rows(bool, "deployFromInsideVpc", "podImdsAccess", "loadBalancerController"),
  adminPrincipalArns: mapOf(str),
  clusterLogTypes: listOf(str),
  systemNodeCount: int(CLUSTER_LIMITS.systemNodeCount),
  efs: { wired: "inference.modelCache (a shared model cache turns EFS on)" },
  tags: mapOf(str),
  gpuNodesDependOn: { wired: "the image build (GPU nodes join once the image is pushed)" },
} as const satisfies KeyShape<EfaClusterArgs>;

/** A pool with every default filled in. */
export interface ResolvedPool {
  readonly name: string;
  readonly instanceType: string;
  readonly nodes: number;
  readonly availabilityZone?: string;
  readonly efa: boolean;
  readonly allowEfaWithoutGpuDirectRdma: boolean;
  readonly efaLayout: EfaLayout;
  readonly capacity: CapacityType;
  readonly capacityReservationId?: string;
  readonly placementGroup: boolean;
  readonly rootVolumeSizeGiB: number;
  readonly amiReleaseVersion?: string;
  readonly hugepages2MiPerNode?: number;
  /** Instance-store NVMe as one RAID0 array (user data). */
  readonly localNvme: boolean;
  readonly labels: Readonly<Record<string, string>>;
}

/** `EfaClusterArgs` with every default filled in. */
export interface ResolvedClusterArgs {
  readonly pools: readonly ResolvedPool[];
  /** Instance types of pools other stacks add (`poolInstanceTypes`), distinct, in the order written. */
  readonly poolInstanceTypes: readonly string[];
  readonly region: string;
  /** The region's partition (ARN prefix, service DNS suffix). */
  readonly partition: AwsPartition;
  readonly kubernetesVersion: string;
  readonly availabilityZones: readonly string[];
  readonly vpcCidr: string;
  readonly natGateways: NatGateways;
  readonly existingVpc?: ExistingVpcArgs;
  readonly publicAccessCidrs: readonly string[];
  readonly deployFromInsideVpc: boolean;
  readonly adminPrincipalArns: Readonly<Record<string, Input<string>>>;
  readonly clusterLogTypes: readonly ClusterLogType[];
  readonly secretsKmsKeyArn?: Input<string>;
  readonly systemInstanceType: string;
  readonly systemNodeCount: number;
  readonly imdsHopLimit: 1 | 2;
  readonly vpcCniAddonVersion?: string;
  readonly ebsCsiAddonVersion?: string;
  readonly efaDevicePluginChartVersion: string;
  readonly nvidiaDevicePluginChartVersion: string;
  readonly deviceAllocation: DeviceAllocation;
  readonly efaDraDriverChartVersion: string;
  readonly gpuDraDriverChartVersion: string;
  readonly efs: boolean;
  readonly loadBalancerController: boolean;
  readonly loadBalancerControllerChartVersion: string;
  readonly tags: Readonly<Record<string, string>>;
  readonly gpuNodesDependOn: readonly Resource[];
  /** What was given rather than defaulted, and what resolution dropped (for the validator's messages). */
  readonly source: ClusterArgsSource;
}

/**
 * Whether EFA is on for a pool when the user did not say (a P-family type with GPUDirect RDMA). An unknown type
 * gets false here; `validate` reports it.
 */
export function defaultEfa(instanceType: string): boolean {
  const row = INSTANCES.get(instanceType);
  return row !== undefined && supportsNixlOverEfa(row);
}

/**
 * Fills a pool's defaults; never throws (an unknown instance type gets no EFA and no local NVMe by default, and
 * `validate` reports it). Meaningful once validation found no problem.
 */
export function resolvePool(name: string, p: GpuPoolArgs): ResolvedPool {
  const efa = p.efa ?? defaultEfa(p.instanceType);
  const capacity = p.capacity ?? CapacityType.OnDemand;
  const localNvme = p.localNvme ?? (INSTANCES.get(p.instanceType)?.localNvmeGB ?? 0) > 0;
  return {
    name,
    instanceType: p.instanceType,
    nodes: p.nodes,
    ...(p.availabilityZone !== undefined ? { availabilityZone: p.availabilityZone } : {}),
    efa,
    allowEfaWithoutGpuDirectRdma: p.allowEfaWithoutGpuDirectRdma ?? false,
    efaLayout: p.efaLayout ?? EfaLayout.Current,
    capacity,
    ...(p.capacityReservationId !== undefined ? { capacityReservationId: p.capacityReservationId } : {}),
    placementGroup: p.placementGroup ?? (efa && capacity === CapacityType.OnDemand),
    rootVolumeSizeGiB: p.rootVolumeSizeGiB ?? gpuRootVolume(localNvme).sizeGiB,
    ...(p.amiReleaseVersion !== undefined ? { amiReleaseVersion: p.amiReleaseVersion } : {}),
    ...(p.hugepages2MiPerNode !== undefined ? { hugepages2MiPerNode: p.hugepages2MiPerNode } : {}),
    localNvme,
    labels: p.labels ?? {},
  };
}

/**
 * Fills every default (docs/CONTRIBUTING.md rule 5) and never throws on bad values: a pool that is not an object
 * is left out, an unknown instance type gets the defaults of a type without EFA. `validate`
 * reports all of that; the component resolves, validates, and only then creates children.
 */
export function resolveArgs(a: EfaClusterArgs): ResolvedClusterArgs {
  const existing = a.existingVpc;
  const region = clusterRegion(a);
  const pools = typeof a.gpuPools === "object" && a.gpuPools !== null ? a.gpuPools : {};
  return {
    pools: Object.keys(pools)
      .filter((k) => typeof pools[k] === "object" && pools[k] !== null)
      .sort()
      .map((k) => resolvePool(k, pools[k])),
    poolInstanceTypes: [...new Set(a.poolInstanceTypes ?? [])],
    region,
    partition: partitionOf(region) ?? DEFAULT_PARTITION,
    kubernetesVersion: a.kubernetesVersion ?? kubernetes.defaultVersion,
    availabilityZones: clusterAvailabilityZones(a),
    vpcCidr: a.vpcCidr ?? "10.0.0.0/16",
    natGateways: a.natGateways ?? NatGateways.OnePerAz,
    ...(existing ? { existingVpc: existing } : {}),
    publicAccessCidrs: a.publicAccessCidrs ?? [],
    deployFromInsideVpc: a.deployFromInsideVpc ?? false,
    adminPrincipalArns: a.adminPrincipalArns ?? {},
    clusterLogTypes: a.clusterLogTypes ?? CLUSTER_LOG_TYPES,
    ...(a.secretsKmsKeyArn !== undefined ? { secretsKmsKeyArn: a.secretsKmsKeyArn } : {}),
    systemInstanceType: a.systemInstanceType ?? "m7i.2xlarge",
    systemNodeCount: a.systemNodeCount ?? 2,
    imdsHopLimit: a.podImdsAccess ? 2 : 1,
    ...(a.vpcCniAddonVersion !== undefined ? { vpcCniAddonVersion: a.vpcCniAddonVersion } : {}),
    ...(a.ebsCsiAddonVersion !== undefined ? { ebsCsiAddonVersion: a.ebsCsiAddonVersion } : {}),
    efaDevicePluginChartVersion: a.efaDevicePluginChartVersion ?? charts.efaDevicePlugin.version,
    nvidiaDevicePluginChartVersion: a.nvidiaDevicePluginChartVersion ?? charts.nvidiaDevicePlugin.version,
    deviceAllocation: a.deviceAllocation ?? DeviceAllocation.DevicePlugin,
    efaDraDriverChartVersion: a.efaDraDriverChartVersion ?? charts.efaDraDriver.version,
    gpuDraDriverChartVersion: a.gpuDraDriverChartVersion ?? charts.gpuDraDriver.version,
    efs: a.efs ?? false,
    loadBalancerController: a.loadBalancerController ?? false,
    loadBalancerControllerChartVersion:
      a.loadBalancerControllerChartVersion ?? charts.awsLoadBalancerController.version,
    tags: a.tags ?? {},
    gpuNodesDependOn: a.gpuNodesDependOn ?? [],
    source: argsSource(a),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// What the user wrote that the resolved args cannot show: whether a value was given or derived (a message says
// "derived from the pools' AZs"), the order pools were written in, and entries resolution drops. `resolveArgs`
// records it so the validator reads only resolved args. Pure.

/** Facts about the args as written, carried on `ResolvedClusterArgs.source`. */
export interface ClusterArgsSource {
  /** `region` was given, not derived from the first AZ. */
  readonly regionGiven: boolean;
  /** `availabilityZones` was listed, not derived from the pools' AZs. */
  readonly availabilityZonesGiven: boolean;
  /** `gpuPools` as written when it is not a non-empty map of pools (validation reports it). @default - absent (a good map) */
  readonly badGpuPools?: { readonly written: unknown };
  /** Pool keys in the order written (resolved pools are sorted); problems are reported in this order. */
  readonly poolKeys: readonly string[];
  /** Pool entries that are not objects, by key, as written (resolution leaves them out; validation reports them). */
  readonly nonObjectPools: Readonly<Record<string, unknown>>;
}

/** The source facts of `a`; never throws. */
export function argsSource(a: EfaClusterArgs): ClusterArgsSource {
  const pools: unknown = a.gpuPools;
  const isMap = typeof pools === "object" && pools !== null;
  const entries = isMap ? Object.entries(pools as Record<string, unknown>) : [];
  // No pools at all is a cluster for other stacks' pools (`poolInstanceTypes`); `validate` checks it names them.
  const badMap = pools !== undefined && (!isMap || Array.isArray(pools) || entries.length === 0);
  return {
    regionGiven: a.region !== undefined,
    availabilityZonesGiven: a.availabilityZones !== undefined,
    ...(badMap ? { badGpuPools: { written: pools } } : {}),
    poolKeys: entries.map(([k]) => k),
    nonObjectPools: Object.fromEntries(entries.filter(([, p]) => typeof p !== "object" || p === null)),
  };
}

/** The resolved pools in the order the user wrote them (so problems list in that order). */
export function poolsAsWritten(r: {
  readonly pools: readonly ResolvedPool[];
  readonly source: ClusterArgsSource;
}): ResolvedPool[] {
  return r.source.poolKeys.flatMap((k) => r.pools.filter((p) => p.name === k));
}

// ---------------------------------------------------------------------------------------------------------------
// The cluster's AZs and region, from its args as given: listed, or derived from the pools (and the region from the
// first AZ). Only `resolveArgs` reads them; the validator checks its result (and `source` says whether the user
// gave them or they were derived), so the two cannot disagree. Pure.

/** The VPC's AZs when the user did not list them: the pools' AZs, sorted. */
export function defaultAvailabilityZones(pools: Readonly<Record<string, GpuPoolArgs>>): string[] {
  const azs = Object.values(pools ?? {})
    .map((p) => p?.availabilityZone)
    .filter((az): az is string => typeof az === "string");
  return [...new Set(azs)].sort();
}

/** The VPC's AZs: the existing VPC's subnet keys, the listed AZs, or the pools' AZs. */
export function clusterAvailabilityZones(a: EfaClusterArgs): string[] {
  return a.existingVpc
    ? Object.keys(a.existingVpc.privateSubnetIds ?? {}).sort()
    : [...(a.availabilityZones ?? defaultAvailabilityZones(a.gpuPools ?? {}))];
}

/**
 * The region: `region`, else the region of the first AZ (validated to hold every AZ). An entry that is not an AZ
 * name (a number, "bogus") is reported at its own path and names no region, so it is skipped: taking its "region"
 * would fail every valid AZ against it.
 */
export function clusterRegion(a: EfaClusterArgs): string {
  if (a.region !== undefined) return a.region;
  const first = regionZone(clusterAvailabilityZones(a));
  return first === undefined ? "" : regionOfAz(first);
}

/** The AZ whose region is the cluster's when `region` is not given: the first entry that is an AZ name. */
export function regionZone(azs: readonly unknown[]): string | undefined {
  return azs.find((az): az is string => typeof az === "string" && AZ_NAME.test(az));
}
