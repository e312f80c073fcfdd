/**
 * The observability component against the upstream facts: every Helm value it sets exists in the
 * pinned charts, the dashboard queries only metric names the pinned Dynamo runtime and DCGM exporter
 * export, the monitors scrape the ports and path the pinned operator wires, and the pins in
 * versions.ts are the charts the facts were read from. Each check also proves it can fail.
 */
import * as assert from "node:assert/strict";
import { dashboardExprs, renderDashboard } from "../../components/observability/dashboard";
import { QUERIED_METRICS } from "../../components/observability/metrics";
import { resolveArgs } from "../../components/observability/args";
import {
  DASHBOARD_CONFIGMAP_LABEL,
  dcgmValues,
  observabilityNames,
  PROMETHEUS_POD_PORT,
  renderPodMonitors,
  STACK_FULLNAME,
  stackValues,
} from "../../components/observability/render";
import { DynamoPort, DynamoPortName } from "../../components/_shared/names";
import { charts } from "../../components/versions";
import type { ChartFacts } from "./extract/helm-values";
import { loadFacts } from "./facts";
import { chartFactFile, unknownValueKeys, withSubcharts } from "./helm-contract";

interface DynamoFacts {
  frontendMetrics: string[];
  workerMetrics: string[];
  ports: Record<"frontendHttp" | "workerSystem", { port: number; name: string }>;
  metricsPath: string;
}
interface DcgmMetrics {
  version: string;
  defaultMetrics: { name: string }[];
  gpuSeriesLabels: string[];
  podAttributeLabels: Record<string, string>;
}

const chart = (name: string): ChartFacts => chartFactFile(name)!.facts;
const kps = chart("kube-prometheus-stack");
/** kube-prometheus-stack with grafana, kube-state-metrics and prometheus-node-exporter merged in under their aliases. */
const kpsAll = withSubcharts(kps);
const dcgmChart = chart("dcgm-exporter");
const dcgm = loadFacts<DcgmMetrics>("dcgm-metrics").facts;
const dynamo = loadFacts<DynamoFacts>("dynamo-metrics").facts;
/** The paths of key problems, without the message. */
const paths = (problems: string[]) => problems.map((p) => p.split(":")[0]).sort();

const r = resolveArgs({ graphName: "llm", monitorLabels: { release: "prom" } });
const dashboard = renderDashboard({ graphName: "llm", graphNamespace: "dynamo", gpuPanels: true });

