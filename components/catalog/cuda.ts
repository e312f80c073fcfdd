/**
 * CUDA toolkits and the compile targets each one's `nvcc` accepts. Pure data; no Pulumi import.
 *
 * Sources (the per-target minimum/maximum CUDA versions agree across all three):
 * - nvcc 13.0.88 in the development environment: `nvcc --list-gpu-arch` prints compute_75 80 86 87 88 89 90
 *   100 110 103 120 121, and compiling a kernel accepts exactly the `a`/`f` variants listed for 13.0 below
 *   (sm_90a; 100, 103, 110, 120, 121 with a and f) and rejects every other variant (sm_90f, sm_80a, sm_101*).
 *   `tests/unit/nvcc.spec.ts` re-checks this on every run where nvcc is installed.
 * - LLVM clang/lib/Basic/Cuda.cpp `MinVersionForOffloadArch` / `MaxVersionForOffloadArch` (llvm-project main,
 *   2026): sm_90a needs CUDA 12.0; sm_100/100a/101/101a/120/120a need 12.8; sm_100f/101f/103/103a/103f/120f/121/
 *   121a/121f need 12.9; sm_88/110/110a/110f need 13.0; sm_101/101a/101f end at 12.9 (renamed sm_110 in 13.0).
 * - CMake Modules/Internal/CMakeCUDAArchitecturesAll.cmake (Kitware/CMake master, 2026-08): CUDA 12.x "all" =
 *   50 52 53 60 61 62 70 72 75 80 86 87 89 90, + 100 101 120 from 12.8, + 103 121 from 12.9; CUDA >= 13.0 "all" =
 *   75 80 86 87 88 89 90 100 103 110 120 121 (sm_50..72 dropped).
 *
 * UNVERIFIED: 13.1 and 13.2 are assumed to accept the same targets as 13.0. CMake (2026-08) and LLVM use one
 * table for every 13.x; the next new target (sm_107) needs CUDA 13.4 per FlashInfer's `is_cuda_version_at_least
 * ("13.4")` guard. Neither toolkit has been compiled against here; re-run nvcc.spec.ts with them to confirm.
 */
import { Checked, failed, ok, show } from "../_shared/problems";
import { closest } from "../_shared/suggest";
import { image } from "../versions";

/** Every CUDA toolkit the catalog knows, oldest first. */
export const CUDA_TOOLKITS = ["12.4", "12.6", "12.8", "12.9", "13.0", "13.1", "13.2"] as const;
/** One of `CUDA_TOOLKITS`. */
export type CudaToolkit = (typeof CUDA_TOOLKITS)[number];
/** The CUDA of the combined image's compile stages (`cuda-dl-base:25.06-cuda12.9`, docs/ARCHITECTURE.md#the-combined-image): 12.9, kept in versions.ts. */
export const DEFAULT_CUDA_TOOLKIT: CudaToolkit = image.cudaToolkit;

/** Target variant: "" = portable base, "a" = architecture-specific, "f" = family-specific (CUDA 12.9+). */
export const ArchVariant = { Base: "", ArchSpecific: "a", Family: "f" } as const;
export type ArchVariant = (typeof ArchVariant)[keyof typeof ArchVariant];

/** One compile target: SM number (90 = sm_90), variant ("" | "a" | "f"), and whether PTX is embedded. */
export interface ArchTarget {
  /** SM number: major * 10 + minor (sm_90 = 90, sm_103 = 103). */
  readonly sm: number;
  /** "" (base), "a" (runs only on exactly this SM) or "f" (runs on this SM's family, same major, minor >=). */
  readonly variant: "" | "a" | "f";
  /** Whether PTX (compute_XY) is embedded beside the SASS, so newer GPUs can JIT-compile it. */
  readonly ptx: boolean;
}

/** How far a toolkit's target list has been checked. */
export type ToolkitEvidence = "compiled" | "documented" | "assumed";

interface ToolkitArchs {
  readonly base: readonly number[];
  readonly a: readonly number[];
  readonly f: readonly number[];
  readonly evidence: ToolkitEvidence;
}

const CUDA12_BASE = [50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90];
const CUDA12_6: ToolkitArchs = { base: CUDA12_BASE, a: [90], f: [], evidence: "documented" };
const CUDA13_0: ToolkitArchs = {
  base: [75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121],
  a: [90, 100, 103, 110, 120, 121],
  f: [100, 103, 110, 120, 121],
  evidence: "compiled",
};

