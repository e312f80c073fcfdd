/**
 * Pure renderers of `DynamoObservability`: the two Helm releases' specs and values, the PodMonitors
 * of the graph and, for an existing Prometheus, the dashboard ConfigMap. No Pulumi import.
 *
 * Scheduling rule: every monitoring pod runs on the system node group (nodeSelector) and none
 * tolerates the GPU taint or requests a GPU, except the DCGM exporter DaemonSet, which must run on the
 * GPU nodes (GPU pool affinity + the GPU taint's toleration) and still requests no GPU: it reads the
 * GPUs through DCGM, not as a scheduled resource.
 */
import { DynamoPortName, OperatorLabel } from "../_shared/names";
import { gpuPoolAffinity, gpuToleration } from "../cluster/render";
import { charts } from "../versions";
import { PrometheusMode, ResolvedObservability } from "./args";
import { renderDashboard } from "./dashboard";
import { GpuMetric, ScrapeLabel } from "./metrics";

/** A Helm release's arguments (the `k8s.helm.v3.Release` inputs this component sets). */
export interface ReleaseSpec {
  readonly name: string;
  readonly chart: string;
  readonly version: string;
  readonly repositoryOpts: { readonly repo: string };
  readonly namespace: string;
  readonly createNamespace: boolean;
  readonly atomic: boolean;
  readonly timeout: number;
  readonly values: Record<string, unknown>;
}

/** Names of what the component creates; `verify` gate F reads Prometheus through `prometheusService`. */
export interface ObservabilityNames {
  readonly stackRelease: string;
  readonly dcgmRelease: string;
  /** Service of Prometheus: `<fullnameOverride>-prometheus` (kube-prometheus-stack `templates/prometheus/service.yaml`). */
  readonly prometheusService: string;
  /** Port name of that Service (`prometheus.prometheusSpec.portName`, default `http-web`, port 9090). */
  readonly prometheusPort: string;
  /** Grafana dashboard provider (folder) name. */
  readonly dashboardProvider: string;
  /** File name the dashboard is provisioned under (and the render writes). */
  readonly dashboardFile: string;
}

/**
 * Label the Prometheus pods carry (set through `prometheus.prometheusSpec.podMetadata.labels`), so
 * `verify` finds one to port-forward to without knowing the operator's own pod naming.
 */
export const PROMETHEUS_POD_LABEL = { "dynamo-efa/component": "prometheus" } as const;
/** Port Prometheus listens on in its pod (kube-prometheus-stack `prometheus.service.targetPort`). */
export const PROMETHEUS_POD_PORT = 9090;

/** kube-prometheus-stack `fullnameOverride`: short and fixed, so every object name is predictable. */
export const STACK_FULLNAME = "kps";

/** The names, for `graph` (the dashboard's file is the graph's; without one it is the cluster's, and unused). */
export function observabilityNames(graph = "cluster"): ObservabilityNames {
  return {
    stackRelease: "kube-prometheus-stack",
    dcgmRelease: "dcgm-exporter",
    prometheusService: `${STACK_FULLNAME}-prometheus`,
    prometheusPort: "http-web",
    dashboardProvider: "dynamo-efa",
    dashboardFile: `dynamo-${graph}`,
  };
}

/** Pins a pod to the system node group (and so off the tainted GPU nodes). */
const onSystem = (r: ResolvedObservability) => ({
  nodeSelector: { ...r.systemNodeSelector },
  tolerations: [] as unknown[],
});

/** Where the grafana chart mounts `dashboards.<provider>.<name>` (grafana 12.11.1 `templates/_pod.tpl`: `/var/lib/grafana/dashboards/<provider>/<name>.json`). */
const DASHBOARD_DIR = "/var/lib/grafana/dashboards";

/**
 * Grafana values: system nodes, and the generated dashboard provisioned from a file provider. Without a graph (a
 * cluster whose graphs live in other stacks) no dashboard is provisioned here: each graph's stack adds its own as a
 * ConfigMap, which Grafana's dashboard sidecar loads, so the sidecar is set explicitly (enabled, the label the
 * ConfigMaps carry) rather than left to the chart's defaults.
 */
function grafanaValues(
  r: ResolvedObservability,
  dashboard: Record<string, unknown> | undefined,
): Record<string, unknown> {
  if (r.graphName === undefined || !dashboard)
    return {
      ...onSystem(r),
      sidecar: {
        dashboards: { enabled: true, label: DASHBOARD_CONFIGMAP_LABEL, labelValue: DASHBOARD_CONFIGMAP_LABEL_VALUE },
      },
    };
  const n = observabilityNames(r.graphName);
  return {
    ...onSystem(r),
    dashboardProviders: {
      "dashboardproviders.yaml": {
        apiVersion: 1,
        providers: [
          {
            name: n.dashboardProvider,
            orgId: 1,
            folder: "dynamo-efa",
            type: "file",
            disableDeletion: true,
            editable: false,
            options: { path: `${DASHBOARD_DIR}/${n.dashboardProvider}` },
          },
        ],
      },
    },
    dashboards: { [n.dashboardProvider]: { [n.dashboardFile]: { json: JSON.stringify(dashboard, null, 2) } } },
  };
}

