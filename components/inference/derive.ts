/**
 * Per-worker arithmetic: GPUs, EFA devices, hugepages, CPU and memory, derived from the pool's
 * facts. Pure; no Pulumi import.
 */
import type { GpuPoolFacts } from "../catalog/pool";
import { ModelCacheMode, Placement, ResolvedInference, ResolvedRole, requestsEfaDevices } from "./args";

/** The two worker roles of a disaggregated graph. */
export const ServingRole = { Prefill: "prefill", Decode: "decode" } as const;
export type ServingRole = (typeof ServingRole)[keyof typeof ServingRole];
/** Both roles, in render order. */
export const SERVING_ROLES: readonly ServingRole[] = [ServingRole.Prefill, ServingRole.Decode];

export { KvTransport } from "./args";

/**
 * vCPUs and GiB held back on every node for the kubelet, system daemons and the device plugins
 * (10% of the node, at least 2 vCPU / 8 GiB), before dividing the rest among workers.
 */
export const NODE_HEADROOM = { vcpuFraction: 0.1, minVcpu: 2, memoryFraction: 0.1, minMemoryGiB: 8 } as const;
/** Upper bound of the /dev/shm size given to a worker, in GiB. */
export const MAX_SHM_GIB = 64;
/** vLLM's NIXL side-channel port (vLLM's default, set explicitly). */
export const NIXL_SIDE_CHANNEL_PORT = 5600;

/** Everything one worker of a role asks for. */
export interface WorkerShape {
  readonly role: ServingRole;
  readonly replicas: number;
  readonly gpusPerWorker: number;
  /** EFA devices per worker (0 without EFA). */
  readonly efaPerWorker: number;
  /** Workers that can share one node (bounds the hugepage share). */
  readonly workersPerNode: number;
  /** 2 MiB hugepages per worker, in pages (0 = none requested; `FI_EFA_USE_HUGE_PAGE=0`). */
  readonly hugepages2MiPages: number;
  /** Same, in MiB (`pages x 2`), the unit the `hugepages-2Mi` resource is written in. */
  readonly hugepages2MiMi: number;
  /** CPU request, in whole vCPUs. */
  readonly cpu: number;
  /** Memory request and limit, in GiB. */
  readonly memoryGiB: number;
  /** /dev/shm size, in GiB. */
  readonly shmGiB: number;
}

/** True when the pool can carry NIXL KV over EFA (EFA attached and GPUDirect RDMA). */
export function poolHasEfa(pool: GpuPoolFacts): boolean {
  return pool.efaPerNode > 0;
}

/**
 * True when the workers use EFA: the KV transport is LIBFABRIC on a pool with EFA. Only then do
 * workers request EFA devices and hugepages; UCX workers hold no EFA device they would not use.
 */
export function usesEfa(r: Pick<ResolvedInference, "kvTransport" | "pool">): boolean {
  return requestsEfaDevices(r.kvTransport, poolHasEfa(r.pool));
}

/** The resolved role args of `role`. */
export function roleArgs(r: ResolvedInference, role: ServingRole): ResolvedRole {
  return role === ServingRole.Prefill ? r.prefill : r.decode;
}

/** EFA devices a worker of `gpusPerWorker` GPUs gets: GPUs x EFA-per-GPU (may be fractional; validated). */
export function efaPerWorker(pool: GpuPoolFacts, gpusPerWorker: number): number {
  return gpusPerWorker * pool.efaPerGpu;
}

/**
 * How many workers of `role` may share a node. Separate-node placement keeps a node to one role,
 * so it is that role's GPUs-per-node / GPUs-per-worker; otherwise roles mix and the smallest
 * worker bounds it (the worst case for the hugepage share).
 */
export function workersPerNode(r: ResolvedInference, role: ServingRole): number {
  const gpus =
    r.placement === Placement.SeparateNodes
      ? roleArgs(r, role).gpusPerWorker
      : Math.min(r.prefill.gpusPerWorker, r.decode.gpusPerWorker);
  return Math.max(1, Math.floor(r.pool.gpusPerNode / Math.max(1, gpus)));
}

/** Hugepages per worker: the node's pre-allocated total divided by workers per node (F14). */
export function hugepagesPerWorker(pool: GpuPoolFacts, perNode: number): number {
  return Math.floor(pool.hugepages2MiPerNode / perNode);
}

