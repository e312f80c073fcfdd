/**
 * The stack config of the dynamo-efa program: the object keys `dynamo-efa:cluster`,
 * `dynamo-efa:image`, `dynamo-efa:inference`, the secret `dynamo-efa:hfToken` and the scalars
 * declared in Pulumi.yaml. `checkStackConfig` validates everything at once and maps it to component
 * arguments; semantic rules are the components' own validators (inference) and the catalog's (instance
 * types, CUDA archs and toolkits), with their paths rewritten to the user's config keys. Pure.
 */
import { INSTANCES } from "../components/catalog/instances";
import type { GpuPoolFacts } from "../components/catalog/pool";
import { KvCacheDtype } from "../components/catalog/model-math";
import { WeightDtype } from "../components/catalog/models";
import { CapacityType, EfaClusterArgs, resolvePool } from "../components/cluster/args";
import { CLUSTER_LIMITS } from "../components/cluster/limits";
import { poolFacts } from "../components/cluster/derive";
import { SHARED_STORAGE_CLASS } from "../components/cluster/render";
import { AZ_NAME, CAPACITY_RESERVATION_ID, validateClusterArgs } from "../components/cluster/validate";
import { CUDA_TOOLKITS, CudaToolkit, DEFAULT_CUDA_TOOLKIT } from "../components/catalog/cuda-toolkits";
import { CUDA_ARCHS_KEYWORDS } from "../components/catalog/arch-lists";
import type { DynamoImageArgs } from "../components/image/args";
import { imagePlan } from "../components/image/plan";
import { Backend, FrontendServiceType, INFERENCE_DEFAULTS, InferenceSettings, KvTransportChoice, ModelCacheMode, Placement, resolveArgs } from "../components/inference/args";
import { INFERENCE_LIMITS, MODEL_SHAPE_LIMITS, ROLE_LIMITS } from "../components/inference/limits";
import { CHART_VERSION, DIGEST_PINNED, validate as validateInference } from "../components/inference/validate";
import type { IntRange } from "../components/_shared/limits";
import { DEFAULT_GRAPH_NAME, K8S_NAME } from "../components/_shared/names";
import { Problem, show, ValidationError } from "../components/_shared/problems";
import { closest, didYouMean } from "../components/_shared/suggest";
import { charts, kubernetes } from "../components/versions";
import { brief, check, Field, Spec } from "./schema";
import { checkObservability, ObservabilityConfig } from "./config-observability";

/** Config namespace (the Pulumi project name). */
export const CONFIG_NAMESPACE = "dynamo-efa";
/** The one GPU pool stack config describes; the program names it `gpu`. */
export const GPU_POOL_NAME = "gpu";

export { CapacityType };

const values = <T extends Record<string, string>>(o: T): string[] => Object.values(o);
const REGION = /^[a-z]{2}(-gov)?-[a-z]+-\d$/;

const str = (extra: Partial<Extract<Spec, { kind: "string" }>> = {}): Spec => ({ kind: "string", ...extra });
/** A whole number in a component's own range (its limits table), so schema and validator agree. */
const int = (r: IntRange): Spec => ({ kind: "integer", min: r.min, max: r.max });
const role = (doc: string): Field => ({
  doc,
  spec: { kind: "object", fields: {
    replicas: { spec: int(ROLE_LIMITS.replicas), default: 1, doc: "worker pods of this role (one engine process each)" },
    gpusPerWorker: { spec: int(ROLE_LIMITS.gpusPerWorker), default: 1, doc: "GPUs per worker (= tensor-parallel size); must divide the node's GPUs" },
  } },
});

