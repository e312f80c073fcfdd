/**
 * Problems of the cluster's network arguments: the VPC (existing or created), AZs and the region they belong to,
 * CIDRs, and the API endpoint's exposure. Split from `./validate.ts`, which collects these with the rest. Pure.
 */
import { formatAddress, internetsCovered, leadingZeroHint, nonInternetOverlap, parseCidr } from "../_shared/cidr";
import { brief, Problem, show } from "../_shared/problems";
import { documentationRangeOf } from "./reach";
import { checkChoice } from "../_shared/suggest";
import { CLUSTER_LOG_TYPES, NatGateways, poolsAsWritten, regionZone, ResolvedClusterArgs } from "./args";
import { AZ_NAME, regionProblems, zoneProblems } from "./partition";

/** Problems with an IPv4 CIDR (format, prefix range, host bits); empty when it is valid. */
export function cidrProblems(path: string, cidr: unknown, minPrefix = 0, maxPrefix = 32): Problem[] {
  const parsed = parseCidr(cidr);
  if (!("cidr" in parsed) || parsed.cidr.family !== 4) {
    const hint = leadingZeroHint(cidr);
    return [{ propertyPath: path, reason: `must be an IPv4 CIDR such as "203.0.113.0/24"; got ${show(cidr)}${hint}` }];
  }
  const { prefix, address, network } = parsed.cidr;
  if (prefix < minPrefix || prefix > maxPrefix) {
    return [{ propertyPath: path, reason: `prefix length must be /${minPrefix}../${maxPrefix}; got ${show(cidr)}` }];
  }
  if (network !== address) {
    const n = formatAddress(4, network);
    return [{ propertyPath: path, reason: `${show(cidr)} has host bits set; did you mean "${n}/${prefix}"?` }];
  }
  return [];
}

/**
 * Each pool's zone must be in `availabilityZones`. A list with a zone that is no zone of the region ("us-east-2x" for
 * "us-east-2b") already has its problem, and the pool's zone missing from it is most likely that same typo, so then
 * nothing is reported here. An AZ the region does not have gets regionZoneProblems' message only, one that is no AZ
 * name validate-pool's: "add it there" would be a wrong fix.
 */
function poolZoneProblems(
  a: ResolvedClusterArgs,
  azs: readonly string[],
  pools: ReturnType<typeof poolsAsWritten>,
): Problem[] {
  const isZone = (z: unknown) => AZ_NAME.test(String(z)) && zoneProblems(a.region, [["", String(z)]]).length === 0;
  if (!azs.every(isZone)) return [];
  return pools.flatMap((p): Problem[] => {
    const az = typeof p.availabilityZone === "string" ? p.availabilityZone : "";
    return isZone(az) && !azs.includes(az)
      ? [
          {
            propertyPath: `gpuPools.${p.name}.availabilityZone`,
            reason: `${show(p.availabilityZone)} is not in availabilityZones ${show(azs)}; add it there`,
          },
        ]
      : [];
  });
}

/** The VPC: an existing one (subnets per AZ) or the one this component creates (AZs, CIDR, NAT gateways). */
export function networkProblems(a: ResolvedClusterArgs): Problem[] {
  const out: Problem[] = [];
  const pools = poolsAsWritten(a);
  if (a.existingVpc) {
    if (a.source.availabilityZonesGiven)
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
    for (const p of pools) {
      if (p.availabilityZone !== undefined && !azs.includes(p.availabilityZone))
        out.push({
          propertyPath: `gpuPools.${p.name}.availabilityZone`,
          reason: `${show(p.availabilityZone)} has no private subnet in existingVpc.privateSubnetIds (have ${show(azs)})`,
        });
    }
    return out;
  }
  const azs = a.availabilityZones;
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
      reason: `EKS needs subnets in at least 2 AZs; got ${show(azs)}${a.source.availabilityZonesGiven ? "" : " (derived from the pools' AZs)"}. List them, e.g. ["us-east-2a", "us-east-2b"]`,
    });
  out.push(...repeatedZoneProblems(azs));
  out.push(...poolZoneProblems(a, azs, pools));
  out.push(...cidrProblems("vpcCidr", a.vpcCidr, 16, 20));
  out.push(...checkChoice("natGateways", a.natGateways, Object.values(NatGateways)));
  return out;
}

/**
 * Public-access CIDRs per cluster EKS accepts: "Public endpoint access CIDR ranges per cluster", 40, not adjustable
 * (tests/contracts/facts/aws-network-limits.json).
 */
