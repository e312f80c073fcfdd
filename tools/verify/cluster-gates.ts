/**
 * What a cluster stack owns, judged (`npm run verify -- p5en-cluster`): its system nodes (gate N), the Dynamo
 * platform (P), the device plugins or DRA drivers (V) and the monitoring (M), as pure functions over what
 * `cluster-run.ts` read. What to expect comes from the stack's checked config through the components' own
 * derivations (the system nodes' label and count, the platform's namespace, `nodeDeviceCharts`, the monitoring's
 * namespace and DCGM chart), never restated. The graph gates do not apply to a cluster stack: SKIPPED, saying why.
 */
import { SYSTEM_NODE_LABELS } from "../../components/_shared/names";
import { resolveArgs as resolveCluster } from "../../components/cluster/args";
import { ChartAt, nodeDeviceCharts } from "../../components/cluster/derive";
import * as obs from "../../components/observability/args";
import { PROMETHEUS_POD_LABEL } from "../../components/observability/render";
import { resolveArgs as resolvePlatform } from "../../components/platform/args";
import { charts } from "../../components/versions";
import type { ClusterStackConfig } from "../../program/kinds";
import { CLUSTER_MONITOR_LABELS } from "../../program/kinds";
import { GateId, GateResult, GateStatus, notApplicable, PodFact, result } from "./gates";

/** A node as gate N judges it. */
export interface NodeReady {
  readonly name: string;
  /** The node's `Ready` condition is `True`. */
  readonly ready: boolean;
}

/** A DaemonSet as gates V and M judge it. */
export interface DaemonSetFact {
  readonly name: string;
  /** Its `helm.sh/chart` label: `<chart>-<version>` of the release that installed it. */
  readonly chart: string | undefined;
  /** `status.desiredNumberScheduled`: the nodes it should run on. */
  readonly desired: number;
  /** `status.numberReady`. */
  readonly ready: number;
}

/** What the cluster stack's config says the cluster holds. */
export interface ClusterExpect {
  /** Label selector of the system nodes, and how many the node group keeps. */
  readonly systemNodes: { readonly selector: string; readonly count: number };
  /** Namespace of the Dynamo platform (operator and its services). */
  readonly platformNamespace: string;
  /** The node DaemonSets' charts, in kube-system. */
  readonly nodeDaemonSets: readonly ChartAt[];
  /** The monitoring; undefined when the stack turns it off. */
  readonly monitoring?: {
    readonly namespace: string;
    readonly prometheusSelector: string;
    /** The DCGM exporter's chart; undefined when the stack turns the exporter off. */
    readonly dcgm?: ChartAt;
  };
}

/** Where the device plugins and DRA drivers are installed (components/cluster/addons.ts `release`). */
export const NODE_DAEMONSETS_NAMESPACE = "kube-system";

/** The label selector of `labels` (`k=v,k=v`). */
const selectorOf = (labels: Readonly<Record<string, string>>) =>
  Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(",");

/** What the cluster stack's checked config says its cluster holds, through the components' own resolution. */
export function clusterExpect(c: ClusterStackConfig): ClusterExpect {
  const a = resolveCluster(c.clusterArgs);
  const o = c.observability
    ? obs.resolveArgs({
        ...c.observability,
        monitorLabels: { ...CLUSTER_MONITOR_LABELS, ...c.observability.monitorLabels },
      })
    : undefined;
  return {
    systemNodes: { selector: selectorOf(SYSTEM_NODE_LABELS), count: a.systemNodeCount },
    platformNamespace: resolvePlatform(c.platform).namespace,
    nodeDaemonSets: nodeDeviceCharts(a),
    ...(o
      ? {
          monitoring: {
            namespace: o.namespace,
            prometheusSelector: selectorOf(PROMETHEUS_POD_LABEL),
            ...(o.dcgmExporter ? { dcgm: { chart: charts.dcgmExporter.chart, version: o.dcgmExporterVersion } } : {}),
          },
        }
      : {}),
  };
}

/**
 * The `helm.sh/chart` label a chart's objects carry: `<chart>-<version>`, `+` as `_`, at most 63 characters (each
 * chart's `<name>.chart` helper: tests/contracts/facts/chart-daemonset-labels.json).
 */
export function helmChartLabel(c: ChartAt): string {
  return `${c.chart}-${c.version}`.replace(/\+/g, "_").slice(0, 63).replace(/-+$/, "");
}

/** Gate N: at least the node group's count of system nodes, each Ready. */
export function gateSystemNodes(
  nodes: readonly NodeReady[],
  want: ClusterExpect["systemNodes"],
  ms?: number,
): GateResult {
  const bad = nodes.filter((n) => !n.ready).map((n) => `node ${n.name}: not Ready`);
  if (nodes.length < want.count)
    bad.unshift(`${nodes.length} of the ${want.count} system nodes (${want.selector}) registered`);
  if (bad.length > 0) return result("N", GateStatus.Fail, bad, ms);
  return result(
    "N",
    GateStatus.Pass,
    [`${nodes.length} system nodes Ready (${want.selector})`, ...nodes.map((n) => n.name)],
    ms,
  );
}

