/**
 * The observability component's pure parts: defaults, validation messages, the stack config key
 * (`observability`: absent = on, false = off), the PodMonitors and the dashboard generator.
 */
import { strict as assert } from "assert";
import { PrometheusMode, resolveArgs, SYSTEM_NODE_SELECTOR } from "../../components/observability/args";
import { dashboardExprs, renderDashboard } from "../../components/observability/dashboard";
import { renderDashboardConfigMap, renderPodMonitors, renderReleases } from "../../components/observability/render";
import { validate } from "../../components/observability/validate";
import { checkStackConfig } from "../../program/config";

const good = {
  region: "us-east-2",
  hfTokenSet: true,
  cluster: {
    availabilityZones: ["us-east-2a", "us-east-2b"],
    deployFromInsideVpc: true,
    gpuPools: { gpu: { instanceType: "p5en.48xlarge", nodes: 1, availabilityZone: "us-east-2b" } },
  },
  inference: { model: "meta-llama/Llama-3.1-8B-Instruct" },
};
const base = resolveArgs({ graphName: "llm" });

describe("observability: args, validation, config", () => {
  it("defaults: install kube-prometheus-stack in monitoring, DCGM on, system nodes, 15 s / 15 d / 50 GiB", () => {
    assert.deepEqual(
      {
        ns: base.namespace,
        mode: base.prometheus,
        dcgm: base.dcgmExporter,
        sel: base.systemNodeSelector,
        s: base.scrapeIntervalSeconds,
        d: base.retentionDays,
        g: base.storageGiB,
        sc: base.storageClassName,
        gns: base.graphNamespace,
      },
      {
        ns: "monitoring",
        mode: "install",
        dcgm: true,
        sel: SYSTEM_NODE_SELECTOR,
        s: 15,
        d: 15,
        g: 50,
        sc: "gp3-encrypted",
        gns: "dynamo",
      },
    );
    assert.deepEqual(validate(base), []);
  });

  const cases: [string, Parameters<typeof resolveArgs>[0], { propertyPath: string; reason: string }[]][] = [
    [
      "existing Prometheus without labels",
      { graphName: "llm", prometheus: PrometheusMode.Existing },
      [
        {
          propertyPath: "monitorLabels",
          reason:
            'required with prometheus "existing": give the labels your Prometheus\'s podMonitorSelector and serviceMonitorSelector match, e.g. { release: "kube-prometheus-stack" }',
        },
      ],
    ],
    [
      "an unknown mode",
      { graphName: "llm", prometheus: "external" as PrometheusMode },
      [{ propertyPath: "prometheus", reason: 'must be one of "install", "existing"; got "external"' }],
    ],
    [
      "a bad label key and an empty node selector",
      { graphName: "llm", monitorLabels: { "bad key": "x" }, systemNodeSelector: {} },
      [
        {
          propertyPath: "monitorLabels.bad key",
          reason:
            '"bad key" is not a Kubernetes label key (an optional DNS prefix and "/", then at most 63 of A-Z a-z 0-9 - _ .)',
        },
        {
          propertyPath: "systemNodeSelector",
          reason:
            'must not be empty: monitoring pods would be free to land anywhere; use the system node group\'s label { "dynamo-efa/role": "system" }',
        },
      ],
    ],
    [
      "Prometheus in the graph's namespace (fenced by its default-deny policy)",
      { graphName: "llm", graphNamespace: "dynamo", namespace: "dynamo" },
      [
        {
          propertyPath: "namespace",
          reason:
            '"dynamo" is the graph\'s namespace, whose pods the graph fences with a default-deny NetworkPolicy; run Prometheus in a namespace of its own, e.g. "monitoring"',
        },
      ],
    ],
    [
      "ranges and a chart version",
      { graphName: "LLM", scrapeIntervalSeconds: 0, dcgmExporterVersion: "latest" },
      [
        {
          propertyPath: "graphName",
          reason: 'must be a lower-case RFC 1123 name (a-z, 0-9, "-", at most 63 characters); got "LLM"',
        },
        { propertyPath: "scrapeIntervalSeconds", reason: "must be a whole number 1..300; got 0" },
        { propertyPath: "dcgmExporterVersion", reason: 'must be a chart version such as "1.2.3"; got "latest"' },
      ],
    ],
  ];
  for (const [what, args, expected] of cases)
    it(`rejects ${what}, every problem at once`, () => assert.deepEqual(validate(resolveArgs(args)), expected));

  it("stack config: absent = on with defaults; false = off; the keys are the component's", () => {
    assert.deepEqual(checkStackConfig(good).config?.observability, {});
    assert.equal(checkStackConfig({ ...good, observability: false }).config?.observability, undefined);
    assert.deepEqual(checkStackConfig({ ...good, observability: { retentionDays: 30 } }).config?.observability, {
      retentionDays: 30,
    });
    const typo = checkStackConfig({ ...good, observability: { prometheous: "install" } }).problems;
    assert.deepEqual(
      typo.map((p) => p.propertyPath),
      ["observability.prometheous"],
    );
    assert.match(typo[0].reason, /did you mean "prometheus"/);
    assert.deepEqual(
      checkStackConfig({ ...good, observability: "yes" }).problems.map((p) => p.propertyPath),
      ["observability"],
    );
    assert.deepEqual(
      checkStackConfig({ ...good, observability: { prometheus: "existing" } }).problems.map((p) => p.propertyPath),
      ["observability.monitorLabels", "observability.prometheus"],
    );
  });
});

