/**
 * DynamoObservability under the render's mocks, captured with the render's own engine (`tools/render/capture/capture.ts`): the
 * children, their names, parents and provider (from the resource options), the order (DCGM's ServiceMonitor and the
 * PodMonitors after the stack's CRDs), the existing-Prometheus shape, and validation before any child.
 */
import { strict as assert } from "assert";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { Capture, CapturedResource } from "../../tools/render/capture/capture";
import { captureComponents } from "../helpers/capture";
import { promiseOf, thrown } from "../helpers/outputs";
import { DynamoObservability } from "../../components/observability";
import { charts } from "../../components/versions";

const RELEASE = "kubernetes:helm.sh/v3:Release";
const PODMONITOR = "kubernetes:monitoring.coreos.com/v1:PodMonitor";

interface Built {
  readonly obs: DynamoObservability;
  readonly existing: DynamoObservability;
  readonly badError: pulumi.InputPropertiesError;
}

describe("observability: DynamoObservability component (mocks)", () => {
  let c: Capture<Built>;
  const byName = (n: string): CapturedResource => {
    const s = c.resources.find((x) => x.name === n);
    if (!s) throw new Error(`not captured: ${n}; have ${c.resources.map((x) => x.name).join(", ")}`);
    return s;
  };
  const inputs = (n: string) =>
    byName(n).inputs as {
      metadata: { name: string; namespace: string; labels: Record<string, string> };
      data: Record<string, string>;
    };

  before(async function () {
    this.timeout(30000);
    c = await captureComponents(() => {
      const provider = new k8s.Provider("k8s", { kubeconfig: "{}" });
      const inCluster = { providers: { kubernetes: provider } };
      const obs = new DynamoObservability("mon", { graphName: "llama" }, inCluster);
      const existing = new DynamoObservability(
        "ext",
        {
          graphName: "qwen",
          graphNamespace: "serving",
          prometheus: "existing",
          monitorLabels: { release: "prom" },
          dcgmExporter: false,
        },
        inCluster,
      );
      const badError = thrown<pulumi.InputPropertiesError>(
        () =>
          new DynamoObservability(
            "bad",
            {
              graphName: "Bad Name",
              prometheus: "existing",
              scrapeIntervalSeconds: 0,
              systemNodeSelector: { "bad key!": "system" },
            },
            inCluster,
          ),
      );
      return { obs, existing, badError };
    });
  });

  it("installs kube-prometheus-stack and dcgm-exporter from their pinned repositories, DCGM after the stack", () => {
    const rel = c.resources
      .filter((r) => r.type === RELEASE && r.name.startsWith("mon-"))
      .map((r) => [
        r.name,
        r.inputs.chart,
        r.inputs.version,
        (r.inputs.repositoryOpts as { repo: string }).repo,
        r.inputs.namespace,
      ]);
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
    assert.deepEqual(byName("mon-dcgm-exporter").explicitDependsOn, [byName("mon-kube-prometheus-stack").urn]);
  });

  it("PodMonitors for the frontend and the workers in the graph's namespace, after the stack's CRDs", () => {
    for (const role of ["frontend", "worker"]) {
      const pm = byName(`mon-${role}-podmonitor`);
      assert.equal(pm.type, PODMONITOR);
      const md = inputs(pm.name).metadata;
      assert.deepEqual([md.name, md.namespace], [`llama-${role}`, "dynamo"]);
      assert.deepEqual(pm.explicitDependsOn, [byName("mon-kube-prometheus-stack").urn]);
    }
  });

  it("every child has the component as parent and the provider from the resource options", () => {
    const kids = c.resources.filter((s) => s.name.startsWith("mon-"));
    assert.deepEqual(kids.map((k) => k.name).sort(), [
      "mon-dcgm-exporter",
      "mon-frontend-podmonitor",
      "mon-kube-prometheus-stack",
      "mon-worker-podmonitor",
    ]);
    for (const k of kids) {
      assert.equal(k.parent, byName("mon").urn, k.name);
      assert.ok(k.provider?.startsWith(`${byName("k8s").urn}::`), `${k.name}: provider ${k.provider}`);
    }
  });

  it("outputs: namespace and the Prometheus Service verify reads", async () => {
    const { obs, existing } = c.result;
    assert.equal(await promiseOf(obs.namespace), "monitoring");
    assert.equal(await promiseOf(obs.prometheusService), "monitoring/kps-prometheus:http-web");
    assert.equal(await promiseOf(existing.prometheusService), undefined);
  });

  it("existing Prometheus: no release, labelled PodMonitors and a dashboard ConfigMap", () => {
    const { existing } = c.result;
    const kids = c.resources
      .filter((s) => s.name.startsWith("ext-"))
      .map((s) => s.name)
      .sort();
    assert.deepEqual(kids, ["ext-dashboard", "ext-frontend-podmonitor", "ext-worker-podmonitor"]);
    assert.equal(existing.stackRelease, undefined);
    assert.equal(existing.dcgmRelease, undefined);
    assert.equal(inputs("ext-worker-podmonitor").metadata.labels.release, "prom");
    assert.deepEqual(Object.keys(inputs("ext-dashboard").data), ["dynamo-qwen.json"]);
  });

  it("rejects bad values, a missing companion arg, bad labels and a range in ONE error, and creates no child", () => {
    const { badError } = c.result;
    assert.ok(pulumi.InputPropertiesError.isInstance(badError), String(badError));
    assert.deepEqual(
      badError.errors.map((e) => e.propertyPath),
      ["graphName", "monitorLabels", "systemNodeSelector.bad key!", "scrapeIntervalSeconds"],
    );
    assert.match(
      badError.message,
      /DynamoObservability: 4 problems\n {2}- graphName: must be a lower-case RFC 1123 name.*\n {2}- monitorLabels: required with prometheus "existing"/,
    );
    assert.deepEqual(
      c.resources.filter((r) => r.name.startsWith("bad")).map((r) => r.name),
      ["bad"],
    );
  });
});