export const EKS_MAX_PUBLIC_ACCESS_CIDRS = 40;

/** One public-access CIDR: its shape, never the whole internet, no reserved addresses (which EKS refuses). */
function publicAccessCidrProblems(path: string, c: unknown, fix: string): Problem[] {
  const bad = cidrProblems(path, c);
  if (bad.length > 0) return bad;
  if (internetsCovered([c]).length > 0)
    return [{ propertyPath: path, reason: `${show(c)} opens the API endpoint to the whole internet; ${fix}` }];
  // A block inside a documentation range is the example stacks' placeholder: the program refuses it for a real
  // deploy and the offline render notes it (reach.ts), so it is not refused here.
  if (documentationRangeOf(c as string) !== undefined) return [];
  const reserved = nonInternetOverlap(c);
  return reserved.length === 0
    ? []
    : [
        {
          propertyPath: path,
          reason: `${show(c)} includes reserved addresses (${reserved.join(", ")}), which EKS refuses in publicAccessCidrs and no internet client has; list the public addresses pulumi up runs from, or leave publicAccessCidrs empty with deployFromInsideVpc: true for a private endpoint`,
        },
      ];
}

/** The API endpoint's public CIDRs (never the whole internet, however spelled or split) and the control-plane log types. */
export function endpointProblems(a: ResolvedClusterArgs): Problem[] {
  const out: Problem[] = [];
  const fix = "list your office/VPN/CI CIDRs, or leave publicAccessCidrs empty for a private endpoint";
  const cidrs = a.publicAccessCidrs;
  const each = cidrs.some((c) => internetsCovered([c]).length > 0);
  if (!each && internetsCovered(cidrs).length > 0)
    // The set is the cause: its blocks' reserved addresses (which any such split holds) are not listed on top.
    out.push({
      propertyPath: "publicAccessCidrs",
      reason: `${brief(cidrs)} together cover every public IPv4 address, which opens the API endpoint to the whole internet; ${fix}`,
    });
  else cidrs.forEach((c, i) => out.push(...publicAccessCidrProblems(`publicAccessCidrs[${i}]`, c, fix)));
  if (cidrs.length > EKS_MAX_PUBLIC_ACCESS_CIDRS)
    out.push({
      propertyPath: "publicAccessCidrs",
      reason: `lists ${cidrs.length} CIDRs; EKS accepts at most ${EKS_MAX_PUBLIC_ACCESS_CIDRS} per cluster (a quota AWS does not raise). Merge them into wider blocks, or use a private endpoint (publicAccessCidrs: [] with deployFromInsideVpc: true)`,
    });
  a.clusterLogTypes.forEach((t, i) => out.push(...checkChoice(`clusterLogTypes[${i}]`, t, CLUSTER_LOG_TYPES)));
  return out;
}

/**
 * The region and every AZ against it (the VPC's AZs, each pool's AZ, an existing VPC's subnet keys).
 * Without a given `region` the first AZ's region stands in, so the AZs must at least agree with each other.
 */
export function regionZoneProblems(a: ResolvedClusterArgs): Problem[] {
  const zones: [string, string][] = a.existingVpc
    ? Object.keys(a.existingVpc.privateSubnetIds ?? {}).map((az) => [`existingVpc.privateSubnetIds.${az}`, az])
    : a.availabilityZones.map((az, i) => [
        a.source.availabilityZonesGiven ? `availabilityZones[${i}]` : "availabilityZones",
        az,
      ]);
  for (const p of poolsAsWritten(a)) {
    if (typeof p.availabilityZone === "string") zones.push([`gpuPools.${p.name}.availabilityZone`, p.availabilityZone]);
  }
  const valid = zones.filter(([, az]) => AZ_NAME.test(String(az)));
  if (!a.source.regionGiven) {
    const first = regionZone(a.availabilityZones);
    return first === undefined ? [] : zoneProblems(a.region, valid, first);
  }
  const bad = regionProblems("region", a.region);
  return bad.length > 0 ? bad : zoneProblems(a.region, valid);
}

/** An AZ listed more than once, named: each AZ gets one subnet. */
function repeatedZoneProblems(azs: readonly string[]): Problem[] {
  const repeated = [...new Set(azs.filter((z, i) => azs.indexOf(z) !== i))];
  if (repeated.length === 0) return [];
  const names = repeated.map((z) => show(z)).join(", ");
  return [
    {
      propertyPath: "availabilityZones",
      reason: `lists ${names} more than once in ${show(azs)}; each AZ gets one subnet, so list each once`,
    },
  ];
}
