/**
 * What `verify` expects of a cluster stack's node DaemonSets and DCGM exporter (tools/verify/cluster-gates.ts
 * `clusterExpect`) is what the program installs: the charts and versions of the Helm releases the render of
 * `p5en-cluster` writes, under both device allocations; and each chart's DaemonSet label is the one the chart writes
 * (facts/chart-daemonset-labels.json), so a chart added to the cluster without its label read fails here.
 */
import { strict as assert } from "assert";
import * as path from "path";
import { resolveArgs as resolveCluster } from "../../components/cluster/args";
import { nodeDeviceCharts } from "../../components/cluster/derive";
import { charts } from "../../components/versions";
import { clusterExpect, helmChartLabel } from "../../tools/verify/cluster-gates";
import { readDeployedStack } from "../../tools/verify/deployed-stack";
import { loadFacts } from "./facts";
import { renderedStacks } from "./rendered";

const ROOT = path.join(__dirname, "..", "..");
const { facts } = loadFacts<{ label: string; charts: string[] }>("chart-daemonset-labels");

describe("verify's expectations of a cluster stack are what the program installs", function () {
  this.timeout(300000); // renders p5en-cluster under the render's mocks

  it("p5en-cluster: the device plugins and the DCGM exporter, at the rendered releases' charts and versions", async () => {
    const [rendered] = await renderedStacks(["p5en-cluster"]);
    const read = readDeployedStack(ROOT, "p5en-cluster", path.join(ROOT, "stacks", "Pulumi.p5en-cluster.yaml"));
    assert.equal(read.kind, "cluster");
    if (read.kind !== "cluster") return;
    const want = clusterExpect(read.config);
    const expected = [...want.nodeDaemonSets, ...(want.monitoring?.dcgm ? [want.monitoring.dcgm] : [])]
      .map((c) => `${c.chart} ${c.version}`)
      .sort();
    const daemonCharts = new Set(facts.charts);
    const installed = rendered!.releases
      .filter((r) => daemonCharts.has(r.chart))
      .map((r) => `${r.chart} ${r.version}`)
      .sort();
    assert.deepEqual(expected, installed);
    assert.deepEqual(expected, [
      "aws-efa-k8s-device-plugin v0.5.30",
      "dcgm-exporter 4.8.2",
      "nvidia-device-plugin 0.20.0",
    ]);
  });

  it("under DRA the GPU and EFA DRA drivers instead, and without an EFA type no EFA chart", () => {
    const base = { availabilityZones: ["us-east-2a", "us-east-2b"], region: "us-east-2" };
    const dra = nodeDeviceCharts(
      resolveCluster({ ...base, poolInstanceTypes: ["p5en.48xlarge"], deviceAllocation: "dra" } as never),
    );
    assert.deepEqual(
      dra.map((c) => c.chart),
      [charts.gpuDraDriver.chart, charts.efaDraDriver.chart],
    );
    const noEfa = nodeDeviceCharts(resolveCluster({ ...base, poolInstanceTypes: ["g6e.xlarge"] } as never));
    assert.deepEqual(
      noEfa.map((c) => c.chart),
      [charts.nvidiaDevicePlugin.chart],
    );
  });

  it("every chart verify looks for has its DaemonSet label read upstream, in the label's format", () => {
    assert.equal(facts.label, "helm.sh/chart");
    for (const c of [
      charts.nvidiaDevicePlugin,
      charts.efaDevicePlugin,
      charts.gpuDraDriver,
      charts.efaDraDriver,
      charts.dcgmExporter,
    ])
      assert.ok(facts.charts.includes(c.chart), `${c.chart}: its DaemonSet's label is not in the facts`);
    assert.equal(helmChartLabel({ chart: "x", version: "1.0.0+build.1" }), "x-1.0.0_build.1");
    assert.equal(helmChartLabel({ chart: "a".repeat(60), version: "1.2.3" }), `${"a".repeat(60)}-1.`);
    assert.equal(helmChartLabel({ chart: "a".repeat(62), version: "1.2.3" }), "a".repeat(62));
  });
});
