/**
 * The plain plan facts of one `DisaggInference`: the resolved values its graph was rendered from (model, backend,
 * each serving role's workers, KV cache dtype and transport, model cache and budgets, workload), as data. The
 * program hands them to the render with its run, which computes the plan's fit, model load and serving estimate
 * from them with the same pure functions the component sizes the graph with, instead of parsing the graph's
 * engine flags and annotations back. Pure.
 */
import type { KvCacheDtype, ModelShape } from "../catalog/models";
import { GraphService } from "../_shared/names";
import type { Backend, ModelCacheMode, ResolvedInference, ResolvedWorkload, KvTransport } from "./args";
import { SERVING_ROLES, ServingRole, workerShape } from "./derive";
import { usesNodeCache } from "./cache";

/** One serving role's workers, as the graph renders them. */
export interface RolePlan {
  readonly role: ServingRole;
  /** The role's key in the graph's `spec.services`. */
  readonly service: GraphService;
  readonly replicas: number;
  /** GPUs of one worker, which is its tensor parallel size. */
  readonly tensorParallel: number;
  /** EFA devices of one worker (0 = KV over TCP). */
  readonly efaDevices: number;
}

/** What the render's plan is computed from, for one graph. */
export interface InferencePlan {
  readonly graphName: string;
  /** The Hugging Face model id (not the node-cache path the engine may be given). */
  readonly model: string;
  readonly modelShape?: ModelShape;
  readonly backend: Backend;
  readonly kvCacheDtype: KvCacheDtype;
  readonly maxModelLen: number;
  readonly gpuMemoryUtilization: number;
  /** Name of the GPU pool the workers run on (one of `RenderFacts.gpuPools`). */
  readonly gpuPool: string;
  readonly kvTransport: KvTransport;
  readonly modelCacheMode: ModelCacheMode;
  readonly modelLoadBudgetSeconds: number;
  /** The node cache's download budget; absent unless `local-nvme` downloads before the load budget starts. */
  readonly modelDownloadBudgetSeconds?: number;
  readonly workload: ResolvedWorkload;
  /** Prefill, then decode. */
  readonly roles: readonly RolePlan[];
}

const SERVICE: Readonly<Record<ServingRole, GraphService>> = {
  [ServingRole.Prefill]: GraphService.Prefill,
  [ServingRole.Decode]: GraphService.Decode,
};

/** The plan facts of a resolved graph. */
export function inferencePlan(r: ResolvedInference): InferencePlan {
  return {
    graphName: r.graphName,
    model: r.model,
    ...(r.modelShape ? { modelShape: r.modelShape } : {}),
    backend: r.backend,
    kvCacheDtype: r.kvCacheDtype,
    maxModelLen: r.maxModelLen,
    gpuMemoryUtilization: r.gpuMemoryUtilization,
    gpuPool: r.pool.name,
    kvTransport: r.kvTransport,
    modelCacheMode: r.modelCacheMode,
    modelLoadBudgetSeconds: r.modelLoadBudgetSeconds,
    ...(usesNodeCache(r) ? { modelDownloadBudgetSeconds: r.modelDownloadBudgetSeconds } : {}),
    workload: r.workload,
    roles: SERVING_ROLES.map((role) => {
      const s = workerShape(r, role);
      return {
        role,
        service: SERVICE[role],
        replicas: s.replicas,
        tensorParallel: s.gpusPerWorker,
        efaDevices: s.efaPerWorker,
      };
    }),
  };
}
