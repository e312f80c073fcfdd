/**
 * Arguments of `DisaggInference` and their resolution to plain, fully-defaulted data
 * (docs/CONTRIBUTING.md rules 3-5): the args, their closed choices (serving roles, KV transport), defaults and
 * numeric bounds and `resolveArgs` (the default budgets come from `./model-load.ts`'s estimate). `resolveArgs` is pure: it
 * never looks at Pulumi values, so the offline render tool and the tests share it with the component. Everything
 * here imports only the catalog and `_shared`, so every other module of the folder may import it.
 */
import { bool, int, KeyShape, listOf, num, rows, str } from "../_shared/keys";
import type * as pulumi from "@pulumi/pulumi";
import type { GpuPoolFacts } from "../catalog/pool";
import { KvCacheDtype, ModelShape, modelFacts } from "../catalog/models";
import { derivedBudgets, LoadEstimate, loadEstimate, ModelCacheMode } from "./model-load";
import { prefetchImage } from "../versions";
import { DEFAULT_GRAPH_NAMESPACE, DEFAULT_PLATFORM_NAMESPACE } from "../_shared/names";
import { INFERENCE_LIMITS, MODEL_SHAPE_LIMITS, ROLE_LIMITS, WORKLOAD_LIMITS } from "./limits";
import { DEFAULT_RELEASE, ReleaseId } from "../releases";
import { FirstTokenCheckArgs, FrontendArgs, FrontendServiceType, RouterMode } from "./frontend-args";

/** Inference engine the workers run; the combined image selects it by Python module name. */
export const Backend = { Vllm: "vllm", Trtllm: "trtllm" } as const;
export type Backend = (typeof Backend)[keyof typeof Backend];

/** Where prefill and decode workers may land relative to each other. */
export const Placement = {
  /**
   * No node holds both roles; each role gets ceil(replicas x GPUs per worker / GPUs per node) nodes of its own
   * (required anti-affinity between the roles, preferred affinity to the own role). KV crosses EFA between nodes.
   */
  SeparateNodes: "separate-nodes",
  /** No co-location rule; the scheduler packs workers wherever GPUs are free. */
  Any: "any",
} as const;
export type Placement = (typeof Placement)[keyof typeof Placement];

export { FrontendServiceType, RouterMode } from "./frontend-args";
export type { FirstTokenCheckArgs, FrontendArgs } from "./frontend-args";

/** Shape of one worker role (prefill or decode). */
export interface RoleArgs {
  /** Number of worker pods of this role (one engine process per pod). */
  readonly replicas: number;
  /** GPUs per worker; also the engine's tensor-parallel size. Must divide the node's GPUs. */
  readonly gpusPerWorker: number;
  /** Extra engine flags appended verbatim after the derived ones. @default [] */
  readonly extraArgs?: readonly string[];
}

/** Optional shared model cache (a PVC mounted at `/models`, `HF_HOME` pointed at it). */
export interface ModelCacheArgs {
  /** StorageClass that can serve ReadWriteMany (e.g. an EFS or FSx class). */
  readonly storageClassName: string;
  /** Size in GiB. */
  readonly sizeGiB: number;
}

/**
 * NetworkPolicies of the graph's namespace: everything denied but the flows the release needs (components/releases
 * lists them with their sources; components/inference/network.ts generates the policies). Enforced on EKS by the VPC
 * CNI's network policy agent, which `EfaCluster` turns on.
 */
export interface NetworkPolicyArgs {
  /** Render the NetworkPolicies. @default true */
  readonly enabled?: boolean;
  /** Namespaces whose pods may call the Frontend's OpenAI API (TCP 8000). @default [] */
  readonly clientNamespaces?: readonly string[];
  /** Namespaces whose pods may scrape the graph's metrics ports (a Prometheus). @default [] */
  readonly metricsNamespaces?: readonly string[];
}

