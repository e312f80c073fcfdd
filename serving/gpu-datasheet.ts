/**
 * Datasheet rates of the GPUs in the instance catalog (`GpuInstance.gpuModel`): dense BF16 tensor-core
 * TFLOP/s, memory bandwidth and NVLink bandwidth, each from NVIDIA's product page. The serving model
 * (`../inference/worker-speed.ts`) measures an H200 and scales these ratios to the other GPUs; a GPU
 * missing here gets no serving estimate rather than a guessed one. Pure data.
 *
 * NVIDIA quotes tensor-core rates "with sparsity"; the dense rate is half of it, and that is the one
 * stored. FP8 runs at twice the dense BF16 rate on Hopper, Ada and Blackwell (the same pages); Ampere
 * has no FP8 tensor cores.
 */

/** One GPU's datasheet rates. */
export interface GpuDatasheet {
  /** Dense BF16 tensor-core TFLOP/s (half the "with sparsity" figure). */
  readonly bf16DenseTflops: number;
  /** Memory bandwidth, GB/s. */
  readonly memoryGBs: number;
  /** NVLink bandwidth per GPU (both directions), GB/s; 0 = no NVLink (PCIe only). */
  readonly nvlinkGBs: number;
  /** FP8 tensor cores (at twice the BF16 rate). */
  readonly fp8: boolean;
  /** Where the numbers come from. */
  readonly source: string;
}

/** Datasheet rates by the instance catalog's `gpuModel`. */
export const GPU_DATASHEETS: ReadonlyMap<string, GpuDatasheet> = new Map([
  [
    "H200 141GB",
    {
      bf16DenseTflops: 989,
      memoryGBs: 4800,
      nvlinkGBs: 900,
      fp8: true,
      source:
        "https://www.nvidia.com/en-us/data-center/h200/ (H200 SXM: BF16 1,979 TFLOPS with sparsity, 4.8 TB/s, NVLink 900 GB/s)",
    },
  ],
  [
    "H100 80GB",
    {
      bf16DenseTflops: 989,
      memoryGBs: 3350,
      nvlinkGBs: 900,
      fp8: true,
      source:
        "https://www.nvidia.com/en-us/data-center/h100/ (H100 SXM: BF16 1,979 TFLOPS with sparsity, 3.35 TB/s, NVLink 900 GB/s)",
    },
  ],
  [
    "A100 80GB",
    {
      bf16DenseTflops: 312,
      memoryGBs: 2039,
      nvlinkGBs: 600,
      fp8: false,
      source:
        "https://www.nvidia.com/en-us/data-center/a100/ (A100 80GB SXM: BF16 312 TFLOPS dense, 2,039 GB/s, NVLink 600 GB/s)",
    },
  ],
  [
    "A100 40GB",
    {
      bf16DenseTflops: 312,
      memoryGBs: 1555,
      nvlinkGBs: 600,
      fp8: false,
      source:
        "https://www.nvidia.com/en-us/data-center/a100/ (A100 40GB SXM: BF16 312 TFLOPS dense, 1,555 GB/s, NVLink 600 GB/s)",
    },
  ],
  [
    "L40S",
    {
      bf16DenseTflops: 362,
      memoryGBs: 864,
      nvlinkGBs: 0,
      fp8: true,
      source: "https://www.nvidia.com/en-us/data-center/l40s/ (BF16 733 TFLOPS with sparsity, 864 GB/s, PCIe only)",
    },
  ],
  [
    "L4",
    {
      bf16DenseTflops: 121,
      memoryGBs: 300,
      nvlinkGBs: 0,
      fp8: true,
      source: "https://www.nvidia.com/en-us/data-center/l4/ (BF16 242 TFLOPS with sparsity, 300 GB/s, PCIe only)",
    },
  ],
  [
    "B200",
    {
      bf16DenseTflops: 2250,
      memoryGBs: 8000,
      nvlinkGBs: 1800,
      fp8: true,
      source:
        "https://www.nvidia.com/en-us/data-center/hgx/ (HGX B200, 8 GPUs: FP16/BF16 36 PFLOPS with sparsity, 64 TB/s, NVLink 1.8 TB/s per GPU; per GPU = total / 8)",
    },
  ],
]);
