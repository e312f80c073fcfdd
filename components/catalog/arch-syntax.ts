/**
 * Derivations: one arch list rendered in each build system's syntax (docs/ARCHITECTURE.md#cuda-architectures). Pure. The list
 * is assumed valid for its toolkit (it comes from `resolveCudaArchs`/`parseArchList`), so nothing here can emit
 * a target the toolkit rejects.
 */
import { computeCapability } from "./arch-tokens";
import { ArchTarget } from "./cuda-toolkits";

/**
 * `NVCC_GENCODE`: `-gencode=arch=compute_90,code=sm_90` (SASS) per target, plus
 * `-gencode=arch=compute_90,code=compute_90` (PTX) for each `+PTX` target. Space separated, in list order.
 */
export function nvccGencode(list: readonly ArchTarget[]): string {
  return list
    .flatMap((t) => {
      const arch = `${t.sm}${t.variant}`;
      const sass = `-gencode=arch=compute_${arch},code=sm_${arch}`;
      return t.ptx ? [sass, `-gencode=arch=compute_${arch},code=compute_${arch}`] : [sass];
    })
    .join(" ");
}

/** Unique strings, first occurrence wins (list order is already sorted). */
function unique(items: readonly string[]): string[] {
  return [...new Set(items)];
}

/**
 * `TORCH_CUDA_ARCH_LIST`: "8.0;8.6;9.0+PTX". PyTorch's `cpp_extension` accepts an `a` suffix ("9.0a", "10.0a")
 * but has no `f` suffix, so a family target maps to its base arch: `sm_100f` -> "10.0". That keeps the set of GPUs
 * the build runs on (base SASS for 10.0 runs on 10.0 and 10.3, exactly the sm_100f family), whereas "10.0a" would
 * silently drop B300 (sm_103). Extensions that need family features (vLLM's CMake) add `a`/`f` themselves to the
 * base archs they find in this list. Where both `sm_100` and `sm_100f` are listed, "10.0" appears once, with
 * "+PTX" if either embeds PTX.
 */
export function torchCudaArchList(list: readonly ArchTarget[]): string {
  const entries = new Map<string, boolean>();
  for (const t of list) {
    const key = `${computeCapability(t.sm)}${t.variant === "a" ? "a" : ""}`;
    entries.set(key, (entries.get(key) ?? false) || t.ptx);
  }
  return [...entries].map(([key, ptx]) => `${key}${ptx ? "+PTX" : ""}`).join(";");
}

/**
 * `FLASHINFER_CUDA_ARCH_LIST`: "9.0a 10.0a 12.0f", single-space separated (FlashInfer splits on " " and takes a
 * "major.minor" with an optional a/f suffix as given). FlashInfer compiles SASS per entry and has no PTX syntax,
 * so `+PTX` is not rendered here.
 */
export function flashinferCudaArchList(list: readonly ArchTarget[]): string {
  return unique(list.map((t) => `${computeCapability(t.sm)}${t.variant}`)).join(" ");
}
