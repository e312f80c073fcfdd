/**
 * Arch lists: explicit lists (validated, de-duplicated, sorted, exactly what was asked), the "fat"
 * default and "auto" (the minimal list for a set of instance types), plus `archCovers`. Pure.
 */
import { Checked, failed, ok, Problem, show } from "../_shared/problems";
import { editDistance } from "../_shared/suggest";
import {
  checkArchToken,
  readArchToken,
  unsupportedReason,
  ArchTarget,
  CudaToolkit,
  SM_RENAMES,
  compareTargets,
  toolkitHas,
  ImagePlatform,
  platformReason,
  platformRunsSm,
  computeCapability,
  formatArch,
} from "./cuda";
import { lookupInstance } from "./instances";

/** How the arch list is chosen: "fat" (broad default), "auto" (from instance types) or explicit tokens. */
export type CudaArchsSpec = "fat" | "auto" | readonly string[];

/** The keywords a `CudaArchsSpec` may be instead of a list. */
export const CUDA_ARCHS_KEYWORDS = ["fat", "auto"] as const;

/**
 * The fat default the field asked for (F10): A100, A10G/RTX-30, Orin, L4/L40S, H100/H200,
 * B200, Thor (sm_101; sm_110 from CUDA 13.0) and RTX PRO 6000 Blackwell. B300 (sm_103) and GB10 (sm_121) run the
 * sm_100 / sm_120 SASS (same major, higher minor: binary compatible). On linux/amd64 the Arm SoCs (Orin, Thor)
 * are left out: that image never runs on them, and torch >= 2.9 rejects "10.1".
 */
const FAT_SMS = [80, 86, 87, 89, 90, 100, 101, 120];

/** Sorted, with one entry per (sm, variant); PTX kept where any duplicate asked for it. */
function normalize(list: readonly ArchTarget[]): ArchTarget[] {
  const byKey = new Map<string, ArchTarget>();
  for (const t of list) {
    const key = `${t.sm}${t.variant}`;
    const prev = byKey.get(key);
    byKey.set(key, { sm: t.sm, variant: t.variant, ptx: t.ptx || (prev?.ptx ?? false) });
  }
  return [...byKey.values()].sort(compareTargets).map((t) => Object.freeze(t));
}

/**
 * The fat default for `toolkit` and `platform` (its equivalent of each FAT_SMS entry a `platform` image can run on),
 * with PTX of the newest arch embedded.
 */
export function fatArchs(toolkit: CudaToolkit, platform: ImagePlatform = "linux/amd64"): ArchTarget[] {
  const sms = FAT_SMS.map((sm) => {
    if (toolkitHas(toolkit, sm, "")) return sm;
    const renamed = SM_RENAMES.find((r) => r.from === sm);
    return renamed && toolkitHas(toolkit, renamed.to, "") ? renamed.to : undefined;
  }).filter((sm): sm is number => sm !== undefined && platformRunsSm(platform, sm));
  const list = normalize(sms.map((sm) => ({ sm, variant: "" as const, ptx: false })));
  const newest = list[list.length - 1];
  return [...list.slice(0, -1), Object.freeze({ ...newest, ptx: true })];
}

/** Targets for the SM archs of `instanceTypes` plus the problems found; `pathOf(i)` names item i. */
function autoTargets(
  instanceTypes: readonly string[],
  toolkit: CudaToolkit,
  pathOf: (i: number) => string,
  prefix: string,
): { targets: ArchTarget[]; problems: Problem[] } {
  const problems: Problem[] = [];
  const targets: ArchTarget[] = [];
  instanceTypes.forEach((name, i) => {
    const found = lookupInstance(name, pathOf(i));
    if (!found.ok) {
      problems.push(...found.problems.map((p) => ({ ...p, reason: prefix + p.reason })));
      return;
    }
    const row = found.value;
    const t = readArchToken(row.smArch);
    const why = !t ? `catalog arch ${show(row.smArch)} is not an arch token` : unsupportedReason(t, toolkit);
    if (why === undefined && t) targets.push(t);
    else if (!t) problems.push({ propertyPath: pathOf(i), reason: prefix + why });
    else {
      // The fix for a derived arch is a newer toolkit or a different instance type, not editing a token.
      const fix = (why ?? "").replace(/or drop sm_\w+$/, `or remove ${name}`);
      problems.push({
        propertyPath: pathOf(i),
        reason: `${prefix}${name} has ${row.gpuModel} GPUs (${row.smArch}): ${fix}`,
      });
    }
  });
  return { targets: normalize(targets), problems };
}

