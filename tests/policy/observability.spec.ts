/**
 * `monitoring-off-gpu-nodes` over the Helm values the observability component renders and over hand-edited ones:
 * monitoring charts neither tolerate the GPU taint nor request GPUs, and the chart defaults that tolerate every
 * taint (read from the pinned charts' contract facts) are overridden.
 */
import { strict as assert } from "assert";
import { resolveArgs } from "../../components/observability/args";
import { renderDashboard } from "../../components/observability/dashboard";
import { dcgmValues, stackValues } from "../../components/observability/render";
import { monitoringOffGpuNodes } from "../../policy/rules/observability";
import { loadFacts } from "../contracts/facts";
import { resourceArgs, resourcePolicyTable, runResourcePolicy } from "../helpers/policy-harness";

const RELEASE = "kubernetes:helm.sh/v3:Release";
const r = resolveArgs({ graphName: "llm" });
/** The kube-prometheus-stack release the component renders (its real values). */
const kps = () =>
  JSON.parse(
    JSON.stringify({
      chart: "kube-prometheus-stack",
      version: "88.5.3",
      values: stackValues(r, renderDashboard({ graphName: "llm", graphNamespace: "dynamo", gpuPanels: true })),
    }),
  );
const onGpu = (p: string) =>
  `Helm release "mon" (chart kube-prometheus-stack) lets monitoring pods onto the GPU nodes at values.${p}; remove the toleration of nvidia.com/gpu (or the GPU request) and pin the pods to the system node group with a nodeSelector`;

describe("policies: monitoring stays off the GPU nodes", () => {
  resourcePolicyTable(
    monitoringOffGpuNodes,
    RELEASE,
    kps,
    [
      {
        title: "Grafana tolerating the GPU taint",
        mutate: (x) => {
          x.values.grafana.tolerations = [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }];
        },
        expect: [onGpu("grafana.tolerations[0]")],
      },
      {
        title: "Prometheus tolerating every taint",
        mutate: (x) => {
          x.values.prometheus.prometheusSpec.tolerations = [{ operator: "Exists" }];
        },
        expect: [onGpu("prometheus.prometheusSpec.tolerations[0]")],
      },
      {
        title: "Prometheus requesting a GPU",
        mutate: (x) => {
          x.values.prometheus.prometheusSpec.resources = { limits: { "nvidia.com/gpu": 1 } };
        },
        expect: [onGpu("prometheus.prometheusSpec.resources.limits.nvidia.com/gpu")],
      },
      {
        title: "node-exporter left on its tolerate-everything default",
        mutate: (x) => {
          delete x.values["prometheus-node-exporter"].tolerations;
        },
        expect: [
          `Helm release "mon" (chart kube-prometheus-stack) keeps the chart default of values.prometheus-node-exporter.tolerations, which tolerates every NoSchedule taint (the GPU taint included); set it explicitly, e.g. to []`,
        ],
      },
      {
        title: "node-exporter disabled instead",
        mutate: (x) => {
          delete x.values["prometheus-node-exporter"].tolerations;
          x.values.nodeExporter = { enabled: false };
        },
        expect: [],
      },
      {
        title: "another toleration is fine",
        mutate: (x) => {
          x.values.grafana.tolerations = [
            { key: "dedicated", operator: "Equal", value: "monitoring", effect: "NoSchedule" },
          ];
        },
        expect: [],
      },
    ],
    { name: "mon" },
  );

  it("lets the DCGM exporter tolerate the GPU taint, and ignores charts that are not monitoring", async () => {
    const dcgm = await runResourcePolicy(
      monitoringOffGpuNodes,
      resourceArgs(RELEASE, { chart: "dcgm-exporter", values: dcgmValues(r) }, { name: "dcgm" }),
    );
    assert.deepEqual(dcgm.violations, []);
    const plugin = await runResourcePolicy(
      monitoringOffGpuNodes,
      resourceArgs(
        RELEASE,
        { chart: "nvidia-device-plugin", values: { tolerations: [{ key: "nvidia.com/gpu", operator: "Exists" }] } },
        { name: "ndp" },
      ),
    );
    assert.deepEqual(plugin.violations, []);
  });

  it("the tolerate-all default it guards against is the pinned node-exporter chart's (contract fact)", () => {
    const facts = loadFacts<{ defaults: { tolerations: unknown } }>("chart-prometheus-node-exporter").facts;
    assert.deepEqual(facts.defaults.tolerations, [{ effect: "NoSchedule", operator: "Exists" }]);
  });
});
