/**
 * P-family rows of the instance catalog (multi-rail EFA with GPUDirect RDMA), one literal row per type. Sources as in
 * `./instances.ts`.
 */
import { CpuArch, GpuInstance, row } from "./instance-row";

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