const TOOLKIT_ARCHS: Readonly<Record<CudaToolkit, ToolkitArchs>> = {
  "12.4": CUDA12_6,
  "12.6": CUDA12_6,
  "12.8": { base: [...CUDA12_BASE, 100, 101, 120], a: [90, 100, 101, 120], f: [], evidence: "documented" },
  "12.9": {
    base: [...CUDA12_BASE, 100, 101, 103, 120, 121],
    a: [90, 100, 101, 103, 120, 121],
    f: [100, 101, 103, 120, 121],
    evidence: "documented",
  },
  "13.0": CUDA13_0,
  "13.1": { ...CUDA13_0, evidence: "assumed" },
  "13.2": { ...CUDA13_0, evidence: "assumed" },
};

/** SM numbers CUDA renamed: sm_101 (Thor) became sm_110 in CUDA 13.0 (LLVM NVPTX.td `ProcessorAlias`). */
export const SM_RENAMES: readonly { readonly from: number; readonly to: number; readonly since: CudaToolkit }[] = [
  { from: 101, to: 110, since: "13.0" },
];

/** How far `toolkit`'s target list is verified: compiled here, documented by sources, or assumed. */
export function toolkitEvidence(toolkit: CudaToolkit): ToolkitEvidence {
  return TOOLKIT_ARCHS[toolkit].evidence;
}

/** Whether `toolkit`'s nvcc accepts `sm_<sm><variant>`. */
export function toolkitHas(toolkit: CudaToolkit, sm: number, variant: ArchVariant): boolean {
  const t = TOOLKIT_ARCHS[toolkit];
  return (variant === "" ? t.base : variant === "a" ? t.a : t.f).includes(sm);
}

const VARIANT_ORDER: Record<ArchVariant, number> = { "": 0, a: 1, f: 2 };

/** Total order for targets: SM number, then "" < "a" < "f", then SASS-only before SASS+PTX. */
export function compareTargets(x: ArchTarget, y: ArchTarget): number {
  return x.sm - y.sm || VARIANT_ORDER[x.variant] - VARIANT_ORDER[y.variant] || Number(x.ptx) - Number(y.ptx);
}

const targetCache = new Map<CudaToolkit, readonly ArchTarget[]>();

/** Every target nvcc of that toolkit accepts (base + a + f), SASS only, sorted. */
export function toolkitTargets(toolkit: CudaToolkit): readonly ArchTarget[] {
  const hit = targetCache.get(toolkit);
  if (hit) return hit;
  const t = TOOLKIT_ARCHS[toolkit];
  const all: ArchTarget[] = [
    ...t.base.map((sm) => ({ sm, variant: "" as const, ptx: false })),
    ...t.a.map((sm) => ({ sm, variant: "a" as const, ptx: false })),
    ...t.f.map((sm) => ({ sm, variant: "f" as const, ptx: false })),
  ];
  const sorted = Object.freeze(all.sort(compareTargets).map((x) => Object.freeze(x)));
  targetCache.set(toolkit, sorted);
  return sorted;
}

/** The toolkits whose nvcc accepts `sm_<sm><variant>`, oldest first. */
export function toolkitsWith(sm: number, variant: ArchVariant): CudaToolkit[] {
  return CUDA_TOOLKITS.filter((tk) => toolkitHas(tk, sm, variant));
}

/**
 * The toolkit named by `value`: "12.9", a patch version such as "12.9.1" (the base-image tag form), or a YAML
 * number (12.9, 13 -> "13.0"); otherwise the problem at `propertyPath`, listing the allowed toolkits.
 */
export function parseCudaToolkit(value: unknown, propertyPath: string): Checked<CudaToolkit> {
  const text =
    typeof value === "number" && Number.isFinite(value)
      ? Number.isInteger(value)
        ? value.toFixed(1)
        : String(value)
      : value;
  if (typeof text === "string") {
    const m = /^\s*(\d+)\.(\d+)(?:\.\d+)?\s*$/.exec(text);
    const key = m ? `${Number(m[1])}.${Number(m[2])}` : text;
    if ((CUDA_TOOLKITS as readonly string[]).includes(key)) return ok(key as CudaToolkit);
  }
  const allowed = CUDA_TOOLKITS.map((t) => JSON.stringify(t)).join(", ");
  return failed([
    {
      propertyPath,
      reason: `unsupported CUDA toolkit ${show(value)}${toolkitHint(text)} (allowed: ${allowed}; default "${DEFAULT_CUDA_TOOLKIT}")`,
    },
  ]);
}

