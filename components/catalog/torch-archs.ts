/**
 * What torch's extension builder accepts in `TORCH_CUDA_ARCH_LIST`, per torch release, and which torch each NGC
 * PyTorch image ships. Pure data, one source per row. `torch.utils.cpp_extension._get_cuda_arch_flags` raises
 * `ValueError: Unknown CUDA arch (X) or GPU not supported` for any entry outside its `supported_arches` (+ "+PTX"),
 * independent of what nvcc accepts: nvcc 12.9 takes sm_101, torch >= 2.9 does not.
 *
 * Mirrored from the contract facts (tests/contracts/facts/torch-cuda-archs*.json) rather than imported: the
 * component package ships `components/` only, never `tests/`, and a catalog row must carry its source in code.
 * tests/contracts/torch-cuda-archs.spec.ts fails when a row and its fact file disagree.
 */

/** One torch release's accepted `TORCH_CUDA_ARCH_LIST` entries (without "+PTX"; every entry also takes it). */
export interface TorchArchRow {
  /** torch major.minor. */
  readonly torch: string;
  /** `supported_arches` of `_get_cuda_arch_flags`: "X.Y" and "X.Ya" only (no "f" suffix exists in torch). */
  readonly accepted: readonly string[];
  /** Where the row comes from. */
  readonly source: string;
}

/** The list torch >= 2.9 carries (pytorch/pytorch 9c5601ecc, #156176: Thor 10.1 renamed 11.0, 10.3/12.1 added). */
const SINCE_2_9 = [
  "3.5",
  "3.7",
  "5.0",
  "5.2",
  "5.3",
  "6.0",
  "6.1",
  "6.2",
  "7.0",
  "7.2",
  "7.5",
  "8.0",
  "8.6",
  "8.7",
  "8.9",
  "9.0",
  "9.0a",
  "10.0",
  "10.0a",
  "11.0",
  "11.0a",
  "10.3",
  "10.3a",
  "12.0",
  "12.0a",
  "12.1",
  "12.1a",
] as const;

/** Accepted entries by torch release. */
export const TORCH_CUDA_ARCHS: readonly TorchArchRow[] = [
  {
    torch: "2.10",
    accepted: SINCE_2_9,
    source:
      "pytorch/pytorch torch/utils/cpp_extension.py supported_arches as set by 9c5601ecc (#156176), in every release since 2.9.0 (#166120); facts/torch-cuda-archs.json",
  },
  {
    torch: "2.11",
    accepted: SINCE_2_9,
    source:
      "torch 2.11.0+cu130 (git 70d99e998b49) on the device machine: _get_cuda_arch_flags probed per entry; facts/torch-cuda-archs-device.json",
  },
];

/**
 * The torch each NGC PyTorch image tag ships (the image's one PyTorch, shared by both engines). LMCache itself is
 * compiled in `vllm_framework` against vLLM 0.17.1's own torch, also 2.10 (vLLM 0.17.1 moved to torch 2.10:
 * llm-d/llm-d-kv-cache#429, allenai/open-instruct#1556), and every release from 2.9.0 to 2.11 has the same list.
 */
export const NGC_PYTORCH_TORCH: Readonly<Record<string, { readonly torch: string; readonly source: string }>> = {
  "25.12-py3": {
    torch: "2.10",
    source:
      "NGC PyTorch 25.12 release notes: torch 2.10.0a0+b4e4ee81d3.nv25.12 (the field's Dockerfile, TORCH_VER: docs/ARCHITECTURE.md#the-combined-image)",
  },
};

/** The accepted entries of `torch` ("2.10"), or undefined when the catalog has no row for it. */
export function torchAcceptedArchs(torch: string): readonly string[] | undefined {
  return TORCH_CUDA_ARCHS.find((r) => r.torch === torch)?.accepted;
}
