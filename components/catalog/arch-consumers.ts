/**
 * Per-consumer arch lists: one validated list of targets becomes a list per build system inside the
 * image, each checked against that consumer's own acceptance rules. nvcc accepting a target is not torch accepting
 * it (torch >= 2.9 rejects "10.1"), and FlashInfer and the EP kernels have rules of their own. A list one consumer
 * rejects comes back as problems naming the consumer, the arch and the fix. Pure.
 */
import { Checked, failed, ok, Problem } from "../_shared/problems";
import { computeCapability, formatArch } from "./arch-tokens";
import { nvccGencode, torchCudaArchList } from "./arch-syntax";
import { ArchTarget, CudaToolkit, toolkitHas } from "./cuda-toolkits";
import { torchAcceptedArchs } from "./torch-archs";

/** The build systems inside the image that take an arch list. */
export const ArchConsumer = { Nvcc: "nvcc", Torch: "torch", FlashInfer: "flashinfer", EpKernels: "epKernels" } as const;
export type ArchConsumer = (typeof ArchConsumer)[keyof typeof ArchConsumer];

/** What each consumer is, for messages and plans. */
export const ARCH_CONSUMERS: Readonly<Record<ArchConsumer, string>> = {
  nvcc: "nvcc (NVCC_GENCODE: nccl-tests, NCCL from source)",
  torch: "torch's extension builder (TORCH_CUDA_ARCH_LIST: LMCache's CUDA kernels)",
  flashinfer: "FlashInfer (FLASHINFER_CUDA_ARCH_LIST: the ahead-of-time JIT cache, FLASHINFER_AOT=1)",
  epKernels: "vLLM's expert-parallel kernels (EP_KERNELS_CUDA_ARCH_LIST: DeepEP with NVSHMEM, Hopper+ only)",
};

/** One list per consumer, each in that consumer's syntax. An empty `epKernels` means the EP step is skipped. */
export interface ConsumerArchLists {
  readonly nvcc: string;
  readonly torch: string;
  readonly flashinfer: string;
  readonly epKernels: string;
}

/**
 * SMs the EP kernels are built for: DeepEP uses Hopper-only PTX (`elect.sync`, `cp.async.bulk`), and vLLM's
 * `tools/ep_kernels` and Dynamo's `install_vllm.sh` build them for "9.0;10.0" (docs/ARCHITECTURE.md#cuda-architectures).
 */
export const EP_KERNEL_SMS: readonly number[] = [90, 100];

/**
 * FlashInfer entries ("9.0a 10.0a 12.0f"): FlashInfer v0.6.4 `flashinfer/compilation_context.py` splits
 * FLASHINFER_CUDA_ARCH_LIST on single spaces and passes "major.minor[suffix]" straight to `-gencode` (no "+PTX");
 * without the variable it detects each GPU and appends "a" for major >= 9, and its release wheels for CUDA < 13 use
 * "7.5 8.0 8.9 9.0a 10.0a 12.0a" (.github/workflows/release.yml @ f1e6fdcb). So Hopper+ base targets get "a", "a"
 * and "f" targets stay as given, older archs stay base.
 */
function flashinferEntry(t: ArchTarget, toolkit: CudaToolkit): { entry: string } | { reason: string } {
  const cc = computeCapability(t.sm);
  if (t.variant !== "" || t.sm < 90) return { entry: `${cc}${t.variant}` };
  if (toolkitHas(toolkit, t.sm, "a")) return { entry: `${cc}a` };
  return {
    reason: `${ARCH_CONSUMERS.flashinfer} builds Hopper+ kernels as sm_${t.sm}a (as its own GPU detection does), but CUDA ${toolkit} has no sm_${t.sm}a; raise cudaToolkit or drop ${formatArch(t)}`,
  };
}

/** Why torch `torch` rejects entry `entry` of a TORCH_CUDA_ARCH_LIST made from `t`, or undefined. */
function torchReason(t: ArchTarget, entry: string, torch: string): string | undefined {
  const accepted = torchAcceptedArchs(torch);
  if (accepted === undefined)
    return `the catalog has no accepted-arch list for torch ${torch}; add a row to components/catalog/torch-archs.ts from its torch/utils/cpp_extension.py`;
  const bare = entry.replace(/\+PTX$/, "");
  if (accepted.includes(bare)) return undefined;
  const fix =
    t.sm === 101
      ? "sm_101 is Jetson Thor under CUDA 12.x; torch >= 2.9 only knows it as 11.0 (sm_110, CUDA 13)"
      : `torch ${torch} accepts ${accepted.filter((a) => Number(a.split(".")[0]) >= 7).join(", ")}`;
  return `${ARCH_CONSUMERS.torch} of torch ${torch} rejects ${formatArch(t)} (TORCH_CUDA_ARCH_LIST entry "${entry}": ValueError "Unknown CUDA arch (${bare}) or GPU not supported"); ${fix}; drop ${formatArch(t)} from cudaArchs (nvcc accepting it is not enough)`;
}

/** The entries of the TORCH_CUDA_ARCH_LIST for `list`, one per target (before de-duplication). */
function torchEntries(list: readonly ArchTarget[]): { t: ArchTarget; entry: string }[] {
  return list.map((t) => ({ t, entry: torchCudaArchList([t]) }));
}

/** The problems torch `torch` has with `list`, at `propertyPath`. */
export function torchArchProblems(list: readonly ArchTarget[], torch: string, propertyPath: string): Problem[] {
  const seen = new Set<string>();
  return torchEntries(list).flatMap(({ t, entry }) => {
    const reason = torchReason(t, entry, torch);
    if (reason === undefined || seen.has(reason)) return [];
    seen.add(reason);
    return [{ propertyPath, reason }];
  });
}

/**
 * The per-consumer lists for a validated `list` (from `resolveCudaArchs`), the CUDA `toolkit` of the compile stages
 * and the `torch` release in the image; or the problems at `propertyPath`, one for every consumer that rejects an
 * arch.
 */
export function consumerArchLists(
  list: readonly ArchTarget[],
  opts: { readonly toolkit: CudaToolkit; readonly torch: string },
  propertyPath: string,
): Checked<ConsumerArchLists> {
  const problems: Problem[] = torchArchProblems(list, opts.torch, propertyPath);
  const fi: string[] = [];
  for (const t of list) {
    const r = flashinferEntry(t, opts.toolkit);
    if ("reason" in r) problems.push({ propertyPath, reason: r.reason });
    else if (!fi.includes(r.entry)) fi.push(r.entry);
  }
  if (problems.length > 0) return failed(problems);
  const ep = list
    .filter((t) => EP_KERNEL_SMS.includes(t.sm))
    .map((t) => ({ sm: t.sm, variant: "" as const, ptx: false }));
  return ok({
    nvcc: nvccGencode(list),
    torch: torchCudaArchList(list),
    flashinfer: fi.join(" "),
    epKernels: torchCudaArchList(ep),
  });
}
