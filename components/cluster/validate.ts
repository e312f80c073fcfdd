/**
 * `validate()`: every problem with the resolved `EfaClusterArgs` at once, each naming the argument path
 * (`gpuPools.<key>.instanceType`), the bad value, what is allowed and the fix. Pure; reads only resolved values
 * (whether a value was given is on `source`) and runs before any resource exists (docs/CONTRIBUTING.md rule 6). Pool problems are in `./validate-pool.ts`, network ones in
 * `./validate-network.ts`; this file checks versions and the system nodes and collects everything.
 */
import { Problem, problemsIn, show } from "../_shared/problems";
import { checkRange } from "../_shared/limits";
import { checkChoice, oneOf } from "../_shared/suggest";
import { addons, kubernetes } from "../versions";
import { efaPerGpu, INSTANCES, lookupInstance } from "../catalog/instances";
import { DeviceAllocation, EfaClusterArgs, ResolvedClusterArgs, resolveArgs } from "./args";
import { CLUSTER_LIMITS } from "./limits";
import { compareVersions, parseVersion } from "./render";
import { amiReleaseProblems, poolProblems } from "./validate-pool";
import { endpointProblems, networkProblems, regionZoneProblems } from "./validate-network";
import { reachProblems } from "./reach";

/** An EKS add-on version such as `v1.20.4-eksbuild.1`. */
export const ADDON_VERSION = /^v(\d+)\.(\d+)\.(\d+)-eksbuild\.\d+$/;

function versionProblems(a: ResolvedClusterArgs): Problem[] {
  const out: Problem[] = [];
  const supported: readonly string[] = kubernetes.supportedVersions;
  if (!supported.includes(a.kubernetesVersion)) {
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
    "efaDraDriverChartVersion",
    "gpuDraDriverChartVersion",
    "loadBalancerControllerChartVersion",
  ] as const) {
    const v = a[key];
    if (!parseVersion(v))
      out.push({ propertyPath: key, reason: `must be a chart version such as "1.2.3" or "v1.2.3"; got ${show(v)}` });
  }
  return out;
}

/**
 * The first Kubernetes minor that serves `resource.k8s.io/v1` (DRA GA), which both DRA drivers' DeviceClasses and
 * the workers' ResourceClaimTemplates are written in (tests/contracts/facts/k8s-resource-v1-1.34.json; AWS's EKS
 * guide: "Minimum Kubernetes version 1.34" for the EFA DRA driver and NVIDIA's GPU DRA driver).
 */
export const DRA_MIN_KUBERNETES = "1.34";

const minor = (v: string): number => Number(/^\d+\.(\d+)$/.exec(v)?.[1] ?? NaN);

/**
 * `deviceAllocation`: one of the two, and `dra` only where it can serve: Kubernetes 1.34 or later, and every EFA
 * pool with a whole number of EFA devices per GPU (the claim pairs each GPU with its own EFA devices on its PCIe
 * root; a p4d.24xlarge's 4 EFA devices serve 8 GPUs, two GPUs to one device, which that rule cannot express).
 */
export function deviceAllocationProblems(a: ResolvedClusterArgs): Problem[] {
  const allowed: readonly string[] = Object.values(DeviceAllocation);
  if (!allowed.includes(a.deviceAllocation)) return checkChoice("deviceAllocation", a.deviceAllocation, allowed);
  if (a.deviceAllocation !== DeviceAllocation.Dra) return [];
  const out: Problem[] = [];
  if (!(minor(a.kubernetesVersion) >= minor(DRA_MIN_KUBERNETES)))
    out.push({
      propertyPath: "deviceAllocation",
      reason: `"dra" needs Kubernetes ${DRA_MIN_KUBERNETES} or later (resource.k8s.io/v1, which the DRA drivers and the workers' ResourceClaimTemplates use, is GA from ${DRA_MIN_KUBERNETES}), but kubernetesVersion is ${show(a.kubernetesVersion)}; set kubernetesVersion to ${DRA_MIN_KUBERNETES} or later, or deviceAllocation to "device-plugin"`,
    });
  for (const p of a.pools) {
    const row = INSTANCES.get(p.instanceType);
    if (!row || !p.efa) continue;
    const perGpu = efaPerGpu(row);
    if (!Number.isInteger(perGpu) || perGpu < 1)
      out.push({
        propertyPath: "deviceAllocation",
        reason: `"dra" pairs each GPU with its own EFA devices on its PCIe root, but a ${row.name} node (pool ${show(p.name)}) has ${row.efaDevices} EFA devices for ${row.gpuCount} GPUs (${perGpu} per GPU); use "device-plugin" for this pool's type`,
      });
  }
  return out;
}

/**
 * `poolInstanceTypes`: catalogued types, and some GPU to serve: a cluster with neither pools of its own nor the
 * types other stacks' pools bring would install device plugins for nothing and give a pool that joins later no EFA.
 */
function poolInstanceTypeProblems(a: ResolvedClusterArgs): Problem[] {
  const out = a.poolInstanceTypes.flatMap((t, i) => problemsIn(lookupInstance(t, `poolInstanceTypes[${i}]`)));
  if (a.source.poolKeys.length === 0 && !a.source.badGpuPools && a.poolInstanceTypes.length === 0)
    out.push({
      propertyPath: "gpuPools",
      reason: `a cluster needs GPU pools of its own (gpuPools) or the instance types the pools other stacks add will have (poolInstanceTypes, e.g. ["p5en.48xlarge"]); got neither`,
    });
  return out;
}

/**
 * Every problem with the resolved args of `EfaCluster`; empty when they are valid. The component runs
 * `resolveArgs` (never throws) -> `validate` -> one error, before any child.
 */
export function validate(a: ResolvedClusterArgs): Problem[] {
  const out: Problem[] = [];
  const { badGpuPools, nonObjectPools } = a.source;
  if (badGpuPools) {
    out.push({
      propertyPath: "gpuPools",
      reason: `must be a map of pool name to pool, e.g. { prefill: { instanceType: "p5en.48xlarge", nodes: 1, availabilityZone: "us-east-2a" } }; got ${show(badGpuPools.written)}`,
    });
  } else {
    for (const key of a.source.poolKeys)
      out.push(
        ...poolProblems(
          key,
          a.pools.find((p) => p.name === key),
          nonObjectPools[key],
        ),
      );
  }
  out.push(
    ...poolInstanceTypeProblems(a),
    ...networkProblems(a),
    ...regionZoneProblems(a),
    ...endpointProblems(a),
    ...reachProblems(a),
    ...versionProblems(a),
    ...deviceAllocationProblems(a),
    ...a.pools.flatMap((p) =>
      amiReleaseProblems(p.amiReleaseVersion, a.kubernetesVersion, `gpuPools.${p.name}.amiReleaseVersion`),
    ),
  );
  if (!/^[a-z][a-z0-9-]*\.[a-z0-9-]+$/.test(a.systemInstanceType)) {
    out.push({
      propertyPath: "systemInstanceType",
      reason: `must be an EC2 instance type such as "m7i.2xlarge"; got ${show(a.systemInstanceType)}`,
    });
  }
  out.push(...checkRange("systemNodeCount", a.systemNodeCount, CLUSTER_LIMITS.systemNodeCount));
  return out;
}

/** Every problem with `EfaClusterArgs` as written: `validate(resolveArgs(a))`, for callers that hold raw args. */
export function validateClusterArgs(a: EfaClusterArgs): Problem[] {
  return validate(resolveArgs(a));
}