/**
 * The minimal SASS-only list for the SM archs of these catalog instance types (p5en -> sm_90 only), or the
 * problems: every unknown type (`${propertyPath}[i]`) and every arch `toolkit` cannot target.
 */
export function autoArchs(
  instanceTypes: readonly string[],
  toolkit: CudaToolkit,
  propertyPath: string,
): Checked<ArchTarget[]> {
  if (instanceTypes.length === 0) {
    return failed([{ propertyPath, reason: "needs at least one GPU instance type to derive archs from" }]);
  }
  const { targets, problems } = autoTargets(instanceTypes, toolkit, (i) => `${propertyPath}[${i}]`, "");
  return problems.length > 0 ? failed(problems) : ok(targets);
}

/** Splits a string list on spaces, commas and semicolons (the three separators build systems use). */
function splitTokens(tokens: string | readonly string[]): readonly string[] {
  return typeof tokens === "string" ? tokens.split(/[\s,;]+/).filter((s) => s !== "") : tokens;
}

/**
 * Explicit list -> validated, de-duplicated, sorted targets: exactly what was asked (PTX only where a token says
 * `+PTX` or `compute_`), or the problems: every bad token at `${propertyPath}[i]`.
 */
export function parseArchList(
  tokens: string | readonly string[],
  toolkit: CudaToolkit,
  propertyPath: string,
): Checked<ArchTarget[]> {
  if (typeof tokens !== "string" && !Array.isArray(tokens)) {
    return failed([
      { propertyPath, reason: `must be a list of arch tokens such as ["sm_90", "sm_100"]; got ${show(tokens)}` },
    ]);
  }
  const list = splitTokens(tokens);
  if (list.length === 0) {
    return failed([
      { propertyPath, reason: 'must list at least one arch token such as "sm_90" (or be "fat" or "auto")' },
    ]);
  }
  const problems: Problem[] = [];
  const targets: ArchTarget[] = [];
  list.forEach((token, i) => {
    const r = checkArchToken(token, toolkit);
    if ("reason" in r) problems.push({ propertyPath: `${propertyPath}[${i}]`, reason: r.reason });
    else targets.push(r.target);
  });
  return problems.length > 0 ? failed(problems) : ok(normalize(targets));
}

/**
 * The arch list `spec` stands for: "fat" -> `fatArchs`, "auto" -> `autoArchs(opts.instanceTypes)`, a list (or a
 * space/comma/semicolon separated string, as stack config may give) -> `parseArchList`; or the problems, at
 * `propertyPath`.
 */
export function resolveCudaArchs(
  spec: CudaArchsSpec | string,
  opts: {
    readonly toolkit: CudaToolkit;
    readonly instanceTypes?: readonly string[];
    readonly platform?: ImagePlatform;
  },
  propertyPath: string,
): Checked<ArchTarget[]> {
  if (spec === "fat") return ok(fatArchs(opts.toolkit, opts.platform));
  if (spec !== "auto" && opts.platform !== undefined) {
    const list = resolveCudaArchs(spec, { ...opts, platform: undefined }, propertyPath);
    return list.ok ? checkPlatform(list.value, opts.platform, propertyPath) : list;
  }
  if (spec === "auto") return resolveAuto(opts, propertyPath);
  if (typeof spec === "string" && !/[\s,;]/.test(spec.trim()) && !readArchToken(spec)) {
    // Keywords are short, so allow two edits ("fta" -> "fat"), more than `closest` allows for 3 letters.
    const near = CUDA_ARCHS_KEYWORDS.filter((k) => editDistance(spec.toLowerCase(), k) <= 2);
    const dym = near.length > 0 ? `; did you mean ${near.map((n) => JSON.stringify(n)).join(" or ")}?` : ".";
    return failed([
      {
        propertyPath,
        reason: `unknown cudaArchs ${show(spec)}${dym} Use "fat", "auto" or a list of arch tokens such as ["sm_90", "sm_100"]`,
      },
    ]);
  }
  return parseArchList(spec as string | readonly string[], opts.toolkit, propertyPath);
}