/** `dynamo-efa:cluster`. */
export const CLUSTER_FIELDS: Readonly<Record<string, Field>> = {
  kubernetesVersion: { spec: str({ enum: kubernetes.supportedVersions, numberAsString: (n) => n.toFixed(2) }), default: kubernetes.defaultVersion, doc: "EKS Kubernetes version" },
  availabilityZone: { spec: str({ pattern: AZ_NAME, patternDoc: 'an availability zone name such as "us-east-2b"' }), required: true, doc: "the one AZ the GPU nodes live in (EFA needs one AZ); must be in aws:region and offer the instance type" },
  availabilityZones: { spec: { kind: "array", items: str({ pattern: AZ_NAME, patternDoc: 'an availability zone name such as "us-east-2a"' }) }, defaultDoc: '- availabilityZone plus the region\'s "a" zone (or "b" when it is "a")', doc: "AZs of the VPC (EKS needs 2); must include availabilityZone" },
  publicAccessCidrs: { spec: { kind: "array", items: str({ example: "203.0.113.0/24" }) }, default: [], doc: "CIDRs allowed to reach the public API endpoint; empty = private endpoint only" },
  gpuNodes: { required: true, doc: "the GPU node pool (named `gpu`)", spec: { kind: "object", fields: {
    instanceType: { spec: str({ example: "p5en.48xlarge" }), required: true, doc: "EC2 GPU instance type (from the catalog)" },
    count: { spec: int(CLUSTER_LIMITS.nodes), required: true, doc: "number of GPU nodes" },
    capacity: { doc: "how the nodes are bought", spec: { kind: "object", fields: {
      type: { spec: str({ enum: values(CapacityType) }), default: CapacityType.OnDemand, doc: "on-demand, a Capacity Block, or an On-Demand Capacity Reservation" },
      reservationId: { spec: str({ pattern: CAPACITY_RESERVATION_ID, patternDoc: 'a capacity reservation id "cr-" + 17 hex digits, e.g. "cr-0123456789abcdef0"' }), defaultDoc: "- (required for capacity-block and odcr)", doc: "the reservation to launch into" },
    } } },
    placementGroup: { spec: { kind: "boolean" }, defaultDoc: "- true for on-demand EFA pools, false for reserved capacity", doc: "launch into a `cluster` placement group" },
  } } },
};

/** `dynamo-efa:image`. */
export const IMAGE_FIELDS: Readonly<Record<string, Field>> = {
  cudaArchs: { spec: { kind: "keywordOrList", keywords: CUDA_ARCHS_KEYWORDS, items: str() }, defaultDoc: '`"fat"` (state it explicitly with ref)', doc: '"fat" (broad default), "auto" (exactly the GPU pool\'s SM archs) or a list of arch tokens such as ["sm_90"]' },
  cudaToolkit: { spec: str({ enum: CUDA_TOOLKITS, numberAsString: (n) => (Number.isInteger(n) ? n.toFixed(1) : String(n)) }), defaultDoc: `\`"${DEFAULT_CUDA_TOOLKIT}"\``, doc: "CUDA toolkit of the image's compile stages" },
  versions: { spec: { kind: "map", keyDoc: "Dockerfile version keys (see dockerfiles/README.md)", values: str() }, defaultDoc: "- components/versions.ts", doc: "overrides of the image's component versions, e.g. { vllm: v0.17.1 }" },
  ref: { spec: str({ pattern: DIGEST_PINNED, patternDoc: 'a digest-pinned image reference "<repository>@sha256:<64 hex digits>"' }), defaultDoc: "- (build the image)", doc: "use this prebuilt image instead of building; then list cudaArchs explicitly" },
  builder: { spec: str({ example: "dynamo-builder" }), defaultDoc: "- the default buildx builder", doc: "name of an existing buildx builder (linux/amd64; README \"Building the image\")" },
};

