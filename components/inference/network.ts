/**
 * The NetworkPolicies of the graph's namespace: every pod there is denied all traffic, then the Frontend and the
 * workers get back exactly the flows Dynamo uses. Pure. Each flow and its upstream source (the facts are in
 * tests/contracts/facts/dynamo-network.json and vllm-nixl-side-channel.json, checked by
 * tests/contracts/network-policy.spec.ts):
 *
 * - clients -> Frontend TCP 8000 (the operator's `DynamoServicePort`): from `clientNamespaces`, and from the load
 *   balancer's `sourceRanges` when it is an internal load balancer;
 * - Frontend -> workers on the request plane, TCP `REQUEST_PLANE_PORT`: the runtime's TCP request plane (the
 *   default) binds an OS-assigned port unless `DYN_TCP_RPC_PORT` pins it, which the workers' env does;
 * - workers -> Frontend on any TCP port: a caller receives each response stream on its own TCP server, bound to
 *   port 0 (OS-assigned), and the worker connects back to it;
 * - workers <-> workers on any TCP port: vLLM's NIXL side channel (5600 + the data-parallel index), UCX-over-TCP
 *   (`kvTransport: ucx`) on the ports UCX's listeners pick, and the same call-back response streams when one
 *   worker calls another (a vLLM prefill worker holds a client of the decode workers). EFA's RDMA traffic (SRD)
 *   is not IP traffic, so no NetworkPolicy governs it (docs/ARCHITECTURE.md#network-policies);
 * - Prometheus (`metricsNamespaces`) -> Frontend TCP 8000 and workers TCP 9090 (`DynamoSystemPort`), the ports
 *   the PodMonitors scrape; NIXL's telemetry port 19090 stays closed: the operator sets `NIXL_TELEMETRY_ENABLE=n`;
 * - the operator (the platform namespace) -> workers TCP 9090: its model-endpoint client calls the system port;
 * - the `local-nvme` prefetch DaemonSet's pods -> DNS and TCP 443 only (the HF hub), nothing in: they download the
 *   weights to the node and serve nothing;
 * - every pod -> DNS (kube-system, UDP and TCP 53); -> NATS in the platform namespace, TCP 4222, only where the
 *   release's platform runs NATS (`seed`: the event plane's default then; the chart installs no etcd and discovers
 *   through the Kubernetes API); -> TCP 443 anywhere: the
 *   Kubernetes API (discovery) and the Hugging Face hub (weights, and the Frontend's config/tokenizer download),
 *   which publishes no fixed address range.
 */
import { DynamoPort, GraphService, OperatorLabel, K8S_NAME } from "../_shared/names";
import { FrontendServiceType, ResolvedInference } from "./args";
import { prefetchDaemonSetName, renderPrefetchDaemonSet } from "./cache";
import { internetsCovered, parseCidr, parsedBlocks } from "../_shared/cidr";
import { brief, Problem, show } from "../_shared/problems";
import { release } from "../releases";

/** The workers' request-plane port (`DYN_TCP_RPC_PORT`), pinned so the Frontend -> worker rule names one port. */
export const REQUEST_PLANE_PORT = 9999;
/** The platform's NATS client port (`dynamo-platform` values `nats.config.nats.port`). */
export const NATS_PORT = 4222;
/** DNS and HTTPS. */
export const DNS_PORT = 53;
export const HTTPS_PORT = 443;
/** The label every namespace carries with its own name (Kubernetes sets it, since v1.22). */
export const NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";

/** NetworkPolicy fields as rendered (networking.k8s.io/v1). */
export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: {
    key: string;
    operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
    values?: string[];
  }[];
}
export interface PolicyPeer {
  readonly podSelector?: LabelSelector;
  readonly namespaceSelector?: LabelSelector;
  readonly ipBlock?: { readonly cidr: string; readonly except?: string[] };
}
export interface PolicyPort {
  readonly protocol: "TCP" | "UDP";
  readonly port?: number;
}
export interface IngressRule {
  readonly from: PolicyPeer[];
  readonly ports?: PolicyPort[];
}
export interface EgressRule {
  readonly to: PolicyPeer[];
  readonly ports?: PolicyPort[];
}
export interface NetworkPolicyObject {
  readonly apiVersion: "networking.k8s.io/v1";
  readonly kind: "NetworkPolicy";
  readonly metadata: { readonly name: string; readonly namespace: string };
  readonly spec: {
    readonly podSelector: LabelSelector;
    readonly policyTypes: ("Ingress" | "Egress")[];
    readonly ingress?: IngressRule[];
    readonly egress?: EgressRule[];
  };
}

