/**
 * A small NetworkPolicy evaluator (networking.k8s.io/v1 semantics) over rendered objects, for tests: is a TCP/UDP
 * connection from one endpoint to another allowed? A pod selected by any policy of a type (Ingress, Egress) is
 * isolated in that direction and admits only what some rule of those policies allows; a connection needs the
 * source's egress and the destination's ingress. Peers: podSelector (the policy's namespace), namespaceSelector
 * (every pod of the namespaces it selects), both (those pods in those namespaces), ipBlock (the address, minus
 * `except`). A rule without `ports` allows every port; a port without a number, every port of its protocol.
 * @see https://kubernetes.io/docs/concepts/services-networking/network-policies/
 */
import { covers, parseCidr, parsedBlocks } from "../../components/_shared/cidr";
import {
  type LabelSelector,
  type NetworkPolicyObject,
  type PolicyPeer,
  type PolicyPort,
  NAMESPACE_NAME_LABEL,
} from "../../components/inference/network";

/** A pod (namespace + labels + IP) or an address outside the cluster (IP only). */
export type Endpoint =
  | {
      readonly pod: { readonly namespace: string; readonly labels: Readonly<Record<string, string>> };
      readonly ip: string;
    }
  | { readonly ip: string };

/** One connection attempt. */
export interface Flow {
  readonly from: Endpoint;
  readonly to: Endpoint;
  readonly protocol: "TCP" | "UDP";
  readonly port: number;
}

/** Whether a label selector matches a label set (an empty selector matches everything). */
export function selects(sel: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  const byLabel = Object.entries(sel.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  return (
    byLabel &&
    (sel.matchExpressions ?? []).every((e) => {
      const has = Object.prototype.hasOwnProperty.call(labels, e.key);
      if (e.operator === "Exists") return has;
      if (e.operator === "DoesNotExist") return !has;
      const inValues = has && (e.values ?? []).includes(labels[e.key]);
      return e.operator === "In" ? inValues : !inValues;
    })
  );
}

function inBlock(ip: string, block: { cidr: string; except?: string[] }): boolean {
  const family = ip.includes(":") ? 128 : 32;
  const host = parseCidr(`${ip}/${family}`);
  if (!("cidr" in host)) throw new Error(`not an IP address: ${ip}`);
  return covers(parsedBlocks([block.cidr]), host.cidr) && !covers(parsedBlocks(block.except ?? []), host.cidr);
}

function peerMatches(peer: PolicyPeer, policyNs: string, other: Endpoint): boolean {
  if (peer.ipBlock) return inBlock(other.ip, peer.ipBlock);
  if (!("pod" in other)) return false;
  const nsLabels = { [NAMESPACE_NAME_LABEL]: other.pod.namespace };
  const nsOk = peer.namespaceSelector ? selects(peer.namespaceSelector, nsLabels) : other.pod.namespace === policyNs;
  return nsOk && (peer.podSelector ? selects(peer.podSelector, other.pod.labels) : true);
}

function portMatches(ports: PolicyPort[] | undefined, flow: Flow): boolean {
  if (!ports || ports.length === 0) return true;
  return ports.some((p) => (p.protocol ?? "TCP") === flow.protocol && (p.port === undefined || p.port === flow.port));
}

function allowedAt(
  policies: readonly NetworkPolicyObject[],
  self: Endpoint,
  other: Endpoint,
  flow: Flow,
  dir: "Ingress" | "Egress",
): boolean {
  if (!("pod" in self)) return true;
  const mine = policies.filter(
    (p) =>
      p.metadata.namespace === self.pod.namespace &&
      p.spec.policyTypes.includes(dir) &&
      selects(p.spec.podSelector, self.pod.labels),
  );
  if (mine.length === 0) return true;
  return mine.some((p) =>
    (dir === "Ingress"
      ? (p.spec.ingress ?? []).map((r) => ({ peers: r.from, ports: r.ports }))
      : (p.spec.egress ?? []).map((r) => ({ peers: r.to, ports: r.ports }))
    ).some(
      (r) =>
        (r.peers.length === 0 || r.peers.some((peer) => peerMatches(peer, p.metadata.namespace, other))) &&
        portMatches(r.ports, flow),
    ),
  );
}

/** Whether the policies let the flow through: the source's egress and the destination's ingress both allow it. */
export function allows(policies: readonly NetworkPolicyObject[], flow: Flow): boolean {
  return (
    allowedAt(policies, flow.from, flow.to, flow, "Egress") && allowedAt(policies, flow.to, flow.from, flow, "Ingress")
  );
}
