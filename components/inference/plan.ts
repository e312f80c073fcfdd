/**
 * The plan of one graph, computed once from the resolved settings: each serving role's workers in one shape
 * (`WorkerPlanRow`, the shape the graph's services are rendered from), and the plain facts the offline render's
 * `plan.json` and `verify` read (`InferencePlan`; the serving estimate's input is made from it by `servingInputOf` in
 * serving/input.ts). The stack output `plan`, `plan.json` and verify's estimate all read this;
 * none of them re-derives a worker or parses the graph back. Pure.
 */
import { GraphService, OperatorLabel } from "../_shared/names";
import { KvCacheDtype, ModelShape } from "../catalog/models";
import {
  type Backend,
  KvTransport,
  ResolvedInference,
  type ResolvedWorkload,
  SERVING_ROLES,
  ServingRole,
} from "./args";
import { type ModelCacheMode } from "./model-load";
import { workerShape, WorkerShape } from "./fit";
import {
  commandLine,
  DGD_WAIT_FOR,
  engineFor,
  FRONTEND_RESOURCES,
  serviceKey,
  waitTimeoutSeconds,
  workerAffinity,
  workerResources,
} from "./graph";
import { firstTokenBudget, FirstTokenStep, firstTokenWaitSeconds } from "./first-token";
import { type DgdResourceItem } from "./dgd";
import { usesNodeCache } from "./cache";
import { RevisionPlan, revisionPlan } from "./revision";
import { WorkerPairing, workerPairing } from "./device-claims";
import { release, type ReleaseId } from "../releases";

/** One serving role's workers: what one worker gets (`WorkerShape`), where it sits in the graph and what it runs. */
export interface WorkerPlanRow extends WorkerShape {
  /** The role's key in the graph's `spec.services`. */
  readonly service: GraphService;
  /** EFA rails NIXL drives per worker (every EFA device the pod is given, F13); 0 without EFA. */
  readonly nixlRails: number;
  /** NIXL plugin moving KV cache. */
  readonly kvTransport: KvTransport;
  /** The worker command line, shell-quoted. */
  readonly command: string;
  /** The pod's requests as the graph renders them (Kubernetes quantities). */
  readonly requests: DgdResourceItem;
  /** Services this worker never shares a node with (its required pod anti-affinity). */
  readonly avoids: readonly string[];
  /** Which EFA devices the worker gets and by what rule (`./device-claims.ts`). */
  readonly pairing: WorkerPairing;
}

/** The services the required anti-affinity of `role`'s workers keeps off their node. */
function avoidsOf(r: ResolvedInference, role: ServingRole): string[] {
  const terms = workerAffinity(r, role)?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
  return terms.map((t) => t.labelSelector?.matchLabels?.[OperatorLabel.Component]).filter((x) => x !== undefined);
}

/** Per-role rows, prefill then decode. */
export function workerPlan(r: ResolvedInference): WorkerPlanRow[] {
  return SERVING_ROLES.map((role) => {
    const s = workerShape(r, role);
    return {
      ...s,
      service: serviceKey(role),
      nixlRails: r.kvTransport === KvTransport.Libfabric ? s.efaPerWorker : 0,
      kvTransport: r.kvTransport,
      command: commandLine(engineFor(r, role)),
      requests: workerResources(s).requests ?? {},
      avoids: avoidsOf(r, role),
      pairing: workerPairing(r, role),
    };
  });
}

/** Each role's worker command line (the `command` column of `workerPlan`), by role. */
export function workerCommands(plan: readonly WorkerPlanRow[]): Record<ServingRole, string> {
  return Object.fromEntries(plan.map((w) => [w.role, w.command])) as Record<ServingRole, string>;
}

/** The Dynamo release and engine the graph runs, as the release data pins them (what a picture names). */
export interface RuntimePlan {
  readonly release: ReleaseId;
  /** Dynamo's version (or, for a release pinned to a commit, that commit's version string). */
  readonly dynamo: string;
  /** The engine and its version ("vLLM", "0.31.0"). */
  readonly engine: { readonly name: string; readonly version: string };
  /** NIXL inside the engine's image or build. */
  readonly nixl: string;
}

/** The engines' names as their projects write them. */
const ENGINE_NAMES: Readonly<Record<string, string>> = { vllm: "vLLM", trtllm: "TensorRT-LLM" };