/** `dynamo-efa:inference`. */
export const INFERENCE_FIELDS: Readonly<Record<string, Field>> = {
  backend: { spec: str({ enum: values(Backend) }), default: INFERENCE_DEFAULTS.backend, doc: "inference engine" },
  model: { spec: str({ example: "meta-llama/Llama-3.1-8B-Instruct" }), required: true, doc: "Hugging Face model id" },
  servedModelName: { spec: str(), defaultDoc: "- the model id", doc: "name clients send in `model`" },
  prefill: role("prefill workers"),
  decode: role("decode workers"),
  maxModelLen: { spec: int(INFERENCE_LIMITS.maxModelLen), default: INFERENCE_DEFAULTS.maxModelLen, doc: "maximum tokens per sequence (prompt + output)" },
  gpuMemoryUtilization: { spec: { kind: "number", ...INFERENCE_LIMITS.gpuMemoryUtilization, example: 0.85 }, default: INFERENCE_DEFAULTS.gpuMemoryUtilization, doc: "fraction of GPU memory the engine may use" },
  kvCacheDtype: { spec: str({ enum: values(KvCacheDtype) }), default: KvCacheDtype.Auto, doc: "KV-cache element type: the model's own (bf16) or fp8 (vLLM `--kv-cache-dtype fp8`, TRT-LLM `kv_cache_config.dtype: fp8`); also sizes the plan's KV capacity and transfer numbers" },
  modelShape: { defaultDoc: "- none (a model outside the catalog renders with its fit unknown)", doc: "shape of a private model the model catalog does not know (from its config.json), so the plan checks that it fits", spec: { kind: "object", fields: {
    paramsB: { spec: { kind: "number", ...MODEL_SHAPE_LIMITS.paramsB, example: 8.03 }, required: true, doc: "total parameters, in billions" },
    weightDtype: { spec: str({ enum: values(WeightDtype) }), required: true, doc: "storage dtype of the weights" },
    layers: { spec: int(MODEL_SHAPE_LIMITS.layers), required: true, doc: "num_hidden_layers" },
    attentionHeads: { spec: int(MODEL_SHAPE_LIMITS.attentionHeads), required: true, doc: "num_attention_heads" },
    kvHeads: { spec: int(MODEL_SHAPE_LIMITS.kvHeads), defaultDoc: "- (required unless mla is set)", doc: "num_key_value_heads" },
    headDim: { spec: int(MODEL_SHAPE_LIMITS.headDim), defaultDoc: "- (required unless mla is set)", doc: "head_dim" },
    maxContext: { spec: int(MODEL_SHAPE_LIMITS.maxContext), required: true, doc: "max_position_embeddings" },
    mla: { doc: "multi-head latent attention (DeepSeek-V3 style)", spec: { kind: "object", fields: {
      kvLoraRank: { spec: int(MODEL_SHAPE_LIMITS.kvLoraRank), required: true, doc: "kv_lora_rank" },
      qkRopeHeadDim: { spec: int(MODEL_SHAPE_LIMITS.qkRopeHeadDim), required: true, doc: "qk_rope_head_dim" },
    } } },
  } } },
  modelLoadBudgetSeconds: { spec: int(INFERENCE_LIMITS.modelLoadBudgetSeconds), default: INFERENCE_DEFAULTS.modelLoadBudgetSeconds, doc: "seconds a worker may take to load its model; probes and `pulumi up`'s wait are sized from it" },
  hfTokenSecretName: { spec: str({ pattern: K8S_NAME, patternDoc: "a Kubernetes Secret name (lower-case RFC 1123)" }), defaultDoc: "- (create one from dynamo-efa:hfToken)", doc: "existing Secret with HF_TOKEN and HUGGING_FACE_HUB_TOKEN, instead of the token" },
  namespace: { spec: str(), default: INFERENCE_DEFAULTS.namespace, doc: "Kubernetes namespace of the graph" },
  modelCacheMode: { spec: str({ enum: values(ModelCacheMode) }), defaultDoc: '- "efs" when modelCacheGiB is set, else "local-nvme"', doc: 'where the weights come from: "local-nvme" (each node downloads once, before its workers start, into its NVMe RAID0 array; workers mount it read-only), "efs" (one shared EFS cache of modelCacheGiB), "none" (every worker downloads itself)' },
  modelCacheGiB: { spec: int(INFERENCE_LIMITS.modelCacheSizeGiB), defaultDoc: "- none", doc: 'size of the shared ReadWriteMany model cache of mode "efs" (EFS, retained on delete) mounted by every worker; turns on EFS in the cluster' },
  modelDownloadBudgetSeconds: { spec: int(INFERENCE_LIMITS.modelDownloadBudgetSeconds), default: INFERENCE_DEFAULTS.modelDownloadBudgetSeconds, doc: 'seconds the "local-nvme" prefetch may take to download the model to a node; then modelLoadBudgetSeconds covers only the load from NVMe' },
  placement: { spec: str({ enum: values(Placement) }), defaultDoc: '- "separate-nodes" when the pool has >= 2 nodes, else "any"', doc: "keep prefill and decode on different nodes (KV over EFA)" },
  kvTransport: { spec: str({ enum: values(KvTransportChoice) }), default: KvTransportChoice.Auto, doc: 'NIXL backend for KV cache: "libfabric" (RDMA over EFA), "ucx" (TCP, no EFA devices) or "auto" (libfabric on EFA pools)' },
  platform: { doc: "the dynamo-platform Helm release (operator + CRDs)", spec: { kind: "object", fields: {
    install: { spec: { kind: "boolean" }, default: true, doc: "install it; false when the cluster already runs a Dynamo operator" },
    version: { spec: str({ pattern: CHART_VERSION, patternDoc: 'a chart version such as "1.0.1"' }), default: charts.dynamoPlatform.version, doc: "dynamo-platform chart version (its NGC tarball URL)" },
  } } },
  frontend: { doc: "the OpenAI-compatible Frontend", spec: { kind: "object", fields: {
    replicas: { spec: int(INFERENCE_LIMITS.frontendReplicas), default: 1, doc: "Frontend pods" },
    serviceType: { spec: str({ enum: values(FrontendServiceType) }), default: FrontendServiceType.ClusterIP, doc: "in-cluster only, or an internal load balancer" },
  } } },
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

const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, "");
const sortedLetters = (s: string) => [...s.toLowerCase()].sort().join("");
/** `a` is a near miss of `b`: case, separators, one edit per 4 characters, or swapped letters. */
function lookAlike(a: string, b: string): boolean {
  return a !== b && (squash(a) === squash(b) || closest(a, [b]).length > 0 || (a.length > 3 && sortedLetters(a) === sortedLetters(b)));
}