/** kube-prometheus-stack values. Keys checked against the pinned chart (tests/contracts/facts). */
export function stackValues(
  r: ResolvedObservability,
  dashboard: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const sys = onSystem(r);
  return {
    fullnameOverride: STACK_FULLNAME,
    // No receivers are configured here; an Alertmanager without any only costs a pod.
    alertmanager: { enabled: false },
    // EKS runs these control-plane parts itself and exposes no scrape endpoints for them.
    kubeControllerManager: { enabled: false },
    kubeScheduler: { enabled: false },
    kubeEtcd: { enabled: false },
    kubeProxy: { enabled: false },
    prometheusOperator: { ...sys, admissionWebhooks: { patch: { ...sys } } },
    prometheus: {
      prometheusSpec: {
        ...sys,
        podMetadata: { labels: { ...PROMETHEUS_POD_LABEL } },
        retention: `${r.retentionDays}d`,
        scrapeInterval: `${r.scrapeIntervalSeconds}s`,
        // Select every PodMonitor/ServiceMonitor, not only this release's: the graph's and DCGM's.
        podMonitorSelectorNilUsesHelmValues: false,
        serviceMonitorSelectorNilUsesHelmValues: false,
        storageSpec: {
          volumeClaimTemplate: {
            spec: {
              storageClassName: r.storageClassName,
              accessModes: ["ReadWriteOnce"],
              resources: { requests: { storage: `${r.storageGiB}Gi` } },
            },
          },
        },
      },
    },
    grafana: grafanaValues(r, dashboard),
    "kube-state-metrics": { ...sys },
    // The chart's default tolerates every NoSchedule taint (the GPU taint included): replace it.
    "prometheus-node-exporter": { ...sys },
  };
}

/** The DCGM profiling fields (`DCGM_FI_PROF_*`) the dashboard reads: the PCIe panel's. */
export const PROFILING_METRICS = Object.values(GpuMetric).filter((m) => m.startsWith("DCGM_FI_PROF_"));

/**
 * The exporter's container securityContext: only what the chart documents as needed. Its `SYS_ADMIN` is
 * "Required for profiling metrics (DCGM_FI_PROF_*)", and its non-root variant (UID 1000, no SYS_ADMIN) is for
 * running "without profiling metrics"; the dashboard's PCIe panel reads profiling fields, so it keeps root with
 * SYS_ADMIN and nothing else: every other capability dropped, no privilege escalation, no host PID or network
 * namespace (tests/contracts/facts/dcgm-exporter-security.json). Set here so a chart upgrade cannot widen it.
 */
export function dcgmSecurityContext(profiling = PROFILING_METRICS.length > 0): Record<string, unknown> {
  const base = { allowPrivilegeEscalation: false };
  if (!profiling) return { ...base, runAsNonRoot: true, runAsUser: 1000, capabilities: { drop: ["ALL"] } };
  return { ...base, runAsNonRoot: false, runAsUser: 0, capabilities: { add: ["SYS_ADMIN"], drop: ["ALL"] } };
}

/** dcgm-exporter values: a DaemonSet on the GPU pool nodes only, tolerating the GPU taint, least privilege. */
export function dcgmValues(r: ResolvedObservability): Record<string, unknown> {
  return {
    securityContext: dcgmSecurityContext(),
    hostPID: false,
    hostNetwork: false,
    tolerations: [gpuToleration()],
    affinity: gpuPoolAffinity(),
    serviceMonitor: {
      enabled: true,
      interval: `${r.scrapeIntervalSeconds}s`,
      // The exporter's own pod/namespace labels name the worker pod using each GPU; keep them.
      honorLabels: true,
      additionalLabels: { ...r.monitorLabels },
    },
  };
}

/** The Helm releases: kube-prometheus-stack (install mode) and the DCGM exporter (when on). */
export function renderReleases(r: ResolvedObservability): { stack?: ReleaseSpec; dcgm?: ReleaseSpec } {
  const n = observabilityNames(r.graphName);
  const common = { namespace: r.namespace, createNamespace: true, atomic: true, timeout: 900 };
  const dashboard = graphDashboard(r);
  const kps = charts.kubePrometheusStack;
  const dcgm = charts.dcgmExporter;
  return {
    ...(r.prometheus === PrometheusMode.Install
      ? {
          stack: {
            name: n.stackRelease,
            chart: kps.chart,
            version: r.kubePrometheusStackVersion,
            repositoryOpts: { repo: kps.repo },
            ...common,
            values: stackValues(r, dashboard),
          },
        }
      : {}),
    ...(r.dcgmExporter
      ? {
          dcgm: {
            name: n.dcgmRelease,
            chart: dcgm.chart,
            version: r.dcgmExporterVersion,
            repositoryOpts: { repo: dcgm.repo },
            ...common,
            values: dcgmValues(r),
          },
        }
      : {}),
  };
}

