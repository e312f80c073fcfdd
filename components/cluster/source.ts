/**
 * What the user wrote that the resolved args cannot show: whether a value was given or derived (a message says
 * "derived from the pools' AZs"), the order pools were written in, and entries resolution drops. `resolveArgs`
 * records it so the validator reads only resolved args. Pure.
 */
import type { EfaClusterArgs, ResolvedPool } from "./args";

/** Facts about the args as written, carried on `ResolvedClusterArgs.source`. */
export interface ClusterArgsSource {
  /** `region` was given, not derived from the first AZ. */
  readonly regionGiven: boolean;
  /** `availabilityZones` was listed, not derived from the pools' AZs. */
  readonly availabilityZonesGiven: boolean;
  /** `gpuPools` as written when it is not a non-empty map of pools (validation reports it); else undefined. */
  readonly badGpuPools?: { readonly written: unknown };
  /** Pool keys in the order written (resolved pools are sorted); problems are reported in this order. */
  readonly poolKeys: readonly string[];
  /** Pool entries that are not objects, by key, as written (resolution leaves them out; validation reports them). */
  readonly nonObjectPools: Readonly<Record<string, unknown>>;
}

/** The source facts of `a`; never throws. */
export function argsSource(a: EfaClusterArgs): ClusterArgsSource {
  const pools: unknown = a.gpuPools;
  const isMap = typeof pools === "object" && pools !== null;
  const entries = isMap ? Object.entries(pools as Record<string, unknown>) : [];
  const badMap = !isMap || Array.isArray(pools) || entries.length === 0;
  return {
    regionGiven: a.region !== undefined,
    availabilityZonesGiven: a.availabilityZones !== undefined,
    ...(badMap ? { badGpuPools: { written: pools } } : {}),
    poolKeys: entries.map(([k]) => k),
    nonObjectPools: Object.fromEntries(entries.filter(([, p]) => typeof p !== "object" || p === null)),
  };
}

/** The resolved pools in the order the user wrote them (so problems list in that order). */
export function poolsAsWritten(r: {
  readonly pools: readonly ResolvedPool[];
  readonly source: ClusterArgsSource;
}): ResolvedPool[] {
  return r.source.poolKeys.flatMap((k) => r.pools.filter((p) => p.name === k));
}