/**
 * The traffic the plan's serving estimate is for (`plan.json` `serving`): prompt and output lengths, a
 * load (an open-loop arrival rate or a closed-loop concurrency, not both) and optional objectives. It
 * changes no deployed object.
 */
export interface WorkloadArgs {
  /** Prompt (input sequence) tokens per request. @default 1024 */
  readonly isl?: number;
  /** Output sequence tokens per request. @default 256 */
  readonly osl?: number;
  /** Open-loop arrival rate, requests per second; set this or `concurrency`. @default - none (closed loop at `concurrency`) */
  readonly requestsPerSecond?: number;
  /** Closed-loop load: requests in flight at once. @default 64 (when requestsPerSecond is not set) */
  readonly concurrency?: number;
  /** Time-to-first-token objective, milliseconds. @default - none */
  readonly ttftMs?: number;
  /** Inter-token latency objective, milliseconds. @default - none */
  readonly itlMs?: number;
}

/** A workload with every default filled, and whether the user declared it. */
export interface ResolvedWorkload {
  /** Prompt tokens per request. */
  readonly isl: number;
  /** Output tokens per request. */
  readonly osl: number;
  /** Open-loop arrival rate; exactly one of this and `concurrency`. */
  readonly requestsPerSecond?: number;
  /** Closed-loop requests in flight. */
  readonly concurrency?: number;
  /** TTFT objective, ms. */
  readonly ttftMs?: number;
  /** ITL objective, ms. */
  readonly itlMs?: number;
  /** False when `workload` was not set (the defaults are estimated, and the plan says so). */
  readonly declared: boolean;
}

