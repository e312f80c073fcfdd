/**
 * The network flows every release's graph needs, as data: each with its ends, port, protocol, why and where it was
 * read. A release adds the flows of its own planes (`seed`: NATS; `dynamo-1.6`: self-hosted model cards and the ZMQ
 * event plane) in its module, and the graph namespace's NetworkPolicies are generated from the release's list
 * (components/inference/network.ts); tests/contracts/network-policy.spec.ts walks every flow against the rendered
 * policies, and strangers with them. Pure data.
 */
import { DynamoPort, REQUEST_PLANE_PORT } from "../_shared/names";
import { Flow, FlowPeer } from "./types";

/** The platform's NATS client port (`dynamo-platform` values `nats.config.nats.port`). */
export const NATS_PORT = 4222;
/** DNS and HTTPS. */
export const DNS_PORT = 53;
export const HTTPS_PORT = 443;

/** Where the graph's ports were read (tests/contracts/facts/dynamo-network.json, held by network-policy.spec.ts). */
const NETWORK_FACT = "tests/contracts/facts/dynamo-network.json";

/** A caller's response-stream server: bound to port 0, the callee connects back to whatever the kernel gave. */
const RESPONSE_STREAM =
  "a caller's response-stream server binds port 0 (TcpStreamServer ServerOptions.port default 0) and the callee connects back to it";

/** DNS, both protocols, for a pod group. */
function dns(from: FlowPeer): Flow[] {
  return (["UDP", "TCP"] as const).map((protocol) => ({
    id: `${from}-dns-${protocol.toLowerCase()}`,
    from,
    to: FlowPeer.Dns,
    protocol,
    port: DNS_PORT,
    why: "resolve Service names (the cluster DNS in kube-system)",
    source: "Kubernetes DNS for Services and Pods (kube-dns Service, port 53 UDP and TCP)",
  }));
}

/** HTTPS to anywhere for a pod group that talks to the Kubernetes API or the Hugging Face hub. */
function https(from: FlowPeer, why: string): Flow {
  return {
    id: `${from}-https`,
    from,
    to: FlowPeer.Https,
    protocol: "TCP",
    port: HTTPS_PORT,
    why,
    source: `${NETWORK_FACT} discoveryBackend "kubernetes"; the HF hub publishes no address range`,
  };
}

/** Flows every release's graph needs (a release's module adds those of its own planes). */
export const COMMON_FLOWS: readonly Flow[] = [
  {
    id: "clients-frontend",
    from: FlowPeer.Clients,
    to: FlowPeer.Frontend,
    protocol: "TCP",
    port: DynamoPort.FrontendHttp,
    why: "the OpenAI-compatible API, from clientNamespaces and the internal load balancer's sourceRanges",
    source: `${NETWORK_FACT} frontendHttpPort (operator DynamoServicePort)`,
  },
  {
    id: "metrics-frontend",
    from: FlowPeer.Metrics,
    to: FlowPeer.Frontend,
    protocol: "TCP",
    port: DynamoPort.FrontendHttp,
    why: "Prometheus scrapes the Frontend's /metrics on its HTTP port (the Frontend PodMonitor)",
    source: `${NETWORK_FACT} frontendHttpPort`,
  },
  {
    id: "metrics-workers",
    from: FlowPeer.Metrics,
    to: FlowPeer.Workers,
    protocol: "TCP",
    port: DynamoPort.WorkerSystem,
    why: "Prometheus scrapes the workers' /metrics on the system port (the worker PodMonitor); NIXL's telemetry port stays closed (NIXL_TELEMETRY_ENABLE=n)",
    source: `${NETWORK_FACT} workerSystemPort, workerNixlTelemetryEnable`,
  },
  {
    id: "operator-workers",
    from: FlowPeer.Operator,
    to: FlowPeer.Workers,
    protocol: "TCP",
    port: DynamoPort.WorkerSystem,
    why: "the operator's model-endpoint client calls the workers' system port",
    source: `${NETWORK_FACT} operatorCallsWorkerSystemPort`,
  },
  {
    id: "frontend-workers-request-plane",
    from: FlowPeer.Frontend,
    to: FlowPeer.Workers,
    protocol: "TCP",
    port: REQUEST_PLANE_PORT,
    why: "the TCP request plane: the Frontend sends each request to a worker's RPC server, pinned by DYN_TCP_RPC_PORT",
    source: `${NETWORK_FACT} requestPlaneDefault "tcp", tcpRpcPortVariable DYN_TCP_RPC_PORT`,
  },
  {
    id: "workers-frontend-response-streams",
    from: FlowPeer.Workers,
    to: FlowPeer.Frontend,
    protocol: "TCP",
    port: "any",
    portWhy: RESPONSE_STREAM,
    why: "each worker streams its answer back to the Frontend's response server",
    source: `${NETWORK_FACT} responseStreamServerDefaultPort 0, callerUsesResponseStreamServer`,
  },
  {
    id: "workers-workers",
    from: FlowPeer.Workers,
    to: FlowPeer.Workers,
    protocol: "TCP",
    port: "any",
    portWhy:
      "vLLM's NIXL side channel (5600 + the data-parallel rank), UCX's listeners (kvTransport ucx), and the request plane and response streams when one worker calls another",
    why: "prefill and decode exchange NIXL metadata and, with UCX, the KV cache itself (EFA's SRD traffic is not IP and no NetworkPolicy sees it)",
    source:
      "tests/contracts/facts/vllm-nixl-side-channel.json (portVariable, offset data_parallel_rank); " + NETWORK_FACT,
  },
  ...dns(FlowPeer.Frontend),
  ...dns(FlowPeer.Workers),
  https(FlowPeer.Frontend, "the Kubernetes API (discovery backend kubernetes) and the Hugging Face hub"),
  https(FlowPeer.Workers, "the Kubernetes API (discovery backend kubernetes) and the Hugging Face hub (weights)"),
  ...dns(FlowPeer.Prefetch),
  https(FlowPeer.Prefetch, "the Hugging Face hub: the local-nvme prefetch downloads the weights to the node"),
  {
    id: "first-token-check-frontend",
    from: FlowPeer.FirstTokenCheck,
    to: FlowPeer.Frontend,
    protocol: "TCP",
    port: DynamoPort.FrontendHttp,
    why: "the first-token check lists the models and asks for a completion and a streamed completion",
    source: `${NETWORK_FACT} frontendHttpPort; components/inference/first-token.ts`,
  },
  ...dns(FlowPeer.FirstTokenCheck),
];

/** The NATS flows of a release whose platform runs NATS and whose event plane is NATS. */
export function natsFlows(source: string): Flow[] {
  return [FlowPeer.Frontend, FlowPeer.Workers].map((from) => ({
    id: `${from}-nats`,
    from,
    to: FlowPeer.Nats,
    protocol: "TCP" as const,
    port: NATS_PORT,
    why: "the event plane (KV events, worker load metrics) runs over the platform's NATS",
    source,
  }));
}