/** `list` unchanged, or a problem for every target a `platform` image never runs on. */
function checkPlatform(list: ArchTarget[], platform: ImagePlatform, propertyPath: string): Checked<ArchTarget[]> {
  const problems = list.flatMap((t) => {
    const why = platformReason(platform, t.sm);
    return why === undefined ? [] : [{ propertyPath, reason: why }];
  });
  return problems.length > 0 ? failed(problems) : ok(list);
}

function resolveAuto(
  opts: { readonly toolkit: CudaToolkit; readonly instanceTypes?: readonly string[] },
  propertyPath: string,
): Checked<ArchTarget[]> {
  const types = opts.instanceTypes ?? [];
  if (types.length === 0) {
    return failed([
      {
        propertyPath,
        reason: '"auto" derives archs from the GPU instance types, but none were given; list arch tokens or use "fat"',
      },
    ]);
  }
  const { targets, problems } = autoTargets(types, opts.toolkit, () => propertyPath, '"auto": ');
  return problems.length > 0 ? failed(problems) : ok(targets);
}

/**
 * Whether a binary built for `list` runs on a GPU of SM `smArch` ("sm_90"; a variant suffix is ignored: a GPU has
 * none). Rules (CUDA C++ Programming Guide "Binary Compatibility"/"PTX Compatibility"; NVIDIA blog "NVIDIA
 * Blackwell and NVIDIA CUDA 12.9 Introduce Family-Specific Architecture Features"; LLVM NVPTX.td tiers; LLVM
 * offload CUDA plugin: "a cubin ... runs on any GPU with the same major revision and same or higher minor"):
 * - SASS for X.y (base or "f") runs on X.z with z >= y (same major); "a" SASS runs on exactly X.y.
 * - PTX for a base arch JIT-compiles on any equal-or-newer SM; "f" PTX only within its family (same major,
 *   minor >=); "a" PTX only on exactly that SM.
 * `smArch` comes from a catalog row (`GpuInstance.smArch`, every one an arch token, as tests/unit/cuda-lists.spec.ts
 * checks), never from user input, so a malformed one is a catalog bug and throws.
 */
export function archCovers(list: readonly ArchTarget[], smArch: string): boolean {
  const gpu = readArchToken(smArch);
  if (!gpu) throw new Error(`archCovers: ${show(smArch)} is not an SM arch (a catalog row is wrong)`);
  const major = (sm: number) => Math.floor(sm / 10);
  const sameFamilyUp = (t: ArchTarget) => major(t.sm) === major(gpu.sm) && t.sm <= gpu.sm;
  return list.some((t) => {
    const sass = t.variant === "a" ? t.sm === gpu.sm : sameFamilyUp(t);
    if (sass) return true;
    if (!t.ptx) return false;
    return t.variant === "" ? t.sm <= gpu.sm : t.variant === "f" ? sameFamilyUp(t) : t.sm === gpu.sm;
  });
}

/*
 * Derivations: one arch list rendered in each build system's syntax (docs/ARCHITECTURE.md#cuda-architectures). Pure. The list
 * is assumed valid for its toolkit (it comes from `resolveCudaArchs`/`parseArchList`), so nothing here can emit
 * a target the toolkit rejects.
 */

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

/*
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

/*
 * Per-consumer arch lists: one validated list of targets becomes a list per build system inside the
 * image, each checked against that consumer's own acceptance rules. nvcc accepting a target is not torch accepting
 * it (torch >= 2.9 rejects "10.1"), and FlashInfer and the EP kernels have rules of their own. A list one consumer
 * rejects comes back as problems naming the consumer, the arch and the fix. Pure.
 */

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
    return `the catalog has no accepted-arch list for torch ${torch}; add a row to components/catalog/archs.ts from its torch/utils/cpp_extension.py`;
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