/** Plain (non-Pulumi) settings: everything that decides what is rendered. */
export interface InferenceSettings {
  /**
   * The supported release the graph is written for (`components/releases`): its graph API (`dynamo-1.6`: the
   * `nvidia.com/v1beta1` graph with `runtimeVersionOverride` where the image has no version tag; `seed`:
   * `nvidia.com/v1alpha1`), engines and known issues. The same value as the platform's `release`.
   * @default "dynamo-1.6"
   */
  readonly release?: ReleaseId;
  /** Engine. @default "vllm" */
  readonly backend?: Backend;
  /** Hugging Face model id or path, e.g. `meta-llama/Llama-3.1-8B-Instruct`. */
  readonly model: string;
  /** Name clients put in `"model"`. @default - the model id */
  readonly servedModelName?: string;
  /** Prefill workers. @default { replicas: 1, gpusPerWorker: 1 } */
  readonly prefill?: RoleArgs;
  /** Decode workers. @default { replicas: 1, gpusPerWorker: 1 } */
  readonly decode?: RoleArgs;
  /** Maximum sequence length (prompt + output), in tokens. @default 4096 */
  readonly maxModelLen?: number;
  /** Fraction of GPU memory the engine may use, in (0, 1]. @default 0.85 */
  readonly gpuMemoryUtilization?: number;
  /**
   * Shape of a model the model catalog (`components/catalog/models.ts`) does not know, so the plan can
   * check that it fits.
   * @default - none (a model outside the catalog renders with its fit unknown)
   */
  readonly modelShape?: ModelShape;
  /** KV-cache element type: `auto` (the model's dtype, bf16) or `fp8`; feeds the fit numbers. @default "auto" */
  readonly kvCacheDtype?: KvCacheDtype;
  /**
   * Seconds a worker may take to download and load its model. Startup probes allow at least this
   * long (F2) and `pulumi up` waits this long plus a margin for the graph to turn Ready. One below the plan's
   * estimate (`loadEstimate` in `./model-load.ts`) is a config error.
   * @default - 2x the estimate for the model, the cache mode and the pool, at least 1800 (1800 for a model of unknown size)
   */
  readonly modelLoadBudgetSeconds?: number;
  /** The GPU pool the workers run on (from `EfaCluster.gpuPools`, or written by hand). */
  readonly gpuPool: GpuPoolFacts;
  /** Kubernetes namespace of the graph, its secret and cache. @default "dynamo" */
  readonly namespace?: string;
  /**
   * Namespace of the cluster's `dynamo-platform` release (its operator and NATS), which the graph's NetworkPolicies
   * let in and out. @default "dynamo-system" (DynamoPlatform's default)
   */
  readonly platformNamespace?: string;
  /**
   * Create the namespace as a child (deleted with this graph). Set false when it exists already or another graph
   * in the same namespace creates it: two components managing one Namespace would delete it, with the other
   * graph in it, when either is destroyed.
   * @default true
   */
  readonly createNamespace?: boolean;
  /** DynamoGraphDeployment name. @default - the component name */
  readonly graphName?: string;
  /** Use this existing Secret (keys `HF_TOKEN`, `HUGGING_FACE_HUB_TOKEN`) instead of creating one. @default - create one from `hfToken` */
  readonly hfTokenSecretName?: string;
  /** Shared model cache, retained on delete (the `efs` mode). @default - none (each pod downloads into its own emptyDir) */
  readonly modelCache?: ModelCacheArgs;
  /**
   * Where the weights come from: `none`, `efs` (needs `modelCache`) or `local-nvme` (needs a pool with a local
   * NVMe array, `GpuPoolFacts.localNvme`).
   * @default - "efs" when `modelCache` is set, else "local-nvme" when the pool has a local NVMe array, else "none"
   */
  readonly modelCacheMode?: ModelCacheMode;
  /**
   * Seconds the `local-nvme` prefetch may take to download the model to a node (waiting for another pod's download
   * included); `modelLoadBudgetSeconds` then covers only the engine's load from NVMe. In `none`/`efs` the engine
   * downloads inside its own start, so there the load budget covers both. A deadline; one below the estimate is a
   * config error.
   * @default - 2x the estimated download, at least 1800 (1800 for a model of unknown size)
   */
  readonly modelDownloadBudgetSeconds?: number;
  /**
   * Hugging Face revision of the model: a 40-hex commit pins the weights; a branch (`main`) or tag moves when the
   * model's owner pushes. Used by the `local-nvme` prefetch (it downloads exactly that revision and checks the
   * listing's commit) and by vLLM's `--revision` in `none`/`efs`; dynamo.trtllm's LLM worker takes no revision, so a
   * pinned revision with TRT-LLM needs `local-nvme`.
   * @default "main"
   */
  readonly modelRevision?: string;
  /**
   * Digest-pinned image (`repo@sha256:<64 hex>`) of the `local-nvme` prefetch DaemonSet: Python 3 with `chown` and
   * `sleep`. Small on purpose: the DaemonSet starts downloading the weights seconds after a GPU node joins, while
   * the workers are still pulling the serving image.
   * @default - `versions.prefetchImage` (python:3.12-slim)
   */
  readonly prefetchImage?: string;
  /** Frontend. @default { replicas: 1, serviceType: "ClusterIP", routerMode: "round-robin", adminApi: false, nvext: false } */
  readonly frontend?: FrontendArgs;
  /**
   * CIDR of the cluster's VPC (e.g. `EfaCluster`'s `vpcCidr`): the internal load balancer's default source range.
   * @default - none (then an "InternalLoadBalancer" needs `frontend.sourceRanges`)
   */
  readonly vpcCidr?: string;
  /** NetworkPolicies of the graph's namespace. @default { enabled: true, clientNamespaces: [], metricsNamespaces: [] } */
  readonly networkPolicy?: NetworkPolicyArgs;
  /**
   * NIXL backend for KV cache: "libfabric" (RDMA over EFA; needs an EFA pool), "ucx" (TCP; workers
   * get no EFA devices) or "auto" (LIBFABRIC on EFA pools, UCX elsewhere). TRT-LLM over LIBFABRIC is
   * not supported upstream yet (an advisory policy says so).
   * @default "auto"
   */
  readonly kvTransport?: KvTransportChoice;
  /** Placement. @default "separate-nodes" when the pool has >= 2 nodes, else "any" */
  readonly placement?: Placement;
  /** CUDA archs the image was compiled for (recorded as an annotation for policies), e.g. `["sm_90"]`. @default - not recorded */
  readonly imageCudaArchs?: readonly string[];
  /** CUDA toolkit of the image (recorded as an annotation), e.g. `12.9`. @default - not recorded */
  readonly imageCudaToolkit?: string;
  /**
   * UID every container runs as (`runAsNonRoot`); the combined image's `dynamo` user. No container is
   * privileged: EFA workers add only `IPC_LOCK`, like upstream Dynamo's EKS example.
   * @default 1000
   */
  readonly runAsUser?: number;
  /** The traffic the plan's serving estimate is for. @default - { isl: 1024, osl: 256, concurrency: 64 }, no objectives */
  readonly workload?: WorkloadArgs;
  /** The in-cluster first-token check `pulumi up` waits for. @default { enabled: true } */
  readonly firstTokenCheck?: FirstTokenCheckArgs;
}