/** Gate P: the platform's pods (its operator and services) Running and Ready; finished hook Jobs' pods are fine. */
export function gatePlatform(pods: readonly PodFact[], namespace: string, ms?: number): GateResult {
  const live = pods.filter((p) => p.phase !== "Succeeded");
  if (live.length === 0)
    return result(
      "P",
      GateStatus.Fail,
      [`no pod in namespace ${namespace}: the Dynamo platform is not running there`],
      ms,
    );
  const bad = live.filter((p) => p.phase !== "Running" || !p.ready);
  if (bad.length > 0)
    return result(
      "P",
      GateStatus.Fail,
      bad.map((p) => `pod ${p.name}: phase=${p.phase ?? "?"} ready=${p.ready}`),
      ms,
    );
  const hooks = pods.length - live.length;
  return result(
    "P",
    GateStatus.Pass,
    [
      `${live.length} pods Running+Ready in ${namespace}${hooks ? ` (${hooks} finished hook pods)` : ""}`,
      ...live.map((p) => p.name),
    ],
    ms,
  );
}

/** One line per expected chart's DaemonSet: found, and its scheduled pods ready; `bad` when not. */
function daemonSetLines(found: readonly DaemonSetFact[], want: readonly ChartAt[], namespace: string) {
  return want.map((c) => {
    const label = helmChartLabel(c);
    const ds = found.filter((d) => d.chart === label);
    if (ds.length === 0)
      return {
        bad: true,
        line: `no DaemonSet of chart ${c.chart} ${c.version} in ${namespace} (helm.sh/chart=${label})`,
      };
    const short = ds.filter((d) => d.ready < d.desired);
    if (short.length > 0)
      return {
        bad: true,
        line: short.map((d) => `DaemonSet ${d.name}: ${d.ready} of ${d.desired} pods ready`).join("; "),
      };
    const idle = ds.every((d) => d.desired === 0);
    return {
      bad: false,
      line: idle
        ? `DaemonSet ${ds[0]!.name} (${label}): on no node yet: it runs on GPU nodes, which the model stacks' pools bring`
        : `DaemonSet ${ds.map((d) => d.name).join(", ")} (${label}): ${ds.reduce((n, d) => n + d.ready, 0)} pods ready`,
    };
  });
}

/** Gate V: the device plugins' (or DRA drivers') DaemonSets there, their pods ready on the nodes they run on. */
export function gateNodeDaemonSets(found: readonly DaemonSetFact[], want: readonly ChartAt[], ms?: number): GateResult {
  const lines = daemonSetLines(found, want, NODE_DAEMONSETS_NAMESPACE);
  return verdictOf("V", lines, ms);
}

/** Gate M: a Running+Ready Prometheus pod, and the DCGM exporter's DaemonSet (when on) ready. */
export function gateMonitoring(
  prometheus: readonly PodFact[],
  daemonSets: readonly DaemonSetFact[],
  want: NonNullable<ClusterExpect["monitoring"]>,
  ms?: number,
): GateResult {
  const ready = prometheus.filter((p) => p.phase === "Running" && p.ready);
  const prom = ready.length
    ? { bad: false, line: `Prometheus ${ready[0]!.name} Running+Ready in ${want.namespace}` }
    : { bad: true, line: `no Running+Ready Prometheus pod matches ${want.prometheusSelector} in ${want.namespace}` };
  const lines = [prom, ...daemonSetLines(daemonSets, want.dcgm ? [want.dcgm] : [], want.namespace)];
  return verdictOf("M", lines, ms);
}

/** The graph gates a verify of a graph runs, each SKIPPED on a cluster stack as not applying, saying what to run. */
export function graphGatesSkipped(stack: string, modelStacks: readonly string[]): GateResult[] {
  const run = modelStacks.length
    ? modelStacks.map((m) => `npm run verify -- ${m}`).join(", ")
    : "npm run verify -- <model stack> for each model stack on it";
  const why = `${stack} is a cluster stack and serves no graph; verify the graphs on it with ${run}`;
  return (["A", "B", "C", "D", "E"] as const satisfies readonly GateId[]).map((id) => notApplicable(id, why));
}

/** A gate from its lines: failed with the bad lines when any is bad, else passed with all of them. */
function verdictOf(gate: "V" | "M", lines: readonly { bad: boolean; line: string }[], ms?: number): GateResult {
  const bad = lines.filter((l) => l.bad);
  return bad.length > 0
    ? result(
        gate,
        GateStatus.Fail,
        bad.map((l) => l.line),
        ms,
      )
    : result(
        gate,
        GateStatus.Pass,
        lines.map((l) => l.line),
        ms,
      );
}
