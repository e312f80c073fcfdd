/**
 * The shape of one catalog row (`GpuInstance`) and `row()`, which fills the facts every row derives the same way
 * (family, EFA hugepages, instance-store NVMe). Split from `./instances.ts` so the P- and G-family tables can build
 * rows without importing the lookups. Pure.
 */
import { localNvmeGB } from "./instance-storage";

/** CPU architecture of an instance. Only x86_64 pools are supported (the image is x86_64-only). */
export const CpuArch = { X86_64: "x86_64", Arm64: "arm64" } as const;
export type CpuArch = (typeof CpuArch)[keyof typeof CpuArch];

/** Whether a fact is confirmed by AWS documentation or still an assumption to be overridden. */
export type Tristate = true | false | "unknown";

/** One AWS GPU instance type. */
export interface GpuInstance {
  /** EC2 instance type, e.g. `p5en.48xlarge`. */
  readonly name: string;
  /** Instance family, e.g. `p5en`. */
  readonly family: string;
  /** Marketing GPU name, e.g. `H200 141GB`. */
  readonly gpuModel: string;
  /** GPUs per instance. */
  readonly gpuCount: number;
  /** Memory per GPU, in GiB. */
  readonly gpuMemoryGiB: number;
  /** CUDA SM architecture of the GPU, e.g. `sm_90`. */
  readonly smArch: string;
  /** CPU architecture. */
  readonly cpuArch: CpuArch;
  /** vCPUs per instance. */
  readonly vcpus: number;
  /** Host memory per instance, in GiB. */
  readonly memoryGiB: number;
  /** EFA devices per instance (0 = no EFA). */
  readonly efaDevices: number;
  /** Network cards per instance. */
  readonly networkCards: number;
  /** Whether network card 0 supports an EFA interface (false on p6-b300's non-EFA card: unverified). */
  readonly card0SupportsEfa: boolean;
  /** Bandwidth of one EFA rail, in Gbps (undefined where AWS does not publish one). */
  readonly perRailGbps?: number;
  /** GPUDirect RDMA over EFA, needed by NIXL's LIBFABRIC plugin to move KV cache from GPU memory. */
  readonly gpuDirectRdma: Tristate;
  /**
   * 2 MiB hugepages the EFA driver pre-allocates per node (0 without EFA). ~5128 is what the field
   * measured on p5-class nodes; other types are assumed equal until measured (override per pool).
   */
  readonly efaHugepages2Mi: number;
  /** Instance-store NVMe, total GB (0 = none); see `./instance-storage.ts` for the source. */
  readonly localNvmeGB: number;
  /** True when `efaHugepages2Mi` was measured on this type rather than assumed. */
  readonly efaHugepagesMeasured: boolean;
  /** True when a row's facts are not yet confirmed by AWS documentation (docs/ARCHITECTURE.md#gpu-instances). */
  readonly unverified?: boolean;
}

/** Hugepages the EFA driver pre-allocates per node, as measured on p5/p5en (F14). */
export const EFA_DRIVER_HUGEPAGES_2MI = 5128;

/** The facts a row table states; the rest are derived by `row()`. */
export type Row = Omit<GpuInstance, "family" | "efaHugepages2Mi" | "efaHugepagesMeasured" | "localNvmeGB"> & {
  measured?: boolean;
};

/** A full catalog row from the facts typed per row. */
export function row(r: Row): GpuInstance {
  const { measured, ...rest } = r;
  return {
    ...rest,
    family: r.name.split(".")[0],
    efaHugepages2Mi: r.efaDevices > 0 ? EFA_DRIVER_HUGEPAGES_2MI : 0,
    efaHugepagesMeasured: measured === true,
    localNvmeGB: localNvmeGB(r.name),
  };
}