/** Arguments of `DisaggInference`. */
export interface DisaggInferenceArgs extends InferenceSettings {
  /** Digest-pinned image reference (`repo@sha256:<64 hex>`), e.g. `DynamoImage.ref`. */
  readonly image: pulumi.Input<string>;
  /**
   * Digest-pinned image of the Frontend: a few hundred MB on a system node instead of the multi-GB engine image.
   * @default - the release's Frontend image (`dynamo-frontend:<version>`), its tag resolved to a digest at
   *   `pulumi up` and kept in state (the same Dynamo version as the workers); `image` for a release without one
   */
  readonly frontendImage?: pulumi.Input<string>;
  /**
   * What installs the Dynamo operator and its CRDs (a `DynamoPlatform`, shared by every graph of the cluster); the
   * graph waits for it, so its CRD exists and the operator's webhook answers before the graph is sent.
   * @default - none: the cluster already runs the operator
   */
  readonly platform?: pulumi.Resource;
  /** Hugging Face token (a Pulumi secret). Required unless `hfTokenSecretName` is set. @default - none */
  readonly hfToken?: pulumi.Input<string>;
}

/** Fully-defaulted role. */
export interface ResolvedRole {
  readonly replicas: number;
  readonly gpusPerWorker: number;
  readonly extraArgs: readonly string[];
}

/** Everything the renderers need, every default filled in. Plain data. */
export interface ResolvedInference {
  readonly release: ReleaseId;
  readonly graphName: string;
  readonly namespace: string;
  readonly platformNamespace: string;
  readonly createNamespace: boolean;
  readonly backend: Backend;
  readonly model: string;
  readonly servedModelName: string;
  readonly prefill: ResolvedRole;
  readonly decode: ResolvedRole;
  readonly maxModelLen: number;
  readonly gpuMemoryUtilization: number;
  readonly modelShape: ModelShape | undefined;
  readonly kvCacheDtype: KvCacheDtype;
  readonly modelLoadBudgetSeconds: number;
  readonly pool: GpuPoolFacts;
  /** Image ref; undefined while it is only known at deployment (an Output). */
  readonly image: string | undefined;
  /** True when the component creates the HF secret; false when `hfTokenSecretName` names one. */
  readonly createHfSecret: boolean;
  readonly hfSecretName: string | undefined;
  readonly modelCache: ModelCacheArgs | undefined;
  readonly modelCacheMode: ModelCacheMode;
  readonly modelDownloadBudgetSeconds: number;
  readonly modelRevision: string;
  /** The estimated download and load of the weights (undefined when the model's size is unknown). */
  readonly loadEstimate: LoadEstimate | undefined;
  readonly prefetchImage: string;
  readonly frontend: Required<FrontendArgs>;
  readonly vpcCidr: string | undefined;
  readonly networkPolicy: Required<NetworkPolicyArgs>;
  readonly placement: Placement;
  /** What the user asked for (validated). */
  readonly kvTransportChoice: KvTransportChoice;
  /** The NIXL backend it resolves to on this pool. */
  readonly kvTransport: KvTransport;
  readonly imageCudaArchs: readonly string[] | undefined;
  readonly imageCudaToolkit: string | undefined;
  readonly runAsUser: number;
  readonly workload: ResolvedWorkload;
  readonly firstTokenCheck: Required<FirstTokenCheckArgs>;
}

