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
import { DASHBOARD_CONFIGMAP_LABEL, dcgmValues, observabilityNames, PROMETHEUS_POD_PORT, renderPodMonitors, STACK_FULLNAME, stackValues } from "../../components/observability/render";
import { DynamoPort, DynamoPortName } from "../../components/_shared/names";
import { charts } from "../../components/versions";
import { unknownValueKeys, ValueKind } from "./chart-keys";
import { loadFacts } from "./facts";

interface ChartFacts { chart: string; version: string; dependencies?: Record<string, string>; defaults?: Record<string, unknown>; valueKeys: Record<string, ValueKind> }
interface DynamoFacts {
  frontendMetrics: string[];
  workerMetrics: string[];
  ports: Record<"frontendHttp" | "workerSystem", { port: number; name: string }>;
  metricsPath: string;
}
interface DcgmFacts extends ChartFacts { defaultMetrics: { name: string }[]; gpuSeriesLabels: string[]; podAttributeLabels: Record<string, string> }

const kps = loadFacts<ChartFacts>("kube-prometheus-stack").facts;
const subcharts = {
  grafana: loadFacts<ChartFacts>("grafana").facts.valueKeys,
  "kube-state-metrics": loadFacts<ChartFacts>("kube-state-metrics").facts.valueKeys,
  "prometheus-node-exporter": loadFacts<ChartFacts>("prometheus-node-exporter").facts.valueKeys,
};
const dcgm = loadFacts<DcgmFacts>("dcgm-exporter").facts;
const dynamo = loadFacts<DynamoFacts>("dynamo-metrics").facts;

const r = resolveArgs({ graphName: "llm", monitorLabels: { release: "prom" } });
const dashboard = renderDashboard({ graphName: "llm", graphNamespace: "dynamo", gpuPanels: true });

/** Metric names of a PromQL expression: identifiers followed by `{`, histogram suffixes stripped. */
function metricNames(expr: string): string[] {
  return [...expr.matchAll(/([A-Za-z_:][A-Za-z0-9_:]*)\{/g)].map((m) => m[1]!.replace(/_(bucket|sum|count)$/, ""));
}
const known = new Set([...dynamo.frontendMetrics, ...dynamo.workerMetrics, ...dcgm.defaultMetrics.map((m) => m.name)]);
const unknownMetrics = (d: unknown) => dashboardExprs(d).flatMap(metricNames).filter((n) => !known.has(n));

describe("contracts: observability against the pinned charts and Dynamo", () => {
  it("pins the chart versions the facts were read from (kube-prometheus-stack and its subcharts, dcgm-exporter)", () => {
    assert.equal(charts.kubePrometheusStack.version, kps.version);
    assert.equal(charts.dcgmExporter.version, dcgm.version);
    for (const sub of ["grafana", "kube-state-metrics", "prometheus-node-exporter"] as const) {
      assert.equal(loadFacts<ChartFacts>(sub).facts.version, kps.dependencies?.[sub], `${sub} facts are not the version kube-prometheus-stack ${kps.version} depends on`);
    }
  });

  it("sets only kube-prometheus-stack value keys the pinned chart (and its subcharts) define", () => {
    assert.deepEqual(unknownValueKeys(stackValues(r, dashboard), kps.valueKeys, subcharts), []);
  });

  it("sets only dcgm-exporter value keys the pinned chart defines", () => {
    assert.deepEqual(unknownValueKeys(dcgmValues(r), dcgm.valueKeys), []);
  });

  it("rejects a misspelt or invented key (mutations)", () => {
    const values = stackValues(r, dashboard) as { prometheus: { prometheusSpec: Record<string, unknown> }; grafana: Record<string, unknown> };
    const bad = { ...values, prometheus: { prometheusSpec: { ...values.prometheus.prometheusSpec, podMonitorSelectorNilUsesHelmValue: false } }, grafana: { ...values.grafana, dashboardProvider: {} } };
    assert.deepEqual(unknownValueKeys(bad, kps.valueKeys, subcharts).sort(), ["grafana.dashboardProvider", "prometheus.prometheusSpec.podMonitorSelectorNilUsesHelmValue"]);
    assert.deepEqual(unknownValueKeys({ ...dcgmValues(r), servicemonitor: {} }, dcgm.valueKeys), ["servicemonitor"]);
  });

  it("the dashboard queries only metric names the pinned Dynamo runtime and DCGM exporter expose", () => {
    assert.ok(dashboardExprs(dashboard).length >= 10);
    assert.deepEqual(unknownMetrics(dashboard), []);
    for (const m of QUERIED_METRICS) assert.ok(known.has(m), `${m} is not in the facts`);
  });

  it("rejects a dashboard with a metric name Dynamo does not export (mutation)", () => {
    const mutated = JSON.parse(JSON.stringify(dashboard).replaceAll("dynamo_frontend_time_to_first_token_seconds", "dynamo_frontend_ttft_seconds"));
    assert.deepEqual([...new Set(unknownMetrics(mutated))], ["dynamo_frontend_ttft_seconds"]);
  });

  it("the dashboard groups GPU series by labels DCGM really emits", () => {
    const labels = new Set([...dcgm.gpuSeriesLabels, ...Object.values(dcgm.podAttributeLabels)]);
    const gpuExprs = dashboardExprs(dashboard).filter((e) => e.includes("DCGM_FI_"));
    const byLabels = gpuExprs.flatMap((e) => [...e.matchAll(/by \(([^)]*)\)/g)].flatMap((m) => m[1]!.split(",").map((s) => s.trim())));
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
    const eps = renderPodMonitors(r).map(({ role, monitor }) => [role, (monitor.spec.podMetricsEndpoints as { port: string; path: string }[])[0]] as const);
    assert.deepEqual(eps.map(([role, e]) => [role, e.port, e.path]), [["frontend", dynamo.ports.frontendHttp.name, dynamo.metricsPath], ["worker", dynamo.ports.workerSystem.name, dynamo.metricsPath]]);
  });
});
