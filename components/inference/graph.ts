/**
 * The ONE DynamoGraphDeployment (F1) holding Frontend, PrefillWorker and DecodeWorker, as a plain
 * object. Pure. Field shapes follow the v1alpha1 CRD (docs/ARCHITECTURE.md#the-dynamographdeployment-schema): resources in
 * Dynamo's form (`limits.gpu`, `limits.custom`, F8), service-level `readinessProbe` and `livenessProbe` (each
 * replaces the operator's wholesale) and `extraPodSpec.mainContainer.startupProbe` (merged over the operator's
 * defaults, startupProbe replaced wholesale). Also here: the engine section (what differs between vLLM and
 * TensorRT-LLM workers: command, env, engine-args file). The CR's TypeScript types are `./dgd.ts`.
 */
import {
  GraphService,
  DynamoPort,
  DynamoPortName,
  OperatorLabel,
  graphNames,
  REQUEST_PLANE_PORT,
} from "../_shared/names";
import { INSTANCES } from "../catalog/instances";
import {
  Placement,
  ResolvedInference,
  ServingRole,
  Backend,
  DEFAULT_MODEL_REVISION,
  KvTransport,
  roleArgs,
} from "./args";
import { ModelCacheMode } from "./model-load";
import { usesEfa, workerShape, WorkerShape, modelAnnotations } from "./fit";
import {
  nodeCacheAnnotations,
  nodeCacheEnv,
  nodeCacheInitContainers,
  nodeCacheMainMounts,
  nodeCacheVolumes,
  usesNodeCache,
  engineModelArg,
} from "./cache";
import { Annotation } from "../_shared/annotations";
import { createHash } from "crypto";
import { stringify } from "yaml";
import { KvCacheDtype } from "../catalog/models";
import {
  DGD_API_VERSION,
  DGD_KIND,
  DgdAffinity,
  DgdBackendFramework,
  DgdMetadata,
  DgdResources,
  DgdSecurityContext,
  DgdService,
  DgdSpec,
  DynamoGraphDeployment,
  EFA_RESOURCE,
  EnvVar,
  HUGEPAGES_2MI_RESOURCE,
  K8sVolume,
  K8sVolumeMount,
  PodAffinityTerm,
  StringMap,
} from "./dgd";
import { shellQuote } from "../_shared/shell";
import { MODEL_CACHE_HF_HOME, MODEL_CACHE_MOUNT, frontendModelFiles } from "./frontend-model";
import { RUNTIME_DEFAULT } from "./pod-security";
import { frontendSettings, workerProbes, workerSettings } from "./stated-settings";
import { GraphApiVersion, release } from "../releases";
import { toV1beta1, V1beta1Graph } from "./dgd-v1beta1";
import { podClaims, usesDra, WORKER_CLAIM, workerClaim } from "./device-claims";

/** Where the model cache PVC is mounted (and `HF_HOME` points). */
export { MODEL_CACHE_MOUNT };

/**
 * The operator reports a `Ready` condition (True when state is `successful`): ai-dynamo/dynamo
 * `internal/controller/dynamographdeployment_controller.go` (`AddStatusCondition(Type: "Ready")`),
 * and NVIDIA's docs block on `kubectl wait --for=condition=Ready dynamographdeployment/<name>`.
 */
export const DGD_WAIT_FOR = "condition=Ready";

/** The graph's service key of a role. */
export function serviceKey(role: ServingRole): GraphService {
  return role === ServingRole.Prefill ? GraphService.Prefill : GraphService.Decode;
}

/**
 * The env vars NIXL over EFA needs: libfabric's EFA provider, GPU RDMA, no SHM transport
 * (`FI_EFA_ENABLE_SHM_TRANSFER`; the similar-looking `FI_EFA_ENABLE_SHM` is read by no libfabric
 * release, so it is not emitted), and no hugepages when the worker gets none.
 */
