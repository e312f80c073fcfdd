/**
 * `validateClusterArgs()`: every problem with `EfaClusterArgs` at once, each naming the argument path
 * (`gpuPools.<key>.instanceType`), the bad value, what is allowed and the fix. Pure; runs before any
 * resource exists (docs/CONTRIBUTING.md rule 6).
 */
import { joinPath, Problem, show } from "../_shared/problems";
import { checkRange } from "../_shared/limits";
import { didYouMean, oneOf } from "../_shared/suggest";
import { INSTANCES, supportsNixlOverEfa, unknownInstanceReason } from "../catalog/instances";
import { K8S_NAME } from "../_shared/names";
import { addons, kubernetes } from "../versions";
import {
  CapacityType,
  CLUSTER_LOG_TYPES,
  clusterAvailabilityZones,
  clusterRegion,
  defaultAvailabilityZones,
  EfaClusterArgs,
  EfaLayout,
  GpuPoolArgs,
  NatGateways,
} from "./args";
import { CLUSTER_LIMITS } from "./limits";
import { regionProblems, zoneProblems } from "./partition";
import { compareVersions, parseVersion } from "./render";

/** `cr-` followed by 8 or 17 lower-case hex digits. */
export const CAPACITY_RESERVATION_ID = /^cr-([0-9a-f]{8}|[0-9a-f]{17})$/;
/** An AWS availability zone name such as `us-east-2a` or `us-gov-west-1b`. */
export const AZ_NAME = /^[a-z]{2}(-[a-z]+)+-\d+[a-z]$/;
/** An EKS add-on version such as `v1.20.4-eksbuild.1`. */
export const ADDON_VERSION = /^v(\d+)\.(\d+)\.(\d+)-eksbuild\.\d+$/;

const values = <T extends Record<string, string>>(o: T): string[] => Object.values(o);

/** Problems with an IPv4 CIDR (format, prefix range, host bits); empty when it is valid. */
export function cidrProblems(path: string, cidr: unknown, minPrefix = 0, maxPrefix = 32): Problem[] {
  const m = typeof cidr === "string" ? /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(cidr) : null;
  const octets = m ? m.slice(1, 5).map(Number) : [];
  const prefix = m ? Number(m[5]) : -1;
  if (!m || octets.some((o) => o > 255) || prefix > 32) {
    return [{ propertyPath: path, reason: `must be an IPv4 CIDR such as "203.0.113.0/24"; got ${show(cidr)}` }];
  }
  if (prefix < minPrefix || prefix > maxPrefix) {
    return [{ propertyPath: path, reason: `prefix length must be /${minPrefix}../${maxPrefix}; got ${show(cidr)}` }];
  }
  const addr = octets.reduce((acc, o) => acc * 256 + o, 0);
  const size = 2 ** (32 - prefix);
  const network = addr - (addr % size);
  if (network !== addr) {
    const n = [24, 16, 8, 0].map((s) => Math.floor(network / 2 ** s) % 256).join(".");
    return [{ propertyPath: path, reason: `${show(cidr)} has host bits set; did you mean "${n}/${prefix}"?` }];
  }
  return [];
}

function choice(path: string, value: unknown, allowed: readonly string[]): Problem[] {
  if (value === undefined || (typeof value === "string" && allowed.includes(value))) return [];
  return [
    {
      propertyPath: path,
      reason: `must be ${oneOf(allowed)}; got ${show(value)}${typeof value === "string" ? didYouMean(value, allowed) : ""}`,
    },
  ];
}

