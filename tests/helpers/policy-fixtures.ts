/**
 * Happy-path inputs for the policy tests: a plan of the p5en 8+8 variant that satisfies every policy
 * (the shape `DisaggInference` / `EfaCluster` / `DynamoImage` render), built as plain data so each
 * test can mutate one field. Pure.
 */
import { ResourceType } from "../../policy/rules/_predicates";
import { planResource, urnOf, PlanResource } from "./policy-harness";

/** Resource type tokens: the policies' own table (one source), plus the short alias tests use. */
export const T = { ...ResourceType, Repository: ResourceType.EcrRepository } as const;

export const DIGEST_REF = `123456789012.dkr.ecr.us-east-2.amazonaws.com/dynamo-combined-efa@sha256:${"ab".repeat(32)}`;
export const KV_LIBFABRIC =
  '{"kv_connector":"NixlConnector","kv_role":"kv_both","kv_connector_extra_config":{"backends":["LIBFABRIC"]}}';

/** Required pod affinity to the worker's own role and anti-affinity to the other (F7: operator labels). */
function workerAffinity(role: "prefill" | "decode") {
  const own = role === "prefill" ? "PrefillWorker" : "DecodeWorker";
  const other = role === "prefill" ? "DecodeWorker" : "PrefillWorker";
  const sel = (component: string) => ({
    labelSelector: {
      matchLabels: { "nvidia.com/dynamo-graph-deployment-name": "llama", "nvidia.com/dynamo-component": component },
    },
    topologyKey: "kubernetes.io/hostname",
  });
  return {
    podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [sel(own)] },
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

/** One prefill or decode worker of 1 GPU on p5en (2 EFA, 641 hugepages = 1282Mi). */
export function workerService(role: "prefill" | "decode") {
  return {
    componentType: "worker",
    subComponentType: role,
    replicas: 8,
    envFromSecret: "llama-hf-token",
    envs: [
      { name: "FI_PROVIDER", value: "efa" },
      { name: "FI_EFA_USE_DEVICE_RDMA", value: "1" },
      { name: "VLLM_NIXL_SIDE_CHANNEL_HOST", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
    ],
    resources: {
      requests: { cpu: "21", memory: "229Gi", custom: { "hugepages-2Mi": "1282Mi" } },
      limits: { memory: "229Gi", gpu: "1", custom: { "vpc.amazonaws.com/efa": "2", "hugepages-2Mi": "1282Mi" } },
    },
    readinessProbe: {
      httpGet: { path: "/health", port: "system" },
      periodSeconds: 10,
      timeoutSeconds: 4,
      failureThreshold: 3,
    },
    extraPodSpec: {
      nodeSelector: { "dynamo-efa/pool": "gpu", "node.kubernetes.io/instance-type": "p5en.48xlarge" },
      tolerations: [{ key: "nvidia.com/gpu", operator: "Equal", value: "true", effect: "NoSchedule" }],
      affinity: workerAffinity(role),
      mainContainer: workerMainContainer(role),
    },
  };
}

/** The happy DynamoGraphDeployment: Frontend + 8 prefill + 8 decode workers on 2 x p5en. */
export function happyGraph(): Record<string, any> {
  return {
    apiVersion: "nvidia.com/v1alpha1",
    kind: "DynamoGraphDeployment",
    metadata: {
      name: "llama",
      namespace: "dynamo",
      annotations: {
        "dynamo-efa/model-load-budget-seconds": "1800",
        "dynamo-efa/gpu-pool": "gpu",
        "dynamo-efa/image-cuda-archs": "sm_90",
        "dynamo-efa/image-cuda-toolkit": "12.9",
      },
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

/** Current AWS EFA layout for `cards` EFA cards: ENA primary, then `efa-only` (docs/ARCHITECTURE.md#efa-on-eks). */
function efaInterfaceSlots(cards: number): Record<string, any>[] {
  const efa = Array.from({ length: cards }, (_, c) => ({
    networkCardIndex: c,
    deviceIndex: c === 0 ? 1 : 0,
    interfaceType: "efa-only",
  }));
  return [{ networkCardIndex: 0, deviceIndex: 0, interfaceType: "interface" }, ...efa];
}

/** The happy p5en launch template: ENA primary + 16 efa-only interfaces on the EFA security group. */
export function happyLaunchTemplate(): Record<string, any> {
  return {
    instanceType: "p5en.48xlarge",
    metadataOptions: { httpEndpoint: "enabled", httpTokens: "required", httpPutResponseHopLimit: 1 },
    tagSpecifications: ["instance", "volume", "network-interface"].map((resourceType) => ({
      resourceType,
      tags: { Name: "c-gpu-gpu", "dynamo-efa/pool": "gpu" },
    })),
    blockDeviceMappings: [{ deviceName: "/dev/xvda", ebs: { volumeSize: 500, volumeType: "gp3", encrypted: "true" } }],
    networkInterfaces: efaInterfaceSlots(16).map((s) => ({
      ...s,
      securityGroups: ["c-efa-id"],
      deleteOnTermination: "true",
    })),
  };
}

/** The happy GPU pool: the EFA security group with its self-referencing rules, launch template and node group. */
function happyGpuPool(): PlanResource[] {
  const sg = planResource(T.SecurityGroup, { vpcId: "vpc-1", description: "EFA", id: "c-efa-id" }, { name: "c-efa" });
  const rule = (dir: "ingress" | "egress") =>
    planResource(
      T.SgRule,
      { securityGroupId: "c-efa-id", type: dir, protocol: "-1", fromPort: 0, toPort: 0, self: true },
      { name: `c-efa-${dir}`, propertyDependencies: { securityGroupId: [sg.urn] } },
    );
  const lt = planResource(T.LaunchTemplate, happyLaunchTemplate(), {
    name: "c-gpu-lt",
    propertyDependencies: { networkInterfaces: [sg.urn] },
  });
  const ng = planResource(
    T.NodeGroup,
    {
      clusterName: "c",
      subnetIds: ["subnet-a"],
      capacityType: "ON_DEMAND",
      launchTemplate: { id: "c-gpu-lt-id", version: "1" },
      scalingConfig: { desiredSize: 2, minSize: 2, maxSize: 2 },
    },
    { name: "c-gpu-ng", propertyDependencies: { launchTemplate: [lt.urn] } },
  );
  return [sg, rule("ingress"), rule("egress"), lt, ng];
}

/** The happy image resources: its retained, scanning, immutable repository, the build cache and the image. */
function happyImageResources(): PlanResource[] {
  const repo = planResource(
    T.Repository,
    { name: "dynamo-combined-efa", imageScanningConfiguration: { scanOnPush: true }, imageTagMutability: "IMMUTABLE" },
    { name: "img-repo", opts: { retainOnDelete: true } },
  );
  const cache = planResource(
    T.Repository,
    {
      name: "dynamo-combined-efa-build-cache",
      imageScanningConfiguration: { scanOnPush: false },
      imageTagMutability: "MUTABLE",
    },
    { name: "img-build-cache" },
  );
  const image = planResource(
    T.Image,
    {
      tags: ["123456789012.dkr.ecr.us-east-2.amazonaws.com/dynamo-combined-efa:3f2a9c1d"],
      push: true,
      buildArgs: {
        CUDA_VERSION: "12.9",
        TORCH_CUDA_ARCH_LIST: "9.0",
        NVCC_GENCODE: "-gencode=arch=compute_90,code=sm_90",
        FLASHINFER_CUDA_ARCH_LIST: "9.0",
      },
    },
    { name: "img", dependencies: [repo.urn] },
  );
  return [repo, cache, image];
}

/** The whole happy plan: cluster, GPU pool, EFA security group, image, registry, secret, cache and graph. */
export function happyStack(): PlanResource[] {
  const pool = happyGpuPool();
  const [repo, cache, image] = happyImageResources();
  const cluster = planResource(
    T.EksCluster,
    {
      encryptionConfigKeyArn: "arn:aws:kms:us-east-2:123456789012:key/k",
      endpointPrivateAccess: true,
      endpointPublicAccess: true,
      publicAccessCidrs: ["203.0.113.0/24"],
    },
    { name: "c-eks" },
  );
  const secret = planResource(
    T.Secret,
    {
      metadata: { name: "llama-hf-token", namespace: "dynamo" },
      stringData: { HF_TOKEN: "[secret]", HUGGING_FACE_HUB_TOKEN: "[secret]" },
    },
    { name: "inf-hf-token", opts: { additionalSecretOutputs: ["data", "stringData"] } },
  );
  const pvc = planResource(
    T.Pvc,
    { metadata: { name: "llama-model-cache" }, spec: { accessModes: ["ReadWriteMany"] } },
    { name: "inf-model-cache", opts: { retainOnDelete: true } },
  );
  const dgd = planResource(T.Dgd, happyGraph(), { name: "inf-graph", dependencies: [image.urn, secret.urn, pvc.urn] });
  return [...pool, repo, cache, image, cluster, secret, pvc, dgd];
}

/** Replaces the resource named `name` in a plan (by URN) with `f(copy)`. */
export function mutate(
  plan: readonly PlanResource[],
  name: string,
  f: (props: any, r: PlanResource) => PlanResource | void,
): PlanResource[] {
  return plan.map((r) => {
    if (r.name !== name) return r;
    const copy: PlanResource = JSON.parse(JSON.stringify(r));
    return f(copy.props, copy) ?? copy;
  });
}

export { urnOf };