export function efaEnv(shape: WorkerShape): EnvVar[] {
  const env: EnvVar[] = [
    { name: "FI_PROVIDER", value: "efa" },
    { name: "FI_EFA_USE_DEVICE_RDMA", value: "1" },
    { name: "FI_EFA_ENABLE_SHM_TRANSFER", value: "0" },
  ];
  if (shape.hugepages2MiPages === 0) env.push({ name: "FI_EFA_USE_HUGE_PAGE", value: "0" });
  return env;
}

function annotations(r: ResolvedInference): Record<string, string> {
  const a: Record<string, string> = {
    "pulumi.com/waitFor": DGD_WAIT_FOR,
    "pulumi.com/timeoutSeconds": String(waitTimeoutSeconds(r)),
    [Annotation.ModelLoadBudgetSeconds]: String(r.modelLoadBudgetSeconds),
  };
  if (r.imageCudaArchs) a[Annotation.ImageCudaArchs] = r.imageCudaArchs.join(",");
  if (r.imageCudaToolkit) a[Annotation.ImageCudaToolkit] = r.imageCudaToolkit;
  const row = INSTANCES.get(r.pool.instanceType);
  if (row && row.efaHugepages2Mi !== r.pool.hugepages2MiPerNode)
    a[Annotation.Hugepages2MiPerNode] = String(r.pool.hugepages2MiPerNode);
  return {
    ...a,
    ...modelAnnotations(r),
  };
}

function roleSelector(r: ResolvedInference, role: ServingRole): PodAffinityTerm["labelSelector"] {
  return {
    matchLabels: { [OperatorLabel.GraphName]: r.graphName, [OperatorLabel.Component]: serviceKey(role) },
  };
}

/**
 * Separate-node placement on any number of nodes: a required anti-affinity to the OTHER role keeps every
 * node to one role (KV over EFA fails with EAGAIN when prefill and decode share a node: Dynamo's
 * disaggregation communication guide, tests/contracts/facts/prefill-decode-apart.json), and a preferred
 * affinity to the worker's OWN role packs a role onto the nodes it already holds, so the first pods of a
 * role do not spread over the empty nodes the other role needs (`nodesPerRole` in `./fit.ts` is the
 * count each role gets). Required affinity to the own role would confine a role to ONE node. Both on
 * labels the operator sets (F7).
 */
export function workerAffinity(r: ResolvedInference, role: ServingRole): DgdAffinity | undefined {
  if (r.placement !== Placement.SeparateNodes) return undefined;
  const other = role === ServingRole.Prefill ? ServingRole.Decode : ServingRole.Prefill;
  const term = (sel: PodAffinityTerm["labelSelector"]): PodAffinityTerm => ({
    labelSelector: sel,
    topologyKey: HOSTNAME_TOPOLOGY_KEY,
  });
  return {
    podAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: term(roleSelector(r, role)) }],
    },
    podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term(roleSelector(r, other))] },
  };
}

/** The node-level topology key: one node per domain. */
export const HOSTNAME_TOPOLOGY_KEY = "kubernetes.io/hostname";

/**
 * A worker's resources as rendered (`plan.ts` reads the requests for plan.json). Under DRA (`claimed`) the GPUs and
 * EFA devices come from the worker's ResourceClaim (`./device-claims.ts`), so no extended-resource count is written:
 * a count would ask the device plugins, which a DRA cluster does not run.
 */
export function workerResources(shape: WorkerShape, claimed = false): DgdResources {
  const custom: Record<string, string> = {};
  if (shape.efaPerWorker > 0 && !claimed) custom[EFA_RESOURCE] = String(shape.efaPerWorker);
  const huge: StringMap = shape.hugepages2MiPages > 0 ? { [HUGEPAGES_2MI_RESOURCE]: `${shape.hugepages2MiMi}Mi` } : {};
  return {
    requests: {
      cpu: String(shape.cpu),
      memory: `${shape.memoryGiB}Gi`,
      ...(shape.hugepages2MiPages > 0 ? { custom: huge } : {}),
    },
    limits: {
      memory: `${shape.memoryGiB}Gi`,
      ...(claimed ? {} : { gpu: String(shape.gpusPerWorker) }),
      ...(Object.keys({ ...custom, ...huge }).length > 0 || !claimed ? { custom: { ...custom, ...huge } } : {}),
    },
  };
}

