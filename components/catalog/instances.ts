/**
 * AWS GPU instance catalog: the single source of every per-instance fact (GPU count, SM arch, EFA
 * devices, network cards, hugepages). No EFA count is ever typed anywhere else (field failure F12).
 * This file holds the row type, the P- and G-family rows, the map by name and the lookups.
 * Pure; no Pulumi import.
 *
 * Source for every row unless noted: docs/ARCHITECTURE.md#gpu-instances (AWS EC2 accelerated-computing instance pages,
 * "Supported instance types for EFA", reviewed 2026-11). vCPU and memory: the EC2 instance type pages.
 */
import { Checked, failed, ok, valueOf } from "../_shared/problems";
import { closest } from "../_shared/suggest";

/**
 * Instance-store NVMe per instance type, in GB (decimal, as EC2 reports `InstanceStorageInfo.TotalSizeInGB`).
 * Pure data. The GPU node group's user data turns these disks into one RAID0 array (nodeadm
 * `localStorage.strategy: RAID0`), where the `local-nvme` model cache lives.
 *
 * Source: EC2 DescribeInstanceTypes as recorded by Karpenter's generated instance-type reference
 * (aws/karpenter-provider-aws@1d927085dd81a9df9301e613f371dac5b4d16bfe
 * `website/content/en/docs/reference/instance-types.md`, label `karpenter.k8s.aws/instance-local-nvme`);
 * held to it by `tests/contracts/instance-storage.spec.ts` (facts/instance-local-nvme.json).
 */

/** Total instance-store NVMe of each catalogued type, in GB; every catalogued GPU type has some. */
export const LOCAL_NVME_GB: Readonly<Record<string, number>> = {
  "p4d.24xlarge": 8000,
  "p4de.24xlarge": 8000,
  "p5.48xlarge": 30400,
  "p5e.48xlarge": 30400,
  "p5en.48xlarge": 30400,
  "p5.4xlarge": 3800,
  "p6-b200.48xlarge": 30400,
  "p6-b300.48xlarge": 30400,
  "g5.xlarge": 250,
  "g5.2xlarge": 450,
  "g5.4xlarge": 600,
  "g5.8xlarge": 900,
  "g5.16xlarge": 1900,
  "g5.12xlarge": 3800,
  "g5.24xlarge": 3800,
  "g5.48xlarge": 7600,
  "g6.xlarge": 250,
  "g6.2xlarge": 450,
  "g6.4xlarge": 600,
  "g6.8xlarge": 900,
  "g6.16xlarge": 1880,
  "g6.12xlarge": 3760,
  "g6.24xlarge": 3760,
  "g6.48xlarge": 7520,
  "g6e.xlarge": 250,
  "g6e.2xlarge": 450,
  "g6e.4xlarge": 600,
  "g6e.8xlarge": 900,
  "g6e.16xlarge": 1900,
  "g6e.12xlarge": 3800,
  "g6e.24xlarge": 3800,
  "g6e.48xlarge": 7600,
  "g7e.2xlarge": 1900,
  "g7e.4xlarge": 1900,
  "g7e.8xlarge": 1900,
  "g7e.12xlarge": 3800,
  "g7e.24xlarge": 7600,
  "g7e.48xlarge": 15200,
};

/** Instance-store NVMe of `instanceType` in GB; 0 when it has none (or the catalog does not know it). */
export function localNvmeGB(instanceType: string): number {
  return LOCAL_NVME_GB[instanceType] ?? 0;
}

/*
 * The shape of one catalog row (`GpuInstance`) and `row()`, which fills the facts every row derives the same way
 * (family, EFA hugepages, instance-store NVMe), used by the P- and G-family tables below. Pure.
 */

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
  /** Instance-store NVMe, total GB (0 = none); see `LOCAL_NVME_GB` above for the source. */
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

/*
 * P-family rows of the instance catalog (multi-rail EFA with GPUDirect RDMA), one literal row per type. Sources as in
 * this file's header.
 */

const x86 = CpuArch.X86_64;

/** What the 8-GPU P types share: x86_64, EFA on network card 0 (not on p6-b300) and GPUDirect RDMA over EFA. */
const MULTI_RAIL_8GPU = { gpuCount: 8, cpuArch: x86, card0SupportsEfa: true, gpuDirectRdma: true } as const;