function capacityProblems(path: string, p: GpuPoolArgs): Problem[] {
  const out = choice(joinPath(path, "capacity"), p.capacity, values(CapacityType));
  const capacity = p.capacity ?? CapacityType.OnDemand;
  const idPath = joinPath(path, "capacityReservationId");
  const needsId = capacity === CapacityType.CapacityBlock || capacity === CapacityType.Odcr;
  if (needsId && p.capacityReservationId === undefined) {
    out.push({
      propertyPath: idPath,
      reason: `required when capacity is ${show(capacity)}: the id of your reservation, e.g. "cr-0123456789abcdef0"`,
    });
  } else if (!needsId && p.capacityReservationId !== undefined && out.length === 0) {
    out.push({
      propertyPath: idPath,
      reason: `is only used with capacity "capacity-block" or "odcr"; got ${show(p.capacityReservationId)} with ${show(capacity)}. Set capacity or drop the id`,
    });
  } else if (p.capacityReservationId !== undefined && !CAPACITY_RESERVATION_ID.test(String(p.capacityReservationId))) {
    out.push({
      propertyPath: idPath,
      reason: `must be "cr-" followed by 17 (or 8) lower-case hex digits, e.g. "cr-0123456789abcdef0"; got ${show(p.capacityReservationId)}`,
    });
  }
  if (needsId && p.placementGroup === true) {
    // An ODCR (a Capacity Block too) made in a cluster placement group matches only launches into that
    // group; a placement group this component creates is new, so it never matches the reservation.
    out.push({
      propertyPath: joinPath(path, "placementGroup"),
      reason: `cannot be true with capacity ${show(capacity)}: a new placement group never matches your reservation, so no instance would launch into it. Remove placementGroup (reserved capacity keeps the placement it was bought with)`,
    });
  }
  return out;
}

function efaProblems(path: string, p: GpuPoolArgs): Problem[] {
  const row = INSTANCES.get(p.instanceType);
  const out = choice(joinPath(path, "efaLayout"), p.efaLayout, values(EfaLayout));
  if (!row) return out;
  const efa = p.efa ?? supportsNixlOverEfa(row);
  if (p.efa === true && row.efaDevices === 0) {
    out.push({
      propertyPath: joinPath(path, "efa"),
      reason: `${row.name} has no EFA device; set efa to false or pick an EFA type such as "p5en.48xlarge"`,
    });
    return out;
  }
  if (efa && row.gpuDirectRdma !== true && p.allowEfaWithoutGpuDirectRdma !== true) {
    out.push({
      propertyPath: joinPath(path, "efa"),
      reason: `${row.name} has no GPUDirect RDMA over EFA (${row.gpuDirectRdma === "unknown" ? "unverified" : "g family"}), so NIXL's LIBFABRIC plugin cannot move KV cache from GPU memory; use a P-family type, set efa to false, or set allowEfaWithoutGpuDirectRdma to true for experiments`,
    });
  }
  if (efa && p.availabilityZone === undefined) {
    out.push({
      propertyPath: joinPath(path, "availabilityZone"),
      reason: `required for an EFA pool (EFA traffic stays in one AZ); name the AZ that offers ${row.name}, e.g. "us-east-2a"`,
    });
  }
  if (efa && p.efaLayout === EfaLayout.Legacy && !row.card0SupportsEfa) {
    out.push({
      propertyPath: joinPath(path, "efaLayout"),
      reason: `"legacy" puts EFA on network card 0, which has no EFA on ${row.name}; use "current"`,
    });
  }
  return out;
}

/** Problems of one pool at `gpuPools.<key>`. */
export function poolProblems(key: string, p: GpuPoolArgs): Problem[] {
  const path = joinPath("gpuPools", key);
  const out: Problem[] = [];
  if (!K8S_NAME.test(key))
    out.push({
      propertyPath: path,
      reason: `pool name ${show(key)} must be a lower-case DNS label (a-z, 0-9, "-", at most 63 characters): it becomes a node label value and resource name`,
    });
  if (typeof p !== "object" || p === null)
    return [...out, { propertyPath: path, reason: `must be an object with instanceType and nodes; got ${show(p)}` }];
  if (!INSTANCES.has(p.instanceType))
    out.push({ propertyPath: joinPath(path, "instanceType"), reason: unknownInstanceReason(p.instanceType) });
  out.push(...checkRange(joinPath(path, "nodes"), p.nodes, CLUSTER_LIMITS.nodes));
  if (p.availabilityZone !== undefined && !AZ_NAME.test(String(p.availabilityZone))) {
    out.push({
      propertyPath: joinPath(path, "availabilityZone"),
      reason: `must be an availability zone name such as "us-east-2a"; got ${show(p.availabilityZone)}`,
    });
  }
  out.push(...efaProblems(path, p), ...capacityProblems(path, p));
  if (p.rootVolumeSizeGiB !== undefined)
    out.push(...checkRange(joinPath(path, "rootVolumeSizeGiB"), p.rootVolumeSizeGiB, CLUSTER_LIMITS.rootVolumeSizeGiB));
  if (p.hugepages2MiPerNode !== undefined)
    out.push(
      ...checkRange(joinPath(path, "hugepages2MiPerNode"), p.hugepages2MiPerNode, CLUSTER_LIMITS.hugepages2MiPerNode),
    );
  const row = INSTANCES.get(p.instanceType);
  if (p.localNvme !== undefined && typeof p.localNvme !== "boolean")
    out.push({ propertyPath: joinPath(path, "localNvme"), reason: `must be true or false; got ${show(p.localNvme)}` });
  else if (p.localNvme === true && row && row.localNvmeGB === 0)
    out.push({
      propertyPath: joinPath(path, "localNvme"),
      reason: `${row.name} has no instance-store NVMe; set localNvme to false or pick a type with local NVMe such as "p5en.48xlarge"`,
    });
  return out;
}

