/**
 * Aliases for the children an earlier version of `EfaCluster` created itself, which `EfaGpuPool` now creates
 * (docs/CONTRIBUTING.md rule 9: names are identity). With them `pulumi up` on an existing stack moves each pool's
 * placement group, launch template and node group under the pool component instead of replacing them (a replaced
 * node group would drain and relaunch every GPU node). pulumi-eks aliases its `ManagedNodeGroup` the same way, to
 * the parent it had before (`createManagedNodeGroup`: `aliases: [{ parent: cluster }]`).
 */
import * as pulumi from "@pulumi/pulumi";

/** The name each child type of pool `pool` had under the cluster component `cluster` (named `clusterName`). */
export function previousPoolChildNames(clusterName: string, pool: string): Readonly<Record<string, string>> {
  return {
    "aws:ec2/placementGroup:PlacementGroup": `${clusterName}-placement-${pool}`,
    "aws:ec2/launchTemplate:LaunchTemplate": `${clusterName}-gpu-lt-${pool}`,
    "aws:eks/nodeGroup:NodeGroup": `${clusterName}-gpu-ng-${pool}`,
  };
}

/** A transformation for an `EfaGpuPool` that `EfaCluster` creates: each child is aliased to its old URN. */
export function poolMovedFromCluster(
  cluster: pulumi.Resource,
  clusterName: string,
  pool: string,
): pulumi.ResourceTransformation {
  const before = previousPoolChildNames(clusterName, pool);
  return (a) => {
    const name = before[a.type];
    return name === undefined
      ? undefined
      : { props: a.props, opts: pulumi.mergeOptions(a.opts, { aliases: [{ name, parent: cluster }] }) };
  };
}