/** The claim counts a DRA worker's pod carries for readers that see only the graph (policies, the plan). */
function claimAnnotations(shape: WorkerShape): Record<string, string> {
  const c = workerClaim(shape);
  return { [Annotation.ClaimGpus]: String(c.gpus), [Annotation.ClaimEfaPerGpu]: String(c.efaPerGpu) };
}

/** The one capability an EFA worker adds. */
export const EFA_WORKER_CAPABILITY = "IPC_LOCK";

/**
 * Never privileged: a privileged container gets every host device, so co-located workers would all
 * see every GPU (no CUDA_VISIBLE_DEVICES; each engine takes cuda:0) and NIXL would open every EFA
 * device on the node (kubernetes/kubernetes#81256). What privileged used to give, and where it comes
 * from now:
 * - the EFA devices (`/dev/infiniband/uverbs*`): the EFA device plugin mounts exactly the ones
 *   allocated to the pod (`resources.limits.custom["vpc.amazonaws.com/efa"]`), or under DRA the EFA DRA
 *   driver those of the pod's claim. Which ones: under the device plugin, its own choice (AWS documents
 *   alignment with the GPUs on the EKS AL2023 accelerated AMIs only, by a mechanism it does not publish;
 *   Dynamo 1.3.1 lists partial allocations on another PCIe switch as a known issue); under DRA, each GPU's
 *   EFA devices on its PCIe root by the claim's constraint (`./device-claims.ts`). `verify --check-locality`
 *   reads what was chosen;
 * - the GPUs: the NVIDIA device plugin (or its DRA driver) exposes only the allocated ones;
 * - pinning memory for RDMA registration: `IPC_LOCK` (mlock beyond RLIMIT_MEMLOCK), the shape of
 *   upstream's EKS example (ai-dynamo/dynamo@01c94133618e46f0be1476d8f48d5f3b8f0b738f
 *   `examples/deployments/EKS/manifests/vllm/disagg-p5.yaml`: several LIBFABRIC workers per p5,
 *   `capabilities.add: [IPC_LOCK]`, no privileged). The process runs as the image's non-root user, so
 *   the capability is in its bounding set but not effective (Kubernetes grants no ambient
 *   capabilities); registration then relies on the container's RLIMIT_MEMLOCK, which the EFA pools'
 *   NodeConfig raises in containerd's base runtime spec (`components/cluster/user-data.ts`, held against
 *   nodeadm's source by tests/contracts/nodeadm-user-data.spec.ts): the AL2023 AMI itself sets none;
 * - 2 MiB hugepages: requested as `hugepages-2Mi` and mounted at /dev/hugepages (F14);
 * - registering GPU memory with EFA: DMA-BUF on the AL2023 AMI's 6.x kernels (no module, no capability), and on
 *   x86_64 the EFA provider's legacy path handles CUDA memory too; Dynamo's guide runs workers privileged ("IPC_LOCK
 *   alone is insufficient") without naming a mechanism, and its one fi_mr_reg failure is arm64-only
 *   (tests/contracts/efa-gpudirect.spec.ts). verify's gate G reads the registration path, the machine and the
 *   devices a worker sees on its node.
 */
function workerSecurity(r: ResolvedInference, efa: boolean): DgdSecurityContext {
  const base = {
    runAsNonRoot: true,
    runAsUser: r.runAsUser,
    allowPrivilegeEscalation: false,
    seccompProfile: RUNTIME_DEFAULT,
  };
  if (efa) return { ...base, capabilities: { drop: ["ALL"], add: [EFA_WORKER_CAPABILITY] } };
  return { ...base, capabilities: { drop: ["ALL"] } };
}

