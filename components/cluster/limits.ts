/**
 * Numeric bounds of `EfaClusterArgs`, read by the validator (`validate.ts`) and by the stack config's key table
 * (`cluster.gpuPools.<name>.nodes` is `gpuPools.<name>.nodes`), so both accept exactly the same values.
 */
import { GP3_MAX_GIB, IntRange } from "../_shared/limits";

export const CLUSTER_LIMITS = {
  /**
   * Nodes of one GPU pool (a managed node group, min = desired = max): 450 is EKS's default quota
   * "Nodes per managed node group" (L-BD136A63,
   * https://docs.aws.amazon.com/eks/latest/userguide/service-quotas.html). An account that had it
   * raised must raise this number too.
   */
  nodes: { min: 1, max: 450 },
  /**
   * Root volume of a GPU node, GiB: at least 100 is the project's choice (the combined image, its
   * unpacked layers and container logs); at most the largest gp3 volume.
   */
  rootVolumeSizeGiB: { min: 100, max: GP3_MAX_GIB },
  /** 2 MiB hugepages per node: any count from 0 (the value measured on the node); no upstream bound. */
  hugepages2MiPerNode: { min: 0, max: Number.MAX_SAFE_INTEGER },
  /** System (non-GPU) nodes: 1..100 is the project's choice (they run only add-ons and the operator). */
  systemNodeCount: { min: 1, max: 100 },
} as const satisfies Readonly<Record<string, IntRange>>;
