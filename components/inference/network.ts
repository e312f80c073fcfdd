/**
 * The NetworkPolicies of the graph's namespace, generated from the release's flows (components/releases/flows.ts
 * and each release's own): every pod there is denied all traffic, then each pod group (the Frontend, the workers,
 * the `local-nvme` prefetch, the first-token check) gets back exactly the flows that start or end at it. A flow's
 * `port: "any"` (a port the kernel picks at run time) becomes a rule without a port. EFA's RDMA traffic (SRD) is not
 * IP traffic, so no NetworkPolicy governs it (docs/ARCHITECTURE.md#network-policies). Pure;
 * tests/contracts/network-policy.spec.ts walks every flow of both releases against what this renders.
 */
import { GraphService, OperatorLabel, K8S_NAME } from "../_shared/names";
import { FrontendServiceType, ResolvedInference } from "./args";
import { prefetchDaemonSetName, renderPrefetchDaemonSet } from "./cache";
import { internetsCovered, parseCidr, parsedBlocks } from "../_shared/cidr";
import { brief, Problem, show } from "../_shared/problems";
import { Flow, FlowPeer, release } from "../releases";
import { firstTokenCheckEnabled, firstTokenCheckLabels } from "./first-token";

export { REQUEST_PLANE_PORT } from "../_shared/names";
export { DNS_PORT, HTTPS_PORT, NATS_PORT } from "../releases";

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

const inNamespace = (ns: string): PolicyPeer => ({
  namespaceSelector: { matchLabels: { [NAMESPACE_NAME_LABEL]: ns } },
});

/** The pod groups of the graph that own a policy, with their selector and the policy's name suffix. */
const POD_GROUPS = [FlowPeer.Frontend, FlowPeer.Workers, FlowPeer.Prefetch, FlowPeer.FirstTokenCheck] as const;
type PodGroup = (typeof POD_GROUPS)[number];
const SUFFIX: Record<PodGroup, string> = {
  [FlowPeer.Frontend]: "frontend",
  [FlowPeer.Workers]: "workers",
  [FlowPeer.Prefetch]: "model-prefetch",
  [FlowPeer.FirstTokenCheck]: "first-token",
};

/** The selector of a pod group; undefined when the graph renders no such pod (no prefetch, the check off). */
function groupSelector(r: ResolvedInference, g: PodGroup): LabelSelector | undefined {
  const graph = { [OperatorLabel.GraphName]: r.graphName };
  switch (g) {
    case FlowPeer.Frontend:
      return { matchLabels: { ...graph, [OperatorLabel.Component]: GraphService.Frontend } };
    case FlowPeer.Workers:
      return {
        matchLabels: graph,
        matchExpressions: [
          { key: OperatorLabel.Component, operator: "In", values: [GraphService.Prefill, GraphService.Decode] },
        ],
      };
    case FlowPeer.Prefetch:
      return renderPrefetchDaemonSet(r)
        ? { matchLabels: { "app.kubernetes.io/instance": prefetchDaemonSetName(r) } }
        : undefined;
    case FlowPeer.FirstTokenCheck:
      return firstTokenCheckEnabled(r) ? { matchLabels: firstTokenCheckLabels(r) } : undefined;
  }
}

const isPodGroup = (p: FlowPeer): p is PodGroup => (POD_GROUPS as readonly string[]).includes(p);

/**
 * What a flow's end is, as NetworkPolicy peers; empty when the graph has nothing there (no client namespace, no
 * such pod). The internal load balancer keeps the caller's address (an NLB with instance targets and
 * externalTrafficPolicy Local, `renderFrontendLoadBalancer`), so the Frontend admits exactly the ranges the load
 * balancer admits, and a pod elsewhere in the VPC is not let in through them.
 */
