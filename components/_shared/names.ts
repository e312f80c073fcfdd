/**
 * Every Kubernetes object name and label the inference component creates and the `verify` tool
 * looks up, in one place, so the two can never disagree. Pure.
 *
 * Labels are the ones the Dynamo operator itself sets on the pods it creates (operator
 * `internal/consts`); `app.kubernetes.io/part-of` is stripped by the operator and must never be
 * used to select pods (field failure F7).
 */

/** The three services of the one DynamoGraphDeployment (F1: never split into several graphs). */
export const GraphService = { Frontend: "Frontend", Prefill: "PrefillWorker", Decode: "DecodeWorker" } as const;
export type GraphService = (typeof GraphService)[keyof typeof GraphService];

/** Labels the operator puts on every pod of a graph. */
export const OperatorLabel = {
  /** Value: the DynamoGraphDeployment's name. */
  GraphName: "nvidia.com/dynamo-graph-deployment-name",
  /**
   * Value: the service key inside the graph, verbatim (e.g. `PrefillWorker`): the operator sets
   * `labels[KubeLabelDynamoComponent] = componentName` (the `spec.services` map key) in `graph.go`.
   */
  Component: "nvidia.com/dynamo-component",
  /** Value: `frontend` | `worker` | `planner`. */
  ComponentType: "nvidia.com/dynamo-component-type",
  /** Value: `prefill` | `decode`. */
  SubComponentType: "nvidia.com/dynamo-sub-component-type",
} as const;

/** Ports the operator wires by default (frontend HTTP, worker system/health). */
export const DynamoPort = { FrontendHttp: 8000, WorkerSystem: 9090 } as const;

/**
 * The workers' request-plane port (`DYN_TCP_RPC_PORT`): the runtime's TCP request plane binds an OS-assigned port
 * unless this pins it, and the pin lets the Frontend -> worker flow name one port.
 */
export const REQUEST_PLANE_PORT = 9999;

/**
 * Names the operator gives those container ports (operator `internal/consts`: `DynamoSystemPortName`;
 * its own probes use `intstr.FromString` of them). Our probes use the same names and handler type
 * (httpGet) so the merged container never has "more than 1 handler type" (F2).
 */
export const DynamoPortName = { FrontendHttp: "http", WorkerSystem: "system" } as const;

/** The names of everything one deployment creates in its namespace. */
export interface GraphNames {
  /** Kubernetes namespace holding the graph, its secret and its cache. */
  readonly namespace: string;
  /** DynamoGraphDeployment name; also the Dynamo namespace the operator derives. */
  readonly graph: string;
  /** Kubernetes Service the operator creates for the Frontend (`<graph>-frontend`). */
  readonly frontendService: string;
  /** Secret holding `HF_TOKEN` and `HUGGING_FACE_HUB_TOKEN` (F9). */
  readonly hfSecret: string;
  /** PersistentVolumeClaim for the shared model cache. */
  readonly modelCachePvc: string;
}

/** Graph name when the stack sets no `dynamo-efa:graphName` (the program and `verify` both use it). */
export const DEFAULT_GRAPH_NAME = "llm";

/** Namespace of the graph when none is configured. */
export const DEFAULT_GRAPH_NAMESPACE = "dynamo";

/** Kubernetes object name rules: lower-case RFC 1123 label, at most 63 characters. */
export const K8S_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * Names for a graph called `graph` in `namespace`. The operator names a component's Service
 * `<graph>-<lower-cased service key>` (ai-dynamo/dynamo operator `internal/dynamo/graph.go`,
 * `GetDynamoComponentName`; e.g. `kubectl port-forward svc/vllm-frontend` in NVIDIA's examples).
 */
export function graphNames(graph: string, namespace: string): GraphNames {
  return {
    namespace,
    graph,
    frontendService: componentServiceName(graph, GraphService.Frontend),
    hfSecret: `${graph}-hf-token`,
    modelCachePvc: `${graph}-model-cache`,
  };
}

/** In-cluster URL of a graph's OpenAI-compatible Frontend (the operator's `<graph>-frontend` Service). */
export function frontendServiceUrl(graph: string, namespace: string): string {
  return `http://${graphNames(graph, namespace).frontendService}.${namespace}.svc.cluster.local:${DynamoPort.FrontendHttp}`;
}

/**
 * The Service/Deployment name the operator gives a component of a graph. Verified for the Frontend;
 * operators with managed rolling updates suffix *worker* deployments with a spec hash
 * (`<graph>-<key>-<hash8>`), so select worker pods by label (`podSelector`), never by name.
 */
export function componentServiceName(graph: string, service: GraphService): string {
  return `${graph}-${service.toLowerCase()}`;
}

/** Label selector (`k=v,k=v`) for the pods of one service of a graph. */
export function podSelector(graph: string, service?: GraphService): string {
  const parts = [`${OperatorLabel.GraphName}=${graph}`];
  if (service) parts.push(`${OperatorLabel.Component}=${service}`);
  return parts.join(",");
}

/** Namespace of the `dynamo-platform` release (operator, NATS): `DynamoPlatform`'s default, and where a graph's
 * NetworkPolicies let its pods reach NATS and the operator reach them. */
export const DEFAULT_PLATFORM_NAMESPACE = "dynamo-system";

/**
 * The label of the CPU system node group's nodes (operator, frontend, controllers, monitoring): the cluster sets it,
 * the monitoring pins its pods to it, and `verify` finds the system nodes by it.
 */
export const SYSTEM_NODE_LABELS: Readonly<Record<string, string>> = { "dynamo-efa/role": "system" };
