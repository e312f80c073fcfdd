/**
 * The schema table of `dynamo-efa:inference`, the largest config key: the graph's engine, model,
 * roles, model cache and operator release, with bounds from the inference component's limits tables.
 * Beside `config-fields.ts` (cluster, image, top-level keys) because it is a table of its own. Pure data.
 */
import { KvCacheDtype } from "../components/catalog/model-math";
import { WeightDtype } from "../components/catalog/models";
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
import { K8S_NAME } from "../components/_shared/names";
import { charts, prefetchImage } from "../components/versions";
import { choices, Field, int, str } from "./schema";

/** A worker role's table (`prefill`, `decode`): how many workers and GPUs each. */
const role = (doc: string): Field => ({
  doc,
  spec: {
    kind: "object",
    fields: {
      replicas: {
        spec: int(ROLE_LIMITS.replicas),
        default: INFERENCE_DEFAULTS.role.replicas,
        doc: "worker pods of this role (one engine process each)",
      },
      gpusPerWorker: {
        spec: int(ROLE_LIMITS.gpusPerWorker),
        default: INFERENCE_DEFAULTS.role.gpusPerWorker,
        doc: "GPUs per worker (= tensor-parallel size); must divide the node's GPUs",
      },
    },
  },
});

/** `dynamo-efa:inference`. */
export const INFERENCE_FIELDS: Readonly<Record<string, Field>> = {
  backend: { spec: str({ enum: choices(Backend) }), default: INFERENCE_DEFAULTS.backend, doc: "inference engine" },
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
    spec: str({ enum: choices(KvCacheDtype) }),
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
        weightDtype: { spec: str({ enum: choices(WeightDtype) }), required: true, doc: "storage dtype of the weights" },
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
    spec: str({ enum: choices(ModelCacheMode) }),
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
  prefetchImage: {
    spec: str({
      pattern: DIGEST_PINNED,
      patternDoc: 'a digest-pinned image reference "<repository>@sha256:<64 hex digits>"',
    }),
    default: prefetchImage,
    doc: 'small image (Python 3, chown, sleep) of the "local-nvme" prefetch DaemonSet, which downloads the weights on each GPU node while its workers pull the serving image; use an ECR mirror in private clusters',
  },
  placement: {
    spec: str({ enum: choices(Placement) }),
    defaultDoc: '- "separate-nodes" when the pool has >= 2 nodes, else "any"',
    doc: "keep prefill and decode on different nodes (KV over EFA)",
  },
  kvTransport: {
    spec: str({ enum: choices(KvTransportChoice) }),
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
        replicas: {
          spec: int(INFERENCE_LIMITS.frontendReplicas),
          default: INFERENCE_DEFAULTS.frontendReplicas,
          doc: "Frontend pods",
        },
        serviceType: {
          spec: str({ enum: choices(FrontendServiceType) }),
          default: FrontendServiceType.ClusterIP,
          doc: "in-cluster only, or an internal load balancer",
        },
      },
    },
  },
};