/** The release's pins for the graph's backend. */
export function runtimePlan(r: Pick<ResolvedInference, "release" | "backend">): RuntimePlan {
  const rel = release(r.release);
  const pins = rel.engines[r.backend];
  return {
    release: rel.id,
    dynamo: rel.dynamo.version,
    engine: { name: ENGINE_NAMES[r.backend] ?? r.backend, version: pins.engine.version },
    nixl: pins.nixl.version,
  };
}

/** The Frontend's image as the plan states it: which, and how its digest is known. */
export interface FrontendImagePlan {
  /** `repository:tag`, or "the serving image". */
  readonly image: string;
  readonly resolution: string;
}

/** The release's Frontend image, or the serving image where the release has none. */
export function frontendImagePlan(r: ResolvedInference): FrontendImagePlan {
  const pin = release(r.release).frontendImage;
  if (!pin) return { image: "the serving image", resolution: `release ${r.release} has no Frontend image of its own` };
  return {
    image: `${pin.repository}:${pin.tag}`,
    resolution: pin.digest
      ? `pinned by the release: ${pin.digest}`
      : "its tag is resolved to a digest once, at `pulumi up`, and kept in the stack's state (ImageDigest)",
  };
}

/** One thing `pulumi up` waits for on the graph, in order, with the most it waits before the deploy fails. */
export interface UpWait {
  readonly what: string;
  /** The resource awaited, by kind and name. */
  readonly resource: string;
  /** Seconds Pulumi waits at most (the resource's timeout). */
  readonly seconds: number;
  /** What ends the wait. */
  readonly until: string;
  /** The check's steps and their budgets (the first-token check). */
  readonly steps?: readonly FirstTokenStep[];
}

/** What `pulumi up` waits for on the graph: the graph turning Ready, then, unless it is off, the first-token check. */
export function upWaits(r: ResolvedInference): UpWait[] {
  const graph: UpWait = {
    what: "the graph turns Ready (its pods' probes pass)",
    resource: `DynamoGraphDeployment ${r.graphName}`,
    seconds: waitTimeoutSeconds(r),
    until: `pulumi.com/waitFor ${DGD_WAIT_FOR}`,
  };
  if (!r.firstTokenCheck.enabled) return [graph];
  return [
    graph,
    {
      what: "a first token comes back (the served model listed, a completion and a stream answered by it)",
      resource: `Job ${r.graphName}-first-token-<hash of what it checks>`,
      seconds: firstTokenWaitSeconds(),
      until: "the Job completes; it fails at once when the check fails, with the step and the likely cause",
      steps: firstTokenBudget().steps,
    },
  ];
}

/** What the render's plan and verify's estimate are computed from, for one graph. */
export interface InferencePlan {
  readonly graphName: string;
  /** The Hugging Face model id (not the node-cache path the engine may be given). */
  readonly model: string;
  readonly modelShape?: ModelShape;
  readonly backend: Backend;
  /** The Dynamo release and engine versions the graph runs. */
  readonly runtime: RuntimePlan;
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
  /** The revision, and how every worker comes to serve one commit of it (./revision.ts). */
  readonly revision: RevisionPlan;
  /** The Frontend's replicas and its pod's requests. */
  readonly frontend: { readonly replicas: number; readonly requests: DgdResourceItem };
  /** Prefill, then decode (`workerPlan`). */
  readonly workers: readonly WorkerPlanRow[];
  /** What `pulumi up` waits for on the graph, in order (`upWaits`). */
  readonly upWaits: readonly UpWait[];
  /** The Frontend's image (`frontendImagePlan`). */
  readonly frontendImage: FrontendImagePlan;
}

/** The plan of a resolved graph. */
export function inferencePlan(r: ResolvedInference): InferencePlan {
  return {
    graphName: r.graphName,
    model: r.model,
    ...(r.modelShape ? { modelShape: r.modelShape } : {}),
    backend: r.backend,
    runtime: runtimePlan(r),
    kvCacheDtype: r.kvCacheDtype,
    maxModelLen: r.maxModelLen,
    gpuMemoryUtilization: r.gpuMemoryUtilization,
    gpuPool: r.pool.name,
    kvTransport: r.kvTransport,
    modelCacheMode: r.modelCacheMode,
    modelLoadBudgetSeconds: r.modelLoadBudgetSeconds,
    ...(usesNodeCache(r) ? { modelDownloadBudgetSeconds: r.modelDownloadBudgetSeconds } : {}),
    workload: r.workload,
    revision: revisionPlan(r),
    frontend: { replicas: r.frontend.replicas, requests: FRONTEND_RESOURCES.requests ?? {} },
    workers: workerPlan(r),
    upWaits: upWaits(r),
    frontendImage: frontendImagePlan(r),
  };
}