const tcp = (port?: number): PolicyPort => (port === undefined ? { protocol: "TCP" } : { protocol: "TCP", port });
const inNamespace = (ns: string): PolicyPeer => ({
  namespaceSelector: { matchLabels: { [NAMESPACE_NAME_LABEL]: ns } },
});

function selectors(r: ResolvedInference) {
  const graph = { [OperatorLabel.GraphName]: r.graphName };
  const workers: LabelSelector = {
    matchLabels: graph,
    matchExpressions: [
      { key: OperatorLabel.Component, operator: "In", values: [GraphService.Prefill, GraphService.Decode] },
    ],
  };
  const frontend: LabelSelector = { matchLabels: { ...graph, [OperatorLabel.Component]: GraphService.Frontend } };
  return { workers, frontend };
}

/**
 * Egress every pod of the graph needs: DNS, HTTPS (the Kubernetes API, the HF hub) and, where the release's platform
 * runs NATS (`seed`; from Dynamo 1.4.0 the chart installs none and the planes are TCP and ZMQ), the platform's NATS.
 */
function commonEgress(r: ResolvedInference): EgressRule[] {
  return [
    { to: [inNamespace("kube-system")], ports: [{ protocol: "UDP", port: DNS_PORT }, tcp(DNS_PORT)] },
    ...(release(r.release).platform.nats ? [{ to: [inNamespace(r.platformNamespace)], ports: [tcp(NATS_PORT)] }] : []),
    { to: [{ ipBlock: { cidr: "0.0.0.0/0" } }], ports: [tcp(HTTPS_PORT)] },
  ];
}

function frontendPolicy(r: ResolvedInference, name: string): NetworkPolicyObject {
  const s = selectors(r);
  const np = r.networkPolicy;
  // The load balancer keeps the caller's address (`renderFrontendLoadBalancer`: an NLB with instance targets and
  // externalTrafficPolicy Local, so neither it nor kube-proxy rewrites the source, and its health checks go to
  // kube-proxy's health port on the node, never to the pod): the pod admits exactly the ranges the load balancer
  // admits, and a pod elsewhere in the VPC is not let in through them.
  const lb = r.frontend.serviceType === FrontendServiceType.InternalLoadBalancer ? [...r.frontend.sourceRanges] : [];
  const callers: PolicyPeer[] = [
    ...np.clientNamespaces.map(inNamespace),
    ...np.metricsNamespaces.map(inNamespace),
    ...lb.map((cidr) => ({ ipBlock: { cidr } })),
  ];
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name: `${name}-frontend`, namespace: r.namespace },
    spec: {
      podSelector: s.frontend,
      policyTypes: ["Ingress", "Egress"],
      ingress: [
        ...(callers.length > 0 ? [{ from: callers, ports: [tcp(DynamoPort.FrontendHttp)] }] : []),
        { from: [{ podSelector: s.workers }], ports: [tcp()] },
      ],
      egress: [{ to: [{ podSelector: s.workers }], ports: [tcp(REQUEST_PLANE_PORT)] }, ...commonEgress(r)],
    },
  };
}

function workerPolicy(r: ResolvedInference, name: string): NetworkPolicyObject {
  const s = selectors(r);
  const scrapers = r.networkPolicy.metricsNamespaces.map(inNamespace);
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name: `${name}-workers`, namespace: r.namespace },
    spec: {
      podSelector: s.workers,
      policyTypes: ["Ingress", "Egress"],
      ingress: [
        { from: [{ podSelector: s.frontend }], ports: [tcp(REQUEST_PLANE_PORT)] },
        { from: [{ podSelector: s.workers }], ports: [tcp()] },
        { from: [...scrapers, inNamespace(r.platformNamespace)], ports: [tcp(DynamoPort.WorkerSystem)] },
      ],
      egress: [
        { to: [{ podSelector: s.frontend }], ports: [tcp()] },
        { to: [{ podSelector: s.workers }], ports: [tcp()] },
        ...commonEgress(r),
      ],
    },
  };
}

/** Denies every pod of the namespace all traffic; the other policies add back what Dynamo needs. */
function defaultDeny(r: ResolvedInference, name: string): NetworkPolicyObject {
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name: `${name}-default-deny`, namespace: r.namespace },
    spec: { podSelector: {}, policyTypes: ["Ingress", "Egress"] },
  };
}

