/**
 * The stack config's schema tables: the keys of `dynamo-efa:cluster`, `dynamo-efa:image` and
 * `dynamo-efa:inference` with their types, defaults and docs (the README's config reference is
 * generated against them), and the top-level keys the program reads. Bounds come from the
 * components' limits tables. Pure data.
 */
import { KvCacheDtype } from "../components/catalog/model-math";
import { WeightDtype } from "../components/catalog/models";
import { CapacityType } from "../components/cluster/args";
import { CLUSTER_LIMITS } from "../components/cluster/limits";
import { AZ_NAME } from "../components/cluster/validate-network";
import { CAPACITY_RESERVATION_ID } from "../components/cluster/validate-pool";
import { CUDA_TOOLKITS, DEFAULT_CUDA_TOOLKIT } from "../components/catalog/cuda-toolkits";
import { CUDA_ARCHS_KEYWORDS } from "../components/catalog/arch-lists";
import {
  Backend,
  FrontendServiceType,
  INFERENCE_DEFAULTS,
  KvTransportChoice,
  ModelCacheMode,
  Placement,
} from "../components/inference/args";
import { INFERENCE_LIMITS, MODEL_SHAPE_LIMITS, ROLE_LIMITS } from "../components/inference/limits";
import { CHART_VERSION, DIGEST_PINNED } from "../components/inference/validate";
import type { IntRange } from "../components/_shared/limits";
import { K8S_NAME } from "../components/_shared/names";
import { charts, kubernetes } from "../components/versions";
import { Field, Spec } from "./schema";

/** Config namespace (the Pulumi project name). */
export const CONFIG_NAMESPACE = "dynamo-efa";
/** The one GPU pool stack config describes; the program names it `gpu`. */
export const GPU_POOL_NAME = "gpu";

export { CapacityType };

const values = <T extends Record<string, string>>(o: T): string[] => Object.values(o);
/** An AWS region name (`us-east-2`, `us-gov-west-1`). */
export const REGION = /^[a-z]{2}(-gov)?-[a-z]+-\d$/;

/** A string spec with extra rules. */
export const str = (extra: Partial<Extract<Spec, { kind: "string" }>> = {}): Spec => ({ kind: "string", ...extra });
/** A whole number in a component's own range (its limits table), so schema and validator agree. */
const int = (r: IntRange): Spec => ({ kind: "integer", min: r.min, max: r.max });
const role = (doc: string): Field => ({
  doc,
  spec: {
    kind: "object",
    fields: {
      replicas: {
        spec: int(ROLE_LIMITS.replicas),
        default: 1,
        doc: "worker pods of this role (one engine process each)",
      },
      gpusPerWorker: {
        spec: int(ROLE_LIMITS.gpusPerWorker),
        default: 1,
        doc: "GPUs per worker (= tensor-parallel size); must divide the node's GPUs",
      },
    },
  },
});

/** `dynamo-efa:cluster`. */
export const CLUSTER_FIELDS: Readonly<Record<string, Field>> = {
  kubernetesVersion: {
    spec: str({ enum: kubernetes.supportedVersions, numberAsString: (n) => n.toFixed(2) }),
    default: kubernetes.defaultVersion,
    doc: "EKS Kubernetes version",
  },
  availabilityZone: {
    spec: str({ pattern: AZ_NAME, patternDoc: 'an availability zone name such as "us-east-2b"' }),
    required: true,
    doc: "the one AZ the GPU nodes live in (EFA needs one AZ); must be in aws:region and offer the instance type",
  },
  availabilityZones: {
    spec: {
      kind: "array",
      items: str({ pattern: AZ_NAME, patternDoc: 'an availability zone name such as "us-east-2a"' }),
    },
    defaultDoc: '- availabilityZone plus the region\'s "a" zone (or "b" when it is "a")',
    doc: "AZs of the VPC (EKS needs 2); must include availabilityZone",
  },
  publicAccessCidrs: {
    spec: { kind: "array", items: str({ example: "203.0.113.0/24" }) },
    default: [],
    doc: "CIDRs allowed to reach the public API endpoint; empty = private endpoint only",
  },
  gpuNodes: {
    required: true,
    doc: "the GPU node pool (named `gpu`)",
    spec: {
      kind: "object",
      fields: {
        instanceType: {
          spec: str({ example: "p5en.48xlarge" }),
          required: true,
          doc: "EC2 GPU instance type (from the catalog)",
        },
        count: { spec: int(CLUSTER_LIMITS.nodes), required: true, doc: "number of GPU nodes" },
        capacity: {
          doc: "how the nodes are bought",
          spec: {
            kind: "object",
            fields: {
              type: {
                spec: str({ enum: values(CapacityType) }),
                default: CapacityType.OnDemand,
                doc: "on-demand, a Capacity Block, or an On-Demand Capacity Reservation",
              },
              reservationId: {
                spec: str({
                  pattern: CAPACITY_RESERVATION_ID,
                  patternDoc: 'a capacity reservation id "cr-" + 17 hex digits, e.g. "cr-0123456789abcdef0"',
                }),
                defaultDoc: "- (required for capacity-block and odcr)",
                doc: "the reservation to launch into",
              },
            },
          },
        },
        placementGroup: {
          spec: { kind: "boolean" },
          defaultDoc: "- true for on-demand EFA pools, false for reserved capacity",
          doc: "launch into a `cluster` placement group",
        },
      },
    },
  },
};

