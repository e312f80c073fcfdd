/**
 * Gate F end to end through the real CLI (`main`) against the fakes: the in-cluster Prometheus the
 * stack installs is found by its pod label and reached by a port-forward through the fake API; a
 * missing series fails naming the metric; a stack with `observability: false` has no gate F.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { PrometheusMode } from "../../components/observability/args";
import { prometheusFor } from "../../tools/verify/prometheus";
import { resolveVerifyTarget } from "../../tools/verify/target";
import { projectWith, stackText } from "./stacks";
import { MODEL, startFrontend } from "./fake-frontend";
import { GRAPH, NAMESPACE, PROMETHEUS_NAMESPACE, startKube } from "./fake-kube";
import { startPrometheus } from "./fake-prometheus";

type Main = typeof import("../../tools/verify/cli").main;

function stackRoot(observability?: unknown): string {
  const extra = [
    `  dynamo-efa:graphName: ${GRAPH}`,
    ...(observability === undefined ? [] : [`  dynamo-efa:observability: ${JSON.stringify(observability)}`]),
  ].join("\n");
  return projectWith({
    obs: stackText(`    model: ${MODEL}\n    backend: vllm\n    namespace: ${NAMESPACE}\n`, extra),
  });
}

async function run(main: Main, root: string, opts: { prometheus?: boolean; unscraped?: string[] } = {}) {
  const fe = await startFrontend("pass");
  const prom = opts.prometheus === false ? undefined : await startPrometheus(opts.unscraped ?? []);
  const kube = await startKube("libfabric", fe.url, prom?.url);
  const json = path.join(root, "r.json");
  try {
    let out = "";
    const code = await main(["obs", "--kubeconfig", kube.kubeconfig, "--timeout", "10", "--json", json], {
      stdout: (s) => (out += s),
      stderr: (s) => (out += s),
      root,
    });
    const gates = (
      JSON.parse(fs.readFileSync(json, "utf8")) as { gates: { id: string; status: string; evidence: string[] }[] }
    ).gates;
    return { code, out, gates, f: gates.find((g) => g.id === "F"), promRequests: prom?.requests ?? [] };
  } finally {
    await fe.close();
    await prom?.close();
    await kube.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

describe("verify gate F through the CLI and the fake cluster", function () {
  this.timeout(120000); // spawns nothing, but imports the Kubernetes client under tsx: slow on two loaded cores
  let main: Main;
  before(async () => {
    main = (await import("../../tools/verify/cli")).main;
  });

  it("finds the stack's Prometheus from its observability config, read by the program's schema (on unless false / existing)", () => {
    const inCluster = { namespace: PROMETHEUS_NAMESPACE, selector: "dynamo-efa/component=prometheus", port: 9090 };
    const of = (observability?: unknown) => {
      const root = stackRoot(observability);
      try {
        const t = resolveVerifyTarget("obs", {}, root);
        return t.kind === "graph" ? t.prometheus : assert.fail("a whole stack is a graph target");
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    };
    assert.deepEqual(of(), inCluster);
    assert.deepEqual(of({ retentionDays: 3 }), inCluster);
    assert.equal(of(false), undefined);
    // The renamed key is the stack file's problem, reported as render reports it (no silent "no gate F").
    assert.throws(() => of({ enabled: false }), /observability\.enabled: was renamed: write observability: false/);
    // A whole stack refuses an existing Prometheus (its cluster is new); gate F then runs only with --prometheus-url.
    assert.throws(() => of({ prometheus: "existing", monitorLabels: { release: "p" } }), /observability\.prometheus/);
    assert.equal(prometheusFor({ prometheus: PrometheusMode.Existing }), undefined);
    // In the namespace the stack installs its monitoring in.
    assert.deepEqual(of({ namespace: "metrics" }), { ...inCluster, namespace: "metrics" });
    assert.equal(prometheusFor(undefined), undefined);
  });

  it("passes every gate, F reading TTFT and ITL through a port-forward to the Prometheus pod", async () => {
    const r = await run(main, stackRoot());
    assert.equal(r.code, 0, r.out);
    assert.deepEqual(
      r.gates.map((g) => `${g.id}:${g.status}`),
      ["A:PASS", "B:PASS", "C:PASS", "D:PASS", "E:PASS", "F:PASS"],
    );
    assert.equal(r.f!.evidence[0], "TTFT p50 850 ms, TTFT p95 850 ms, ITL p50 12 ms, ITL p95 12 ms");
    assert.equal(r.promRequests.length, 4);
  });

  it("fails gate F naming the metric when a series is not scraped", async () => {
    const r = await run(main, stackRoot(), { unscraped: ["dynamo_frontend_inter_token_latency_seconds"] });
    assert.equal(r.code, 1);
    assert.equal(r.f!.status, "FAIL");
    assert.equal(r.f!.evidence[0], "missing dynamo_frontend_inter_token_latency_seconds");
  });

  it("fails gate F when the stack's Prometheus pod is not there", async () => {
    const r = await run(main, stackRoot(), { prometheus: false });
    assert.equal(r.code, 1);
    assert.match(
      r.f!.evidence[0]!,
      /^no Running\+Ready Prometheus pod matches dynamo-efa\/component=prometheus in namespace monitoring/,
    );
  });

  it("has no gate F when the stack turns observability off", async () => {
    const r = await run(main, stackRoot(false), { prometheus: false });
    assert.equal(r.code, 0, r.out);
    assert.equal(r.f, undefined);
  });
});