/** The revision when none is set: the model's default branch, which moves (the plan says so). Also the script's default. */
export const DEFAULT_MODEL_REVISION = "main";

/** Defaults, in one place. */
export const INFERENCE_DEFAULTS = {
  backend: Backend.Vllm,
  role: { replicas: 1, gpusPerWorker: 1 },
  maxModelLen: 4096,
  gpuMemoryUtilization: 0.85,
  modelLoadBudgetSeconds: 1800,
  modelDownloadBudgetSeconds: 1800,
  modelRevision: DEFAULT_MODEL_REVISION,
  namespace: DEFAULT_GRAPH_NAMESPACE,
  frontendReplicas: 1,
  runAsUser: 1000,
  workload: { isl: 1024, osl: 256, concurrency: 64 },
} as const;

/**
 * The budgets of a user who set none: derived from the estimate (`loadEstimate` in `./model-load.ts`), so a big model's plan fits inside
 * its own budgets; the fixed defaults when the model's size is unknown. An explicit budget is kept as written (an
 * explicit one below the estimate is a config error, validate.ts).
 */
function defaultBudgets(s: InferenceSettings, mode: ModelCacheMode) {
  const m = typeof s.model === "string" ? modelFacts(s.model, s.modelShape) : undefined;
  const workers = (s.prefill?.replicas ?? 1) + (s.decode?.replicas ?? 1);
  const estimate = m && s.gpuPool ? loadEstimate(mode, m.weightBytes, s.gpuPool, workers) : undefined;
  const derived = estimate ? derivedBudgets(estimate) : undefined;
  return {
    estimate,
    load: derived?.load ?? INFERENCE_DEFAULTS.modelLoadBudgetSeconds,
    download: derived?.download ?? INFERENCE_DEFAULTS.modelDownloadBudgetSeconds,
  };
}

/** The workload with its defaults: a closed loop at the default concurrency unless an arrival rate is set. */
export function resolveWorkload(w: WorkloadArgs | undefined): ResolvedWorkload {
  const d = INFERENCE_DEFAULTS.workload;
  const load =
    w?.requestsPerSecond !== undefined
      ? {
          requestsPerSecond: w.requestsPerSecond,
          ...(w.concurrency !== undefined ? { concurrency: w.concurrency } : {}),
        }
      : { concurrency: w?.concurrency ?? d.concurrency };
  return {
    isl: w?.isl ?? d.isl,
    osl: w?.osl ?? d.osl,
    ...load,
    ...(w?.ttftMs !== undefined ? { ttftMs: w.ttftMs } : {}),
    ...(w?.itlMs !== undefined ? { itlMs: w.itlMs } : {}),
    declared: w !== undefined,
  };
}

function role(r: RoleArgs | undefined): ResolvedRole {
  return {
    replicas: r?.replicas ?? INFERENCE_DEFAULTS.role.replicas,
    gpusPerWorker: r?.gpusPerWorker ?? INFERENCE_DEFAULTS.role.gpusPerWorker,
    extraArgs: r?.extraArgs ?? [],
  };
}

/**
 * Fills every default; never throws (`validate` reports what is wrong with the values it returns). `name` is the
 * component name (default graph name); `image` is the image ref when known as a plain string.
 */
