/**
 * `dynamo-efa/components/cluster`: the `EfaCluster` component, its arguments and their closed choices.
 * The derivations and renderers below the public list are marked internal (tests and the program use them;
 * the published declarations leave them out).
 */
export { EFA_CLUSTER_TYPE, EfaCluster } from "./cluster";
export type { ClusterStorageClassNames } from "./cluster";
export { CapacityType, CLUSTER_LOG_TYPES, EfaLayout, NatGateways } from "./args";
export type { ClusterLogType, EfaClusterArgs, ExistingVpcArgs, GpuPoolArgs } from "./args";
export type { GpuPoolFacts, Taint } from "../catalog/pool";

/** @internal */
export * from "./args";
/** @internal */
export * from "./cluster";
/** @internal */
export * from "./derive";
/** @internal */
export * from "./render";
/** @internal */
export * from "./validate";