/** The prefetch DaemonSet's pods: out to DNS and HTTPS (the HF hub), nothing in (the default deny holds ingress). */
function prefetchPolicy(r: ResolvedInference, name: string): NetworkPolicyObject {
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name: `${name}-model-prefetch`, namespace: r.namespace },
    spec: {
      podSelector: { matchLabels: { "app.kubernetes.io/instance": prefetchDaemonSetName(r) } },
      policyTypes: ["Egress"],
      egress: [
        { to: [inNamespace("kube-system")], ports: [{ protocol: "UDP", port: DNS_PORT }, tcp(DNS_PORT)] },
        { to: [{ ipBlock: { cidr: "0.0.0.0/0" } }], ports: [tcp(HTTPS_PORT)] },
      ],
    },
  };
}

/** The graph namespace's NetworkPolicies; none when `networkPolicy.enabled` is false. */
export function renderNetworkPolicies(r: ResolvedInference): NetworkPolicyObject[] {
  if (!r.networkPolicy.enabled) return [];
  const name = r.graphName;
  const prefetch = renderPrefetchDaemonSet(r) ? [prefetchPolicy(r, name)] : [];
  return [defaultDeny(r, name), frontendPolicy(r, name), workerPolicy(r, name), ...prefetch];
}

/*
 * Problems of the graph's network arguments: the internal load balancer's source ranges, the VPC CIDR they
 * default to, and the namespaces the NetworkPolicies let in. Split from `./validate.ts`, which collects these with
 * the rest. Pure.
 */

/**
 * Source ranges of one family the internal load balancer takes: the AWS Load Balancer Controller writes one inbound
 * security-group rule per range and listener port (the Frontend has one), and a VPC security group holds 60 inbound
 * rules per family by default (tests/contracts/facts/aws-network-limits.json). More fails at `pulumi up`, after the
 * GPU nodes already bill.
 */
export const LB_SOURCE_RANGES_PER_FAMILY = 60;

function cidrProblem(path: string, value: unknown): Problem[] {
  const p = parseCidr(value);
  return "error" in p ? [{ propertyPath: path, reason: `${p.reason}; got ${show(value)}${p.hint}` }] : [];
}

/** The load balancer's source ranges: CIDRs, at least one, and never everything routed into the VPC. */
function sourceRangeProblems(r: ResolvedInference, at: (k: string) => string): Problem[] {
  const path = at("frontend.sourceRanges");
  const ranges = r.frontend.sourceRanges;
  const out = ranges.flatMap((c, i) => cidrProblem(`${path}[${i}]`, c));
  if (r.frontend.serviceType !== FrontendServiceType.InternalLoadBalancer) return out;
  if (ranges.length === 0)
    out.push({
      propertyPath: path,
      reason: `must list the CIDRs that may reach the internal load balancer; none given and no vpcCidr to default to. Set vpcCidr (the cluster VPC's CIDR, e.g. "10.0.0.0/16") or list your callers' CIDRs`,
    });
  const world = internetsCovered(ranges);
  if (out.length === 0 && world.length > 0)
    out.push({
      propertyPath: path,
      reason: `${brief(ranges)} cover every public ${world.join(" and ")} address: anything routed into the VPC (peered VPCs, VPN, Transit Gateway) would reach the unauthenticated API. List only your callers' CIDRs, or the VPC's`,
    });
  for (const family of [4, 6] as const) {
    const n = parsedBlocks(ranges).filter((b) => b.family === family).length;
    if (n > LB_SOURCE_RANGES_PER_FAMILY)
      out.push({
        propertyPath: path,
        reason: `lists ${n} IPv${family} ranges; the load balancer's security group takes one inbound rule per range and port, and AWS allows ${LB_SOURCE_RANGES_PER_FAMILY} inbound IPv${family} rules per security group by default. Merge them into wider blocks`,
      });
  }
  return out;
}

/** Every problem of the network arguments. */
export function networkProblems(r: ResolvedInference, at: (k: string) => string): Problem[] {
  const out = [...sourceRangeProblems(r, at)];
  if (r.vpcCidr !== undefined) out.push(...cidrProblem(at("vpcCidr"), r.vpcCidr));
  for (const key of ["clientNamespaces", "metricsNamespaces"] as const)
    r.networkPolicy[key].forEach((ns, i) => {
      if (!K8S_NAME.test(String(ns)))
        out.push({
          propertyPath: at(`networkPolicy.${key}[${i}]`),
          reason: `must be a namespace name (lower-case RFC 1123, <= 63 characters); got ${show(ns)}`,
        });
    });
  return out;
}