/** `dynamo-efa:image`. */
export const IMAGE_FIELDS: Readonly<Record<string, Field>> = {
  cudaArchs: {
    spec: { kind: "keywordOrList", keywords: CUDA_ARCHS_KEYWORDS, items: str() },
    defaultDoc: '`"fat"` (state it explicitly with ref)',
    doc: '"fat" (broad default), "auto" (exactly the GPU pool\'s SM archs) or a list of arch tokens such as ["sm_90"]',
  },
  cudaToolkit: {
    spec: str({ enum: CUDA_TOOLKITS, numberAsString: (n) => (Number.isInteger(n) ? n.toFixed(1) : String(n)) }),
    defaultDoc: `\`"${DEFAULT_CUDA_TOOLKIT}"\``,
    doc: "CUDA toolkit of the image's compile stages",
  },
  versions: {
    spec: { kind: "map", keyDoc: "Dockerfile version keys (see dockerfiles/README.md)", values: str() },
    defaultDoc: "- components/versions.ts",
    doc: "overrides of the image's component versions, e.g. { vllm: v0.17.1 }",
  },
  ref: {
    spec: str({
      pattern: DIGEST_PINNED,
      patternDoc: 'a digest-pinned image reference "<repository>@sha256:<64 hex digits>"',
    }),
    defaultDoc: "- (build the image)",
    doc: "use this prebuilt image instead of building; then list cudaArchs explicitly",
  },
  builder: {
    spec: str({ example: "dynamo-builder" }),
    defaultDoc: "- the default buildx builder",
    doc: 'name of an existing buildx builder (linux/amd64; README "Building the image")',
  },
};