export function resolveArgs(name: string, s: InferenceSettings, image: string | undefined): ResolvedInference {
  const modelCacheMode =
    s.modelCacheMode ??
    (s.modelCache ? ModelCacheMode.Efs : s.gpuPool?.localNvme ? ModelCacheMode.LocalNvme : ModelCacheMode.None);
  const budgets = defaultBudgets(s, modelCacheMode);
  const nodes = s.gpuPool?.nodes ?? 0;
  const kvTransportChoice = s.kvTransport ?? KvTransportChoice.Auto;
  return {
    release: s.release ?? DEFAULT_RELEASE,
    graphName: s.graphName ?? name,
    namespace: s.namespace ?? INFERENCE_DEFAULTS.namespace,
    platformNamespace: s.platformNamespace ?? DEFAULT_PLATFORM_NAMESPACE,
    createNamespace: s.createNamespace ?? true,
    backend: s.backend ?? INFERENCE_DEFAULTS.backend,
    model: s.model,
    servedModelName: s.servedModelName ?? s.model,
    prefill: role(s.prefill),
    decode: role(s.decode),
    maxModelLen: s.maxModelLen ?? INFERENCE_DEFAULTS.maxModelLen,
    gpuMemoryUtilization: s.gpuMemoryUtilization ?? INFERENCE_DEFAULTS.gpuMemoryUtilization,
    modelShape: s.modelShape,
    kvCacheDtype: s.kvCacheDtype ?? KvCacheDtype.Auto,
    modelLoadBudgetSeconds: s.modelLoadBudgetSeconds ?? budgets.load,
    pool: s.gpuPool,
    image,
    createHfSecret: s.hfTokenSecretName === undefined,
    hfSecretName: s.hfTokenSecretName,
    modelCache: s.modelCache,
    modelCacheMode,
    modelDownloadBudgetSeconds: s.modelDownloadBudgetSeconds ?? budgets.download,
    loadEstimate: budgets.estimate,
    modelRevision: s.modelRevision ?? INFERENCE_DEFAULTS.modelRevision,
    prefetchImage: s.prefetchImage ?? prefetchImage,
    frontend: {
      replicas: s.frontend?.replicas ?? INFERENCE_DEFAULTS.frontendReplicas,
      serviceType: s.frontend?.serviceType ?? FrontendServiceType.ClusterIP,
      sourceRanges: s.frontend?.sourceRanges ?? (s.vpcCidr !== undefined ? [s.vpcCidr] : []),
      routerMode: s.frontend?.routerMode ?? RouterMode.RoundRobin,
      adminApi: s.frontend?.adminApi ?? false,
      nvext: s.frontend?.nvext ?? false,
    },
    vpcCidr: s.vpcCidr,
    networkPolicy: {
      enabled: s.networkPolicy?.enabled ?? true,
      clientNamespaces: s.networkPolicy?.clientNamespaces ?? [],
      metricsNamespaces: s.networkPolicy?.metricsNamespaces ?? [],
    },
    placement: s.placement ?? (nodes >= 2 ? Placement.SeparateNodes : Placement.Any),
    kvTransportChoice,
    kvTransport: resolveKvTransport(kvTransportChoice, (s.gpuPool?.efaPerNode ?? 0) > 0),
    imageCudaArchs: s.imageCudaArchs,
    imageCudaToolkit: s.imageCudaToolkit,
    runAsUser: s.runAsUser ?? INFERENCE_DEFAULTS.runAsUser,
    workload: resolveWorkload(s.workload),
    firstTokenCheck: {
      enabled: s.firstTokenCheck?.enabled ?? true,
      image: s.firstTokenCheck?.image ?? prefetchImage,
    },
  };
}

// The bounds live in ./limits.ts; re-exported here, where the validator and the tools have always read them.
export { INFERENCE_LIMITS, MAX_GPUS_PER_NODE, MODEL_SHAPE_LIMITS, ROLE_LIMITS, WORKLOAD_LIMITS } from "./limits";

