/**
 * Observability on the rendered plan of the real program: both stacks render the monitoring
 * releases, the graph's PodMonitors and a dashboard JSON; no monitoring pod tolerates the GPU taint
 * or requests a GPU except the DCGM DaemonSet; `observability: false` removes all of it.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { gpuAccessPaths } from "../../components/observability/scheduling";
import { SYSTEM_NODE_SELECTOR } from "../../components/observability/args";
import { CliDeps, defaultDeps, runCli } from "../../tools/render/cli/cli";

/** Where a chart pins its pods: the keys these tests read of each kube-prometheus-stack part. */
interface Pinned {
  readonly nodeSelector?: Readonly<Record<string, string>>;
  readonly tolerations?: readonly unknown[];
}
/** The kube-prometheus-stack values these tests read. */
interface KpsValues {
  readonly prometheusOperator: Pinned & { readonly admissionWebhooks: { readonly patch: Pinned } };
  readonly prometheus: { readonly prometheusSpec: Pinned };
  readonly grafana: Pinned;
  readonly "kube-state-metrics": Pinned;
  readonly "prometheus-node-exporter": Pinned;
}
/** One entry of resources.json, with the inputs these tests read (a Helm release, a PodMonitor, a node group). */
interface Res {
  type: string;
  name: string;
  inputs: {
    readonly chart?: string;
    readonly values?: KpsValues;
    readonly metadata?: { readonly name: string };
    readonly labels?: Readonly<Record<string, string>>;
  };
}
const RELEASE = "kubernetes:helm.sh/v3:Release";
const PODMONITOR = "kubernetes:monitoring.coreos.com/v1:PodMonitor";
const MONITORING_CHARTS = ["kube-prometheus-stack", "dcgm-exporter"];

async function render(
  stack: string,
  out: string,
  extra: string[] = [],
): Promise<{ code: number; dir: string; log: string[] }> {
  const log: string[] = [];
  const deps: CliDeps = { ...defaultDeps(), stdout: (l) => log.push(l), stderr: (l) => log.push(l) };
  const code = await runCli([stack, "--out", out, ...extra], deps);
  return { code, dir: path.join(out, stack), log };
}

const resources = (dir: string): Res[] => JSON.parse(fs.readFileSync(path.join(dir, "resources.json"), "utf8"));
const monitoring = (rs: Res[]) =>
  rs.filter((r) => r.type === RELEASE && MONITORING_CHARTS.includes(r.inputs.chart ?? ""));

describe("render: observability on both stacks", function () {
  this.timeout(120000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "render-obs-"));
  const on: Record<string, { code: number; dir: string; log: string[] }> = {};
  let off: { code: number; dir: string; log: string[] };

  before(async () => {
    for (const s of ["p5en-1gpu", "p5en-8gpu"]) on[s] = await render(s, path.join(tmp, "on"));
    off = await render("p5en-1gpu", path.join(tmp, "off"), ["--set", "observability=false"]);
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  for (const stack of ["p5en-1gpu", "p5en-8gpu"]) {
    it(`${stack}: renders kube-prometheus-stack, dcgm-exporter, two PodMonitors and a parsable dashboard`, () => {
      const r = on[stack]!;
      assert.equal(r.code, 0, r.log.join("\n"));
      const rs = resources(r.dir);
      assert.deepEqual(
        monitoring(rs)
          .map((x) => x.inputs.chart)
          .sort(),
        ["dcgm-exporter", "kube-prometheus-stack"],
      );
      assert.deepEqual(
        rs
          .filter((x) => x.type === PODMONITOR)
          .map((x) => x.inputs.metadata?.name)
          .sort(),
        ["llm-frontend", "llm-worker"],
      );
      const dash = fs.readdirSync(path.join(r.dir, "dashboards"));
      assert.deepEqual(dash, ["dynamo-llm.json"]);
      const parsed = JSON.parse(fs.readFileSync(path.join(r.dir, "dashboards", dash[0]!), "utf8"));
      assert.ok(Array.isArray(parsed.panels) && parsed.panels.length >= 8, "dashboard has its panels");
    });

    it(`${stack}: no monitoring pod tolerates the GPU taint or requests a GPU, except the DCGM DaemonSet`, () => {
      for (const rel of monitoring(resources(on[stack]!.dir))) {
        const paths = gpuAccessPaths(rel.inputs.values);
        if (rel.inputs.chart === "dcgm-exporter") {
          assert.deepEqual(paths, ["tolerations[0]"], "DCGM tolerates the GPU taint (and requests no GPU)");
        } else {
          assert.deepEqual(paths, [], `${rel.inputs.chart} must stay off the GPU nodes`);
        }
      }
    });
  }

  it("pins every kube-prometheus-stack pod to the system node group (and replaces node-exporter's tolerate-all default)", () => {
    const kps = monitoring(resources(on["p5en-1gpu"]!.dir)).find((x) => x.inputs.chart === "kube-prometheus-stack")!;
    const v = kps.inputs.values!;
    for (const sel of [
      v.prometheusOperator.nodeSelector,
      v.prometheusOperator.admissionWebhooks.patch.nodeSelector,
      v.prometheus.prometheusSpec.nodeSelector,
      v.grafana.nodeSelector,
      v["kube-state-metrics"].nodeSelector,
      v["prometheus-node-exporter"].nodeSelector,
    ]) {
      assert.deepEqual(sel, SYSTEM_NODE_SELECTOR);
    }
    assert.deepEqual(v["prometheus-node-exporter"].tolerations, []);
    const system = resources(on["p5en-1gpu"]!.dir).find(
      (x) => x.type === "aws:eks/nodeGroup:NodeGroup" && x.name.endsWith("system-ng"),
    )!;
    for (const [k, val] of Object.entries(SYSTEM_NODE_SELECTOR))
      assert.equal(system.inputs.labels?.[k], val, "the system node group carries the selector's label");
  });

  it("the check catches a tolerate-everything toleration and a GPU request (mutations)", () => {
    assert.deepEqual(gpuAccessPaths({ tolerations: [{ effect: "NoSchedule", operator: "Exists" }] }), [
      "tolerations[0]",
    ]);
    assert.deepEqual(
      gpuAccessPaths({
        a: { tolerations: [{ key: "nvidia.com/gpu", operator: "Equal", value: "true", effect: "NoSchedule" }] },
      }),
      ["a.tolerations[0]"],
    );
    assert.deepEqual(gpuAccessPaths({ resources: { limits: { "nvidia.com/gpu": 1 } } }), [
      "resources.limits.nvidia.com/gpu",
    ]);
    assert.deepEqual(
      gpuAccessPaths({ tolerations: [{ key: "other", operator: "Exists" }], resources: { limits: { cpu: "1" } } }),
      [],
    );
  });

  it("observability=false: no monitoring release, PodMonitor, dashboard ConfigMap or dashboards/ output", () => {
    assert.equal(off.code, 0, off.log.join("\n"));
    const rs = resources(off.dir);
    assert.deepEqual(monitoring(rs), []);
    assert.deepEqual(
      rs.filter((x) => x.type === PODMONITOR || x.type.startsWith("dynamo-efa:observability")),
      [],
    );
    assert.equal(fs.existsSync(path.join(off.dir, "dashboards")), false);
  });
});
