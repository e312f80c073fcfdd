/**
 * Problems of one GPU pool (`gpuPools.<key>`): instance type, node count, AZ, EFA against the catalog row, capacity
 * reservations, volumes, local NVMe. Split from `./validate.ts`, which runs this for every pool. Pure.
 */
import { joinPath, Problem, show } from "../_shared/problems";
import { checkRange } from "../_shared/limits";
import { checkChoice } from "../_shared/suggest";
import { INSTANCES, supportsNixlOverEfa, unknownInstanceReason } from "../catalog/instances";
import { K8S_NAME } from "../_shared/names";
import { CapacityType, EfaLayout, GpuPoolArgs } from "./args";
import { CLUSTER_LIMITS } from "./limits";
import { AZ_NAME } from "./validate-network";

/** `cr-` followed by 8 or 17 lower-case hex digits. */
export const CAPACITY_RESERVATION_ID = /^cr-([0-9a-f]{8}|[0-9a-f]{17})$/;
function capacityProblems(path: string, p: GpuPoolArgs): Problem[] {
  const out = checkChoice(joinPath(path, "capacity"), p.capacity, Object.values(CapacityType));
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
  const out = checkChoice(joinPath(path, "efaLayout"), p.efaLayout, Object.values(EfaLayout));
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
