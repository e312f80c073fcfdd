/**
 * Which SM archs a platform's image can ever run on ("platform-aware fat"). Orin (sm_87), Thor (sm_101,
 * renamed sm_110 in CUDA 13.0) and DGX Spark GB10 (sm_121) are Arm SoCs with integrated GPUs: a `linux/amd64`
 * image never runs on them, so compiling for them there only costs build time (and sm_101 breaks torch >= 2.9).
 * Source: docs/ARCHITECTURE.md#cuda-architectures; NVIDIA CUDA GPU compute capability table. Pure.
 */

/** Image platforms the catalog knows. */
export const IMAGE_PLATFORMS = ["linux/amd64", "linux/arm64"] as const;
/** One of `IMAGE_PLATFORMS`. */
export type ImagePlatform = (typeof IMAGE_PLATFORMS)[number];

/** SMs that exist only on Arm SoCs, with the product (for messages). */
export const ARM_SOC_SMS: readonly { readonly sm: number; readonly gpu: string }[] = [
  { sm: 87, gpu: "Jetson Orin" },
  { sm: 101, gpu: "Jetson Thor (CUDA 12.x name)" },
  { sm: 110, gpu: "Jetson Thor" },
  { sm: 121, gpu: "DGX Spark GB10" },
];

/** Whether an image for `platform` can run on a GPU of SM `sm`. */
export function platformRunsSm(platform: ImagePlatform, sm: number): boolean {
  return platform !== "linux/amd64" || !ARM_SOC_SMS.some((a) => a.sm === sm);
}

/** Why `sm` makes no sense in a `platform` image, or undefined when it does. */
export function platformReason(platform: ImagePlatform, sm: number): string | undefined {
  if (platformRunsSm(platform, sm)) return undefined;
  const soc = ARM_SOC_SMS.find((a) => a.sm === sm)!;
  return `sm_${sm} is ${soc.gpu}, an Arm SoC: a ${platform} image never runs on it; drop sm_${sm} (the fat default leaves it out on ${platform})`;
}