const ROLE_KEYS = {
  replicas: int(ROLE_LIMITS.replicas),
  gpusPerWorker: int(ROLE_LIMITS.gpusPerWorker),
  extraArgs: listOf(str),
} as const satisfies KeyShape<RoleArgs>;
const M = MODEL_SHAPE_LIMITS;
const W = WORKLOAD_LIMITS;

/** The stack keys of `dynamo-efa:inference` and the kind of each value (components/_shared/keys.ts). */
export const INFERENCE_KEYS = {
  release: { wired: "dynamo-efa:release" },
  ...rows(str, "backend", "model", "servedModelName", "kvCacheDtype", "namespace", "hfTokenSecretName"),
  ...rows(str, "modelCacheMode", "modelRevision", "prefetchImage", "vpcCidr", "kvTransport", "placement"),
  maxModelLen: int(INFERENCE_LIMITS.maxModelLen),
  gpuMemoryUtilization: num(INFERENCE_LIMITS.gpuMemoryUtilization),
  runAsUser: int(INFERENCE_LIMITS.runAsUser),
  modelLoadBudgetSeconds: int(INFERENCE_LIMITS.modelLoadBudgetSeconds),
  modelDownloadBudgetSeconds: int(INFERENCE_LIMITS.modelDownloadBudgetSeconds),
  createNamespace: bool,
  prefill: ROLE_KEYS,
  decode: ROLE_KEYS,
  modelShape: {
    paramsB: num(M.paramsB),
    weightDtype: str,
    ...{ layers: int(M.layers), attentionHeads: int(M.attentionHeads), kvHeads: int(M.kvHeads) },
    ...{ headDim: int(M.headDim), maxContext: int(M.maxContext) },
    mla: { kvLoraRank: int(M.kvLoraRank), qkRopeHeadDim: int(M.qkRopeHeadDim) },
  },
  gpuPool: { wired: "the pool of cluster.gpuPools" },
  platformNamespace: { wired: "platform.namespace" },
  graphName: { wired: "dynamo-efa:graphName" },
  modelCache: { storageClassName: str, sizeGiB: int(INFERENCE_LIMITS.modelCacheSizeGiB) },
  frontend: {
    replicas: int(INFERENCE_LIMITS.frontendReplicas),
    ...rows(str, "serviceType", "routerMode"),
    ...{ adminApi: bool, nvext: bool },
    sourceRanges: listOf(str),
  },
  networkPolicy: { enabled: bool, clientNamespaces: listOf(str), metricsNamespaces: listOf(str) },
  imageCudaArchs: { wired: "the image's plan (image.cudaArchs)" },
  imageCudaToolkit: { wired: "the image's plan (image.cudaToolkit)" },
  workload: {
    ...{ isl: int(W.isl), osl: int(W.osl), requestsPerSecond: num(W.requestsPerSecond) },
    ...{ concurrency: int(W.concurrency), ttftMs: num(W.ttftMs), itlMs: num(W.itlMs) },
  },
  firstTokenCheck: { enabled: bool, image: str },
} as const satisfies KeyShape<InferenceSettings>;

/** The two worker roles of a disaggregated graph. */
export const ServingRole = { Prefill: "prefill", Decode: "decode" } as const;
export type ServingRole = (typeof ServingRole)[keyof typeof ServingRole];
/** Both roles, in render order. */
export const SERVING_ROLES: readonly ServingRole[] = [ServingRole.Prefill, ServingRole.Decode];

/*
 * Which NIXL backend moves the KV cache between prefill and decode, chosen by `inference.kvTransport`,
 * and what that means for the wire (RDMA over EFA or TCP). Pure, no imports: the one home of it for the
 * inference component, the policy pack, the offline plan and `verify` (gate D checks the chosen backend in
 * the worker logs).
 */

