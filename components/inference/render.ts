/**
 * The whole rendered deployment as plain data, for the offline render tool and the tests (the plan the graph is
 * rendered from is `./plan.ts`). Pure.
 */
import { graphNames, DynamoPort, frontendServiceUrl, GraphService, OperatorLabel } from "../_shared/names";
import { ResolvedInference, FrontendServiceType, SERVING_ROLES, ServingRole } from "./args";
import { engineFor, DgdObject, deployedForm, renderGraph } from "./graph";
import { renderPrefetchConfigMap, renderPrefetchDaemonSet } from "./cache";
import { namespaceLevel, PodShape, PSA_ENFORCE_LABEL } from "./pod-security";
import { NetworkPolicyObject, renderNetworkPolicies } from "./network";
import { workerPlan, WorkerPlanRow } from "./plan";
import { renderFirstTokenConfigMap, renderFirstTokenJob } from "./first-token";

/** Placeholder written instead of the HF token when the render tool has none. */
export const REDACTED_TOKEN = "<redacted: set from the hfToken Pulumi secret>";

/** In-cluster URL of the Frontend's OpenAI-compatible API. */
export function frontendUrl(r: ResolvedInference): string {
  return frontendServiceUrl(r.graphName, r.namespace);
}

/** A ConfigMap as rendered (engine args or the prefetch script). */
export type ConfigMapObject = ReturnType<typeof renderEngineConfigMaps>[number]["configMap"];

/** Everything the component creates, as plain objects. */
export interface RenderedInference {
  /** Undefined when the graph does not create its namespace (`createNamespace: false`). */
  readonly namespace: ReturnType<typeof renderNamespace>;
  /** Undefined when an existing secret is referenced (`hfTokenSecretName`). */
  readonly hfSecret: ReturnType<typeof renderHfSecret> | undefined;
  readonly modelCachePvc: ReturnType<typeof renderModelCachePvc>;
  /** TRT-LLM engine args and the `local-nvme` prefetch script. */
  readonly engineConfigMaps: ConfigMapObject[];
  readonly frontendLoadBalancer: ReturnType<typeof renderFrontendLoadBalancer>;
  /** The graph namespace's NetworkPolicies (none when `networkPolicy.enabled` is false). */
  readonly networkPolicies: NetworkPolicyObject[];
  readonly graph: DgdObject;
  /** The first-token check's script and Job (undefined when `firstTokenCheck.enabled` is false). */
  readonly firstTokenCheck:
    | {
        readonly configMap: NonNullable<ReturnType<typeof renderFirstTokenConfigMap>>;
        readonly job: NonNullable<ReturnType<typeof renderFirstTokenJob>>;
      }
    | undefined;
  readonly workers: WorkerPlanRow[];
  readonly frontendUrl: string;
}

/**
 * Renders every object. The image must be known (a plain string in `r.image`); the token is
 * replaced by a placeholder unless given.
 */
export function renderInference(r: ResolvedInference, hfToken: string = REDACTED_TOKEN): RenderedInference {
  if (r.image === undefined)
    throw new Error("renderInference needs the image ref as a plain string (resolveArgs(name, settings, image))");
  return {
    namespace: renderNamespace(r),
    hfSecret: r.createHfSecret ? renderHfSecret(r, hfToken) : undefined,
    modelCachePvc: renderModelCachePvc(r),
    engineConfigMaps: [
      ...renderEngineConfigMaps(r).map((c) => c.configMap),
      ...[renderPrefetchConfigMap(r)].filter((c) => c !== undefined),
    ],
    frontendLoadBalancer: renderFrontendLoadBalancer(r),
    networkPolicies: renderNetworkPolicies(r),
    graph: renderGraph(r, r.image),
    firstTokenCheck: firstTokenCheck(r, r.image),
    workers: workerPlan(r),
    frontendUrl: frontendUrl(r),
  };
}

/** The check's objects for the graph as its release deploys it (what the check's hash covers). */
function firstTokenCheck(r: ResolvedInference, image: string): RenderedInference["firstTokenCheck"] {
  const configMap = renderFirstTokenConfigMap(r);
  const job = renderFirstTokenJob(r, deployedForm(r, renderGraph(r, image)));
  return configMap && job ? { configMap, job } : undefined;
}

/*
 * The plain Kubernetes objects around the graph: namespace, HF secret (F9), model-cache PVC,
 * TRT-LLM engine ConfigMaps and the optional internal load balancer. Pure (the Dynamo platform release is
 * the cluster's: components/platform).
 */

/** The Namespace of the graph; undefined when the graph is told not to create it (`createNamespace: false`). */
export function renderNamespace(r: ResolvedInference) {
  if (!r.createNamespace) return undefined;
  return {
    apiVersion: "v1" as const,
    kind: "Namespace" as const,
    metadata: { name: r.namespace, labels: { [PSA_ENFORCE_LABEL]: namespaceLevel(namespacePods(r)).level } },
  };
}

/**
 * Every pod template the graph puts in its namespace: the graph's services (what the project sets; the operator
 * adds only an shm emptyDir and `fsGroup`, neither of which changes a level) and the prefetch DaemonSet. The image
 * does not enter a Pod Security level, so a placeholder renders them.
 */