/** Problems with the full config keys (`ns:key`) of a stack: typos, dotted keys, look-alike namespaces. */
export function configKeyProblems(keys: readonly string[]): Problem[] {
  const known = Object.keys(STACK_KEYS);
  const out: Problem[] = [];
  for (const full of keys) {
    const colon = full.indexOf(":");
    const [ns, key] = colon < 0 ? [CONFIG_NAMESPACE, full] : [full.slice(0, colon), full.slice(colon + 1)];
    const at = brief(full).slice(1, -1);
    if (ns === CONFIG_NAMESPACE) {
      if (key in STACK_KEYS) continue;
      const [head, ...rest] = key.split(".");
      const reason = rest.length > 0 && head in STACK_KEYS
        ? `a dotted key is one literal key to Pulumi, not a path; nest it: ${CONFIG_NAMESPACE}:${head}: { ${rest.join(".")}: ... } (or --set ${key}=...)`
        : `unknown key${didYouMean(key, known) || `; the ${CONFIG_NAMESPACE} keys are ${known.join(", ")}`}`;
      out.push({ propertyPath: at, reason });
    } else if (lookAlike(ns, CONFIG_NAMESPACE)) {
      out.push({ propertyPath: at, reason: `namespace ${JSON.stringify(ns)} is not the project's; did you mean "${CONFIG_NAMESPACE}:${key}"?` });
    } else if (!FOREIGN_KEYS.includes(full)) {
      const near = FOREIGN_KEYS.find((f) => f.startsWith(`${ns}:`) && lookAlike(key, f.slice(ns.length + 1)));
      if (near) out.push({ propertyPath: at, reason: `not a key this program reads; did you mean "${near}"?` });
    }
  }
  return out;
}