function volumes(
  r: ResolvedInference,
  shape: WorkerShape,
  engine: EngineParts,
): { vols: K8sVolume[]; mounts: K8sVolumeMount[] } {
  const vols: K8sVolume[] = [...nodeCacheVolumes(r)];
  const mounts: K8sVolumeMount[] = [...nodeCacheMainMounts(r)];
  if (shape.hugepages2MiPages > 0) {
    vols.push({ name: "hugepages-2mi", emptyDir: { medium: "HugePages-2Mi" } });
    mounts.push({ name: "hugepages-2mi", mountPath: "/dev/hugepages" });
  }
  if (engine.file) {
    vols.push({ name: "engine-config", configMap: { name: engine.file.configMapName } });
    mounts.push({ name: "engine-config", mountPath: engine.file.mountDir, readOnly: true });
  }
  return { vols, mounts };
}

function workerEnv(r: ResolvedInference, shape: WorkerShape, engine: EngineParts): EnvVar[] {
  // The deciding Dynamo settings of the release, never its defaults; then the request plane on a fixed port
  // (upstream's default is an OS-assigned one), so the flow Frontend -> workers names it.
  const env: EnvVar[] = [...workerSettings(r), { name: "DYN_TCP_RPC_PORT", value: String(REQUEST_PLANE_PORT) }];
  if (usesEfa(r)) env.push(...efaEnv(shape));
  if (r.modelCache) env.push({ name: "HF_HOME", value: MODEL_CACHE_HF_HOME });
  return [...env, ...nodeCacheEnv(r), ...engine.env];
}

/** One worker service of the graph. */
export function renderWorker(r: ResolvedInference, role: ServingRole, image: string): DgdService {
  const shape = workerShape(r, role);
  const engine = engineFor(r, role);
  const efa = usesEfa(r);
  const { vols, mounts } = volumes(r, shape, engine);
  const affinity = workerAffinity(r, role);
  const names = graphNames(r.graphName, r.namespace);
  const dra = usesDra(r);
  const podAnnotations = {
    ...(engine.file ? { [Annotation.EngineConfigSha256]: engine.file.sha256 } : {}),
    ...nodeCacheAnnotations(r),
    ...(dra ? claimAnnotations(shape) : {}),
  };
  const initContainers = nodeCacheInitContainers(r, image);
  return {
    componentType: "worker",
    subComponentType: role,
    replicas: shape.replicas,
    // In local-nvme mode the engine never downloads (HF_HUB_OFFLINE=1): only the prefetch init container gets the token.
    ...(usesNodeCache(r) ? {} : { envFromSecret: r.hfSecretName ?? names.hfSecret }),
    envs: workerEnv(r, shape, engine),
    resources: workerResources(shape, dra),
    sharedMemory: { size: `${shape.shmGiB}Gi` },
    ...(r.modelCache ? { volumeMounts: [{ name: names.modelCachePvc, mountPoint: MODEL_CACHE_MOUNT }] } : {}),
    ...(Object.keys(podAnnotations).length > 0 ? { extraPodMetadata: { annotations: podAnnotations } } : {}),
    ...workerProbes(),
    extraPodSpec: {
      nodeSelector: { ...r.pool.nodeSelector },
      tolerations: r.pool.taints.map((t) => ({ key: t.key, operator: "Equal", value: t.value, effect: t.effect })),
      ...(affinity ? { affinity } : {}),
      ...(vols.length > 0 ? { volumes: vols } : {}),
      // local-nvme: the engine starts only after these exit 0, i.e. when the node's copy is complete (marker).
      ...(initContainers.length > 0 ? { initContainers } : {}),
      ...(dra ? { resourceClaims: podClaims(r, role) } : {}),
      mainContainer: {
        image,
        command: [...engine.command],
        args: [...engine.args],
        ...(dra ? { resources: { claims: [{ name: WORKER_CLAIM }] } } : {}),
        startupProbe: {
          httpGet: { path: "/live", port: DynamoPortName.WorkerSystem },
          periodSeconds: STARTUP_PERIOD_SECONDS,
          timeoutSeconds: 5,
          failureThreshold: startupFailureThreshold(r),
        },
        securityContext: workerSecurity(r, efa),
        ...(mounts.length > 0 ? { volumeMounts: mounts } : {}),
      },
    },
  };
}

