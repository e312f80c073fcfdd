/**
 * What the image compiles, in which Dockerfile stage, and which per-consumer arch list each build takes: the table
 * `npm run image:args` and plan.md show. Pure data and formatting; the lists come from `consumerArchLists`.
 */
import { ConsumerArchLists, CudaToolkit, consumerArchLists, resolveCudaArchs } from "../catalog";
import { ArchConsumer, NGC_PYTORCH_TORCH } from "../catalog/archs";
import { ArchArg, DockerfileStage } from "./build-args";

/** One compile step of the Dockerfile that takes an arch list. */
export interface CompileStage {
  readonly stage: DockerfileStage;
  readonly builds: string;
  readonly consumer: ArchConsumer;
}

/** The compile steps that take an arch list (UCX, NIXL, libfabric and GDRCopy are host code and take none). */
export const COMPILE_STAGES: readonly CompileStage[] = [
  {
    stage: DockerfileStage.WheelBuilder,
    builds: "nccl-tests (and NCCL with BUILD_NCCL_FROM_SOURCE=1)",
    consumer: "nvcc",
  },
  { stage: DockerfileStage.VllmFramework, builds: "LMCache c_ops, against the vLLM venv's torch", consumer: "torch" },
  {
    stage: DockerfileStage.VllmFramework,
    builds: "DeepEP (deep_ep_cpp), against the vLLM venv's torch",
    consumer: "epKernels",
  },
  {
    stage: DockerfileStage.VllmFramework,
    builds: "FlashInfer JIT cache, only with FLASHINFER_AOT=1",
    consumer: "flashinfer",
  },
];

/** The build arg each consumer reads. */
const ARG_OF: Readonly<Record<ArchConsumer, string>> = {
  nvcc: ArchArg.NvccGencode,
  torch: ArchArg.TorchCudaArchList,
  flashinfer: ArchArg.FlashinferCudaArchList,
  epKernels: ArchArg.EpKernelsCudaArchList,
};

/** Why a narrower list speeds up only some of the build. */
export const PREBUILT_KERNELS_NOTE =
  "vLLM's own kernels (vllm._C, its flash-attention) and TensorRT-LLM's come prebuilt in their wheels; the arch list shortens only the builds above";

/** One line per compile step: `<stage>: <what> <- <ARG>=<list>` (an empty list: the step is skipped). */
export function compileStageLines(lists: ConsumerArchLists): string[] {
  return COMPILE_STAGES.map((c) => {
    const list = lists[c.consumer];
    return `${c.stage}: ${c.builds} <- ${ARG_OF[c.consumer]}=${list === "" ? "(empty: step skipped)" : list}`;
  });
}

/** The per-consumer lists of canonical arch strings ("sm_90", "sm_120+PTX"), or undefined if they do not resolve. */
export function archListsOf(
  cudaArchs: readonly string[],
  toolkit: CudaToolkit,
  pytorchImageTag: string,
): ConsumerArchLists | undefined {
  const torch = NGC_PYTORCH_TORCH[pytorchImageTag]?.torch;
  const archs = resolveCudaArchs([...cudaArchs], { toolkit, platform: "linux/amd64" }, "cudaArchs");
  if (torch === undefined || !archs.ok) return undefined;
  const lists = consumerArchLists(archs.value, { toolkit, torch }, "cudaArchs");
  return lists.ok ? lists.value : undefined;
}