/**
 * The raw config as the program reads it, from a getter of full keys (`aws:region`,
 * `dynamo-efa:inference`) that returns the runtime's string values: object keys are JSON-parsed.
 * `readStackConfig` (under Pulumi) and the offline tools (from a stack file) both build it here.
 */
export function rawStackConfig(get: (fullKey: string) => string | undefined, keys: readonly string[], hfTokenSet: boolean): RawStackConfig {
  const objectOrRaw = (key: string): unknown => {
    const text = get(`${CONFIG_NAMESPACE}:${key}`);
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text);
    } catch {
      return text; // a scalar where an object belongs: the schema check names the key and the type
    }
  };
  return {
    region: get("aws:region"),
    graphName: get(`${CONFIG_NAMESPACE}:graphName`),
    cluster: objectOrRaw("cluster"),
    image: objectOrRaw("image"),
    inference: objectOrRaw("inference"),
    observability: objectOrRaw("observability"),
    hfTokenSet,
    keys,
  };
}

/** Raw values as read from config (objects already parsed from JSON). */
export interface RawStackConfig {
  readonly region?: unknown;
  readonly graphName?: unknown;
  readonly cluster?: unknown;
  readonly image?: unknown;
  readonly inference?: unknown;
  /** `dynamo-efa:observability`: false, or an object (absent = monitoring on). */
  readonly observability?: unknown;
  /** Whether `dynamo-efa:hfToken` is set (its value is never needed to validate). */
  readonly hfTokenSet: boolean;
  /** Every full config key of the stack (`ns:key`), to catch typos. @default - not checked */
  readonly keys?: readonly string[];
}

/** `dynamo-efa:cluster`, checked and defaulted. */
export interface ClusterConfig {
  readonly kubernetesVersion: string;
  readonly availabilityZone: string;
  readonly availabilityZones?: readonly string[];
  readonly publicAccessCidrs: readonly string[];
  readonly gpuNodes: {
    readonly instanceType: string;
    readonly count: number;
    readonly capacity: { readonly type: CapacityType; readonly reservationId?: string };
    readonly placementGroup?: boolean;
  };
}

/** `dynamo-efa:image`, checked, with the arch list resolved. */
export interface ImageConfig {
  readonly cudaArchs?: "fat" | "auto" | readonly string[];
  readonly cudaToolkit?: CudaToolkit;
  readonly ref?: string;
  readonly versions?: Readonly<Record<string, string>>;
  readonly builder?: string;
  /** The canonical arch list `cudaArchs` resolves to for this pool (e.g. `["sm_90"]`). */
  readonly resolvedCudaArchs: readonly string[];
}

/** The whole stack config, checked, defaulted and mapped to component arguments. */
export interface StackConfig {
  readonly region: string;
  readonly graphName: string;
  readonly cluster: ClusterConfig;
  /** `EfaCluster` arguments the cluster config maps to (one pool, named `gpu`). */
  readonly clusterArgs: EfaClusterArgs;
  readonly image: ImageConfig;
  /** `DynamoImage` arguments the image config maps to. */
  readonly imageArgs: DynamoImageArgs;
  /** Inference settings, ready for `DisaggInference` (plus image, provider, token). */
  readonly inference: Omit<InferenceSettings, "gpuPool">;
  /** The GPU pool's facts, as `EfaCluster` derives them from the catalog. */
  readonly gpuPool: GpuPoolFacts;
  /** Monitoring of the graph; undefined when `observability` is off. */
  readonly observability?: ObservabilityConfig;
}