export function flowPeers(r: ResolvedInference, p: FlowPeer): PolicyPeer[] {
  if (isPodGroup(p)) {
    const sel = groupSelector(r, p);
    return sel ? [{ podSelector: sel }] : [];
  }
  const np = r.networkPolicy;
  switch (p) {
    case FlowPeer.Clients: {
      const lb = r.frontend.serviceType === FrontendServiceType.InternalLoadBalancer ? r.frontend.sourceRanges : [];
      return [...np.clientNamespaces.map(inNamespace), ...lb.map((cidr) => ({ ipBlock: { cidr } }))];
    }
    case FlowPeer.Metrics:
      return np.metricsNamespaces.map(inNamespace);
    case FlowPeer.Operator:
    case FlowPeer.Nats:
      return [inNamespace(r.platformNamespace)];
    case FlowPeer.Dns:
      return [inNamespace("kube-system")];
    case FlowPeer.Https:
      return [{ ipBlock: { cidr: "0.0.0.0/0" } }];
  }
}

/** The release's flows this graph has: both ends present. */
export function graphFlows(r: ResolvedInference): Flow[] {
  return release(r.release).flows.filter((f) => flowPeers(r, f.from).length > 0 && flowPeers(r, f.to).length > 0);
}

/** The ports of flows to one peer: a protocol with an "any" flow admits every port of it. */
function portsOf(flows: readonly Flow[]): PolicyPort[] {
  const out: PolicyPort[] = [];
  for (const protocol of new Set(flows.map((f) => f.protocol))) {
    const mine = flows.filter((f) => f.protocol === protocol);
    if (mine.some((f) => f.port === "any")) out.push({ protocol });
    else for (const port of new Set(mine.map((f) => f.port as number))) out.push({ protocol, port });
  }
  return out;
}

/** One rule per peer (in the flows' order), with the union of the flows' ports. */
function rulesFor(r: ResolvedInference, flows: readonly Flow[], other: (f: Flow) => FlowPeer) {
  const peers = [...new Set(flows.map(other))];
  return peers.map((p) => ({ peers: flowPeers(r, p), ports: portsOf(flows.filter((f) => other(f) === p)) }));
}

function groupPolicy(r: ResolvedInference, g: PodGroup, flows: readonly Flow[]): NetworkPolicyObject | undefined {
  const sel = groupSelector(r, g);
  if (!sel) return undefined;
  const ingress = rulesFor(
    r,
    flows.filter((f) => f.to === g),
    (f) => f.from,
  ).map((x) => ({ from: x.peers, ports: x.ports }));
  const egress = rulesFor(
    r,
    flows.filter((f) => f.from === g),
    (f) => f.to,
  ).map((x) => ({ to: x.peers, ports: x.ports }));
  const types = [
    ...(ingress.length > 0 ? (["Ingress"] as const) : []),
    ...(egress.length > 0 ? (["Egress"] as const) : []),
  ];
  if (types.length === 0) return undefined;
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name: `${r.graphName}-${SUFFIX[g]}`, namespace: r.namespace },
    spec: {
      podSelector: sel,
      policyTypes: [...types],
      ...(ingress.length > 0 ? { ingress } : {}),
      ...(egress.length > 0 ? { egress } : {}),
    },
  };
}

/** Denies every pod of the namespace all traffic; the other policies add back the release's flows. */
function defaultDeny(r: ResolvedInference): NetworkPolicyObject {
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name: `${r.graphName}-default-deny`, namespace: r.namespace },
    spec: { podSelector: {}, policyTypes: ["Ingress", "Egress"] },
  };
}

/** The graph namespace's NetworkPolicies; none when `networkPolicy.enabled` is false. */
export function renderNetworkPolicies(r: ResolvedInference): NetworkPolicyObject[] {
  if (!r.networkPolicy.enabled) return [];
  const flows = graphFlows(r);
  const groups = POD_GROUPS.map((g) => groupPolicy(r, g, flows)).filter((p) => p !== undefined);
  return [defaultDeny(r), ...groups];
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
