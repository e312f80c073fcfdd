/**
 * Arch tokens: what users type (`sm_90`, `sm_90a`, `sm_100f`, `compute_90`, `90`, `9.0`, `9.0a`,
 * `9.0+PTX`) parsed into one canonical `ArchTarget`, validated against the chosen CUDA toolkit. A regex such as
 * `^sm_[0-9]+$` is not validation (field failure F10): it accepts sm_101, which nvcc 13 rejects. Pure.
 */
import { Checked, failed, ok, show } from "../_shared/problems";
import { closest } from "../_shared/suggest";
import {
  ArchTarget,
  ArchVariant,
  CUDA_TOOLKITS,
  CudaToolkit,
  SM_RENAMES,
  toolkitHas,
  toolkitTargets,
  toolkitsWith,
} from "./cuda-toolkits";

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
