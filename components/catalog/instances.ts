/**
 * AWS GPU instance catalog: the single source of every per-instance fact (GPU count, SM arch, EFA
 * devices, network cards, hugepages). No EFA count is ever typed anywhere else (field failure F12).
 * The rows live in `./instances-p.ts` and `./instances-g.ts`; this file holds the map by name and the lookups.
 * Pure; no Pulumi import.
 *
 * Source for every row unless noted: docs/ARCHITECTURE.md#gpu-instances (AWS EC2 accelerated-computing instance pages,
 * "Supported instance types for EFA", reviewed 2026-11). vCPU and memory: the EC2 instance type pages.
 */
import { Checked, failed, ok, valueOf } from "../_shared/problems";
import { closest } from "../_shared/suggest";
import { GpuInstance } from "./instance-row";
import { G_FAMILIES, gRows } from "./instances-g";
import { P_FAMILY } from "./instances-p";

export { CpuArch, EFA_DRIVER_HUGEPAGES_2MI } from "./instance-row";
export type { GpuInstance, Tristate } from "./instance-row";

/** Every known GPU instance type, by name. */
export const INSTANCES: ReadonlyMap<string, GpuInstance> = new Map(
  [...P_FAMILY, ...G_FAMILIES.flatMap(gRows)].map((r) => [r.name, Object.freeze(r)] as const),
);

/**
 * Types AWS sells only on arm64 (Grace) hosts, known so that asking for them gets a precise error
 * instead of "unknown instance type". p6e-gb200 is sold only as UltraServers via Capacity Blocks.
 */
export const ARM64_GPU_TYPES: readonly string[] = [
  "p6e-gb200.36xlarge",
  "g5g.xlarge",
  "g5g.2xlarge",
  "g5g.4xlarge",
  "g5g.8xlarge",
  "g5g.16xlarge",
  "g5g.metal",
];

/** Names of every known instance type, sorted. */
export function instanceNames(): string[] {
  return [...INSTANCES.keys()].sort();
}

/**
 * The catalog row for `name`, or the problem at `propertyPath`: an unknown type (with the closest names) or an arm64
 * type (the build and pools are x86_64-only). Validators collect the problem.
 */
export function lookupInstance(name: unknown, propertyPath = "instanceType"): Checked<GpuInstance> {
  const hit = typeof name === "string" ? INSTANCES.get(name) : undefined;
  return hit ? ok(hit) : failed([{ propertyPath, reason: unknownInstanceReason(name) }]);
}

/**
 * The catalog row for `name`, for code that runs after validation (the components' derivations, resolved pools,
 * tests of catalog rows): there an unknown name is a bug in the caller, so this throws (a `ValidationError` that
 * still names `propertyPath`) instead of returning a problem. Validate user input with `lookupInstance`.
 */
export function instance(name: string, propertyPath = "instanceType"): GpuInstance {
  return valueOf("instance catalog", lookupInstance(name, propertyPath));
}

/** Why `name` is not a usable instance type; for callers that collect problems instead of throwing. */
export function unknownInstanceReason(name: unknown): string {
  if (typeof name !== "string" || name === "")
    return `must be a GPU instance type name such as "p5en.48xlarge"; got ${JSON.stringify(name)}`;
  if (ARM64_GPU_TYPES.includes(name)) {
    return `${JSON.stringify(name)} is an arm64 (Grace/Graviton) instance; only x86_64 GPU instances are supported because the combined image is built for linux/amd64. Use an x86_64 type such as "p5en.48xlarge"`;
  }
  const near = closest(name, instanceNames());
  const hint =
    near.length > 0
      ? `did you mean ${near.map((n) => JSON.stringify(n)).join(" or ")}?`
      : `known types: ${instanceNames().join(", ")}`;
  return `unknown GPU instance type ${JSON.stringify(name)}; ${hint}`;
}

/** EFA devices per GPU (fractional on p4d: 0.5; 0 without EFA). */
export function efaPerGpu(i: GpuInstance): number {
  return i.efaDevices / i.gpuCount;
}

/**
 * Whether NIXL's LIBFABRIC plugin can move KV cache over EFA on this type: it needs EFA devices and
 * GPUDirect RDMA (a P-family feature). "unknown" rows count as false until AWS documents them.
 */
export function supportsNixlOverEfa(i: GpuInstance): boolean {
  return i.efaDevices > 0 && i.gpuDirectRdma === true;
}
