/**
 * AWS GPU instance catalog: the single source of every per-instance fact (GPU count, SM arch, EFA
 * devices, network cards, hugepages). No EFA count is ever typed anywhere else (field failure F12).
 * Pure data and functions; no Pulumi import.
 *
 * Source for every row unless noted: docs/ARCHITECTURE.md#gpu-instances (AWS EC2 accelerated-computing instance pages,
 * "Supported instance types for EFA", reviewed 2026-11). vCPU and memory: the EC2 instance type pages.
 */
import { ValidationError } from "../_shared/problems";
import { closest } from "../_shared/suggest";
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

type Row = Omit<GpuInstance, "family" | "efaHugepages2Mi" | "efaHugepagesMeasured" | "localNvmeGB"> & {
  measured?: boolean;
};

function row(r: Row): GpuInstance {
  const { measured, ...rest } = r;
  return {
    ...rest,
    family: r.name.split(".")[0],
    efaHugepages2Mi: r.efaDevices > 0 ? EFA_DRIVER_HUGEPAGES_2MI : 0,
    efaHugepagesMeasured: measured === true,
    localNvmeGB: localNvmeGB(r.name),
  };
}

const x86 = CpuArch.X86_64;

/** P family: multi-rail EFA with GPUDirect RDMA (the disaggregated-over-EFA fleet). */
const P_FAMILY: GpuInstance[] = [
  row({
    name: "p4d.24xlarge",
    gpuModel: "A100 40GB",
    gpuCount: 8,
    gpuMemoryGiB: 40,
    smArch: "sm_80",
    cpuArch: x86,
    vcpus: 96,
    memoryGiB: 1152,
    efaDevices: 4,
    networkCards: 4,
    card0SupportsEfa: true,
    perRailGbps: 100,
    gpuDirectRdma: true,
  }),
  row({
    name: "p4de.24xlarge",
    gpuModel: "A100 80GB",
    gpuCount: 8,
    gpuMemoryGiB: 80,
    smArch: "sm_80",
    cpuArch: x86,
    vcpus: 96,
    memoryGiB: 1152,
    efaDevices: 4,
    networkCards: 4,
    card0SupportsEfa: true,
    perRailGbps: 100,
    gpuDirectRdma: true,
  }),
  row({
    name: "p5.48xlarge",
    gpuModel: "H100 80GB",
    gpuCount: 8,
    gpuMemoryGiB: 80,
    smArch: "sm_90",
    cpuArch: x86,
    vcpus: 192,
    memoryGiB: 2048,
    efaDevices: 32,
    networkCards: 32,
    card0SupportsEfa: true,
    perRailGbps: 100,
    gpuDirectRdma: true,
    measured: true,
  }),
  row({
    name: "p5e.48xlarge",
    gpuModel: "H200 141GB",
    gpuCount: 8,
    gpuMemoryGiB: 141,
    smArch: "sm_90",
    cpuArch: x86,
    vcpus: 192,
    memoryGiB: 2048,
    efaDevices: 32,
    networkCards: 32,
    card0SupportsEfa: true,
    perRailGbps: 100,
    gpuDirectRdma: true,
  }),
  row({
    name: "p5en.48xlarge",
    gpuModel: "H200 141GB",
    gpuCount: 8,
    gpuMemoryGiB: 141,
    smArch: "sm_90",
    cpuArch: x86,
    vcpus: 192,
    memoryGiB: 2048,
    efaDevices: 16,
    networkCards: 16,
    card0SupportsEfa: true,
    perRailGbps: 200,
    gpuDirectRdma: true,
    measured: true,
  }),
  row({
    name: "p6-b200.48xlarge",
    gpuModel: "B200",
    gpuCount: 8,
    gpuMemoryGiB: 179,
    smArch: "sm_100",
    cpuArch: x86,
    vcpus: 192,
    memoryGiB: 2048,
    efaDevices: 8,
    networkCards: 8,
    card0SupportsEfa: true,
    perRailGbps: 400,
    gpuDirectRdma: true,
  }),
  // 17 network cards, 16 EFA: which card lacks EFA is unverified; we assume card 0 (ENA only).
  row({
    name: "p6-b300.48xlarge",
    gpuModel: "B300",
    gpuCount: 8,
    gpuMemoryGiB: 268,
    smArch: "sm_103",
    cpuArch: x86,
    vcpus: 192,
    memoryGiB: 4096,
    efaDevices: 16,
    networkCards: 17,
    card0SupportsEfa: false,
    perRailGbps: 400,
    gpuDirectRdma: true,
    unverified: true,
  }),
  row({
    name: "p5.4xlarge",
    gpuModel: "H100 80GB",
    gpuCount: 1,
    gpuMemoryGiB: 80,
    smArch: "sm_90",
    cpuArch: x86,
    vcpus: 16,
    memoryGiB: 256,
    efaDevices: 1,
    networkCards: 1,
    card0SupportsEfa: true,
    perRailGbps: 100,
    gpuDirectRdma: "unknown",
    unverified: true,
  }),
];

