/**
 * Arguments of `DynamoObservability` and their one resolution step (docs/CONTRIBUTING.md rules 3-5). Pure: the
 * Kubernetes provider and any dependencies come through the resource options.
 */
import { bool, int, KeyShape, mapOf, rows, str } from "../_shared/keys";
import { OBSERVABILITY_LIMITS } from "./limits";
import { DEFAULT_GRAPH_NAMESPACE, SYSTEM_NODE_LABELS } from "../_shared/names";
import { BLOCK_STORAGE_CLASS } from "../cluster/render";
import { charts } from "../versions";

/** Where Prometheus comes from. */
export const PrometheusMode = {
  /** Install kube-prometheus-stack (Prometheus Operator, Prometheus, Grafana, kube-state-metrics, node-exporter). */
  Install: "install",
  /** Use a Prometheus Operator already in the cluster: monitors carry `monitorLabels` so its selector picks them up. */
  Existing: "existing",
} as const;
export type PrometheusMode = (typeof PrometheusMode)[keyof typeof PrometheusMode];

/** Label on the system node group's nodes (components/cluster `systemNodeGroup`). */
export const SYSTEM_NODE_SELECTOR: Readonly<Record<string, string>> = SYSTEM_NODE_LABELS;

export interface DynamoObservabilityArgs {
  /**
   * Name of the DynamoGraphDeployment whose pods are scraped (its operator label value). Without one the component
   * installs only what a cluster shares (kube-prometheus-stack, the DCGM exporter), and each graph's own stack adds
   * its monitors and dashboard with `prometheus: "existing"`. @default - none: no PodMonitor, no dashboard
   */
  readonly graphName?: string;
  /** Namespace of the graph. @default "dynamo" */
  readonly graphNamespace?: string;
  /** Namespace of the monitoring releases (created when missing). @default "monitoring" */
  readonly namespace?: string;
  /** Install kube-prometheus-stack, or use an existing Prometheus Operator. @default "install" */
  readonly prometheus?: PrometheusMode;
  /**
   * Labels every PodMonitor/ServiceMonitor and the dashboard ConfigMap carry, so an existing Prometheus's
   * `podMonitorSelector`/`serviceMonitorSelector` selects them (e.g. `{ release: "kube-prometheus-stack" }`).
   * Required with `prometheus: "existing"`.
   * @default {}
   */
  readonly monitorLabels?: Readonly<Record<string, string>>;
  /** Install the DCGM exporter DaemonSet on the GPU nodes (GPU utilisation, memory, power, PCIe). @default true */
  readonly dcgmExporter?: boolean;
  /**
   * Give the dashboard its GPU panels (DCGM metrics): set true where another stack runs the DCGM exporter for this
   * graph's nodes (the cluster's), with `dcgmExporter: false` here. @default - `dcgmExporter`
   */
  readonly gpuPanels?: boolean;
  /** Node labels the monitoring pods are pinned to (the CPU system node group). @default { "dynamo-efa/role": "system" } */
  readonly systemNodeSelector?: Readonly<Record<string, string>>;
  /** How often Prometheus scrapes the Frontend, the workers and DCGM, in seconds. @default 15 */
  readonly scrapeIntervalSeconds?: number;
  /** Days Prometheus keeps samples. @default 15 */
  readonly retentionDays?: number;
  /** Size of Prometheus's persistent volume, in GiB (retained when the release is deleted). @default 50 */
  readonly storageGiB?: number;
  /** StorageClass of Prometheus's volume. @default "gp3-encrypted" (the cluster's encrypted gp3 class) */
  readonly storageClassName?: string;
  /** kube-prometheus-stack chart version. @default "88.5.3" (`versions.charts.kubePrometheusStack`) */
  readonly kubePrometheusStackVersion?: string;
  /** dcgm-exporter chart version. @default "4.8.2" (`versions.charts.dcgmExporter`) */
  readonly dcgmExporterVersion?: string;
}

/** The stack keys of `dynamo-efa:observability` and the kind of each value (components/_shared/keys.ts). */
export const OBSERVABILITY_KEYS = {
  graphName: { wired: "dynamo-efa:graphName" },
  graphNamespace: { wired: "inference.namespace" },
  ...rows(str, "namespace", "prometheus", "storageClassName", "kubePrometheusStackVersion", "dcgmExporterVersion"),
  monitorLabels: mapOf(str),
  dcgmExporter: bool,
  gpuPanels: { wired: "the cluster stack's monitoring (its DCGM exporter)" },
  systemNodeSelector: mapOf(str),
  scrapeIntervalSeconds: int(OBSERVABILITY_LIMITS.scrapeIntervalSeconds),
  retentionDays: int(OBSERVABILITY_LIMITS.retentionDays),
  storageGiB: int(OBSERVABILITY_LIMITS.storageGiB),
} as const satisfies KeyShape<DynamoObservabilityArgs>;

/** Every argument with its default filled in. */
export interface ResolvedObservability {
  /** The graph scraped; undefined for a cluster's shared monitoring alone. */
  readonly graphName: string | undefined;
  readonly graphNamespace: string;
  readonly namespace: string;
  readonly prometheus: PrometheusMode;
  readonly monitorLabels: Readonly<Record<string, string>>;
  readonly dcgmExporter: boolean;
  readonly gpuPanels: boolean;
  readonly systemNodeSelector: Readonly<Record<string, string>>;
  readonly scrapeIntervalSeconds: number;
  readonly retentionDays: number;
  readonly storageGiB: number;
  readonly storageClassName: string;
  readonly kubePrometheusStackVersion: string;
  readonly dcgmExporterVersion: string;
}

/** Defaults of the optional plain arguments. */
export const OBSERVABILITY_DEFAULTS = {
  graphNamespace: DEFAULT_GRAPH_NAMESPACE,
  namespace: "monitoring",
  prometheus: PrometheusMode.Install,
  dcgmExporter: true,
  scrapeIntervalSeconds: 15,
  retentionDays: 15,
  storageGiB: 50,
  storageClassName: BLOCK_STORAGE_CLASS,
} as const;

/** Fills every default (pure; never throws: `validate` checks the values it returns). */
export function resolveArgs(a: DynamoObservabilityArgs): ResolvedObservability {
  const d = OBSERVABILITY_DEFAULTS;
  return {
    graphName: a.graphName,
    graphNamespace: a.graphNamespace ?? d.graphNamespace,
    namespace: a.namespace ?? d.namespace,
    prometheus: a.prometheus ?? d.prometheus,
    monitorLabels: a.monitorLabels ?? {},
    dcgmExporter: a.dcgmExporter ?? d.dcgmExporter,
    gpuPanels: a.gpuPanels ?? a.dcgmExporter ?? d.dcgmExporter,
    systemNodeSelector: a.systemNodeSelector ?? SYSTEM_NODE_SELECTOR,
    scrapeIntervalSeconds: a.scrapeIntervalSeconds ?? d.scrapeIntervalSeconds,
    retentionDays: a.retentionDays ?? d.retentionDays,
    storageGiB: a.storageGiB ?? d.storageGiB,
    storageClassName: a.storageClassName ?? d.storageClassName,
    kubePrometheusStackVersion: a.kubePrometheusStackVersion ?? charts.kubePrometheusStack.version,
    dcgmExporterVersion: a.dcgmExporterVersion ?? charts.dcgmExporter.version,
  };
}