/** Rewrites component argument paths to the config keys a user writes (most specific first). */
const PATH_MAP: readonly (readonly [from: string, to: string])[] = [
  ["region", "aws:region"],
  ["inference.hfToken", "hfToken"],
  ["inference.gpuPool.cpuArch", "cluster.gpuNodes.instanceType"],
  ["inference.gpuPool", "cluster.gpuNodes"],
  ["inference.image", "image.ref"],
  ["inference.modelCache.sizeGiB", "inference.modelCacheGiB"],
  [`gpuPools.${GPU_POOL_NAME}.nodes`, "cluster.gpuNodes.count"],
  [`gpuPools.${GPU_POOL_NAME}.capacityReservationId`, "cluster.gpuNodes.capacity.reservationId"],
  [`gpuPools.${GPU_POOL_NAME}.capacity`, "cluster.gpuNodes.capacity.type"],
  [`gpuPools.${GPU_POOL_NAME}.availabilityZone`, "cluster.availabilityZone"],
  [`gpuPools.${GPU_POOL_NAME}.efa`, "cluster.gpuNodes.instanceType"],
  [`gpuPools.${GPU_POOL_NAME}`, "cluster.gpuNodes"],
];

/** A component's problem, at the config key the user wrote. `clusterArg` marks `EfaCluster` paths. */
export function toConfigPath(p: Problem, clusterArg = false): Problem {
  for (const [from, to] of PATH_MAP) {
    if (p.propertyPath === from || p.propertyPath.startsWith(`${from}.`) || p.propertyPath.startsWith(`${from}[`)) {
      return { ...p, propertyPath: to + p.propertyPath.slice(from.length) };
    }
  }
  return clusterArg ? { ...p, propertyPath: `cluster.${p.propertyPath}` } : p;
}

/** `p` under `section.` unless its path already starts there. */
const within = (section: string, p: Problem): Problem => (p.propertyPath.startsWith(`${section}.`) ? p : { ...p, propertyPath: `${section}.${p.propertyPath}` });

/** Where each component's argument paths sit in the stack config, by the component's name. */
const COMPONENT_SECTIONS: Readonly<Record<string, (p: Problem) => Problem>> = {
  EfaCluster: (p) => toConfigPath(p, true),
  DynamoImage: (p) => toConfigPath(within("image", p)),
  DisaggInference: (p) => toConfigPath(within("inference", p)),
  DynamoObservability: (p) => within("observability", p),
};

/**
 * A component's problems (from the error it threw: `subjectOf` in components/_shared/pulumi-errors.ts)
 * at the config keys the user wrote; an unknown component's paths only go through `toConfigPath`.
 */
export function componentProblemsAtConfig(component: string | undefined, problems: readonly Problem[]): Problem[] {
  const place = (component !== undefined && COMPONENT_SECTIONS[component]) || ((p: Problem) => toConfigPath(p));
  return problems.map(place);
}

/** The VPC's AZs when the config lists none: the GPU AZ plus the region's "a" zone ("b" when it is "a"). */
export function defaultVpcZones(az: string): string[] {
  const region = az.slice(0, -1);
  return [...new Set([az, az.endsWith("a") ? `${region}b` : `${region}a`])].sort();
}

/** `EfaCluster` arguments for the cluster config. */
export function clusterArgsOf(c: Partial<ClusterConfig>, efs = false, region?: string): EfaClusterArgs {
  const n = c.gpuNodes;
  const cap = n?.capacity;
  return {
    gpuPools: {
      [GPU_POOL_NAME]: {
        instanceType: n?.instanceType as string,
        nodes: n?.count as number,
        ...(c.availabilityZone ? { availabilityZone: c.availabilityZone } : {}),
        ...(cap?.type ? { capacity: cap.type } : {}),
        ...(cap?.reservationId !== undefined ? { capacityReservationId: cap.reservationId } : {}),
        ...(n?.placementGroup !== undefined ? { placementGroup: n.placementGroup } : {}),
      },
    },
    ...(c.kubernetesVersion ? { kubernetesVersion: c.kubernetesVersion } : {}),
    ...(c.availabilityZones ?? c.availabilityZone ? { availabilityZones: c.availabilityZones ?? defaultVpcZones(c.availabilityZone!) } : {}),
    publicAccessCidrs: c.publicAccessCidrs ?? [],
    ...(efs ? { efs: true } : {}),
    ...(region ? { region } : {}),
  };
}