/** The Frontend pod's resources (`plan.ts` reads the requests for plan.json). */
export const FRONTEND_RESOURCES: DgdResources = { requests: { cpu: "2", memory: "4Gi" }, limits: { memory: "8Gi" } };

/**
 * The Frontend service: unprivileged, non-root, all capabilities dropped, on `image` (the release's Frontend image
 * where it has one, else the serving image; `workerImage` runs the seed's model-config init container). When a
 * worker registers, the Frontend loads the files of the model card that worker published: from the worker itself
 * (self-hosted cards), or from its own copy; what each release and cache mode needs is `./frontend-model.ts`.
 */
export function renderFrontend(r: ResolvedInference, image: string, workerImage: string = image): DgdService {
  const names = graphNames(r.graphName, r.namespace);
  const files = frontendModelFiles(r, workerImage);
  const envs = [...frontendSettings(r), ...files.env];
  return {
    componentType: "frontend",
    replicas: r.frontend.replicas,
    ...(files.tokenInMain ? { envFromSecret: r.hfSecretName ?? names.hfSecret } : {}),
    ...(envs.length > 0 ? { envs } : {}),
    resources: FRONTEND_RESOURCES,
    extraPodSpec: {
      ...(files.volumes.length > 0 ? { volumes: [...files.volumes] } : {}),
      ...(files.initContainers.length > 0 ? { initContainers: [...files.initContainers] } : {}),
      mainContainer: {
        image,
        command: ["python3", "-m", "dynamo.frontend"],
        args: ["--http-port", String(DynamoPort.FrontendHttp), "--router-mode", r.frontend.routerMode],
        securityContext: {
          runAsNonRoot: true,
          runAsUser: r.runAsUser,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ["ALL"] },
          seccompProfile: RUNTIME_DEFAULT,
        },
        ...(files.mounts.length > 0 ? { volumeMounts: [...files.mounts] } : {}),
      },
    },
  };
}

/**
 * The graph as this renderer builds it: a `DynamoGraphDeployment` whose namespace, annotations and backend are
 * always set and whose services are exactly Frontend, PrefillWorker and DecodeWorker.
 */
export interface DgdObject extends DynamoGraphDeployment {
  readonly metadata: DgdMetadata & { readonly namespace: string; readonly annotations: StringMap };
  readonly spec: DgdSpec & {
    readonly backendFramework: DgdBackendFramework;
    readonly services: Readonly<Record<GraphService, DgdService>>;
  };
}

/** The whole DynamoGraphDeployment; the Frontend on `frontendImage` (the release's, where it has one). */
export function renderGraph(r: ResolvedInference, image: string, frontendImage: string = image): DgdObject {
  const names = graphNames(r.graphName, r.namespace);
  return {
    apiVersion: DGD_API_VERSION,
    kind: DGD_KIND,
    metadata: { name: r.graphName, namespace: r.namespace, annotations: annotations(r) },
    spec: {
      backendFramework: r.backend,
      ...(r.modelCache ? { pvcs: [{ name: names.modelCachePvc, create: false }] } : {}),
      services: {
        [GraphService.Frontend]: renderFrontend(r, frontendImage, image),
        [GraphService.Prefill]: renderWorker(r, ServingRole.Prefill, image),
        [GraphService.Decode]: renderWorker(r, ServingRole.Decode, image),
      },
    },
  };
}

/** A rendered graph in the form its release deploys: the model as is (v1alpha1), or its v1beta1 form. */
export function deployedForm(r: ResolvedInference, g: DgdObject): DgdObject | V1beta1Graph {
  const rel = release(r.release).graph;
  return rel.apiVersion === GraphApiVersion.V1beta1 ? toV1beta1(g, rel.runtimeVersionOverride?.version) : g;
}

