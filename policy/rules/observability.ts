/**
 * Monitoring policies: monitoring pods never take GPU capacity from the workers. No monitoring Helm
 * release lets its pods tolerate the GPU taint or request a GPU, except the charts that must run on
 * GPU nodes (the DCGM exporter, which still requests no GPU). A chart whose own default tolerates
 * every taint (prometheus-node-exporter, also as kube-prometheus-stack's subchart) must override it.
 */
import { gpuAccessPaths } from "../../components/observability/scheduling";
import { resourcePolicy } from "./_policy";
import { isUnknownValue, rawProps } from "./_unknowns";
import { show } from "../../components/_shared/problems";
import { ResourceType } from "./_resources";

/**
 * Value paths whose chart default tolerates every NoSchedule taint, per chart (prometheus-node-exporter
 * 4.56.1 `tolerations: [{ effect: NoSchedule, operator: Exists }]`, tests/contracts/facts).
 */
export const TOLERATE_ALL_DEFAULTS: Readonly<Record<string, readonly string[]>> = {
  "kube-prometheus-stack": ["prometheus-node-exporter.tolerations"],
  "prometheus-node-exporter": ["tolerations"],
};

function at(values: unknown, dotted: string): unknown {
  return dotted
    .split(".")
    .reduce<unknown>((v, k) => (v && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined), values);
}

/** 21. Monitoring pods stay off the GPU nodes (the DCGM exporter excepted). */
export const monitoringOffGpuNodes = resourcePolicy({
  name: "monitoring-off-gpu-nodes",
  description:
    "Monitoring Helm releases neither tolerate the GPU taint nor request GPUs (charts that must run on GPU nodes, such as the DCGM exporter, may tolerate it), and override chart defaults that tolerate every taint.",
  types: [ResourceType.HelmRelease],
  defaults: {
    monitoringCharts: [
      "kube-prometheus-stack",
      "prometheus",
      "grafana",
      "prometheus-node-exporter",
      "kube-state-metrics",
      "loki",
      "alloy",
      "opentelemetry-collector",
    ],
    gpuNodeCharts: ["dcgm-exporter"],
  },
  check: ({ props }, args, report, cfg) => {
    const raw = rawProps(props);
    const chart = raw?.chart;
    if (typeof chart !== "string" || cfg.gpuNodeCharts.includes(chart) || !cfg.monitoringCharts.includes(chart)) return;
    const values = raw?.values;
    if (isUnknownValue(values)) return;
    for (const p of gpuAccessPaths(values ?? {})) {
      report(
        `Helm release ${show(args.name)} (chart ${chart}) lets monitoring pods onto the GPU nodes at values.${p}; remove the toleration of nvidia.com/gpu (or the GPU request) and pin the pods to the system node group with a nodeSelector`,
      );
    }
    const monitoringOnNodes = chart !== "kube-prometheus-stack" || at(values, "nodeExporter.enabled") !== false;
    for (const p of monitoringOnNodes ? (TOLERATE_ALL_DEFAULTS[chart] ?? []) : []) {
      if (at(values, p) === undefined)
        report(
          `Helm release ${show(args.name)} (chart ${chart}) keeps the chart default of values.${p}, which tolerates every NoSchedule taint (the GPU taint included); set it explicitly, e.g. to []`,
        );
    }
  },
});

export const observabilityPolicies = [monitoringOffGpuNodes];