/** G family sizes: [size, gpus, vcpus, memoryGiB, efa] per family. No GPUDirect RDMA over EFA. */
type GSize = readonly [size: string, gpus: number, vcpus: number, memGiB: number, efa: number];
interface GFamily {
  family: string;
  gpuModel: string;
  gpuMemoryGiB: number;
  smArch: string;
  rdma: Tristate;
  unverified?: boolean;
  sizes: readonly GSize[];
}

const G_FAMILIES: readonly GFamily[] = [
  {
    family: "g5",
    gpuModel: "A10G",
    gpuMemoryGiB: 22,
    smArch: "sm_86",
    rdma: false,
    sizes: [
      ["xlarge", 1, 4, 16, 0],
      ["2xlarge", 1, 8, 32, 0],
      ["4xlarge", 1, 16, 64, 0],
      ["8xlarge", 1, 32, 128, 1],
      ["16xlarge", 1, 64, 256, 1],
      ["12xlarge", 4, 48, 192, 1],
      ["24xlarge", 4, 96, 384, 1],
      ["48xlarge", 8, 192, 768, 1],
    ],
  },
  {
    family: "g6",
    gpuModel: "L4",
    gpuMemoryGiB: 22,
    smArch: "sm_89",
    rdma: false,
    sizes: [
      ["xlarge", 1, 4, 16, 0],
      ["2xlarge", 1, 8, 32, 0],
      ["4xlarge", 1, 16, 64, 0],
      ["8xlarge", 1, 32, 128, 1],
      ["16xlarge", 1, 64, 256, 1],
      ["12xlarge", 4, 48, 192, 1],
      ["24xlarge", 4, 96, 384, 1],
      ["48xlarge", 8, 192, 768, 1],
    ],
  },
  {
    family: "g6e",
    gpuModel: "L40S",
    gpuMemoryGiB: 45,
    smArch: "sm_89",
    rdma: false,
    sizes: [
      ["xlarge", 1, 4, 32, 0],
      ["2xlarge", 1, 8, 64, 0],
      ["4xlarge", 1, 16, 128, 0],
      ["8xlarge", 1, 32, 256, 1],
      ["16xlarge", 1, 64, 512, 1],
      ["12xlarge", 4, 48, 384, 1],
      ["24xlarge", 4, 96, 768, 2],
      ["48xlarge", 8, 192, 1536, 4],
    ],
  },
  {
    family: "g7e",
    gpuModel: "RTX PRO 6000 Blackwell",
    gpuMemoryGiB: 96,
    smArch: "sm_120",
    rdma: "unknown",
    unverified: true,
    sizes: [
      ["2xlarge", 1, 8, 64, 0],
      ["4xlarge", 1, 16, 128, 0],
      ["8xlarge", 1, 32, 256, 1],
      ["12xlarge", 2, 48, 512, 1],
      ["24xlarge", 4, 96, 1024, 2],
      ["48xlarge", 8, 192, 2048, 4],
    ],
  },
];