/** `dynamo-efa:inference` as read: the component's settings plus config-only shorthands. */
type RawInference = Omit<InferenceSettings, "gpuPool" | "modelCache"> & { readonly modelCacheGiB?: number };

/**
 * The inference settings for the config: `modelCacheMode` defaults to "efs" with `modelCacheGiB`, else
 * "local-nvme": every catalogued GPU type has instance-store NVMe, and the cluster makes it a RAID0 array), and
 * `modelCacheGiB` becomes a model-cache volume on the cluster's shared (EFS) StorageClass, the only class here
 * that serves ReadWriteMany.
 */
export function inferenceSettingsOf(raw: RawInference): Omit<InferenceSettings, "gpuPool"> {
  const { modelCacheGiB, ...settings } = raw;
  const modelCacheMode = settings.modelCacheMode ?? (modelCacheGiB !== undefined ? ModelCacheMode.Efs : ModelCacheMode.LocalNvme);
  if (modelCacheGiB === undefined) return { ...settings, modelCacheMode };
  return { ...settings, modelCacheMode, modelCache: { storageClassName: SHARED_STORAGE_CLASS, sizeGiB: modelCacheGiB } };
}

/**
 * The cluster's own validation at config paths; the component checks every AZ against aws:region.
 * When the config lists no availabilityZones they are derived from availabilityZone, so a region
 * mismatch there is already reported at cluster.availabilityZone and not repeated for derived zones.
 */
function clusterProblems(c: Partial<ClusterConfig>, region: string | undefined, efs: boolean): Problem[] {
  const out = validateClusterArgs(clusterArgsOf(c, efs, region)).map((p) => toConfigPath(p, true));
  const derived = (p: Problem) => c.availabilityZones === undefined && p.propertyPath.startsWith("cluster.availabilityZones") && p.reason.includes("(aws:region)");
  return out.filter((p) => !derived(p));
}

/** `DynamoImage` arguments for the image config (the pool's instance type feeds "auto"). */
export function imageArgsOf(im: Partial<ImageConfig>, instanceType: string | undefined): DynamoImageArgs {
  return {
    ...(im.cudaArchs !== undefined ? { cudaArchs: im.cudaArchs } : {}),
    ...(im.cudaToolkit !== undefined ? { cudaToolkit: im.cudaToolkit } : {}),
    ...(im.ref !== undefined ? { ref: im.ref } : {}),
    ...(im.versions !== undefined ? { versions: im.versions } : {}),
    ...(im.builder !== undefined ? { builder: im.builder } : {}),
    instanceTypes: instanceType ? [instanceType] : [],
  };
}

/** The image's own validation (`imagePlan`), at config paths; and the arch list it resolves to. */
function imageProblems(args: DynamoImageArgs): { archs: string[]; toolkit?: string; problems: Problem[] } {
  try {
    const plan = imagePlan(args);
    return { archs: [...plan.cudaArchs], toolkit: plan.cudaToolkit, problems: [] };
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e;
    const problems = e.problems.map((p) =>
      p.propertyPath.startsWith("instanceTypes") ? { ...p, propertyPath: "cluster.gpuNodes.instanceType" } : { ...p, propertyPath: `image.${p.propertyPath}` });
    return { archs: [], problems };
  }
}

/** Drops a semantic problem when a type problem already explains it (same path, parent or child). */
function dedupe(typeProblems: readonly Problem[], semantic: readonly Problem[]): Problem[] {
  const related = (a: string, b: string) => a === b || a.startsWith(`${b}.`) || a.startsWith(`${b}[`) || b.startsWith(`${a}.`) || b.startsWith(`${a}[`);
  const seen = new Set<string>();
  const out: Problem[] = [...typeProblems];
  for (const p of semantic) {
    const key = `${p.propertyPath}\n${p.reason}`;
    if (seen.has(key) || typeProblems.some((t) => related(t.propertyPath, p.propertyPath))) continue;
    seen.add(key);
    out.push(p);
  }
  return out;
}

