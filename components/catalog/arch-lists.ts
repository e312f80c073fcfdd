/**
 * Arch lists: explicit lists (validated, de-duplicated, sorted, exactly what was asked), the "fat"
 * default and "auto" (the minimal list for a set of instance types), plus `archCovers`. Pure.
 */
import { Checked, failed, ok, Problem, show } from "../_shared/problems";
import { editDistance } from "../_shared/suggest";
import { checkArchToken, readArchToken, unsupportedReason } from "./arch-tokens";
import { ArchTarget, CudaToolkit, SM_RENAMES, compareTargets, toolkitHas } from "./cuda-toolkits";
import { lookupInstance } from "./instances";
import { ImagePlatform, platformReason, platformRunsSm } from "./arch-platform";

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
