/**
 * Arguments of `DisaggInference` and their resolution to plain, fully-defaulted data
 * (docs/CONTRIBUTING.md rules 3-5). `resolveArgs` is pure: it never looks at Pulumi values, so the offline
 * render tool and the tests share it with the component.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { GpuPoolFacts } from "../catalog/pool";
import { KvCacheDtype, ModelShape } from "../catalog/model-math";
import { charts, prefetchImage } from "../versions";
import { DEFAULT_GRAPH_NAMESPACE } from "../_shared/names";
import { KvTransport, KvTransportChoice, resolveKvTransport } from "./transport";

export { KvTransportChoice };

/** Inference engine the workers run; the combined image selects it by Python module name. */
export const Backend = { Vllm: "vllm", Trtllm: "trtllm" } as const;
export type Backend = (typeof Backend)[keyof typeof Backend];

/** Where prefill and decode workers may land relative to each other. */
export const Placement = {
  /** Prefill workers together on one node, decode workers together on another: KV crosses EFA. */
  SeparateNodes: "separate-nodes",
  /** No co-location rule; the scheduler packs workers wherever GPUs are free. */
  Any: "any",
} as const;
export type Placement = (typeof Placement)[keyof typeof Placement];

/** How the Frontend's Service is exposed. */
export const FrontendServiceType = {
  /** In-cluster only. */
  ClusterIP: "ClusterIP",
  /** An internal (VPC-only) AWS load balancer; never internet-facing. */
  InternalLoadBalancer: "InternalLoadBalancer",
} as const;
export type FrontendServiceType = (typeof FrontendServiceType)[keyof typeof FrontendServiceType];

/** Shape of one worker role (prefill or decode). */
export interface RoleArgs {
  /** Number of worker pods of this role (one engine process per pod). */
  readonly replicas: number;
  /** GPUs per worker; also the engine's tensor-parallel size. Must divide the node's GPUs. */
  readonly gpusPerWorker: number;
  /** Extra engine flags appended verbatim after the derived ones. @default [] */
  readonly extraArgs?: readonly string[];
}

/** Where the workers' model weights come from. */
export const ModelCacheMode = {
  /** Every worker downloads the model itself from Hugging Face, inside its engine, into its own container. */
  None: "none",
  /** One shared ReadWriteMany volume (`modelCache`, e.g. EFS) as every worker's `HF_HOME`; the first worker to start downloads. */
  Efs: "efs",
  /**
   * Each node downloads the model once, before its workers start, into its instance-store NVMe RAID0 array
   * (a per-pod init container under a node-level lock; see `./prefetch.ts`); workers mount it read-only.
   */
  LocalNvme: "local-nvme",
} as const;
export type ModelCacheMode = (typeof ModelCacheMode)[keyof typeof ModelCacheMode];

/** Optional shared model cache (a PVC mounted at `/models`, `HF_HOME` pointed at it). */
export interface ModelCacheArgs {
  /** StorageClass that can serve ReadWriteMany (e.g. an EFS or FSx class). */
  readonly storageClassName: string;
  /** Size in GiB. */
  readonly sizeGiB: number;
}

/** The Dynamo platform Helm release (operator; the CRDs ship in the same chart since Dynamo 1.0.0). */
export interface PlatformArgs {
  /** Install the operator and its CRDs; set false when the cluster already runs them. @default true */
  readonly install?: boolean;
  /** Namespace of the operator release. @default "dynamo-system" */
  readonly namespace?: string;
  /** `dynamo-platform` chart version (installed from its NGC tarball URL). @default "1.0.1" (`versions.charts.dynamoPlatform.version`) */
  readonly version?: string;
}

/** The OpenAI-compatible Frontend. */
export interface FrontendArgs {
  /** Frontend pods. @default 1 */
  readonly replicas?: number;
  /** Service exposure. @default "ClusterIP" */
  readonly serviceType?: FrontendServiceType;
}

/** Plain (non-Pulumi) settings: everything that decides what is rendered. */
export interface InferenceSettings {
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
   * long (F2) and `pulumi up` waits this long plus a margin for the graph to turn Ready.
   * @default 1800
   */
  readonly modelLoadBudgetSeconds?: number;
  /** The GPU pool the workers run on (from `EfaCluster.gpuPools`, or written by hand). */
  readonly gpuPool: GpuPoolFacts;
  /** Kubernetes namespace of the graph, its secret and cache. @default "dynamo" */
  readonly namespace?: string;
  /** DynamoGraphDeployment name. @default - the component name */
  readonly graphName?: string;
  /** Use this existing Secret (keys `HF_TOKEN`, `HUGGING_FACE_HUB_TOKEN`) instead of creating one. @default - create one from `hfToken` */
  readonly hfTokenSecretName?: string;
  /** Shared model cache, retained on delete (the `efs` mode). @default - none (each pod downloads into its own emptyDir) */
  readonly modelCache?: ModelCacheArgs;
  /**
   * Where the weights come from: `none`, `efs` (needs `modelCache`) or `local-nvme` (needs a pool with a local
   * NVMe array, `GpuPoolFacts.localNvme`).
   * @default - "efs" when `modelCache` is set, else "none"
   */
  readonly modelCacheMode?: ModelCacheMode;
  /**
   * Seconds the `local-nvme` prefetch may take to download the model to a node (waiting for another pod's download
   * included); `modelLoadBudgetSeconds` then covers only the engine's load from NVMe. In `none`/`efs` the engine
   * downloads inside its own start, so there the load budget covers both.
   * @default 1800
   */
  readonly modelDownloadBudgetSeconds?: number;
  /**
   * Digest-pinned image (`repo@sha256:<64 hex>`) of the `local-nvme` prefetch DaemonSet: Python 3 with `chown` and
   * `sleep`. Small on purpose: the DaemonSet starts downloading the weights seconds after a GPU node joins, while
   * the workers are still pulling the serving image.
   * @default - `versions.prefetchImage` (python:3.12-slim)
   */
  readonly prefetchImage?: string;
  /** Dynamo platform. @default { install: true } */
  readonly platform?: PlatformArgs;
  /** Frontend. @default { replicas: 1, serviceType: "ClusterIP" } */
  readonly frontend?: FrontendArgs;
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
}