function gRows(f: GFamily): GpuInstance[] {
  return f.sizes.map(([size, gpus, vcpus, mem, efa]) =>
    row({
      name: `${f.family}.${size}`,
      gpuModel: f.gpuModel,
      gpuCount: gpus,
      gpuMemoryGiB: f.gpuMemoryGiB,
      smArch: f.smArch,
      cpuArch: x86,
      vcpus,
      memoryGiB: mem,
      efaDevices: efa,
      // Multi-EFA g sizes have one card per EFA device; the others have a single card.
      networkCards: Math.max(1, efa),
      card0SupportsEfa: efa > 0,
      gpuDirectRdma: f.rdma,
      ...(f.unverified ? { unverified: true } : {}),
    }),
  );
}

/** Every known GPU instance type, by name. */
export const INSTANCES: ReadonlyMap<string, GpuInstance> = new Map(
  [...P_FAMILY, ...G_FAMILIES.flatMap(gRows)].map((r) => [r.name, Object.freeze(r)] as const),
);

/**
 * Types AWS sells only on arm64 (Grace) hosts, known so that asking for them gets a precise error
 * instead of "unknown instance type". p6e-gb200 is sold only as UltraServers via Capacity Blocks.
 */
export const ARM64_GPU_TYPES: readonly string[] = [
  "p6e-gb200.36xlarge",
  "g5g.xlarge",
  "g5g.2xlarge",
  "g5g.4xlarge",
  "g5g.8xlarge",
  "g5g.16xlarge",
  "g5g.metal",
];

/** Names of every known instance type, sorted. */
export function instanceNames(): string[] {
  return [...INSTANCES.keys()].sort();
}

/**
 * The catalog row for `name`. Throws a `ValidationError` at `propertyPath` for an unknown type
 * (suggesting the closest names) or an arm64 type (the build and pools are x86_64-only).
 */
export function instance(name: string, propertyPath = "instanceType"): GpuInstance {
  const hit = INSTANCES.get(name);
  if (hit) return hit;
  throw new ValidationError("instance catalog", [{ propertyPath, reason: unknownInstanceReason(name) }]);
}

/** Why `name` is not a usable instance type; for callers that collect problems instead of throwing. */
export function unknownInstanceReason(name: unknown): string {
  if (typeof name !== "string" || name === "")
    return `must be a GPU instance type name such as "p5en.48xlarge"; got ${JSON.stringify(name)}`;
  if (ARM64_GPU_TYPES.includes(name)) {
    return `${JSON.stringify(name)} is an arm64 (Grace/Graviton) instance; only x86_64 GPU instances are supported because the combined image is built for linux/amd64. Use an x86_64 type such as "p5en.48xlarge"`;
  }
  const near = closest(name, instanceNames());
  const hint =
    near.length > 0
      ? `did you mean ${near.map((n) => JSON.stringify(n)).join(" or ")}?`
      : `known types: ${instanceNames().join(", ")}`;
  return `unknown GPU instance type ${JSON.stringify(name)}; ${hint}`;
}

/** EFA devices per GPU (fractional on p4d: 0.5; 0 without EFA). */
export function efaPerGpu(i: GpuInstance): number {
  return i.efaDevices / i.gpuCount;
}

/**
 * Whether NIXL's LIBFABRIC plugin can move KV cache over EFA on this type: it needs EFA devices and
 * GPUDirect RDMA (a P-family feature). "unknown" rows count as false until AWS documents them.
 */
export function supportsNixlOverEfa(i: GpuInstance): boolean {
  return i.efaDevices > 0 && i.gpuDirectRdma === true;
}
