/**
 * Problems of one resolved GPU pool (`gpuPools.<key>`): instance type, node count, AZ, EFA against the catalog row,
 * capacity reservations, volumes, local NVMe. Split from `./validate.ts`, which runs this for every pool. Pure; it
 * reads the pool's resolved values (defaults come from `resolvePool` only).
 */
import { joinPath, Problem, problemsIn, show } from "../_shared/problems";
import { checkRange } from "../_shared/limits";
import { checkChoice } from "../_shared/suggest";
import { lookupInstance } from "../catalog/instances";
import { K8S_NAME } from "../_shared/names";
import { CapacityType, EfaLayout, ResolvedPool } from "./args";
import { efaInterfaceLayout } from "./derive";
import { CLUSTER_LIMITS } from "./limits";
import { gpuRootVolume } from "./root-volume";
import { AZ_NAME } from "./partition";

/** `cr-` followed by 8 or 17 lower-case hex digits. */
export const CAPACITY_RESERVATION_ID = /^cr-([0-9a-f]{8}|[0-9a-f]{17})$/;
function capacityProblems(path: string, p: ResolvedPool): Problem[] {
  const out = checkChoice(joinPath(path, "capacity"), p.capacity, Object.values(CapacityType));
  const capacity = p.capacity;
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

function efaProblems(path: string, p: ResolvedPool): Problem[] {
  const found = lookupInstance(p.instanceType);
  const out = checkChoice(joinPath(path, "efaLayout"), p.efaLayout, Object.values(EfaLayout));
  if (!found.ok || !p.efa) return out;
  const row = found.value;
  // The layout owns the "no EFA device" and "legacy needs EFA on card 0" problems (derive asserts the same call).
  const layout = problemsIn(efaInterfaceLayout(row, p.efaLayout, path));
  // Without any EFA device the checks below would only repeat that problem.
  if (row.efaDevices === 0) return [...out, ...layout];
  if (row.gpuDirectRdma !== true && p.allowEfaWithoutGpuDirectRdma !== true) {
    out.push({
      propertyPath: joinPath(path, "efa"),
      reason: `${row.name} has no GPUDirect RDMA over EFA (${row.gpuDirectRdma === "unknown" ? "unverified" : "g family"}), so NIXL's LIBFABRIC plugin cannot move KV cache from GPU memory; use a P-family type, set efa to false, or set allowEfaWithoutGpuDirectRdma to true for experiments`,
    });
  }
  if (p.availabilityZone === undefined) {
    out.push({
      propertyPath: joinPath(path, "availabilityZone"),
      reason: `required for an EFA pool (EFA traffic stays in one AZ); name the AZ that offers ${row.name}, e.g. "us-east-2a"`,
    });
  }
  return [...out, ...layout];
}

/**
 * Problems of one pool at `path` (`gpuPools.<key>` in `EfaCluster`, `pool` in `EfaGpuPool`): `p` is its resolved
 * form, undefined when the entry is not an object (then `written` is the entry as written).
 */
export function poolProblems(
  key: string,
  p: ResolvedPool | undefined,
  written?: unknown,
  path = joinPath("gpuPools", key),
): Problem[] {
  const out: Problem[] = [];
  if (!K8S_NAME.test(key))
    out.push({
      propertyPath: path,
      reason: `pool name ${show(key)} must be a lower-case DNS label (a-z, 0-9, "-", at most 63 characters): it becomes a node label value and resource name`,
    });
  if (p === undefined)
    return [
      ...out,
      { propertyPath: path, reason: `must be an object with instanceType and nodes; got ${show(written)}` },
    ];
  const found = lookupInstance(p.instanceType, joinPath(path, "instanceType"));
  out.push(...problemsIn(found));
  out.push(...checkRange(joinPath(path, "nodes"), p.nodes, CLUSTER_LIMITS.nodes));
  if (p.availabilityZone !== undefined && !AZ_NAME.test(String(p.availabilityZone))) {
    out.push({
      propertyPath: joinPath(path, "availabilityZone"),
      reason: `must be an availability zone name such as "us-east-2a"; got ${show(p.availabilityZone)}`,
    });
  }
  out.push(...efaProblems(path, p), ...capacityProblems(path, p));
  out.push(...checkRange(joinPath(path, "rootVolumeSizeGiB"), p.rootVolumeSizeGiB, CLUSTER_LIMITS.rootVolumeSizeGiB));
  out.push(...rootVolumeProblems(path, p));
  if (p.hugepages2MiPerNode !== undefined)
    out.push(
      ...checkRange(joinPath(path, "hugepages2MiPerNode"), p.hugepages2MiPerNode, CLUSTER_LIMITS.hugepages2MiPerNode),
    );
  const row = found.value;
  if (typeof p.localNvme !== "boolean")
    out.push({ propertyPath: joinPath(path, "localNvme"), reason: `must be true or false; got ${show(p.localNvme)}` });
  else if (p.localNvme && row && row.localNvmeGB === 0)
    out.push({
      propertyPath: joinPath(path, "localNvme"),
      reason: `${row.name} has no instance-store NVMe; set localNvme to false or pick a type with local NVMe such as "p5en.48xlarge"`,
    });
  return out;
}

/** Without the NVMe array the root volume holds the serving image: a volume too small for it is refused. */
function rootVolumeProblems(path: string, p: ResolvedPool): Problem[] {
  if (p.localNvme !== false || typeof p.rootVolumeSizeGiB !== "number") return [];
  const need = gpuRootVolume(false);
  if (p.rootVolumeSizeGiB >= need.sizeGiB) return [];
  return [
    {
      propertyPath: joinPath(path, "rootVolumeSizeGiB"),
      reason: `${p.rootVolumeSizeGiB} GiB cannot hold the serving image without the NVMe array (localNvme is false): it needs at least ${need.sizeGiB} GiB = ${need.basis}; set rootVolumeSizeGiB to ${need.sizeGiB} or more, or turn localNvme on`,
    },
  ];
}

/**
 * An EKS AL2023 AMI release version, `<Kubernetes minor>.<patch>-<build date>` such as `1.35.6-20260714`
 * (amazon-eks-ami's CHANGELOG: tests/contracts/facts/eks-ami-releases.json).
 */
export const AMI_RELEASE_VERSION = /^(\d+\.\d+)\.\d+-\d{8}$/;

/**
 * A pool's `amiReleaseVersion` (at `at`): EKS creates a managed node group at the cluster's Kubernetes version, and its
 * release version must be an AMI of that minor; a wrong one fails CreateNodegroup after the control plane exists.
 */
export function amiReleaseProblems(
  amiReleaseVersion: string | undefined,
  kubernetesVersion: string,
  at: string,
): Problem[] {
  if (amiReleaseVersion === undefined) return [];
  const m = AMI_RELEASE_VERSION.exec(amiReleaseVersion);
  if (!m)
    return [
      {
        propertyPath: at,
        reason: `must be an EKS AMI release version such as "${kubernetesVersion}.0-20260714" (<Kubernetes minor>.<patch>-<date>); got ${show(amiReleaseVersion)}. Remove it for the latest release`,
      },
    ];
  if (m[1] !== kubernetesVersion)
    return [
      {
        propertyPath: at,
        reason: `${show(amiReleaseVersion)} is an AMI for Kubernetes ${m[1]}, but the cluster runs ${kubernetesVersion} (kubernetesVersion) and EKS creates node groups at the cluster's version; use a ${kubernetesVersion} release, or remove it for the latest`,
      },
    ];
  return [];
}

/**
 * Every problem of `EfaGpuPool`'s arguments at their own paths (`pool.instanceType`, `efaSecurityGroupId`): the pool
 * as `EfaCluster` checks its pools, its AMI release against the cluster's Kubernetes version, and what an EFA pool
 * needs from the cluster it joins.
 */
export function gpuPoolArgsProblems(
  p: ResolvedPool,
  a: { readonly kubernetesVersion: string; readonly efaSecurityGroupId?: unknown },
): Problem[] {
  const out = [
    ...poolProblems(p.name, p, undefined, "pool"),
    ...amiReleaseProblems(p.amiReleaseVersion, a.kubernetesVersion, "pool.amiReleaseVersion"),
  ];
  if (p.efa && a.efaSecurityGroupId === undefined)
    out.push({
      propertyPath: "efaSecurityGroupId",
      reason: `required for an EFA pool: the cluster's EFA security group (all traffic among its members), without which EFA traffic between the pool's nodes is dropped; pass the cluster's, or set pool.efa to false`,
    });
  return out;
}