export function namespacePods(r: ResolvedInference): PodShape[] {
  const graph = renderGraph(r, "image");
  const services: PodShape[] = Object.entries(graph.spec.services).map(([name, s]) => ({
    name,
    volumes: s.extraPodSpec?.volumes ?? [],
    containers: [
      ...(s.extraPodSpec?.initContainers ?? []),
      { name: "main", securityContext: s.extraPodSpec?.mainContainer?.securityContext },
    ],
  }));
  const job = renderFirstTokenJob(r, graph);
  const check: PodShape[] = job
    ? [
        {
          name: job.metadata.name,
          volumes: job.spec.template.spec.volumes,
          containers: job.spec.template.spec.containers,
          podSeccomp: job.spec.template.spec.securityContext.seccompProfile.type,
        },
      ]
    : [];
  const ds = renderPrefetchDaemonSet(r);
  const prefetch: PodShape[] = ds
    ? [
        {
          name: ds.metadata.name,
          volumes: ds.spec.template.spec.volumes,
          containers: [...ds.spec.template.spec.initContainers, ...ds.spec.template.spec.containers],
          podSeccomp: ds.spec.template.spec.securityContext.seccompProfile.type,
        },
      ]
    : [];
  return [...services, ...prefetch, ...check];
}

/** The HF token Secret: both key names, because tools read one or the other (F9). */
export function renderHfSecret(r: ResolvedInference, token: string) {
  const names = graphNames(r.graphName, r.namespace);
  return {
    apiVersion: "v1" as const,
    kind: "Secret" as const,
    metadata: { name: names.hfSecret, namespace: r.namespace },
    type: "Opaque",
    stringData: { HF_TOKEN: token, HUGGING_FACE_HUB_TOKEN: token },
  };
}

/** The model-cache PVC (ReadWriteMany, shared by every worker), when asked for. */
export function renderModelCachePvc(r: ResolvedInference) {
  if (!r.modelCache) return undefined;
  const names = graphNames(r.graphName, r.namespace);
  return {
    apiVersion: "v1" as const,
    kind: "PersistentVolumeClaim" as const,
    metadata: { name: names.modelCachePvc, namespace: r.namespace },
    spec: {
      accessModes: ["ReadWriteMany"],
      storageClassName: r.modelCache.storageClassName,
      resources: { requests: { storage: `${r.modelCache.sizeGiB}Gi` } },
    },
  };
}

/** ConfigMaps holding engine files (TRT-LLM engine args), one per role; none for vLLM. */
export function renderEngineConfigMaps(r: ResolvedInference): {
  role: ServingRole;
  configMap: {
    apiVersion: "v1";
    kind: "ConfigMap";
    metadata: { name: string; namespace: string };
    data: Record<string, string>;
  };
}[] {
  return SERVING_ROLES.flatMap((role) => {
    const f = engineFor(r, role).file;
    if (!f) return [];
    return [
      {
        role,
        configMap: {
          apiVersion: "v1" as const,
          kind: "ConfigMap" as const,
          metadata: { name: f.configMapName, namespace: r.namespace },
          data: { [f.key]: f.content },
        },
      },
    ];
  });
}

/**
 * An internal (VPC-only) load balancer in front of the Frontend pods, when asked for. Selected by
 * the operator's own labels (F7). Both the AWS Load Balancer Controller's and the in-tree
 * annotations say "internal", so it can never be internet-facing whichever controller serves it.
 *
 * It keeps the caller's address, so the Frontend's NetworkPolicy can admit exactly `sourceRanges`: a Network Load
 * Balancer (`aws-load-balancer-type: nlb` for the in-tree controller; the AWS Load Balancer Controller makes one for
 * every Service it serves) with instance targets, whose client IP preservation is on
 * (`preserve_client_ip.enabled=true`, the default for instance targets, stated), and `externalTrafficPolicy: Local`,
 * so kube-proxy forwards only to a Frontend on the node and does not masquerade; the load balancer's health checks
 * then go to the Service's `healthCheckNodePort`, answered by kube-proxy on the node, not by the pod.
 * @see https://kubernetes-sigs.github.io/aws-load-balancer-controller/latest/guide/service/annotations/
 * @see https://kubernetes.io/docs/tasks/access-application-cluster/create-external-load-balancer/#preserving-the-client-source-ip
 */
export function renderFrontendLoadBalancer(r: ResolvedInference) {
  if (r.frontend.serviceType !== FrontendServiceType.InternalLoadBalancer) return undefined;
  return {
    apiVersion: "v1" as const,
    kind: "Service" as const,
    metadata: {
      name: `${r.graphName}-frontend-internal`,
      namespace: r.namespace,
      annotations: {
        "service.beta.kubernetes.io/aws-load-balancer-scheme": "internal",
        "service.beta.kubernetes.io/aws-load-balancer-internal": "true",
        "service.beta.kubernetes.io/aws-load-balancer-type": "nlb",
        "service.beta.kubernetes.io/aws-load-balancer-nlb-target-type": "instance",
        "service.beta.kubernetes.io/aws-load-balancer-target-group-attributes": "preserve_client_ip.enabled=true",
      },
    },
    spec: {
      type: "LoadBalancer",
      externalTrafficPolicy: "Local",
      selector: { [OperatorLabel.GraphName]: r.graphName, [OperatorLabel.Component]: GraphService.Frontend },
      // Only these callers reach it (the VPC's CIDR by default), not everything routed into the VPC.
      loadBalancerSourceRanges: [...r.frontend.sourceRanges],
      ports: [{ name: "http", port: DynamoPort.FrontendHttp, targetPort: DynamoPort.FrontendHttp, protocol: "TCP" }],
    },
  };
}