/** What the user asks for. */
export const KvTransportChoice = {
  /** LIBFABRIC on pools with EFA and GPUDirect RDMA, UCX elsewhere. */
  Auto: "auto",
  /** NIXL's LIBFABRIC plugin over EFA RDMA; needs an EFA pool. */
  Libfabric: "libfabric",
  /** NIXL's UCX plugin; the workers get no EFA devices and KV crosses nodes over TCP. */
  Ucx: "ucx",
} as const;
export type KvTransportChoice = (typeof KvTransportChoice)[keyof typeof KvTransportChoice];

/** The NIXL backend name the engines' selectors take. */
export const KvTransport = {
  /** NIXL's LIBFABRIC plugin over EFA RDMA (pools with EFA and GPUDirect RDMA). */
  Libfabric: "LIBFABRIC",
  /** NIXL's UCX plugin (TCP across nodes here). Much slower across nodes. */
  Ucx: "UCX",
} as const;
export type KvTransport = (typeof KvTransport)[keyof typeof KvTransport];

/** The backend for a choice on a pool that does (not) carry EFA with GPUDirect RDMA. */
export function resolveKvTransport(choice: KvTransportChoice, poolHasEfa: boolean): KvTransport {
  if (choice === KvTransportChoice.Libfabric) return KvTransport.Libfabric;
  if (choice === KvTransportChoice.Ucx) return KvTransport.Ucx;
  return poolHasEfa ? KvTransport.Libfabric : KvTransport.Ucx;
}

/** The backend a NIXL selector value names (`LIBFABRIC` or `UCX`), or undefined for any other value. */
export function namedKvTransport(value: unknown): KvTransport | undefined {
  return value === KvTransport.Libfabric || value === KvTransport.Ucx ? value : undefined;
}

/**
 * Whether a worker requests EFA devices: only the LIBFABRIC backend uses them, and only on a pool whose nodes
 * carry NIXL over EFA (EFA attached and GPUDirect RDMA). UCX workers hold none: the image's UCX is not set up for
 * EFA, so a device given to them would sit idle. The policy `efa-per-worker-matches-pool` holds a hand-written
 * graph to the same rule from each worker's NIXL selector (UCX: none; LIBFABRIC: the instance's count).
 */
export function requestsEfaDevices(t: KvTransport, poolCarriesNixlOverEfa: boolean): boolean {
  return t === KvTransport.Libfabric && poolCarriesNixlOverEfa;
}

/** A backend and how KV bytes travel with it (plan.json's `kvTransport`). */
export interface KvWire {
  /** NIXL backend (`LIBFABRIC` or `UCX`). */
  readonly transport: KvTransport;
  /** True when KV moves by RDMA over EFA; false for TCP. */
  readonly rdma: boolean;
  /** One line for people. */
  readonly description: string;
}

/**
 * How KV bytes travel with a backend. LIBFABRIC here always means the EFA provider with GPU RDMA
 * (`FI_PROVIDER=efa`, `FI_EFA_USE_DEVICE_RDMA=1`). UCX workers are given no EFA device and the
 * image's UCX is not set up for EFA, so across nodes UCX uses TCP (published: TTFT ~98 s over TCP
 * vs ~1 s on EFA for the same request; docs/ARCHITECTURE.md#dynamo-on-kubernetes).
 */
export function kvWire(t: KvTransport): KvWire {
  return t === KvTransport.Libfabric
    ? { transport: t, rdma: true, description: "RDMA over EFA (NIXL LIBFABRIC, GPUDirect)" }
    : {
        transport: t,
        rdma: false,
        description: "TCP (NIXL UCX; no EFA devices given to workers), much slower across nodes",
      };
}

/** The resolved role args of `role`. */
export function roleArgs(r: ResolvedInference, role: ServingRole): ResolvedRole {
  return role === ServingRole.Prefill ? r.prefill : r.decode;
}
