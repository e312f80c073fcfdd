/**
 * The GPU nodes' side of gate A: a node whose kernel reserved fewer 2 MiB hugepages at boot than its EFA workers
 * request registered tainted (`HUGEPAGES_TAINT`, written by the GPU nodes' user data), and no worker schedules there.
 * A Pending worker's own event only says "Insufficient hugepages-2Mi" or "untolerated taint"; this names the node,
 * both counts and the fix. Pure: `k8s.ts` reads the nodes, this judges.
 */
import { HUGEPAGES_TAINT, parseHugepagesTaintValue } from "../../components/cluster/user-data";
import { GateResult, GateStatus } from "./gates";

/** One taint of a node, as the API lists it. */
export interface NodeTaint {
  readonly key: string;
  readonly value?: string;
  readonly effect: string;
}

/** What gate A needs to know about a GPU node. */
export interface NodeFact {
  readonly name: string;
  readonly taints: readonly NodeTaint[];
}

/** The GPU nodes as read, or why they could not be (RBAC: listing nodes is cluster-scoped). */
export type NodesRead = { readonly nodes: readonly NodeFact[] } | { readonly error: string };

/** One line per node registered with the hugepages taint, naming both counts and the fix. */
export function hugepagesShortNodes(nodes: readonly NodeFact[]): string[] {
  return nodes.flatMap((n) =>
    n.taints
      .filter((t) => t.key === HUGEPAGES_TAINT.key)
      .map((t) => {
        const counts = parseHugepagesTaintValue(t.value ?? "");
        const said = counts
          ? `the kernel reserved only ${counts.got} of the ${counts.asked} 2 MiB hugepages its EFA workers request`
          : `hugepages reservation short (taint value ${JSON.stringify(t.value ?? "")})`;
        return `node ${n.name}: tainted ${t.key}:${t.effect} at boot: ${said}, so no EFA worker schedules there (memory too fragmented when the node booted); replace the node (drain it and terminate its instance: the node group launches another)`;
      }),
  );
}

/**
 * Gate A with the GPU nodes: FAIL when a node registered short of hugepages (a node of the graph's pool that can
 * run none of its workers); a node list that could not be read is said, and judges nothing.
 */
export function withNodes(a: GateResult, read: NodesRead): GateResult {
  if ("error" in read)
    return { ...a, evidence: [...a.evidence, `GPU nodes not read (${read.error}): hugepages taints not checked`] };
  const short = hugepagesShortNodes(read.nodes);
  if (short.length === 0) return a;
  return { ...a, status: GateStatus.Fail, evidence: [...short, ...a.evidence] };
}