function networkProblems(a: EfaClusterArgs): Problem[] {
  const out: Problem[] = [];
  const pools = Object.entries(a.gpuPools ?? {}).filter(([, p]) => typeof p === "object" && p !== null);
  if (a.existingVpc) {
    if (a.availabilityZones !== undefined)
      out.push({
        propertyPath: "availabilityZones",
        reason:
          "is only used for a VPC this component creates; with existingVpc the AZs are the keys of existingVpc.privateSubnetIds",
      });
    const azs = Object.keys(a.existingVpc.privateSubnetIds ?? {});
    if (azs.length < 2)
      out.push({
        propertyPath: "existingVpc.privateSubnetIds",
        reason: `needs private subnets in at least 2 AZs (EKS requires 2); got ${show(azs)}`,
      });
    for (const az of azs)
      if (!AZ_NAME.test(az))
        out.push({
          propertyPath: `existingVpc.privateSubnetIds.${az}`,
          reason: `key must be an availability zone name such as "us-east-2a"; got ${show(az)}`,
        });
    for (const [k, p] of pools) {
      if (p.availabilityZone !== undefined && !azs.includes(p.availabilityZone))
        out.push({
          propertyPath: `gpuPools.${k}.availabilityZone`,
          reason: `${show(p.availabilityZone)} has no private subnet in existingVpc.privateSubnetIds (have ${show(azs)})`,
        });
    }
    return out;
  }
  const azs = [...(a.availabilityZones ?? defaultAvailabilityZones(a.gpuPools ?? {}))];
  azs.forEach((az, i) => {
    if (!AZ_NAME.test(String(az)))
      out.push({
        propertyPath: `availabilityZones[${i}]`,
        reason: `must be an availability zone name such as "us-east-2a"; got ${show(az)}`,
      });
  });
  if (new Set(azs).size < 2)
    out.push({
      propertyPath: "availabilityZones",
      reason: `EKS needs subnets in at least 2 AZs; got ${show(azs)}${a.availabilityZones === undefined ? " (derived from the pools' AZs)" : ""}. List them, e.g. ["us-east-2a", "us-east-2b"]`,
    });
  if (new Set(azs).size !== azs.length)
    out.push({ propertyPath: "availabilityZones", reason: `lists an AZ twice: ${show(azs)}` });
  for (const [k, p] of pools) {
    if (p.availabilityZone !== undefined && !azs.includes(p.availabilityZone))
      out.push({
        propertyPath: `gpuPools.${k}.availabilityZone`,
        reason: `${show(p.availabilityZone)} is not in availabilityZones ${show(azs)}; add it there`,
      });
  }
  if (a.vpcCidr !== undefined) out.push(...cidrProblems("vpcCidr", a.vpcCidr, 16, 20));
  out.push(...choice("natGateways", a.natGateways, values(NatGateways)));
  return out;
}

function endpointProblems(a: EfaClusterArgs): Problem[] {
  const out: Problem[] = [];
  (a.publicAccessCidrs ?? []).forEach((c, i) => {
    const path = `publicAccessCidrs[${i}]`;
    if (c === "0.0.0.0/0")
      out.push({
        propertyPath: path,
        reason: `"0.0.0.0/0" opens the API endpoint to the whole internet; list your office/VPN/CI CIDRs, or leave publicAccessCidrs empty for a private endpoint`,
      });
    else out.push(...cidrProblems(path, c));
  });
  (a.clusterLogTypes ?? []).forEach((t, i) => out.push(...choice(`clusterLogTypes[${i}]`, t, CLUSTER_LOG_TYPES)));
  return out;
}

