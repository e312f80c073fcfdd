/**
 * `validate()`: every problem with the resolved `EfaClusterArgs` at once, each naming the argument path
 * (`gpuPools.<key>.instanceType`), the bad value, what is allowed and the fix. Pure; reads only resolved values
 * (whether a value was given is on `source`) and runs before any resource exists (docs/CONTRIBUTING.md rule 6). Pool problems are in `./validate-pool.ts`, network ones in
 * `./validate-network.ts`; this file checks versions and the system nodes and collects everything.
 */
import { Problem, show } from "../_shared/problems";
import { checkRange } from "../_shared/limits";
import { oneOf } from "../_shared/suggest";
import { addons, kubernetes } from "../versions";
import { EfaClusterArgs, ResolvedClusterArgs, resolveArgs } from "./args";
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
    "loadBalancerControllerChartVersion",
  ] as const) {
    const v = a[key];
    if (!parseVersion(v))
      out.push({ propertyPath: key, reason: `must be a chart version such as "1.2.3" or "v1.2.3"; got ${show(v)}` });
  }
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
    ...networkProblems(a),
    ...regionZoneProblems(a),
    ...endpointProblems(a),
    ...reachProblems(a),
    ...versionProblems(a),
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
