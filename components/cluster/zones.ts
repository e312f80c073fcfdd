/**
 * The cluster's AZs and region, from its args as given: listed, or derived from the pools (and the region from the
 * first AZ). Only `resolveArgs` reads them; the validator checks its result (and `source` says whether the user
 * gave them or they were derived), so the two cannot disagree. Pure.
 */
import type { EfaClusterArgs, GpuPoolArgs } from "./args";
import { regionOfAz } from "./partition";

/** The VPC's AZs when the user did not list them: the pools' AZs, sorted. */
export function defaultAvailabilityZones(pools: Readonly<Record<string, GpuPoolArgs>>): string[] {
  const azs = Object.values(pools ?? {})
    .map((p) => p?.availabilityZone)
    .filter((az): az is string => typeof az === "string");
  return [...new Set(azs)].sort();
}

/** The VPC's AZs: the existing VPC's subnet keys, the listed AZs, or the pools' AZs. */
export function clusterAvailabilityZones(a: EfaClusterArgs): string[] {
  return a.existingVpc
    ? Object.keys(a.existingVpc.privateSubnetIds ?? {}).sort()
    : [...(a.availabilityZones ?? defaultAvailabilityZones(a.gpuPools ?? {}))];
}

/** The region: `region`, else the region of the first AZ (validated to hold every AZ). */
export function clusterRegion(a: EfaClusterArgs): string {
  return a.region ?? regionOfAz(clusterAvailabilityZones(a)[0] ?? "");
}