/** Arguments of `DisaggInference`. */
export interface DisaggInferenceArgs extends InferenceSettings {
  /** Digest-pinned image reference (`repo@sha256:<64 hex>`), e.g. `DynamoImage.imageRef`. */
  readonly image: pulumi.Input<string>;
  /** Kubernetes provider of the cluster (e.g. `EfaCluster.k8sProvider`). */
  readonly provider: pulumi.ProviderResource;
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
  readonly graphName: string;
  readonly namespace: string;
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
  readonly prefetchImage: string;
  readonly platform: Required<PlatformArgs>;
  readonly frontend: Required<FrontendArgs>;
  readonly placement: Placement;
  /** What the user asked for (validated). */
  readonly kvTransportChoice: KvTransportChoice;
  /** The NIXL backend it resolves to on this pool. */
  readonly kvTransport: KvTransport;
  readonly imageCudaArchs: readonly string[] | undefined;
  readonly imageCudaToolkit: string | undefined;
  readonly runAsUser: number;
}

/** Defaults, in one place. */
export const INFERENCE_DEFAULTS = {
  backend: Backend.Vllm,
  role: { replicas: 1, gpusPerWorker: 1 },
  maxModelLen: 4096,
  gpuMemoryUtilization: 0.85,
  modelLoadBudgetSeconds: 1800,
  modelDownloadBudgetSeconds: 1800,
  namespace: DEFAULT_GRAPH_NAMESPACE,
  platformNamespace: "dynamo-system",
  frontendReplicas: 1,
  runAsUser: 1000,
} as const;

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
  const p = s.platform ?? {};
  const nodes = s.gpuPool?.nodes ?? 0;
  const kvTransportChoice = s.kvTransport ?? KvTransportChoice.Auto;
  return {
    graphName: s.graphName ?? name,
    namespace: s.namespace ?? INFERENCE_DEFAULTS.namespace,
    backend: s.backend ?? INFERENCE_DEFAULTS.backend,
    model: s.model,
    servedModelName: s.servedModelName ?? s.model,
    prefill: role(s.prefill),
    decode: role(s.decode),
    maxModelLen: s.maxModelLen ?? INFERENCE_DEFAULTS.maxModelLen,
    gpuMemoryUtilization: s.gpuMemoryUtilization ?? INFERENCE_DEFAULTS.gpuMemoryUtilization,
    modelShape: s.modelShape,
    kvCacheDtype: s.kvCacheDtype ?? KvCacheDtype.Auto,
    modelLoadBudgetSeconds: s.modelLoadBudgetSeconds ?? INFERENCE_DEFAULTS.modelLoadBudgetSeconds,
    pool: s.gpuPool,
    image,
    createHfSecret: s.hfTokenSecretName === undefined,
    hfSecretName: s.hfTokenSecretName,
    modelCache: s.modelCache,
    modelCacheMode: s.modelCacheMode ?? (s.modelCache ? ModelCacheMode.Efs : ModelCacheMode.None),
    modelDownloadBudgetSeconds: s.modelDownloadBudgetSeconds ?? INFERENCE_DEFAULTS.modelDownloadBudgetSeconds,
    prefetchImage: s.prefetchImage ?? prefetchImage,
    platform: {
      install: p.install ?? true,
      namespace: p.namespace ?? INFERENCE_DEFAULTS.platformNamespace,
      version: p.version ?? charts.dynamoPlatform.version,
    },
    frontend: {
      replicas: s.frontend?.replicas ?? INFERENCE_DEFAULTS.frontendReplicas,
      serviceType: s.frontend?.serviceType ?? FrontendServiceType.ClusterIP,
    },
    placement: s.placement ?? (nodes >= 2 ? Placement.SeparateNodes : Placement.Any),
    kvTransportChoice,
    kvTransport: resolveKvTransport(kvTransportChoice, (s.gpuPool?.efaPerNode ?? 0) > 0),
    imageCudaArchs: s.imageCudaArchs,
    imageCudaToolkit: s.imageCudaToolkit,
    runAsUser: s.runAsUser ?? INFERENCE_DEFAULTS.runAsUser,
  };
}