function versionProblems(a: EfaClusterArgs): Problem[] {
  const out: Problem[] = [];
  const supported: readonly string[] = kubernetes.supportedVersions;
  if (a.kubernetesVersion !== undefined && !supported.includes(a.kubernetesVersion)) {
    out.push({
      propertyPath: "kubernetesVersion",
      reason: `must be a version EKS supports, ${oneOf(supported)}; got ${show(a.kubernetesVersion)}`,
    });
  }
  if (a.vpcCniAddonVersion !== undefined) {
    const m = ADDON_VERSION.exec(a.vpcCniAddonVersion);
    if (!m)
      out.push({
        propertyPath: "vpcCniAddonVersion",
        reason: `must look like "v1.20.4-eksbuild.1"; got ${show(a.vpcCniAddonVersion)}`,
      });
    else if (compareVersions(parseVersion(a.vpcCniAddonVersion)!, parseVersion(addons.vpcCniMinimum)!) < 0) {
      out.push({
        propertyPath: "vpcCniAddonVersion",
        reason: `${show(a.vpcCniAddonVersion)} is older than v${addons.vpcCniMinimum}, the first VPC CNI that supports "efa-only" interfaces; use a newer add-on version`,
      });
    }
  }
  if (a.ebsCsiAddonVersion !== undefined && !ADDON_VERSION.test(a.ebsCsiAddonVersion))
    out.push({
      propertyPath: "ebsCsiAddonVersion",
      reason: `must look like "v1.40.0-eksbuild.1"; got ${show(a.ebsCsiAddonVersion)}`,
    });
  for (const key of [
    "efaDevicePluginChartVersion",
    "nvidiaDevicePluginChartVersion",
    "loadBalancerControllerChartVersion",
  ] as const) {
    const v = a[key];
    if (v !== undefined && !parseVersion(v))
      out.push({ propertyPath: key, reason: `must be a chart version such as "1.2.3" or "v1.2.3"; got ${show(v)}` });
  }
  return out;
}

/**
 * The region and every AZ against it (the VPC's AZs, each pool's AZ, an existing VPC's subnet keys).
 * Without `region` the first AZ's region stands in, so the AZs must at least agree with each other.
 */
function regionZoneProblems(a: EfaClusterArgs): Problem[] {
  const zones: [string, string][] = a.existingVpc
    ? Object.keys(a.existingVpc.privateSubnetIds ?? {}).map((az) => [`existingVpc.privateSubnetIds.${az}`, az])
    : clusterAvailabilityZones(a).map((az, i) => [
        a.availabilityZones !== undefined ? `availabilityZones[${i}]` : "availabilityZones",
        az,
      ]);
  for (const [k, p] of Object.entries(a.gpuPools ?? {})) {
    if (typeof p === "object" && p !== null && typeof p.availabilityZone === "string")
      zones.push([`gpuPools.${k}.availabilityZone`, p.availabilityZone]);
  }
  const valid = zones.filter(([, az]) => AZ_NAME.test(String(az)));
  if (a.region === undefined) return valid.length === 0 ? [] : zoneProblems(clusterRegion(a), valid);
  const bad = regionProblems("region", a.region);
  return bad.length > 0 ? bad : zoneProblems(a.region, valid);
}

/** Every problem with `EfaClusterArgs`; empty when they are valid. */
export function validateClusterArgs(a: EfaClusterArgs): Problem[] {
  const out: Problem[] = [];
  const pools = a.gpuPools;
  if (typeof pools !== "object" || pools === null || Array.isArray(pools) || Object.keys(pools).length === 0) {
    out.push({
      propertyPath: "gpuPools",
      reason: `must be a map of pool name to pool, e.g. { prefill: { instanceType: "p5en.48xlarge", nodes: 1, availabilityZone: "us-east-2a" } }; got ${show(pools)}`,
    });
  } else {
    for (const key of Object.keys(pools)) out.push(...poolProblems(key, pools[key]));
  }
  out.push(...networkProblems(a), ...regionZoneProblems(a), ...endpointProblems(a), ...versionProblems(a));
  if (a.systemInstanceType !== undefined && !/^[a-z][a-z0-9-]*\.[a-z0-9-]+$/.test(a.systemInstanceType)) {
    out.push({
      propertyPath: "systemInstanceType",
      reason: `must be an EC2 instance type such as "m7i.2xlarge"; got ${show(a.systemInstanceType)}`,
    });
  }
  if (a.systemNodeCount !== undefined)
    out.push(...checkRange("systemNodeCount", a.systemNodeCount, CLUSTER_LIMITS.systemNodeCount));
  return out;
}
