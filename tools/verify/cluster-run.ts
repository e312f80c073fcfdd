/**
 * `verify` on a cluster stack: reads what the stack owns through the Kubernetes API (the system nodes by their
 * label, the platform namespace's pods, the DaemonSets of kube-system and of the monitoring namespace, the
 * Prometheus pod) and judges it (`cluster-gates.ts`): gates N, P, V, M, with the graph gates SKIPPED as not
 * applying. One time budget; an unreachable cluster keeps what ran and says why (exit 3), as for a graph.
 */
import type * as k8s from "@kubernetes/client-node";
import { kubeModule } from "../_shared/kube-client";
import {
  ClusterExpect,
  clusterExpect,
  DaemonSetFact,
  gateMonitoring,
  gateNodeDaemonSets,
  gatePlatform,
  gateSystemNodes,
  graphGatesSkipped,
  NODE_DAEMONSETS_NAMESPACE,
  NodeReady,
} from "./cluster-gates";
import type { ClusterStack } from "./deployed-stack";
import { GateId, GateResult, GateStatus, notApplicable, PodFact, result } from "./gates";
import { UnreachableError } from "./http";
import { clusterError, loadKubeConfig, withTimeout } from "./k8s";

/** How to verify a cluster stack. */
export interface ClusterRunOptions {
  readonly stack: string;
  readonly cluster: ClusterStack;
  /** Kubeconfig file. @default - KUBECONFIG, then ~/.kube/config, then in-cluster */
  readonly kubeconfig?: string;
  /** Budget for the whole run, in milliseconds. */
  readonly timeoutMs: number;
}

const isReady = (conditions: readonly { type: string; status: string }[] | undefined) =>
  (conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");

/** The few reads of a cluster stack's parts, each within the time left. */
class ClusterStackReader {
  private readonly core: k8s.CoreV1Api;
  private readonly apps: k8s.AppsV1Api;
  constructor(
    private readonly kc: k8s.KubeConfig,
    private readonly deadline: number,
  ) {
    this.core = kc.makeApiClient(kubeModule().CoreV1Api);
    this.apps = kc.makeApiClient(kubeModule().AppsV1Api);
  }

  private async call<T>(p: () => Promise<T>, what: string): Promise<T> {
    const left = this.deadline - Date.now();
    if (left <= 0) throw new UnreachableError(`no time left before ${what} (--timeout)`);
    try {
      return await withTimeout(p(), left, what);
    } catch (e) {
      throw clusterError(this.kc, e, what);
    }
  }

  async nodes(labelSelector: string): Promise<NodeReady[]> {
    const list = await this.call(() => this.core.listNode({ labelSelector }), "list nodes");
    return list.items.map((n) => ({ name: n.metadata?.name ?? "?", ready: isReady(n.status?.conditions) }));
  }

  async pods(namespace: string, labelSelector?: string): Promise<PodFact[]> {
    const list = await this.call(
      () => this.core.listNamespacedPod({ namespace, ...(labelSelector ? { labelSelector } : {}) }),
      `list pods in ${namespace}`,
    );
    return list.items.map((p) => ({
      name: p.metadata?.name ?? "?",
      component: undefined,
      componentType: undefined,
      phase: p.status?.phase,
      ready: isReady(p.status?.conditions),
    }));
  }

  async daemonSets(namespace: string): Promise<DaemonSetFact[]> {
    const list = await this.call(
      () => this.apps.listNamespacedDaemonSet({ namespace }),
      `list DaemonSets in ${namespace}`,
    );
    return list.items.map((d) => ({
      name: d.metadata?.name ?? "?",
      chart: d.metadata?.labels?.["helm.sh/chart"],
      desired: d.status?.desiredNumberScheduled ?? 0,
      ready: d.status?.numberReady ?? 0,
    }));
  }
}

/** Gates N, P, V, M in order, each timed; `done` keeps those that finished. */
async function runAll(r: ClusterStackReader, want: ClusterExpect, done: Map<GateId, GateResult>): Promise<void> {
  const timed = async (id: GateId, f: () => Promise<(ms: number) => GateResult>) => {
    const t0 = Date.now();
    const judge = await f();
    done.set(id, judge(Date.now() - t0));
  };
  await timed("N", async () => {
    const nodes = await r.nodes(want.systemNodes.selector);
    return (ms) => gateSystemNodes(nodes, want.systemNodes, ms);
  });
  await timed("P", async () => {
    const pods = await r.pods(want.platformNamespace);
    return (ms) => gatePlatform(pods, want.platformNamespace, ms);
  });
  await timed("V", async () => {
    const ds = await r.daemonSets(NODE_DAEMONSETS_NAMESPACE);
    return (ms) => gateNodeDaemonSets(ds, want.nodeDaemonSets, ms);
  });
  const m = want.monitoring;
  if (!m)
    return void done.set("M", notApplicable("M", "the cluster stack turns monitoring off (observability: false)"));
  await timed("M", async () => {
    const prometheus = await r.pods(m.namespace, m.prometheusSelector);
    const ds = m.dcgm ? await r.daemonSets(m.namespace) : [];
    return (ms) => gateMonitoring(prometheus, ds, m, ms);
  });
}

/** Verifies a cluster stack: its gates, then the graph gates SKIPPED as not applying. */
export async function runClusterGates(o: ClusterRunOptions): Promise<{ results: GateResult[]; unreachable?: string }> {
  const kc = await loadKubeConfig(o.kubeconfig);
  const done = new Map<GateId, GateResult>();
  let unreachable: string | undefined;
  try {
    await runAll(new ClusterStackReader(kc, Date.now() + o.timeoutMs), clusterExpect(o.cluster.config), done);
  } catch (e) {
    if (!(e instanceof UnreachableError)) throw e;
    unreachable = e.message;
  }
  const own = (["N", "P", "V", "M"] as const).map(
    (id) => done.get(id) ?? result(id, GateStatus.NotRun, [`not run: ${unreachable ?? "stopped early"}`]),
  );
  return {
    results: [...own, ...graphGatesSkipped(o.stack, o.cluster.modelStacks)],
    ...(unreachable ? { unreachable } : {}),
  };
}
