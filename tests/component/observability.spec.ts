/**
 * DynamoObservability under recording mocks: the children, their names, parents and provider, the
 * order (DCGM's ServiceMonitor and the PodMonitors after the stack's CRDs), the existing-Prometheus
 * shape, and validation before any child.
 */
import { strict as assert } from "assert";
import * as pulumi from "@pulumi/pulumi";
import { armMocks, ofType, one, Recorded } from "../helpers/mocks";
import { promiseOf, thrown } from "../helpers/outputs";
import type { DynamoObservability as DynamoObservabilityT } from "../../components/observability";

interface Seen {
  type: string;
  name: string;
  resource: pulumi.Resource;
  opts: pulumi.ResourceOptions;
}

const RELEASE = "kubernetes:helm.sh/v3:Release";
const PODMONITOR = "kubernetes:monitoring.coreos.com/v1:PodMonitor";

describe("observability: DynamoObservability component (mocks)", () => {
  let recorded: Recorded[];
  const seen: Seen[] = [];
  let obs: DynamoObservabilityT;
  let existing: DynamoObservabilityT;
  let badError: unknown;
  let childrenOfBad = -1;
  const byName = (n: string) => {
    const s = seen.find((x) => x.name === n);
    if (!s) throw new Error(`not captured: ${n}; have ${seen.map((x) => x.name).join(", ")}`);
    return s;
  };

  before(async function () {
    this.timeout(30000);
    recorded = armMocks();
    await pulumi.runtime.runInPulumiStack(async () => {
      pulumi.runtime.registerStackTransformation((a) => {
        seen.push({ type: a.type, name: a.name, resource: a.resource, opts: a.opts });
        return undefined;
      });
      const k8s = await import("@pulumi/kubernetes");
      const { DynamoObservability } = await import("../../components/observability");
      const provider = new k8s.Provider("k8s", { kubeconfig: "{}" });
      obs = new DynamoObservability("mon", { provider, graphName: "llama" });
      existing = new DynamoObservability("ext", {
        provider,
        graphName: "qwen",
        graphNamespace: "serving",
        prometheus: "existing",
        monitorLabels: { release: "prom" },
        dcgmExporter: false,
      });
      await Promise.all([
        promiseOf(obs.stackRelease!.urn),
        promiseOf(obs.dcgmRelease!.urn),
        promiseOf(existing.namespace),
      ]);
      const before = seen.length;
      badError = thrown(
        () =>
          new DynamoObservability("bad", {
            provider,
            graphName: "Bad Name",
            prometheus: "existing",
            scrapeIntervalSeconds: 0,
            systemNodeSelector: { "bad key!": "system" },
          }),
      );
      childrenOfBad = seen.slice(before).filter((s) => s.name !== "bad").length;
      return {};
    });
  });

  it("installs kube-prometheus-stack and dcgm-exporter from their pinned repositories, DCGM after the stack", async () => {
    const { charts } = await import("../../components/versions");
    const rel = ofType(recorded, RELEASE)
      .filter((r) => r.name.startsWith("mon-"))
      .map((r) => [r.name, r.inputs.chart, r.inputs.version, r.inputs.repositoryOpts.repo, r.inputs.namespace]);
    assert.deepEqual(rel.sort(), [
      [
        "mon-dcgm-exporter",
        "dcgm-exporter",
        charts.dcgmExporter.version,
        "https://nvidia.github.io/dcgm-exporter/helm-charts",
        "monitoring",
      ],
      [
        "mon-kube-prometheus-stack",
        "kube-prometheus-stack",
        charts.kubePrometheusStack.version,
        "https://prometheus-community.github.io/helm-charts",
        "monitoring",
      ],
    ]);
    assert.deepEqual(byName("mon-dcgm-exporter").opts.dependsOn, [byName("mon-kube-prometheus-stack").resource]);
  });

  it("PodMonitors for the frontend and the workers in the graph's namespace, after the stack's CRDs", () => {
    for (const role of ["frontend", "worker"]) {
      const pm = one(recorded, PODMONITOR, `mon-${role}-podmonitor`);
      assert.deepEqual([pm.inputs.metadata.name, pm.inputs.metadata.namespace], [`llama-${role}`, "dynamo"]);
      assert.deepEqual(byName(`mon-${role}-podmonitor`).opts.dependsOn, [byName("mon-kube-prometheus-stack").resource]);
    }
  });

  it("every child has the component as parent and the given provider", () => {
    const kids = seen.filter((s) => s.name.startsWith("mon-"));
    assert.deepEqual(kids.map((k) => k.name).sort(), [
      "mon-dcgm-exporter",
      "mon-frontend-podmonitor",
      "mon-kube-prometheus-stack",
      "mon-worker-podmonitor",
    ]);
    for (const k of kids) {
      assert.equal(k.opts.parent, obs, k.name);
      assert.ok(k.opts.provider, `${k.name} has no provider`);
    }
  });

  it("outputs: namespace and the Prometheus Service verify reads", async () => {
    assert.equal(await promiseOf(obs.namespace), "monitoring");
    assert.equal(await promiseOf(obs.prometheusService), "monitoring/kps-prometheus:http-web");
    assert.equal(await promiseOf(existing.prometheusService), undefined);
  });

  it("existing Prometheus: no release, labelled PodMonitors and a dashboard ConfigMap", () => {
    const kids = seen
      .filter((s) => s.name.startsWith("ext-"))
      .map((s) => s.name)
      .sort();
    assert.deepEqual(kids, ["ext-dashboard", "ext-frontend-podmonitor", "ext-worker-podmonitor"]);
    assert.equal(existing.stackRelease, undefined);
    assert.equal(existing.dcgmRelease, undefined);
    assert.equal(one(recorded, PODMONITOR, "ext-worker-podmonitor").inputs.metadata.labels.release, "prom");
    assert.deepEqual(Object.keys(one(recorded, "kubernetes:core/v1:ConfigMap", "ext-dashboard").inputs.data), [
      "dynamo-qwen.json",
    ]);
  });

  it("rejects bad values, a missing companion arg, bad labels and a range in ONE error, and creates no child", () => {
    assert.ok(pulumi.InputPropertiesError.isInstance(badError), String(badError));
    assert.deepEqual(
      badError.errors.map((e) => e.propertyPath),
      ["graphName", "monitorLabels", "systemNodeSelector.bad key!", "scrapeIntervalSeconds"],
    );
    assert.match(
      badError.message,
      /DynamoObservability: 4 problems\n {2}- graphName: must be a lower-case RFC 1123 name.*\n {2}- monitorLabels: required with prometheus "existing"/,
    );
    assert.equal(childrenOfBad, 0);
  });
});