describe("observability: rendered objects", () => {
  it("install mode: both releases; existing mode: DCGM only, monitors and the dashboard ConfigMap carry the selector labels", () => {
    assert.deepEqual(Object.keys(renderReleases(base)).sort(), ["dcgm", "stack"]);
    assert.equal(renderDashboardConfigMap(base), undefined);
    const ex = resolveArgs({
      graphName: "llm",
      prometheus: PrometheusMode.Existing,
      monitorLabels: { release: "kps" },
      dcgmExporter: false,
    });
    assert.deepEqual(renderReleases(ex), {});
    for (const { monitor } of renderPodMonitors(ex)) assert.equal(monitor.metadata.labels.release, "kps");
    const cm = renderDashboardConfigMap(ex)!;
    assert.deepEqual(cm.metadata.labels, { grafana_dashboard: "1", release: "kps" });
    const d = JSON.parse(cm.data["dynamo-llm.json"]!);
    assert.ok(!dashboardExprs(d).some((e) => e.includes("DCGM_FI_")), "no GPU panels without the DCGM exporter");
  });

  it("PodMonitors select the graph's pods by the operator's labels, never by name", () => {
    assert.deepEqual(
      renderPodMonitors(base).map(({ monitor }) => monitor.spec.selector),
      [
        {
          matchLabels: {
            "nvidia.com/dynamo-graph-deployment-name": "llm",
            "nvidia.com/dynamo-component-type": "frontend",
          },
        },
        {
          matchLabels: {
            "nvidia.com/dynamo-graph-deployment-name": "llm",
            "nvidia.com/dynamo-component-type": "worker",
          },
        },
      ],
    );
  });

  it("the dashboard: stable uid, panels laid out two per row without overlap, every query scoped to the graph", () => {
    const d = renderDashboard({ graphName: "llm", graphNamespace: "dynamo", gpuPanels: true }) as {
      uid: string;
      panels: { gridPos: { x: number; y: number; w: number; h: number } }[];
    };
    assert.equal(d.uid, "dynamo-efa-llm");
    const cells = new Set(d.panels.map((p) => `${p.gridPos.x},${p.gridPos.y}`));
    assert.equal(cells.size, d.panels.length);
    for (const e of dashboardExprs(d).filter((x) => x.startsWith("histogram_quantile") && x.includes("dynamo_")))
      assert.match(e, /graph="llm", namespace="dynamo"/);
    assert.deepEqual(JSON.parse(JSON.stringify(d)), d, "plain JSON");
  });
});
