/**
 * Gate F against the answer shapes of Prometheus's HTTP API (`/api/v1/query`): a healthy instant
 * vector, an empty result (series not scraped), NaN (no samples in the window), an error answer, a
 * non-API body and no reply; and end to end against a fake Prometheus server.
 */
import { strict as assert } from "assert";
import * as http from "node:http";
import { GateStatus } from "../../tools/verify/gates";
import { gatePrometheus, latencyQueries, readLatencies } from "../../tools/verify/prometheus";
import type { HttpReply } from "../../tools/verify/gates-http";
import { resolveTarget } from "../../tools/verify/target";
import * as path from "node:path";

const ROOT = path.join(__dirname, "..", "..");

const vector = (v: string) => ({
  status: "success",
  data: { resultType: "vector", result: [{ metric: {}, value: [1764500000.0, v] }] },
});
const reply = (json: unknown, status = 200): HttpReply => ({ status, json, text: JSON.stringify(json), ms: 1 });
const queries = latencyQueries("llama", "dynamo");
const values = ["0.85", "1.2", "0.012", "0.02"];

describe("verify gate F: TTFT/ITL from Prometheus", () => {
  it("queries p50/p95 of the Frontend's TTFT and ITL histograms for the graph's series", () => {
    assert.deepEqual(
      queries.map((q) => q.label),
      ["TTFT p50", "TTFT p95", "ITL p50", "ITL p95"],
    );
    assert.equal(
      queries[0]!.expr,
      'histogram_quantile(0.5, sum by (le) (rate(dynamo_frontend_time_to_first_token_seconds_bucket{graph="llama", namespace="dynamo"}[10m])))',
    );
    assert.match(
      queries[3]!.expr,
      /^histogram_quantile\(0\.95, .*dynamo_frontend_inter_token_latency_seconds_bucket\{graph="llama"/,
    );
  });

  it("passes and reports the four latencies on a healthy answer", () => {
    const g = gatePrometheus(
      queries,
      values.map((v) => reply(vector(v))),
      7,
    );
    assert.equal(g.status, GateStatus.Pass);
    assert.deepEqual(g.evidence, ["TTFT p50 850 ms, TTFT p95 1200 ms, ITL p50 12 ms, ITL p95 20 ms"]);
  });

  it("reports measured p50 TTFT and ITL over the plan's estimate for the declared workload (evidence, not a verdict)", () => {
    const g = gatePrometheus(
      queries,
      values.map((v) => reply(vector(v))),
      7,
      { ttftMs: 425, itlMs: null, declared: true },
    );
    assert.equal(g.status, GateStatus.Pass);
    assert.deepEqual(g.evidence.slice(1), [
      "TTFT p50 measured / plan estimate = 2.00 (estimate 425 ms at the declared workload)",
      "ITL p50 12 ms; the plan estimates the declared workload saturates the graph",
    ]);
  });

  it("the stack's target carries the plan's estimate (p5en-8gpu at the default workload)", () => {
    const t = resolveTarget("p5en-8gpu", {}, ROOT);
    assert.ok(t.estimate && t.estimate.ttftMs! > 0 && t.estimate.itlMs! > 0, JSON.stringify(t.estimate));
  });

  const cases: [string, HttpReply, RegExp][] = [
    [
      "an empty result (series not scraped)",
      reply({ status: "success", data: { resultType: "vector", result: [] } }),
      /no series dynamo_frontend_time_to_first_token_seconds_bucket for this graph/,
    ],
    ["NaN (no samples in the window)", reply(vector("NaN")), /has no samples in the last 10m \(value "NaN"\)/],
    [
      "an error answer",
      reply({ status: "error", errorType: "bad_data", error: "parse error at char 3" }, 400),
      /query failed \(bad_data\): parse error at char 3/,
    ],
    [
      "a body that is not the API's",
      { status: 502, json: undefined, text: "<html>Bad Gateway</html>", ms: 1 },
      /HTTP 502, not a Prometheus API answer: <html>Bad Gateway/,
    ],
    [
      "no reply",
      { status: 0, json: undefined, text: "", ms: 1, error: "timed out after 100 ms" },
      /Prometheus unreachable: timed out after 100 ms/,
    ],
    [
      "a matrix instead of a vector",
      reply({ status: "success", data: { resultType: "matrix", result: [] } }),
      /expected an instant vector, got "matrix"/,
    ],
  ];
  for (const [what, bad, message] of cases) {
    it(`fails naming the metric on ${what}`, () => {
      const g = gatePrometheus(queries, [bad, ...values.slice(1).map((v) => reply(vector(v)))], 3);
      assert.equal(g.status, GateStatus.Fail);
      assert.equal(g.evidence[0], "missing dynamo_frontend_time_to_first_token_seconds");
      assert.match(g.evidence[1]!, message);
      assert.equal(g.evidence.at(-1), "TTFT p95 1200 ms, ITL p50 12 ms, ITL p95 20 ms");
    });
  }

  it("reads a fake Prometheus over HTTP: healthy, then with ITL not scraped", async () => {
    let itlScraped = true;
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      const q = new URL(req.url ?? "/", "http://x").searchParams.get("query") ?? "";
      seen.push(q);
      const body =
        q.includes("inter_token") && !itlScraped
          ? { status: "success", data: { resultType: "vector", result: [] } }
          : vector("0.5");
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
    try {
      const ok = await readLatencies(url, "llama", "dynamo", 10000);
      assert.equal(ok.status, GateStatus.Pass, ok.evidence.join("\n"));
      assert.deepEqual(seen.sort(), queries.map((q) => q.expr).sort());
      itlScraped = false;
      const bad = await readLatencies(url, "llama", "dynamo", 10000);
      assert.equal(bad.status, GateStatus.Fail);
      assert.equal(bad.evidence[0], "missing dynamo_frontend_inter_token_latency_seconds");
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