/*
 * Everything that differs between vLLM and TensorRT-LLM workers, and nothing else: the command,
 * the engine's own env, and (TRT-LLM only) the engine-args file. Switching `backend` changes only
 * what this module returns (tested by diffing two renders). Pure.
 *
 * Flags checked against ai-dynamo/dynamo `components/src/dynamo/vllm/backend_args.py`
 * (`--disaggregation-mode` agg|prefill|decode; `--is-prefill-worker` is deprecated) and
 * `components/src/dynamo/trtllm/backend_args.py` (`--model`, `--served-model-name`,
 * `--tensor-parallel-size`, `--max-seq-len`, `--free-gpu-memory-fraction`, `--extra-engine-args`
 * = path to a YAML file, `--disaggregation-mode`). `--model`, `--served-model-name`,
 * `--tensor-parallel-size`, `--max-model-len`, `--gpu-memory-utilization` and
 * `--kv-transfer-config` of `dynamo.vllm` are vLLM's own engine args.
 */
/** A file the engine reads, delivered as a ConfigMap key mounted read-only into the worker. */
export interface EngineFile {
  readonly configMapName: string;
  readonly key: string;
  readonly content: string;
  readonly mountDir: string;
  /** sha256 of `content`, put on the pod template so an edit rolls the workers. */
  readonly sha256: string;
}

/** The engine-specific part of one worker. */
export interface EngineParts {
  readonly command: readonly string[];
  readonly args: readonly string[];
  readonly env: readonly EnvVar[];
  readonly file?: EngineFile;
}

/** Where the TRT-LLM engine-args ConfigMap is mounted. */
export const TRTLLM_ENGINE_DIR = "/etc/dynamo-efa/engine";

/**
 * vLLM's NixlConnector config. The ONLY way to choose NIXL's backend in vLLM is
 * `kv_connector_extra_config.backends` (F3): `NIXL_BACKEND` / `VLLM_NIXL_KVCACHE_BACKEND` are
 * not read. LIBFABRIC on EFA pools; UCX only on pools without EFA (KV then crosses nodes over TCP).
 */
export function vllmKvTransferConfig(transport: KvTransport): string {
  return JSON.stringify({
    kv_connector: "NixlConnector",
    kv_role: "kv_both",
    kv_connector_extra_config: { backends: [transport] },
  });
}

/** Flags both engines' Dynamo workers take with the same names: model, served name, role, tensor parallel. */
function servingArgs(r: ResolvedInference, role: ServingRole): string[] {
  return [
    "--model",
    engineModelArg(r),
    "--served-model-name",
    r.servedModelName,
    "--disaggregation-mode",
    role,
    "--tensor-parallel-size",
    String(roleArgs(r, role).gpusPerWorker),
  ];
}