/**
 * Checks the whole stack config and maps it to component arguments. Returns every problem (key path,
 * bad value, allowed values, fix); `config` is set only when there are none.
 */
export function checkStackConfig(raw: RawStackConfig): { config?: StackConfig; problems: Problem[] } {
  const region = check("aws:region", raw.region ?? "", str({ pattern: REGION, patternDoc: 'an AWS region such as "us-east-2"' }));
  const graphName = check("graphName", raw.graphName ?? DEFAULT_GRAPH_NAME, str({ pattern: K8S_NAME, patternDoc: "a lower-case RFC 1123 name" }));
  const cluster = check("cluster", raw.cluster ?? {}, { kind: "object", fields: CLUSTER_FIELDS });
  const image = check("image", raw.image ?? {}, { kind: "object", fields: IMAGE_FIELDS });
  const inference = check("inference", raw.inference ?? {}, { kind: "object", fields: INFERENCE_FIELDS });
  const typeProblems = [...configKeyProblems(raw.keys ?? []), ...[region, graphName, cluster, image, inference].flatMap((c) => c.problems)];

  const c = (cluster.value ?? {}) as Partial<ClusterConfig>;
  const im = (image.value ?? {}) as Partial<ImageConfig>;
  const inf = inferenceSettingsOf((inference.value ?? {}) as RawInference);
  const efs = inf.modelCache !== undefined;
  const regionValue = region.problems.length === 0 ? (region.value as string | undefined) : undefined;
  const semantic: Problem[] = [...clusterProblems(c, regionValue, efs)];
  const instanceType = c.gpuNodes?.instanceType;
  const resolved = imageProblems(imageArgsOf(im, instanceType));
  semantic.push(...resolved.problems);
  const obs = checkObservability(raw.observability, (graphName.value as string | undefined) ?? DEFAULT_GRAPH_NAME, inf.namespace ?? INFERENCE_DEFAULTS.namespace);

  const clusterArgs = clusterArgsOf(c, efs, regionValue);
  const clusterOk = semantic.every((p) => !p.propertyPath.startsWith("cluster.gpuNodes"));
  const pool = clusterOk && instanceType && INSTANCES.has(instanceType) && c.gpuNodes?.count
    ? poolFacts(resolvePool(GPU_POOL_NAME, clusterArgs.gpuPools[GPU_POOL_NAME]))
    : undefined;
  if (pool && inference.value) {
    const settings: InferenceSettings = { ...inf, gpuPool: pool, graphName: graphName.value as string | undefined };
    const image = im.ref ?? `placeholder.invalid/dynamo@sha256:${"0".repeat(64)}`;
    semantic.push(...validateInference(resolveArgs("llm", settings, image), raw.hfTokenSet, "inference").map((p) => toConfigPath(p)));
  }
  const problems = dedupe(typeProblems, [...semantic, ...obs.problems]);
  if (problems.length > 0 || !pool) return { problems };
  return {
    problems,
    config: {
      region: region.value as string,
      graphName: graphName.value as string,
      cluster: c as ClusterConfig,
      clusterArgs,
      image: { ...(im as Omit<ImageConfig, "resolvedCudaArchs">), resolvedCudaArchs: resolved.archs },
      imageArgs: imageArgsOf(im, instanceType),
      inference: { ...inf, graphName: graphName.value as string, imageCudaArchs: resolved.archs, imageCudaToolkit: resolved.toolkit ?? DEFAULT_CUDA_TOOLKIT },
      gpuPool: pool,
      ...(obs.value ? { observability: obs.value } : {}),
    },
  };
}