/** P family: multi-rail EFA with GPUDirect RDMA (the disaggregated-over-EFA fleet). */
export const P_FAMILY: GpuInstance[] = [
  row({
    name: "p4d.24xlarge",
    ...MULTI_RAIL_8GPU,
    gpuModel: "A100 40GB",
    gpuMemoryGiB: 40,
    smArch: "sm_80",
    vcpus: 96,
    memoryGiB: 1152,
    efaDevices: 4,
    networkCards: 4,
    perRailGbps: 100,
  }),
  row({
    name: "p4de.24xlarge",
    ...MULTI_RAIL_8GPU,
    gpuModel: "A100 80GB",
    gpuMemoryGiB: 80,
    smArch: "sm_80",
    vcpus: 96,
    memoryGiB: 1152,
    efaDevices: 4,
    networkCards: 4,
    perRailGbps: 100,
  }),
  row({
    name: "p5.48xlarge",
    ...MULTI_RAIL_8GPU,
    gpuModel: "H100 80GB",
    gpuMemoryGiB: 80,
    smArch: "sm_90",
    vcpus: 192,
    memoryGiB: 2048,
    efaDevices: 32,
    networkCards: 32,
    perRailGbps: 100,
    measured: true,
  }),
  row({
    name: "p5e.48xlarge",
    ...MULTI_RAIL_8GPU,
    gpuModel: "H200 141GB",
    gpuMemoryGiB: 141,
    smArch: "sm_90",
    vcpus: 192,
    memoryGiB: 2048,
    efaDevices: 32,
    networkCards: 32,
    perRailGbps: 100,
  }),
  row({
    name: "p5en.48xlarge",
    ...MULTI_RAIL_8GPU,
    gpuModel: "H200 141GB",
    gpuMemoryGiB: 141,
    smArch: "sm_90",
    vcpus: 192,
    memoryGiB: 2048,
    efaDevices: 16,
    networkCards: 16,
    perRailGbps: 200,
    measured: true,
  }),
  row({
    name: "p6-b200.48xlarge",
    ...MULTI_RAIL_8GPU,
    gpuModel: "B200",
    gpuMemoryGiB: 179,
    smArch: "sm_100",
    vcpus: 192,
    memoryGiB: 2048,
    efaDevices: 8,
    networkCards: 8,
    perRailGbps: 400,
  }),
  // 17 network cards, 16 EFA: which card lacks EFA is unverified; we assume card 0 (ENA only).
  row({
    name: "p6-b300.48xlarge",
    ...MULTI_RAIL_8GPU,
    gpuModel: "B300",
    gpuMemoryGiB: 268,
    smArch: "sm_103",
    vcpus: 192,
    memoryGiB: 4096,
    efaDevices: 16,
    networkCards: 17,
    card0SupportsEfa: false,
    perRailGbps: 400,
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

/*
 * G-family rows of the instance catalog, generated from one size table per family (no GPUDirect RDMA over EFA).
 * Sources as in this file's header.
 */

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

/** g5 and g6 come in the same sizes: the same GPUs, vCPUs, memory and EFA per size. */
const G5_G6_SIZES: readonly GSize[] = [
  ["xlarge", 1, 4, 16, 0],
  ["2xlarge", 1, 8, 32, 0],
  ["4xlarge", 1, 16, 64, 0],
  ["8xlarge", 1, 32, 128, 1],
  ["16xlarge", 1, 64, 256, 1],
  ["12xlarge", 4, 48, 192, 1],
  ["24xlarge", 4, 96, 384, 1],
  ["48xlarge", 8, 192, 768, 1],
];

export const G_FAMILIES: readonly GFamily[] = [
  {
    family: "g5",
    gpuModel: "A10G",
    gpuMemoryGiB: 22,
    smArch: "sm_86",
    rdma: false,
    sizes: G5_G6_SIZES,
  },
  {
    family: "g6",
    gpuModel: "L4",
    gpuMemoryGiB: 22,
    smArch: "sm_89",
    rdma: false,
    sizes: G5_G6_SIZES,
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

/** The rows of one G family, one per size. */
export function gRows(f: GFamily): GpuInstance[] {
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
 * The catalog row for `name`, or the problem at `propertyPath`: an unknown type (with the closest names) or an arm64
 * type (the build and pools are x86_64-only). Validators collect the problem.
 */
export function lookupInstance(name: unknown, propertyPath = "instanceType"): Checked<GpuInstance> {
  const hit = typeof name === "string" ? INSTANCES.get(name) : undefined;
  return hit ? ok(hit) : failed([{ propertyPath, reason: unknownInstanceReason(name) }]);
}

/**
 * The catalog row for `name`, for code that runs after validation (the components' derivations, resolved pools,
 * tests of catalog rows): there an unknown name is a bug in the caller, so this throws (a `ValidationError` that
 * still names `propertyPath`) instead of returning a problem. Validate user input with `lookupInstance`.
 */
export function instance(name: string, propertyPath = "instanceType"): GpuInstance {
  return valueOf("instance catalog", lookupInstance(name, propertyPath));
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