/** Whole vCPUs left for one worker after node headroom. */
export function cpuPerWorker(pool: GpuPoolFacts, perNode: number): number {
  const headroom = Math.max(NODE_HEADROOM.minVcpu, Math.ceil(pool.vcpusPerNode * NODE_HEADROOM.vcpuFraction));
  return Math.max(1, Math.floor((pool.vcpusPerNode - headroom) / perNode));
}

/** GiB of memory left for one worker after node headroom and the hugepages carved out of RAM. */
export function memoryGiBPerWorker(pool: GpuPoolFacts, perNode: number): number {
  const headroom = Math.max(
    NODE_HEADROOM.minMemoryGiB,
    Math.ceil(pool.memoryGiBPerNode * NODE_HEADROOM.memoryFraction),
  );
  const hugepagesGiB = Math.ceil((pool.hugepages2MiPerNode * 2) / 1024);
  return Math.max(1, Math.floor((pool.memoryGiBPerNode - headroom - hugepagesGiB) / perNode));
}

/** The full shape of one worker of `role`. */
export function workerShape(r: ResolvedInference, role: ServingRole): WorkerShape {
  const a = roleArgs(r, role);
  const perNode = workersPerNode(r, role);
  const pages = usesEfa(r) ? hugepagesPerWorker(r.pool, perNode) : 0;
  const memoryGiB = memoryGiBPerWorker(r.pool, perNode);
  return {
    role,
    replicas: a.replicas,
    gpusPerWorker: a.gpusPerWorker,
    efaPerWorker: usesEfa(r) ? efaPerWorker(r.pool, a.gpusPerWorker) : 0,
    workersPerNode: perNode,
    hugepages2MiPages: pages,
    hugepages2MiMi: pages * 2,
    cpu: cpuPerWorker(r.pool, perNode),
    memoryGiB,
    // /dev/shm is a memory-backed emptyDir that counts against the memory limit: a quarter of it.
    shmGiB: Math.max(1, Math.min(MAX_SHM_GIB, Math.floor(memoryGiB / 4))),
  };
}

/**
 * Nodes each role needs under separate-node placement: a node holds one role only, so a role takes
 * ceil(replicas x GPUs per worker / GPUs per node) nodes of its own. Under "any" roles share nodes and
 * only the total counts (`nodesNeeded`).
 */
export function nodesPerRole(r: Pick<ResolvedInference, "pool" | "prefill" | "decode">): Record<ServingRole, number> {
  const of = (a: ResolvedRole) => Math.ceil((a.replicas * a.gpusPerWorker) / Math.max(1, r.pool.gpusPerNode));
  return { [ServingRole.Prefill]: of(r.prefill), [ServingRole.Decode]: of(r.decode) };
}

/**
 * GPU nodes the graph occupies: the sum of the roles' own nodes under separate-node placement, else the
 * total GPUs over GPUs per node (a worker's GPU count divides the node's, so workers pack whole nodes).
 */
export function nodesNeeded(r: Pick<ResolvedInference, "pool" | "prefill" | "decode" | "placement">): number {
  if (r.placement === Placement.SeparateNodes) {
    const per = nodesPerRole(r);
    return per.prefill + per.decode;
  }
  return Math.ceil(totalGpus(r) / Math.max(1, r.pool.gpusPerNode));
}

/** GPUs the whole graph requests (prefill + decode workers). */
export function totalGpus(r: Pick<ResolvedInference, "prefill" | "decode">): number {
  return r.prefill.replicas * r.prefill.gpusPerWorker + r.decode.replicas * r.decode.gpusPerWorker;
}

/**
 * Seconds `pulumi up` waits for the graph: the load budget, the `local-nvme` download budget (spent in init
 * containers, before any probe runs), plus 10 minutes for pulls and scheduling.
 */
export function waitTimeoutSeconds(r: ResolvedInference): number {
  return (
    r.modelLoadBudgetSeconds + (r.modelCacheMode === ModelCacheMode.LocalNvme ? r.modelDownloadBudgetSeconds : 0) + 600
  );
}

/** Startup probe period, in seconds. */
export const STARTUP_PERIOD_SECONDS = 10;

/** Startup probe failure threshold so that threshold x period >= the load budget (F2). */
export function startupFailureThreshold(r: ResolvedInference): number {
  return Math.ceil(r.modelLoadBudgetSeconds / STARTUP_PERIOD_SECONDS);
}
