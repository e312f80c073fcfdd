/**
 * Reading the CUDA arch lists an image states: its build args (docker-build Image) or the graph's
 * annotations (a prebuilt image), each parsed against the CUDA toolkit it compiles with. Shared by the
 * two arch policies of `image-archs.ts`.
 */
import { ArchTarget, CudaToolkit, DEFAULT_CUDA_TOOLKIT, parseCudaToolkit } from "../../components/catalog/cuda";
import { fatArchs, parseArchList } from "../../components/catalog/archs";
import { annotation } from "./_predicates";
import { ImageProps } from "./_resources";
import { isUnknownValue } from "./_unknowns";
import { PlanDgd } from "./_dgd";
import { Annotation } from "../../components/_shared/annotations";

/** Build-arg names of the image's CUDA settings (the image component's contract). */
export const ARCH_ARGS = {
  toolkit: "CUDA_VERSION",
  torch: "TORCH_CUDA_ARCH_LIST",
  nvcc: "NVCC_GENCODE",
  flashinfer: "FLASHINFER_CUDA_ARCH_LIST",
  epKernels: "EP_KERNELS_CUDA_ARCH_LIST",
  flashinferAot: "FLASHINFER_AOT",
  pytorchTag: "PYTORCH_IMAGE_TAG",
};

/** Arch tokens in an `NVCC_GENCODE` string: the `code=` targets (`sm_90`, `compute_90`). */
export function gencodeTokens(gencode: string): string[] {
  const out: string[] = [];
  for (const m of gencode.matchAll(/(?:^|[,\s])code=\[?([A-Za-z0-9_,]+)\]?/g))
    out.push(...m[1].split(",").filter((t) => t !== ""));
  return out;
}

/**
 * One arch list an image states: where it comes from, its text, its parse (or the problems), and whether it decides
 * which GPUs the image runs on (`covers`): the EP kernels are Hopper+ only by design (an optional feature, not the
 * image's reach), and the FlashInfer list only matters for an ahead-of-time build (FLASHINFER_AOT=1).
 */
export interface StatedArchs {
  readonly source: string;
  readonly text: string;
  readonly toolkit: CudaToolkit;
  readonly list?: ArchTarget[];
  readonly problems: string[];
  readonly covers: boolean;
}

function parseStated(source: string, text: string, tokens: string[], toolkit: CudaToolkit, covers = true): StatedArchs {
  const list = parseArchList(tokens, toolkit, source);
  if (list.ok) return { source, text, toolkit, list: list.value, problems: [], covers };
  return { source, text, toolkit, problems: list.problems.map((p) => p.reason), covers };
}

/** The toolkit an image states (build arg or annotation), or the problem with it. */
function statedToolkit(value: unknown, source: string): { toolkit: CudaToolkit } | { problem: string } {
  if (value === undefined || isUnknownValue(value)) return { toolkit: DEFAULT_CUDA_TOOLKIT };
  const toolkit = parseCudaToolkit(value, source);
  return toolkit.ok ? { toolkit: toolkit.value } : { problem: toolkit.problems.map((p) => p.reason).join("; ") };
}

/** Arch lists stated by a docker-build Image's build args (none stated = the Dockerfile's fat default). */
export function imageArchs(raw: ImageProps | undefined): {
  toolkit?: CudaToolkit;
  toolkitProblem?: string;
  lists: StatedArchs[];
} {
  const ba: Readonly<Record<string, unknown>> = raw?.buildArgs ?? {};
  const tk = statedToolkit(ba[ARCH_ARGS.toolkit], `buildArgs.${ARCH_ARGS.toolkit}`);
  if ("problem" in tk) return { toolkitProblem: tk.problem, lists: [] };
  const lists: StatedArchs[] = [];
  const add = (arg: string, split: (s: string) => string[], covers = true) => {
    const v = ba[arg];
    if (typeof v === "string" && !isUnknownValue(v) && v.trim() !== "")
      lists.push(parseStated(`buildArgs.${arg}`, v, split(v), tk.toolkit, covers));
  };
  const semi = (s: string) => s.split(/[;\s]+/).filter((t) => t !== "");
  add(ARCH_ARGS.torch, semi);
  add(ARCH_ARGS.nvcc, gencodeTokens);
  add(ARCH_ARGS.flashinfer, (s) => s.split(/\s+/).filter((t) => t !== ""), ba[ARCH_ARGS.flashinferAot] === "1");
  add(ARCH_ARGS.epKernels, semi, false);
  if (!lists.some((l) => l.covers))
    lists.push({
      source: "the Dockerfile's default (fat)",
      text: "fat",
      toolkit: tk.toolkit,
      list: fatArchs(tk.toolkit),
      problems: [],
      covers: true,
    });
  return { toolkit: tk.toolkit, lists };
}

/** The arch list a DGD states through its annotations, if any. */
export function graphArchs(raw: PlanDgd | undefined): { toolkitProblem?: string; stated?: StatedArchs } {
  const text = annotation(raw, Annotation.ImageCudaArchs);
  const tk = statedToolkit(annotation(raw, Annotation.ImageCudaToolkit), `annotation ${Annotation.ImageCudaToolkit}`);
  if ("problem" in tk) return { toolkitProblem: tk.problem };
  if (text === undefined) return {};
  return {
    stated: parseStated(
      `annotation ${Annotation.ImageCudaArchs}`,
      text,
      text.split(/[\s,;]+/).filter((t) => t !== ""),
      tk.toolkit,
    ),
  };
}
