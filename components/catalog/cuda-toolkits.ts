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
