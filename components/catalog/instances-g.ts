/**
 * G-family rows of the instance catalog, generated from one size table per family (no GPUDirect RDMA over EFA).
 * Sources as in `./instances.ts`.
 */
import { CpuArch, GpuInstance, row, Tristate } from "./instance-row";

const x86 = CpuArch.X86_64;

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