/** "Did you mean": a well-formed but unknown version gets its numeric neighbours, anything else the closest names. */
function toolkitHint(text: unknown): string {
  if (typeof text !== "string") return "";
  const m = /^\s*(\d+)\.(\d+)/.exec(text);
  if (!m) {
    const near = closest(text, CUDA_TOOLKITS);
    return near.length > 0 ? `; did you mean ${near.map((n) => JSON.stringify(n)).join(" or ")}?` : "";
  }
  const v = Number(m[1]) * 100 + Number(m[2]);
  const num = (tk: string) => Number(tk.split(".")[0]) * 100 + Number(tk.split(".")[1]);
  const below = CUDA_TOOLKITS.filter((tk) => num(tk) < v).pop();
  const above = CUDA_TOOLKITS.find((tk) => num(tk) > v);
  if (!below) return `; did you mean "${above}" (the oldest supported)?`;
  if (!above) return `; did you mean "${below}" (the newest supported)?`;
  return `; did you mean "${below}" or "${above}" (the nearest supported)?`;
}

/*
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

/*
 * Arch tokens: what users type (`sm_90`, `sm_90a`, `sm_100f`, `compute_90`, `90`, `9.0`, `9.0a`,
 * `9.0+PTX`) parsed into one canonical `ArchTarget`, validated against the chosen CUDA toolkit. A regex such as
 * `^sm_[0-9]+$` is not validation (field failure F10): it accepts sm_101, which nvcc 13 rejects. Pure.
 */

/** Canonical token: "sm_90", "sm_90a", "sm_100f", with a "+PTX" suffix when PTX is embedded. */
export function formatArch(t: ArchTarget): string {
  return `sm_${t.sm}${t.variant}${t.ptx ? "+PTX" : ""}`;
}

/** Compute capability form: 90 -> "9.0", 103 -> "10.3" (what TORCH_CUDA_ARCH_LIST and FlashInfer use). */
export function computeCapability(sm: number): string {
  return `${Math.floor(sm / 10)}.${sm % 10}`;
}

/** The syntaxes a token may use. `compute_XY` names a virtual architecture, i.e. PTX. */
const SYNTAXES: readonly { re: RegExp; ptx: boolean; sm: (m: RegExpExecArray) => number }[] = [
  { re: /^sm_([1-9]\d*)([af]?)$/, ptx: false, sm: (m) => Number(m[1]) },
  { re: /^compute_([1-9]\d*)([af]?)$/, ptx: true, sm: (m) => Number(m[1]) },
  { re: /^([1-9]\d*)([af]?)$/, ptx: false, sm: (m) => Number(m[1]) },
  { re: /^([1-9]\d?)\.(\d)([af]?)$/, ptx: false, sm: (m) => Number(m[1]) * 10 + Number(m[2]) },
];

/** Syntax only: the target a token spells, or undefined when it is not an arch token at all. */
export function readArchToken(token: string): ArchTarget | undefined {
  let text = token.trim().toLowerCase();
  let ptx = false;
  if (text.endsWith("+ptx")) {
    ptx = true;
    text = text.slice(0, -4);
  }
  for (const s of SYNTAXES) {
    const m = s.re.exec(text);
    if (m) return { sm: s.sm(m), variant: m[m.length - 1] as ArchVariant, ptx: ptx || s.ptx };
  }
  return undefined;
}

/** Every spelling of every target of `toolkit`, for "did you mean" in the user's own syntax. */
function spellings(toolkit: CudaToolkit): string[] {
  return toolkitTargets(toolkit).flatMap((t) => {
    const v = t.variant;
    return [`sm_${t.sm}${v}`, `compute_${t.sm}${v}`, `${t.sm}${v}`, `${computeCapability(t.sm)}${v}`];
  });
}

/** "sm_50, sm_52, ..., sm_121f" for an error message. */
export function validTokenList(toolkit: CudaToolkit): string {
  return toolkitTargets(toolkit)
    .map((t) => formatArch(t))
    .join(", ");
}