function vllm(r: ResolvedInference, role: ServingRole): EngineParts {
  const a = roleArgs(r, role);
  return {
    command: ["python3", "-m", "dynamo.vllm"],
    args: [
      ...servingArgs(r, role),
      "--max-model-len",
      String(r.maxModelLen),
      "--gpu-memory-utilization",
      String(r.gpuMemoryUtilization),
      ...(r.kvCacheDtype === KvCacheDtype.Fp8 ? ["--kv-cache-dtype", "fp8"] : []),
      // The engine downloads the model itself only without the node cache; with it, --model is that revision's directory.
      ...(!usesNodeCache(r) && r.modelRevision !== DEFAULT_MODEL_REVISION ? ["--revision", r.modelRevision] : []),
      "--kv-transfer-config",
      vllmKvTransferConfig(r.kvTransport),
      ...a.extraArgs,
    ],
    env: [
      // The side channel must advertise the pod's own IP (vLLM's default is "localhost").
      { name: "VLLM_NIXL_SIDE_CHANNEL_HOST", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
      // Each worker is its own pod with its own IP and no hostNetwork, and runs one engine process
      // (data-parallel rank 0, so vLLM adds no offset): port 5600 cannot collide with another
      // worker's (F6 arose only with hostNetwork). Set explicitly so the plan shows it.
      { name: "VLLM_NIXL_SIDE_CHANNEL_PORT", value: String(NIXL_SIDE_CHANNEL_PORT) },
    ],
  };
}

/**
 * The TRT-LLM engine-args YAML of a role, key by key as Dynamo's own disaggregated examples and the field's working
 * args set them (tests/contracts/trtllm-engine-config.spec.ts against facts/trtllm-engine-configs.json and
 * facts/field-trtllm-engine-args.json):
 * - `disable_overlap_scheduler`: true on prefill (every Dynamo prefill example: "Overlap scheduler not currently
 *   supported in prefill only workers"; the field: "fixes pytorch backend bug"), false on decode (Dynamo's decode
 *   examples; the overlap scheduler is TRT-LLM's throughput default there).
 * - `kv_cache_config.free_gpu_memory_fraction`: the same fraction as `--free-gpu-memory-fraction`. Dynamo's worker
 *   builds `kv_cache_config` from that flag and TensorRT-LLM merges this file over it key by key at the top level,
 *   so a `kv_cache_config` here replaces the flag's: the file must carry the fraction itself.
 * - `kv_cache_config.enable_block_reuse: false` on prefill (the field: "fixes context-only assertion"; Dynamo's
 *   llama4 and qwen3-vl prefill examples set it too).
 * - `cache_transceiver_config.backend: NIXL`: KV cache moves through NIXL; which NIXL plugin is chosen by
 *   TRTLLM_NIXL_KVCACHE_BACKEND. (Dynamo's examples say DEFAULT, which TRT-LLM resolves to NIXL; NIXL names it.)
 */
export function trtllmEngineYaml(r: ResolvedInference, role: ServingRole): string {
  const prefill = role === ServingRole.Prefill;
  return stringify({
    tensor_parallel_size: roleArgs(r, role).gpusPerWorker,
    disable_overlap_scheduler: prefill,
    kv_cache_config: {
      free_gpu_memory_fraction: r.gpuMemoryUtilization,
      ...(prefill ? { enable_block_reuse: false } : {}),
      ...(r.kvCacheDtype === KvCacheDtype.Fp8 ? { dtype: "fp8" } : {}),
    },
    cache_transceiver_config: { backend: "NIXL" },
  });
}

function trtllm(r: ResolvedInference, role: ServingRole): EngineParts {
  const a = roleArgs(r, role);
  const content = trtllmEngineYaml(r, role);
  const file: EngineFile = {
    configMapName: `${r.graphName}-trtllm-${role}`,
    key: "engine.yaml",
    content,
    mountDir: TRTLLM_ENGINE_DIR,
    sha256: createHash("sha256").update(content).digest("hex"),
  };
  return {
    command: ["python3", "-m", "dynamo.trtllm"],
    args: [
      ...servingArgs(r, role),
      "--max-seq-len",
      String(r.maxModelLen),
      "--free-gpu-memory-fraction",
      String(r.gpuMemoryUtilization),
      "--extra-engine-args",
      `${TRTLLM_ENGINE_DIR}/${file.key}`,
      ...a.extraArgs,
    ],
    env: [{ name: "TRTLLM_NIXL_KVCACHE_BACKEND", value: r.kvTransport }],
    file,
  };
}

/**
 * The engine part of a worker of `role`.
 *
 * TRT-LLM reads its engine args from a file. It is rendered into a ConfigMap mounted read-only,
 * rather than written by a shell heredoc in the command: the command stays a plain exec (no shell
 * quoting of model names, same shape as vLLM's), the root filesystem need not be writable, and the
 * YAML is a visible object in the plan. The content hash goes on the pod template so an edit rolls
 * the workers (a ConfigMap change alone would not).
 */
export function engineFor(r: ResolvedInference, role: ServingRole): EngineParts {
  return r.backend === Backend.Trtllm ? trtllm(r, role) : vllm(r, role);
}

/** The worker command line as one shell-quoted string (for plan summaries and `verify`). */
export function commandLine(parts: EngineParts): string {
  return [...parts.command, ...parts.args].map(shellQuote).join(" ");
}

/** vLLM's NIXL side-channel port (vLLM's default, set explicitly). */
export const NIXL_SIDE_CHANNEL_PORT = 5600;

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
