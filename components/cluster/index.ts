/**
 * `dynamo-efa/components/cluster`: the `EfaCluster` component, its arguments and their closed choices.
 * Only the public list: the derivations and renderers are imported from their modules by the program and tests.
 */
export { EFA_CLUSTER_TYPE, EfaCluster } from "./cluster";
export type { ClusterStorageClassNames } from "./cluster";
export { CapacityType, CLUSTER_LOG_TYPES, EfaLayout, NatGateways } from "./args";
export type { ClusterLogType, EfaClusterArgs, ExistingVpcArgs, GpuPoolArgs } from "./args";
export type { GpuPoolFacts, Taint } from "../catalog/pool";
export { EFA_GPU_POOL_TYPE, EfaGpuPool } from "./gpu-pool";
export type { EfaGpuPoolArgs } from "./args";