function unknownReason(token: string, toolkit: CudaToolkit): string {
  const bare = token.trim().replace(/\+ptx$/i, "");
  const near = closest(bare, spellings(toolkit));
  const dym = near.length > 0 ? `; did you mean ${near.map((n) => JSON.stringify(n)).join(" or ")}?` : "";
  const keyword = ["fat", "auto"].includes(bare.toLowerCase())
    ? `; "${bare.toLowerCase()}" is a whole-list keyword: pass it instead of a list, not inside one.`
    : "";
  const head = `unknown CUDA arch ${show(token)}${keyword}${dym}`;
  const stop = /[.?]$/.test(head) ? "" : ".";
  return `${head}${stop} Valid for CUDA ${toolkit}: ${validTokenList(toolkit)} (also written 90, 9.0 or compute_90; append +PTX to embed PTX)`;
}

const VARIANT_NAME: Record<ArchVariant, string> = { "": "base", a: 'arch-specific ("a")', f: 'family ("f")' };

/** Why a well-formed target is not accepted by `toolkit`, or undefined when it is accepted. */
export function unsupportedReason(t: ArchTarget, toolkit: CudaToolkit): string | undefined {
  if (toolkitHas(toolkit, t.sm, t.variant)) return undefined;
  const name = `sm_${t.sm}${t.variant}`;
  const idx = (tk: CudaToolkit) => CUDA_TOOLKITS.indexOf(tk);
  for (const r of SM_RENAMES) {
    const renamed = idx(toolkit) >= idx(r.since);
    if (t.sm === r.from && renamed) {
      return `${name} was renamed sm_${r.to}${t.variant} in CUDA ${r.since}; write "sm_${r.to}${t.variant}" for CUDA ${toolkit}`;
    }
    if (t.sm === r.to && !renamed && toolkitHas(toolkit, r.from, t.variant)) {
      return `${name} is the CUDA ${r.since} name of sm_${r.from}${t.variant}; write "sm_${r.from}${t.variant}" for CUDA ${toolkit}`;
    }
  }
  const having = toolkitsWith(t.sm, t.variant);
  if (having.length === 0) return variantMissingReason(t, toolkit);
  if (idx(having[0]) > idx(toolkit)) {
    return `${name} needs CUDA ${having[0]} or newer, but cudaToolkit is ${toolkit}; raise cudaToolkit or drop ${name}`;
  }
  const last = having[having.length - 1];
  const droppedIn = CUDA_TOOLKITS[idx(last) + 1] ?? toolkit;
  const oldest = toolkitTargets(toolkit)[0];
  return `${name} was dropped in CUDA ${droppedIn} (CUDA ${toolkit} supports sm_${oldest.sm} and newer); use cudaToolkit ${last} or drop ${name}`;
}

/** A base SM that exists, asked for with a variant no toolkit has (sm_90f, sm_80a), or an SM no toolkit has. */
function variantMissingReason(t: ArchTarget, toolkit: CudaToolkit): string | undefined {
  if (t.variant === "" || toolkitsWith(t.sm, "").length === 0) return undefined;
  const withVariant = toolkitTargets(toolkit)
    .filter((x) => x.variant === t.variant)
    .map((x) => formatArch(x));
  const where =
    withVariant.length > 0
      ? `CUDA ${toolkit} has ${VARIANT_NAME[t.variant]} targets only for ${withVariant.join(", ")}`
      : `CUDA ${toolkit} has no ${VARIANT_NAME[t.variant]} targets (they arrived in CUDA ${t.variant === "f" ? "12.9" : "12.0"})`;
  return `sm_${t.sm} has no ${VARIANT_NAME[t.variant]} variant; ${where}; write "sm_${t.sm}" for the base target`;
}

/** The target `token` names, or the reason it is not valid for `toolkit`. For callers that collect problems. */
export function checkArchToken(token: unknown, toolkit: CudaToolkit): { target: ArchTarget } | { reason: string } {
  if (typeof token !== "string" || token.trim() === "") {
    return { reason: `must be a CUDA arch token such as "sm_90" or "sm_100a+PTX"; got ${show(token)}` };
  }
  const t = readArchToken(token);
  if (!t) return { reason: unknownReason(token, toolkit) };
  const why = unsupportedReason(t, toolkit);
  if (why !== undefined) return { reason: why };
  if (toolkitsWith(t.sm, t.variant).length === 0) return { reason: unknownReason(token, toolkit) };
  return { target: Object.freeze(t) };
}

/** The canonical target `token` names, or the problem at `propertyPath` when `toolkit` rejects it. */
export function parseArchToken(token: unknown, toolkit: CudaToolkit, propertyPath: string): Checked<ArchTarget> {
  const r = checkArchToken(token, toolkit);
  return "reason" in r ? failed([{ propertyPath, reason: r.reason }]) : ok(r.target);
}