/** Metric names of a PromQL expression: identifiers followed by `{`, histogram suffixes stripped. */
function metricNames(expr: string): string[] {
  return [...expr.matchAll(/([A-Za-z_:][A-Za-z0-9_:]*)\{/g)].map((m) => m[1]!.replace(/_(bucket|sum|count)$/, ""));
}
const known = new Set([...dynamo.frontendMetrics, ...dynamo.workerMetrics, ...dcgm.defaultMetrics.map((m) => m.name)]);
const unknownMetrics = (d: unknown) =>
  dashboardExprs(d)
    .flatMap(metricNames)
    .filter((n) => !known.has(n));

describe("contracts: observability against the pinned charts and Dynamo", () => {
  it("pins the chart versions the facts were read from; kube-prometheus-stack's subchart facts are the versions it depends on", () => {
    assert.equal(charts.kubePrometheusStack.version, kps.version);
    assert.equal(charts.dcgmExporter.version, dcgmChart.version);
    assert.equal(dcgm.version, dcgmChart.version);
    assert.deepEqual(kpsAll.problems, []);
    assert.deepEqual(
      kpsAll.facts.opaque,
      ["prometheus-windows-exporter"],
      "grafana, kube-state-metrics and prometheus-node-exporter values are checked, not opaque",
    );
  });

  it("rejects subchart facts of another version than kube-prometheus-stack depends on (mutation)", () => {
    const skewed = withSubcharts(kps, (c) =>
      c === "grafana" ? { ...chart(c), version: "12.0.0" } : chartFactFile(c)?.facts,
    );
    assert.deepEqual(skewed.problems, [
      "grafana: kube-prometheus-stack 88.5.3 depends on grafana 12.11.1, facts/chart-grafana.json is of 12.0.0; re-extract it",
    ]);
    assert.ok(skewed.facts.opaque.includes("grafana"));
  });

  it("sets only kube-prometheus-stack value keys the pinned chart (and its subcharts) read", () => {
    assert.deepEqual(unknownValueKeys(kpsAll.facts, stackValues(r, dashboard)), []);
  });

  it("sets only dcgm-exporter value keys the pinned chart reads", () => {
    assert.deepEqual(unknownValueKeys(dcgmChart, dcgmValues(r)), []);
  });

  it("rejects a misspelt or invented key, in the chart and in each subchart (mutations)", () => {
    const values = stackValues(r, dashboard) as {
      prometheus: { prometheusSpec: Record<string, unknown> };
      grafana: Record<string, unknown>;
    } & Record<string, Record<string, unknown>>;
    const bad = {
      ...values,
      prometheus: {
        prometheusSpec: { ...values.prometheus.prometheusSpec, podMonitorSelectorNilUsesHelmValue: false },
      },
      grafana: { ...values.grafana, dashboardProvider: {} },
      "kube-state-metrics": { ...values["kube-state-metrics"], nodeSelectr: {} },
      "prometheus-node-exporter": { ...values["prometheus-node-exporter"], toleration: [] },
    };
    assert.deepEqual(paths(unknownValueKeys(kpsAll.facts, bad)), [
      "grafana.dashboardProvider",
      "kube-state-metrics.nodeSelectr",
      "prometheus-node-exporter.toleration",
      "prometheus.prometheusSpec.podMonitorSelectorNilUsesHelmValue",
    ]);
    assert.deepEqual(unknownValueKeys(kpsAll.facts, { grafana: { dashboardProvider: {} } }), [
      "grafana.dashboardProvider: kube-prometheus-stack 88.5.3 reads no such key; did you mean grafana.dashboardProviders?",
    ]);
    assert.deepEqual(
      paths(unknownValueKeys(kps, { grafana: { dashboardProvider: {} } })),
      [],
      "without its subcharts merged, grafana is opaque",
    );
    assert.deepEqual(paths(unknownValueKeys(dcgmChart, { ...dcgmValues(r), servicemonitor: {} })), ["servicemonitor"]);
  });

  it("the dashboard queries only metric names the pinned Dynamo runtime and DCGM exporter expose", () => {
    assert.ok(dashboardExprs(dashboard).length >= 10);
    assert.deepEqual(unknownMetrics(dashboard), []);
    for (const m of QUERIED_METRICS) assert.ok(known.has(m), `${m} is not in the facts`);
  });

  it("rejects a dashboard with a metric name Dynamo does not export (mutation)", () => {
    const mutated = JSON.parse(
      JSON.stringify(dashboard).replaceAll(
        "dynamo_frontend_time_to_first_token_seconds",
        "dynamo_frontend_ttft_seconds",
      ),
    );
    assert.deepEqual([...new Set(unknownMetrics(mutated))], ["dynamo_frontend_ttft_seconds"]);
  });

  it("the dashboard groups GPU series by labels DCGM really emits", () => {
    const labels = new Set([...dcgm.gpuSeriesLabels, ...Object.values(dcgm.podAttributeLabels)]);
    const gpuExprs = dashboardExprs(dashboard).filter((e) => e.includes("DCGM_FI_"));
    const byLabels = gpuExprs.flatMap((e) =>
      [...e.matchAll(/by \(([^)]*)\)/g)].flatMap((m) => m[1]!.split(",").map((s) => s.trim())),
    );
    assert.ok(byLabels.length > 0);
    for (const l of byLabels) assert.ok(labels.has(l), `DCGM series have no label ${l}`);
  });

  it("names Prometheus's Service, ports and the dashboard sidecar label as the pinned chart does", () => {
    const n = observabilityNames("llm");
    assert.equal(n.prometheusService, `${STACK_FULLNAME}-prometheus`);
    assert.equal(n.prometheusPort, kps.defaults?.["prometheus.prometheusSpec.portName"]);
    assert.equal(PROMETHEUS_POD_PORT, kps.defaults?.["prometheus.service.targetPort"]);
    assert.equal(DASHBOARD_CONFIGMAP_LABEL, kps.defaults?.["grafana.sidecar.dashboards.label"]);
  });

  it("the PodMonitors scrape the ports and path the pinned operator and runtime use", () => {
    assert.deepEqual({ port: DynamoPort.FrontendHttp, name: DynamoPortName.FrontendHttp }, dynamo.ports.frontendHttp);
    assert.deepEqual({ port: DynamoPort.WorkerSystem, name: DynamoPortName.WorkerSystem }, dynamo.ports.workerSystem);
    const eps = renderPodMonitors(r).map(
      ({ role, monitor }) => [role, (monitor.spec.podMetricsEndpoints as { port: string; path: string }[])[0]] as const,
    );
    assert.deepEqual(
      eps.map(([role, e]) => [role, e.port, e.path]),
      [
        ["frontend", dynamo.ports.frontendHttp.name, dynamo.metricsPath],
        ["worker", dynamo.ports.workerSystem.name, dynamo.metricsPath],
      ],
    );
  });
});
