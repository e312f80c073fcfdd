/**
 * The schema table of `dynamo-efa:inference`, the largest config key: the graph's engine, model,
 * roles, model cache and operator release, with bounds from the inference component's limits tables.
 * Beside `config-fields.ts` (cluster, image, top-level keys) because it is a table of its own. Pure data.
 */
import { KvCacheDtype, WeightDtype } from "../components/catalog/models";
import {
  Backend,
  FrontendServiceType,
  INFERENCE_DEFAULTS,
  KvTransportChoice,
  Placement,
  INFERENCE_LIMITS,
  MODEL_SHAPE_LIMITS,
  ROLE_LIMITS,
  WORKLOAD_LIMITS,
} from "../components/inference/args";
import { ModelCacheMode } from "../components/inference/model-load";
import { REVISION_RULE, DIGEST_PINNED } from "../components/inference/validate";
import { CHART_VERSION } from "../components/platform/validate";
import { K8S_NAME } from "../components/_shared/names";
import { prefetchImage } from "../components/versions";
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
    defaultDoc: "- 2x the plan's estimate, at least 1800",
    doc: "seconds a worker may take to load its model (and download it in none/efs); probes and `pulumi up`'s wait are sized from it; one below the estimate is an error",
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
    defaultDoc: "- 2x the plan's estimate, at least 1800",
    doc: 'seconds the "local-nvme" prefetch may take to download the model to a node (a deadline); then modelLoadBudgetSeconds covers only the load from NVMe; one below the estimate is an error',
  },
  modelRevision: {
    spec: str({ pattern: REVISION_RULE, patternDoc: 'a 40-hex commit, or a branch or tag without "/"' }),
    default: INFERENCE_DEFAULTS.modelRevision,
    doc: 'Hugging Face revision of the model: a 40-hex commit pins the weights ("main" moves); used by the "local-nvme" prefetch and vLLM\'s --revision (TensorRT-LLM pins only with "local-nvme")',
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
    doc: "no node holds both roles, each role on as many nodes as its replicas need (KV over EFA needs it: the mandatory policy `prefill-decode-apart-over-efa` refuses `any` on an EFA pool)",
  },
  kvTransport: {
    spec: str({ enum: choices(KvTransportChoice) }),
    default: KvTransportChoice.Auto,
    doc: 'NIXL backend for KV cache: "libfabric" (RDMA over EFA), "ucx" (TCP, no EFA devices) or "auto" (libfabric on EFA pools)',
  },
  platform: {
    doc: "the cluster's DynamoPlatform: the dynamo-platform Helm release (operator + CRDs), not a child of the graph",
    spec: {
      kind: "object",
      fields: {
        install: {
          spec: { kind: "boolean" },
          default: true,
          doc: "install it; the program refuses false (its new cluster has no Dynamo operator; DisaggInference on your own cluster accepts it)",
        },
        version: {
          spec: str({ pattern: CHART_VERSION, patternDoc: 'a chart version such as "1.0.1"' }),
          defaultDoc: "- the release's chart version (1.6.2 for dynamo-1.6, 1.0.1 for seed)",
          doc: "dynamo-platform chart version (its NGC tarball URL); set it only to step the operator one minor at a time (docs/RELEASES.md#upgrading)",
        },
      },
    },
  },
  workload: {
    defaultDoc: "- { isl: 1024, osl: 256, concurrency: 64 }, no objectives",
    doc: "the traffic plan.json's `serving` estimate is for (TTFT, ITL, requests/s, disaggregated vs aggregated); changes no deployed object but a graph annotation",
    spec: {
      kind: "object",
      fields: {
        isl: {
          spec: int(WORKLOAD_LIMITS.isl),
          // A default here would make every stack declare a workload (the schema fills defaults in).
          defaultDoc: `${INFERENCE_DEFAULTS.workload.isl}`,
          doc: "prompt tokens per request; isl + osl must fit maxModelLen",
        },
        osl: {
          spec: int(WORKLOAD_LIMITS.osl),
          defaultDoc: `${INFERENCE_DEFAULTS.workload.osl}`,
          doc: "output tokens per request",
        },
        requestsPerSecond: {
          spec: { kind: "number", ...WORKLOAD_LIMITS.requestsPerSecond, example: 20 },
          defaultDoc: "- none (closed loop at concurrency)",
          doc: "open-loop arrival rate; set this or concurrency, not both",
        },
        concurrency: {
          spec: int(WORKLOAD_LIMITS.concurrency),
          defaultDoc: `- ${INFERENCE_DEFAULTS.workload.concurrency} when requestsPerSecond is not set`,
          doc: "closed-loop load: requests in flight at once",
        },
        ttftMs: {
          spec: { kind: "number", ...WORKLOAD_LIMITS.ttftMs, example: 1000 },
          defaultDoc: "- none",
          doc: "time-to-first-token objective, ms (an advisory policy flags an estimate above it)",
        },
        itlMs: {
          spec: { kind: "number", ...WORKLOAD_LIMITS.itlMs, example: 25 },
          defaultDoc: "- none",
          doc: "inter-token latency objective, ms",
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
        sourceRanges: {
          spec: { kind: "array", items: str({ example: "10.0.0.0/16" }) },
          defaultDoc: "- the VPC's CIDR (`10.0.0.0/16`)",
          doc: "CIDRs the internal load balancer accepts; the Frontend's NetworkPolicy admits them and the VPC CIDR, where load-balanced connections reach the pod from",
        },
      },
    },
  },
  networkPolicy: {
    doc: "NetworkPolicies of the graph's namespace: everything denied but Dynamo's own flows",
    spec: {
      kind: "object",
      fields: {
        enabled: { spec: { kind: "boolean" }, default: true, doc: "render the NetworkPolicies" },
        clientNamespaces: {
          spec: { kind: "array", items: str({ pattern: K8S_NAME, patternDoc: "a namespace name" }) },
          default: [],
          doc: "namespaces whose pods may call the Frontend's API (TCP 8000); Prometheus is let in when observability is on",
        },
      },
    },
  },
};