/** A PodMonitor as a plain object (monitoring.coreos.com/v1). */
export interface PodMonitorObject {
  readonly apiVersion: "monitoring.coreos.com/v1";
  readonly kind: "PodMonitor";
  readonly metadata: { readonly name: string; readonly namespace: string; readonly labels: Record<string, string> };
  readonly spec: Record<string, unknown>;
}

/** Prometheus's name for a pod label in service discovery (`.`, `/`, `-` become `_`). */
const podLabelMeta = (label: string) => `__meta_kubernetes_pod_label_${label.replace(/[^A-Za-z0-9_]/g, "_")}`;

function podMonitor(r: ResolvedObservability, role: "frontend" | "worker", port: string): PodMonitorObject {
  return {
    apiVersion: "monitoring.coreos.com/v1",
    kind: "PodMonitor",
    metadata: {
      name: `${r.graphName}-${role}`,
      namespace: r.graphNamespace,
      labels: { "app.kubernetes.io/managed-by": "dynamo-efa", ...r.monitorLabels },
    },
    spec: {
      selector: { matchLabels: { [OperatorLabel.GraphName]: r.graphName, [OperatorLabel.ComponentType]: role } },
      namespaceSelector: { matchNames: [r.graphNamespace] },
      podMetricsEndpoints: [
        {
          port,
          path: "/metrics",
          interval: `${r.scrapeIntervalSeconds}s`,
          // Series carry the graph and service key, so the dashboard selects this graph only (the
          // operator's own PodMonitors, when it creates them, add neither).
          relabelings: [
            {
              action: "replace",
              sourceLabels: [podLabelMeta(OperatorLabel.GraphName)],
              targetLabel: ScrapeLabel.Graph,
            },
            {
              action: "replace",
              sourceLabels: [podLabelMeta(OperatorLabel.Component)],
              targetLabel: ScrapeLabel.Service,
            },
          ],
        },
      ],
    },
  };
}

/**
 * PodMonitors for the graph, from the operator's pod labels: the Frontend's `/metrics` on its HTTP
 * port (`http`, 8000) and the workers' on the system port (`system`, 9090).
 */
export function renderPodMonitors(
  r: ResolvedObservability,
): { readonly role: "frontend" | "worker"; readonly monitor: PodMonitorObject }[] {
  if (r.graphName === undefined) return [];
  return [
    { role: "frontend", monitor: podMonitor(r, "frontend", DynamoPortName.FrontendHttp) },
    { role: "worker", monitor: podMonitor(r, "worker", DynamoPortName.WorkerSystem) },
  ];
}

/** Label Grafana's dashboard sidecar discovers ConfigMaps by (kube-prometheus-stack `grafana.sidecar.dashboards.label`). */
export const DASHBOARD_CONFIGMAP_LABEL = "grafana_dashboard";
/** The value of that label on a dashboard ConfigMap (`grafana.sidecar.dashboards.labelValue`). */
export const DASHBOARD_CONFIGMAP_LABEL_VALUE = "1";

/** The graph's dashboard; undefined without a graph. */
function graphDashboard(r: ResolvedObservability): Record<string, unknown> | undefined {
  if (r.graphName === undefined) return undefined;
  return renderDashboard({ graphName: r.graphName, graphNamespace: r.graphNamespace, gpuPanels: r.gpuPanels });
}

/** With an existing Prometheus: the dashboard as a ConfigMap for a Grafana sidecar to pick up. */
export function renderDashboardConfigMap(
  r: ResolvedObservability,
): { metadata: Record<string, unknown>; data: Record<string, string> } | undefined {
  const dashboard = graphDashboard(r);
  if (r.prometheus !== PrometheusMode.Existing || !dashboard) return undefined;
  const n = observabilityNames(r.graphName);
  return {
    metadata: {
      name: `${n.dashboardFile}-dashboard`,
      namespace: r.namespace,
      labels: { [DASHBOARD_CONFIGMAP_LABEL]: DASHBOARD_CONFIGMAP_LABEL_VALUE, ...r.monitorLabels },
    },
    data: { [`${n.dashboardFile}.json`]: `${JSON.stringify(dashboard, null, 2)}\n` },
  };
}