/** `dynamo-efa:inference`. */
export const INFERENCE_FIELDS: Readonly<Record<string, Field>> = {
  backend: { spec: str({ enum: values(Backend) }), default: INFERENCE_DEFAULTS.backend, doc: "inference engine" },
  model: { spec: str({ example: "meta-llama/Llama-3.1-8B-Instruct" }), required: true, doc: "Hugging Face model id" },
  servedModelName: { spec: str(), defaultDoc: "- the model id", doc: "name clients send in `model`" },
  prefill: role("prefill workers"),
  decode: role("decode workers"),
  maxModelLen: {
    spec: int(INFERENCE_LIMITS.maxModelLen),
    default: INFERENCE_DEFAULTS.maxModelLen,
    doc: "maximum tokens per sequence (prompt + output)",
  },
  gpuMemoryUtilization: {
    spec: { kind: "number", ...INFERENCE_LIMITS.gpuMemoryUtilization, example: 0.85 },
    default: INFERENCE_DEFAULTS.gpuMemoryUtilization,
    doc: "fraction of GPU memory the engine may use",
  },
  kvCacheDtype: {
    spec: str({ enum: values(KvCacheDtype) }),
    default: KvCacheDtype.Auto,
    doc: "KV-cache element type: the model's own (bf16) or fp8 (vLLM `--kv-cache-dtype fp8`, TRT-LLM `kv_cache_config.dtype: fp8`); also sizes the plan's KV capacity and transfer numbers",
  },
  modelShape: {
    defaultDoc: "- none (a model outside the catalog renders with its fit unknown)",
    doc: "shape of a private model the model catalog does not know (from its config.json), so the plan checks that it fits",
    spec: {
      kind: "object",
      fields: {
        paramsB: {
          spec: { kind: "number", ...MODEL_SHAPE_LIMITS.paramsB, example: 8.03 },
          required: true,
          doc: "total parameters, in billions",
        },
        weightDtype: { spec: str({ enum: values(WeightDtype) }), required: true, doc: "storage dtype of the weights" },
        layers: { spec: int(MODEL_SHAPE_LIMITS.layers), required: true, doc: "num_hidden_layers" },
        attentionHeads: { spec: int(MODEL_SHAPE_LIMITS.attentionHeads), required: true, doc: "num_attention_heads" },
        kvHeads: {
          spec: int(MODEL_SHAPE_LIMITS.kvHeads),
          defaultDoc: "- (required unless mla is set)",
          doc: "num_key_value_heads",
        },
        headDim: {
          spec: int(MODEL_SHAPE_LIMITS.headDim),
          defaultDoc: "- (required unless mla is set)",
          doc: "head_dim",
        },
        maxContext: { spec: int(MODEL_SHAPE_LIMITS.maxContext), required: true, doc: "max_position_embeddings" },
        mla: {
          doc: "multi-head latent attention (DeepSeek-V3 style)",
          spec: {
            kind: "object",
            fields: {
              kvLoraRank: { spec: int(MODEL_SHAPE_LIMITS.kvLoraRank), required: true, doc: "kv_lora_rank" },
              qkRopeHeadDim: { spec: int(MODEL_SHAPE_LIMITS.qkRopeHeadDim), required: true, doc: "qk_rope_head_dim" },
            },
          },
        },
      },
    },
  },
  modelLoadBudgetSeconds: {
    spec: int(INFERENCE_LIMITS.modelLoadBudgetSeconds),
    default: INFERENCE_DEFAULTS.modelLoadBudgetSeconds,
    doc: "seconds a worker may take to load its model; probes and `pulumi up`'s wait are sized from it",
  },
  hfTokenSecretName: {
    spec: str({ pattern: K8S_NAME, patternDoc: "a Kubernetes Secret name (lower-case RFC 1123)" }),
    defaultDoc: "- (create one from dynamo-efa:hfToken)",
    doc: "existing Secret with HF_TOKEN and HUGGING_FACE_HUB_TOKEN, instead of the token",
  },
  namespace: { spec: str(), default: INFERENCE_DEFAULTS.namespace, doc: "Kubernetes namespace of the graph" },
  modelCacheMode: {
    spec: str({ enum: values(ModelCacheMode) }),
    defaultDoc: '- "efs" when modelCacheGiB is set, else "local-nvme"',
    doc: 'where the weights come from: "local-nvme" (each node downloads once, before its workers start, into its NVMe RAID0 array; workers mount it read-only), "efs" (one shared EFS cache of modelCacheGiB), "none" (every worker downloads itself)',
  },
  modelCacheGiB: {
    spec: int(INFERENCE_LIMITS.modelCacheSizeGiB),
    defaultDoc: "- none",
    doc: 'size of the shared ReadWriteMany model cache of mode "efs" (EFS, retained on delete) mounted by every worker; turns on EFS in the cluster',
  },
  modelDownloadBudgetSeconds: {
    spec: int(INFERENCE_LIMITS.modelDownloadBudgetSeconds),
    default: INFERENCE_DEFAULTS.modelDownloadBudgetSeconds,
    doc: 'seconds the "local-nvme" prefetch may take to download the model to a node; then modelLoadBudgetSeconds covers only the load from NVMe',
  },
  placement: {
    spec: str({ enum: values(Placement) }),
    defaultDoc: '- "separate-nodes" when the pool has >= 2 nodes, else "any"',
    doc: "keep prefill and decode on different nodes (KV over EFA)",
  },
  kvTransport: {
    spec: str({ enum: values(KvTransportChoice) }),
    default: KvTransportChoice.Auto,
    doc: 'NIXL backend for KV cache: "libfabric" (RDMA over EFA), "ucx" (TCP, no EFA devices) or "auto" (libfabric on EFA pools)',
  },
  platform: {
    doc: "the dynamo-platform Helm release (operator + CRDs)",
    spec: {
      kind: "object",
      fields: {
        install: {
          spec: { kind: "boolean" },
          default: true,
          doc: "install it; false when the cluster already runs a Dynamo operator",
        },
        version: {
          spec: str({ pattern: CHART_VERSION, patternDoc: 'a chart version such as "1.0.1"' }),
          default: charts.dynamoPlatform.version,
          doc: "dynamo-platform chart version (its NGC tarball URL)",
        },
      },
    },
  },
  frontend: {
    doc: "the OpenAI-compatible Frontend",
    spec: {
      kind: "object",
      fields: {
        replicas: { spec: int(INFERENCE_LIMITS.frontendReplicas), default: 1, doc: "Frontend pods" },
        serviceType: {
          spec: str({ enum: values(FrontendServiceType) }),
          default: FrontendServiceType.ClusterIP,
          doc: "in-cluster only, or an internal load balancer",
        },
      },
    },
  },
};

/**
 * Top-level keys of the `dynamo-efa:` namespace the program reads, with what each holds. A key not
 * listed here is a problem with "did you mean" (a typo must not be silently ignored): add a row
 * when the program reads a new top-level key.
 */
export const STACK_KEYS: Readonly<Record<string, string>> = {
  cluster: "the EKS cluster and its GPU pool (object)",
  image: "the Dynamo runtime image (object)",
  inference: "the disaggregated inference graph (object)",
  observability: "monitoring: false, or an object (absent = on)",
  graphName: "name of the DynamoGraphDeployment (string)",
  hfToken: "Hugging Face token (secret: pulumi config set --secret)",
};

/** Keys of other namespaces the program reads; near misses of these (`aws:regoin`) are problems. */
export const FOREIGN_KEYS: readonly string[] = ["aws:region"];
