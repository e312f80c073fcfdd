/**
 * `GpuPoolFacts`: the plain-data description of one GPU node pool, known before any resource exists.
 * `EfaCluster` outputs one per pool; `DisaggInference` validates and renders against it; the
 * render tool prints it. Pure.
 */
import { CpuArch, efaPerGpu, GpuInstance, Tristate } from "./instances";

/** Label the cluster puts on every node of a GPU pool (value: the pool name). */
export const POOL_LABEL = "dynamo-efa/pool";
/** Well-known node label with the EC2 instance type. */
export const INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type";

/** A Kubernetes node taint. */
export interface Taint {
  readonly key: string;
  readonly value: string;
  readonly effect: "NoSchedule" | "PreferNoSchedule" | "NoExecute";
}

/** The GPU taint every GPU pool carries, so only pods that tolerate it land on GPU nodes. */
export const GPU_TAINT: Taint = { key: "nvidia.com/gpu", value: "true", effect: "NoSchedule" };
/** Every taint a GPU pool's nodes carry: the node group's, and the ones its nodes register with. */
export const GPU_POOL_TAINTS: readonly Taint[] = [GPU_TAINT];

/**
 * How a pool's GPUs and EFA devices reach a pod: the NVIDIA and EFA device plugins (extended-resource counts,
 * `nvidia.com/gpu` and `vpc.amazonaws.com/efa`), or Dynamic Resource Allocation (NVIDIA's GPU DRA driver and the
 * EFA DRA driver, DRANET: one ResourceClaim per pod whose GPU and EFA requests share a PCIe root). The two cannot
 * serve one node (AWS's EKS guide: "silent oversubscription"), so the choice is the cluster's.
 * @see https://docs.aws.amazon.com/eks/latest/userguide/device-management-efa.html
 */
export const DeviceAllocation = {
  /** Device plugins: counts, paired by the EFA device plugin's own topology logic (AL2023 accelerated AMIs only). */
  DevicePlugin: "device-plugin",
  /** DRA: GPU and EFA devices claimed together, each GPU's EFA devices constrained to its PCIe root. */
  Dra: "dra",
} as const;
export type DeviceAllocation = (typeof DeviceAllocation)[keyof typeof DeviceAllocation];

/** Everything downstream needs to know about one GPU pool, as plain data. */
export interface GpuPoolFacts {
  /** Pool name (the key in the cluster's `gpuPools` map). */
  readonly name: string;
  /** EC2 instance type of every node. */
  readonly instanceType: string;
  /** Number of nodes. */
  readonly nodes: number;
  /** GPUs per node. */
  readonly gpusPerNode: number;
  /** EFA devices per node actually attached (0 when EFA is off for the pool). */
  readonly efaPerNode: number;
  /** EFA devices per GPU (may be fractional, e.g. 0.5 on p4d). */
  readonly efaPerGpu: number;
  /** 2 MiB hugepages available per node (pre-allocated by the EFA driver). */
  readonly hugepages2MiPerNode: number;
  /** CUDA SM architecture of the GPUs, e.g. `sm_90`. */
  readonly smArch: string;
  /** CPU architecture of the nodes. */
  readonly cpuArch: CpuArch;
  /** Availability zone the pool is pinned to (EFA pools live in one AZ). */
  readonly availabilityZone?: string;
  /** GPUDirect RDMA over EFA. */
  readonly gpuDirectRdma: Tristate;
  /** vCPUs per node. */
  readonly vcpusPerNode: number;
  /** Host memory per node, in GiB. */
  readonly memoryGiBPerNode: number;
  /** Node labels that select exactly this pool. */
  readonly nodeSelector: Readonly<Record<string, string>>;
  /** Taints on the pool's nodes. */
  readonly taints: readonly Taint[];
  /** The node's instance-store NVMe as one RAID0 array, when the pool sets it up (the `local-nvme` model cache needs it). @default - none */
  readonly localNvme?: { readonly mountPath: string; readonly sizeGB: number };
  /** How pods get the pool's GPUs and EFA devices (the cluster's `deviceAllocation`). @default "device-plugin" */
  readonly deviceAllocation?: DeviceAllocation;
}

/** Options that shape a pool's facts beyond the catalog row. */
export interface PoolFactsOptions {
  readonly name: string;
  readonly nodes: number;
  readonly efaEnabled: boolean;
  readonly availabilityZone?: string;
  /** Override for the catalog's pre-allocated hugepages (measured on your nodes). */
  readonly hugepages2MiPerNode?: number;
  /** Where the node's RAID0 array of instance-store NVMe is mounted, when the pool sets one up. */
  readonly localNvmeMountPath?: string;
  /** How pods get the pool's devices. @default "device-plugin" */
  readonly deviceAllocation?: DeviceAllocation;
}

/** Derives a pool's facts from its catalog row. */
export function gpuPoolFacts(row: GpuInstance, o: PoolFactsOptions): GpuPoolFacts {
  const efa = o.efaEnabled ? row.efaDevices : 0;
  return {
    name: o.name,
    instanceType: row.name,
    nodes: o.nodes,
    gpusPerNode: row.gpuCount,
    efaPerNode: efa,
    efaPerGpu: o.efaEnabled ? efaPerGpu(row) : 0,
    hugepages2MiPerNode: o.hugepages2MiPerNode ?? (o.efaEnabled ? row.efaHugepages2Mi : 0),
    smArch: row.smArch,
    cpuArch: row.cpuArch,
    ...(o.availabilityZone !== undefined ? { availabilityZone: o.availabilityZone } : {}),
    gpuDirectRdma: row.gpuDirectRdma,
    vcpusPerNode: row.vcpus,
    memoryGiBPerNode: row.memoryGiB,
    nodeSelector: { [POOL_LABEL]: o.name, [INSTANCE_TYPE_LABEL]: row.name },
    taints: [...GPU_POOL_TAINTS],
    ...(o.localNvmeMountPath !== undefined && row.localNvmeGB > 0
      ? { localNvme: { mountPath: o.localNvmeMountPath, sizeGB: row.localNvmeGB } }
      : {}),
    ...(o.deviceAllocation === DeviceAllocation.Dra ? { deviceAllocation: DeviceAllocation.Dra } : {}),
  };
}
