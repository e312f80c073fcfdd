/**
 * The happy DynamoGraphDeployment of the policy tests (Frontend + 8 prefill + 8 decode workers on
 * p5en), as plain data typed by its own literal so a test edits it in place. Split from
 * policy-fixtures.ts (the whole plan around it), which re-exports it.
 */
import type { EnvVar } from "../../components/inference/dgd";

export const DIGEST_REF = `123456789012.dkr.ecr.us-east-2.amazonaws.com/dynamo-combined-efa@sha256:${"ab".repeat(32)}`;
export const KV_LIBFABRIC =
  '{"kv_connector":"NixlConnector","kv_role":"kv_both","kv_connector_extra_config":{"backends":["LIBFABRIC"]}}';

/**
 * A string map a test may add keys to or delete keys from (labels, annotations, selectors, resource
 * items), with `extra` fields (a resource item's `custom`) kept as typed.
 */
function map<E extends object = object>(entries: Record<string, string>, extra?: E): Record<string, string> & E {
  return { ...entries, ...extra } as Record<string, string> & E;
}

/** Required pod affinity to the worker's own role and anti-affinity to the other (F7: operator labels). */
function workerAffinity(role: "prefill" | "decode") {
  const own = role === "prefill" ? "PrefillWorker" : "DecodeWorker";
  const other = role === "prefill" ? "DecodeWorker" : "PrefillWorker";
  const sel = (component: string) => ({
    labelSelector: {
      matchLabels: map({
        "nvidia.com/dynamo-graph-deployment-name": "llama",
        "nvidia.com/dynamo-component": component,
      }),
    },
    topologyKey: "kubernetes.io/hostname",
  });
  return {
    podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: sel(own) }] },
    podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [sel(other)] },
  };
}

/** A vLLM worker's main container: digest-pinned image, LIBFABRIC KV transfer, a 30 min startup budget. */
function workerMainContainer(role: "prefill" | "decode") {
  return {
    image: DIGEST_REF,
    command: ["python3", "-m", "dynamo.vllm"],
    args: [
      "--model",
      "meta-llama/Llama-3.1-8B-Instruct",
      "--disaggregation-mode",
      role,
      "--kv-transfer-config",
      KV_LIBFABRIC,
    ],
    startupProbe: {
      httpGet: { path: "/live", port: "system" },
      periodSeconds: 10,
      timeoutSeconds: 5,
      failureThreshold: 180,
    },
    securityContext: {
      runAsNonRoot: true,
      runAsUser: 1000,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ["ALL"], add: ["IPC_LOCK"] },
    },
  };
}

/** The happy graph's type: every field present and editable, so a test edits it in place. */
export type TestGraph = ReturnType<typeof happyGraph>;
/** One worker service of the happy graph. */
export type TestWorker = ReturnType<typeof workerService>;

/**
 * A deliberate edit outside the happy shape (a field the renderer never writes, a wrong type, a deleted
 * required field): the object as an open record, so the bad input is visible where it is made.
 */
export const loose = (o: object): Record<string, unknown> => o as Record<string, unknown>;

/** One prefill or decode worker of 1 GPU on p5en (2 EFA, 641 hugepages = 1282Mi). */
export function workerService(role: "prefill" | "decode") {
  return {
    componentType: "worker",
    subComponentType: role,
    replicas: 8,
    envFromSecret: "llama-hf-token",
    envs: <EnvVar[]>[
      { name: "FI_PROVIDER", value: "efa" },
      { name: "FI_EFA_USE_DEVICE_RDMA", value: "1" },
      { name: "VLLM_NIXL_SIDE_CHANNEL_HOST", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
    ],
    resources: {
      requests: map({ cpu: "21", memory: "229Gi" }, { custom: map({ "hugepages-2Mi": "1282Mi" }) }),
      limits: map(
        { memory: "229Gi", gpu: "1" },
        { custom: map({ "vpc.amazonaws.com/efa": "2", "hugepages-2Mi": "1282Mi" }) },
      ),
    },
    readinessProbe: {
      httpGet: { path: "/health", port: "system" },
      periodSeconds: 10,
      timeoutSeconds: 4,
      failureThreshold: 3,
    },
    extraPodSpec: {
      nodeSelector: map({ "dynamo-efa/pool": "gpu", "node.kubernetes.io/instance-type": "p5en.48xlarge" }),
      tolerations: [{ key: "nvidia.com/gpu", operator: "Equal", value: "true", effect: "NoSchedule" }],
      affinity: workerAffinity(role),
      mainContainer: workerMainContainer(role),
    },
  };
}

/** The happy DynamoGraphDeployment: Frontend + 8 prefill + 8 decode workers on 2 x p5en. */
export function happyGraph() {
  return {
    apiVersion: "nvidia.com/v1alpha1",
    kind: "DynamoGraphDeployment",
    metadata: {
      name: "llama",
      namespace: "dynamo",
      annotations: map({
        "dynamo-efa/model-load-budget-seconds": "1800",
        "dynamo-efa/image-cuda-archs": "sm_90",
        "dynamo-efa/image-cuda-toolkit": "12.9",
      }),
    },
    spec: {
      backendFramework: "vllm",
      services: {
        Frontend: {
          componentType: "frontend",
          replicas: 1,
          envFromSecret: "llama-hf-token",
          extraPodSpec: {
            mainContainer: {
              image: DIGEST_REF,
              command: ["python3", "-m", "dynamo.frontend"],
              securityContext: { runAsNonRoot: true, allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
            },
          },
        },
        PrefillWorker: workerService("prefill"),
        DecodeWorker: workerService("decode"),
      },
    },
  };
}

/** How the policies name a service of the happy graph in their messages. */
export const serviceLabel = (key: string) => `DynamoGraphDeployment "llama" service "${key}"`;
/** The happy graph's decode worker. */
export const decode = (g: TestGraph) => g.spec.services.DecodeWorker;
/** The happy graph's prefill worker. */
export const prefill = (g: TestGraph) => g.spec.services.PrefillWorker;
