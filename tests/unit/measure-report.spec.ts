/**
 * The measure report without a cluster: measured beside estimated on the recorded real AIPerf export's numbers,
 * the agreement rule, the split from measured rates, the gain with its spread, the KV verdict, the picture, and
 * the aggregated twin rendered from a stack's own settings.
 */
import { strict as assert } from "assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseSummary, type AiperfSummary } from "../../tools/measure/aiperf";
import { estimateView, Layout, AGREE_WITHIN, type EstimateView } from "../../tools/measure/estimate";
import { Agreement, compareLatency, gainReport, layoutReport, measuredSplit } from "../../tools/measure/report";
import { buildReport } from "../../tools/measure/summary";
import { renderChart } from "../../tools/measure/chart";
import { kvDelta, kvPlanOf, kvVerdict, parseKvCounters } from "../../tools/measure/kv";
import { aggregatedTwin, graphGpus } from "../../tools/measure/twin";
import { stackInference } from "../../tools/verify/target";
import { GraphService } from "../../components/_shared/names";
import { EFA_RESOURCE } from "../../components/inference/dgd";
import { Backend } from "../../components/inference/args";

const ROOT = join(__dirname, "..", "..");
const REAL = parseSummary(
  readFileSync(join(ROOT, "tests", "fixtures", "aiperf", "baseline-chat-bare.profile_export_aiperf.json"), "utf8"),
);
const IMAGE = `registry.example/dynamo@sha256:${"b".repeat(64)}`;
const stack = (name: string) => stackInference(ROOT, join(ROOT, "stacks", `Pulumi.${name}.yaml`)).resolved;
const r8 = stack("p5en-8gpu");
const view = estimateView(r8) as EstimateView;

/** A measured run at `rps` whose P50s are `f` times the estimate there (P90, P99 above them). */
function near(rps: number, f: { ttft: number; itl: number }): AiperfSummary {
  const e = view.at(Layout.Disaggregated, rps);
  const p = (v: number) => ({ p50: v, p90: v * 1.2, p99: v * 1.5 });
  return {
    ...REAL,
    streaming: true,
    requestsPerSecond: rps,
    ttftMs: p(e.ttftMs! * f.ttft),
    itlMs: p(e.itlMs! * f.itl),
  };
}

describe("measure report: measured beside estimated", () => {
  it("the estimate exists for the stack and is the plan's: at the plan's rate, the same ITL, and a TTFT without the closed loop's waves", () => {
    assert.ok(!("why" in view));
    const e = view.atWorkload;
    const at = view.at(Layout.Disaggregated, e.requestsPerSecond);
    assert.ok(Math.abs(at.itlMs! - e.itlMs!) / e.itlMs! < 0.01, `${at.itlMs} vs ${e.itlMs}`);
    assert.ok(at.ttftMs! <= e.ttftMs!, `open loop ${at.ttftMs} vs closed loop ${e.ttftMs}`);
  });

  it("a P50 agrees inside the band (the estimate's range, else +-AGREE_WITHIN), else is above or below it", () => {
    const p = (p50: number) => ({ p50, p90: p50, p99: p50 });
    assert.equal(compareLatency(p(100 * (1 + AGREE_WITHIN) - 0.01), 100).agreement, Agreement.Agrees);
    assert.equal(compareLatency(p(100 * (1 + AGREE_WITHIN) + 0.01), 100).agreement, Agreement.Above);
    assert.equal(compareLatency(p(100 * (1 - AGREE_WITHIN) - 0.01), 100).agreement, Agreement.Below);
    assert.equal(compareLatency(p(140), 100, { lo: 90, hi: 150 }).agreement, Agreement.Agrees, "its own range wins");
    assert.equal(compareLatency(undefined, 100).agreement, Agreement.Unknown);
    assert.equal(compareLatency(p(100), null).agreement, Agreement.Unknown, "the estimate says saturated");
    assert.equal(compareLatency(p(150), 100).ratio, 1.5);
  });

  it("judges against the estimate's own validated range where its regime has one, else +-AGREE_WITHIN, and says which", () => {
    const rps = view.atWorkload.requestsPerSecond / 2;
    const at = view.at(Layout.Disaggregated, rps);
    // Open-loop arrivals on dense TP1-2: ITL is validated (its range comes along), TTFT is not (no range, none borrowed).
    const e = view.atWorkload.uncertainty;
    assert.ok(at.itlRange && at.itlRange.lo < at.itlMs! && at.itlMs! < at.itlRange.hi, JSON.stringify(at));
    assert.equal(at.ttftRange, undefined, "the open-loop TTFT is not validated in this regime");
    assert.equal(e.unvalidated.includes("ttft"), false, "the closed loop's TTFT is, and is not borrowed");
    const r = buildReport({
      stack: "p5en-8gpu",
      graph: r8.graphName,
      namespace: r8.namespace,
      image: IMAGE,
      workload: r8.workload,
      prefill: r8.prefill,
      decode: r8.decode,
      estimate: view,
      disaggregated: [{ load: { requestsPerSecond: rps }, summary: near(rps, { ttft: 2, itl: 3 }) }],
    });
    const point = r.layouts[0]!.points[0]!;
    assert.equal(point.itl.validated, true);
    assert.equal(point.ttft.validated, false);
    assert.ok(
      r.findings.some((f) => /ITL at .*band [\d.]+-[\d.]+\)$/.test(f)),
      r.findings.join("\n"),
    );
    assert.ok(
      r.findings.some((f) => /TTFT at .*band [\d.]+-[\d.]+, \+-25%: no validated range in this regime\)$/.test(f)),
      r.findings.join("\n"),
    );
  });

  it("on the recorded real export's numbers: per-GPU throughput, no token timing found, the finding says why", () => {
    const r = buildReport({
      stack: "p5en-8gpu",
      graph: r8.graphName,
      namespace: r8.namespace,
      image: IMAGE,
      workload: r8.workload,
      prefill: r8.prefill,
      decode: r8.decode,
      estimate: view,
      disaggregated: [{ load: { concurrency: 4 }, summary: REAL }],
    });
    // The AIPerf that ran, as its export says, and the image it ran from; not the version the flags were read at.
    assert.deepEqual(r.aiperf, {
      version: "0.8.0",
      image: IMAGE,
      cliReadAt: "ai-dynamo/aiperf@db4f6397d11ee2d4cfbb41f70b2327315163dcf0 (0.1.1)",
    });
    const p = r.layouts[0]!.points[0]!;
    assert.equal(p.measured.requests, 64);
    assert.equal(
      p.measured.perGpu.requestsPerSecond,
      Math.round((REAL.requestsPerSecond / graphGpus(r8)) * 1000) / 1000,
    );
    assert.equal(p.ttft.agreement, Agreement.Unknown);
    assert.equal(r.split.measured, undefined, "no TTFT/ITL measured: no split from measured rates");
    assert.ok(
      r.findings.some((f) => /TTFT at .*AIPerf measured none \(was the run streamed\?\)/.test(f)),
      r.findings.join("\n"),
    );
    assert.equal(r.findings[0], "the estimate agreed with 0 of 2 measured latencies (P50 within its band)");
  });

  it("re-derives the split from measured rates: a prefill slower than estimated asks for more prefill workers", () => {
    const e = view.atWorkload;
    const light = e.capacityRequestsPerSecond * 0.1;
    const asEstimated = layoutReport(
      Layout.Disaggregated,
      16,
      [{ load: { concurrency: 8 }, summary: near(light, { ttft: 1, itl: 1 }) }],
      view,
    );
    const slowPrefill = layoutReport(
      Layout.Disaggregated,
      16,
      [{ load: { concurrency: 8 }, summary: near(light, { ttft: 2, itl: 1 }) }],
      view,
    );
    const pool = { gpusPerNode: r8.pool.gpusPerNode, nodes: r8.pool.nodes, placement: r8.placement };
    const a = measuredSplit(asEstimated, e, r8.prefill, r8.decode, pool)!;
    const b = measuredSplit(slowPrefill, e, r8.prefill, r8.decode)!;
    assert.deepEqual(
      [a.prefill, a.decode],
      [e.recommended.prefill, e.recommended.decode],
      "measured = estimate: the estimate's split",
    );
    assert.ok(b.prefill > a.prefill, `${b.prefill} > ${a.prefill}`);
    assert.equal(a.prefill + a.decode, 16);
    assert.equal(b.prefillWorkerRequestsPerSecond, Math.round((e.roles.prefill.requestsPerSecond / 2) * 1000) / 1000);
  });

  it("the gain of disaggregation at each common load, with its median and spread", () => {
    const d = layoutReport(
      Layout.Disaggregated,
      16,
      [
        { load: { concurrency: 16 }, summary: { ...REAL, requestsPerSecond: 12 } },
        { load: { concurrency: 64 }, summary: { ...REAL, requestsPerSecond: 30 } },
        { load: { concurrency: 128 }, summary: { ...REAL, requestsPerSecond: 33 } },
      ],
      view,
    );
    const a = layoutReport(
      Layout.Aggregated,
      16,
      [
        { load: { concurrency: 16 }, summary: { ...REAL, requestsPerSecond: 12 } },
        { load: { concurrency: 64 }, summary: { ...REAL, requestsPerSecond: 24 } },
      ],
      view,
    );
    const g = gainReport(d, a, 1.02)!;
    assert.deepEqual(
      g.perLoad.map((p) => p.gain),
      [1, 1.25],
    );
    assert.deepEqual([g.median, g.min, g.max, g.estimated], [1.125, 1, 1.25, 1.02]);
    assert.equal(gainReport(d, layoutReport(Layout.Aggregated, 16, [], view), null), undefined);
  });

  it("draws TTFT and ITL against load: the estimate's curve and band per layout, a dot and whisker per measured point", () => {
    const e = view.atWorkload;
    const run = (f: number) => ({
      load: { concurrency: Math.round(64 * f) },
      summary: near(e.capacityRequestsPerSecond * f, { ttft: 1.1, itl: 0.9 }),
    });
    const r = buildReport({
      stack: "p5en-8gpu",
      graph: r8.graphName,
      namespace: r8.namespace,
      image: IMAGE,
      workload: r8.workload,
      prefill: r8.prefill,
      decode: r8.decode,
      estimate: view,
      disaggregated: [run(0.2), run(0.5)],
      aggregated: { gpus: 16, runs: [run(0.2)] },
    });
    const svg = renderChart(r);
    assert.match(svg, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<svg /);
    assert.equal((svg.match(/<circle /g) ?? []).length, 2 * 3 + 2, "3 measured points x 2 panels + 2 legend dots");
    assert.equal((svg.match(/<polyline /g) ?? []).length, 2 * 2, "2 layouts x 2 panels");
    assert.equal((svg.match(/<polygon /g) ?? []).length, 2 * 2, "a band under each curve");
    assert.ok(svg.includes("Time to first token (ms)") && svg.includes("Inter-token latency (ms)"));
    assert.ok(r.findings.some((f) => f.startsWith("disaggregated / aggregated, measured:")));
  });
});

describe("measure: KV bytes NIXL reports, against the plan", () => {
  const plan = kvPlanOf(r8)!;
  const run = { requests: 100, requestsPerSecond: 10, durationS: 10 };
  const exposition = (bytes: number, count: number, secs: number, failed = 0) =>
    [
      `vllm:nixl_bytes_transferred_sum{engine="0",model_name="m"} ${bytes}`,
      `vllm:nixl_bytes_transferred_count{engine="0",model_name="m"} ${count}`,
      `vllm:nixl_xfer_time_seconds_sum{engine="0",model_name="m"} ${secs}`,
      `vllm:nixl_num_failed_transfers_total{engine="0",model_name="m"} ${failed}`,
    ].join("\n");

  it("reads the counters of each worker and their change over the run", () => {
    assert.equal(parseKvCounters("vllm:num_requests_running 3"), undefined);
    const before = [parseKvCounters(exposition(1000, 1, 0.001)), undefined];
    const after = [parseKvCounters(exposition(5000, 3, 0.003)), parseKvCounters(exposition(2000, 1, 0.001, 1))];
    assert.deepEqual(kvDelta(before, after), { bytes: 6000, transfers: 3, xferSeconds: 0.003, failed: 1 });
  });

  it("the plan's bytes per request moved at the plan's rate: no finding", () => {
    const bytes = plan.bytesPerRequest * run.requests;
    const v = kvVerdict(
      { bytes, transfers: 100, xferSeconds: bytes / (plan.workerGBytesPerS * 1e9), failed: 0 },
      plan,
      run,
    );
    assert.deepEqual(v.findings, []);
    assert.equal(v.measured.bytesPerSecond, Math.round((bytes / run.durationS) * 1000) / 1000);
    assert.equal(v.planned.bytesPerSecond, Math.round(plan.bytesPerRequest * run.requestsPerSecond * 1000) / 1000);
  });

  it("no bytes, failed transfers, a third of the plan's rate, and three times the plan's bytes are each named", () => {
    const bytes = plan.bytesPerRequest * run.requests;
    const slow = bytes / ((plan.workerGBytesPerS / 3) * 1e9);
    assert.match(
      kvVerdict({ bytes: 0, transfers: 0, xferSeconds: 0, failed: 0 }, plan, run).findings[0]!,
      /moved no KV bytes/,
    );
    assert.match(
      kvVerdict({ bytes, transfers: 1, xferSeconds: 1e-9, failed: 2 }, plan, run).findings[0]!,
      /2 failed KV transfer/,
    );
    assert.match(
      kvVerdict({ bytes, transfers: 1, xferSeconds: slow, failed: 0 }, plan, run).findings[0]!,
      /under half the plan's .* check the EFA locality gate/,
    );
    assert.match(
      kvVerdict({ bytes: bytes * 3, transfers: 1, xferSeconds: 1e-9, failed: 0 }, plan, run).findings[0]!,
      /KV bytes per request/,
    );
  });
});

describe("measure: the aggregated twin, rendered by the inference component from the same settings", () => {
  it("p5en-8gpu: one aggregated worker per GPU of the graph, no prefill service, no KV connector, no EFA", () => {
    const t = aggregatedTwin(r8, IMAGE, view.atWorkload.aggregated.replicas);
    assert.ok(!("why" in t));
    assert.equal(t.name, `${r8.graphName}-agg`);
    assert.equal(t.gpus, graphGpus(r8));
    assert.equal(t.fitsBeside, false, "16 of 16 GPUs are the disaggregated graph's");
    const services = t.graph.spec.services;
    assert.deepEqual(Object.keys(services).sort(), [GraphService.Decode, GraphService.Frontend].sort());
    const w = services[GraphService.Decode]!;
    assert.equal(w.replicas, 16);
    assert.equal(w.subComponentType, undefined);
    const args = w.extraPodSpec!.mainContainer!.args!;
    assert.equal(args[args.indexOf("--disaggregation-mode") + 1], "agg");
    assert.ok(!args.includes("--kv-transfer-config"));
    assert.equal(w.resources?.limits?.custom?.[EFA_RESOURCE], undefined);
    assert.equal(w.extraPodSpec!.mainContainer!.image, IMAGE);
    assert.ok(!Object.keys(t.graph.metadata.annotations ?? {}).some((k) => k.startsWith("pulumi.com/")));
    assert.deepEqual(
      t.policies.map((p) => p.metadata.name),
      [`${t.name}-frontend`, `${t.name}-workers`],
    );
  });

  it("p5en-1gpu fits beside the graph (2 of 16 GPUs used); TensorRT-LLM is refused with why", () => {
    const r1 = stack("p5en-1gpu");
    const t = aggregatedTwin(r1, IMAGE, 2);
    assert.ok(!("why" in t) && t.fitsBeside);
    const trt = aggregatedTwin({ ...r1, backend: Backend.Trtllm }, IMAGE, 2);
    assert.match((trt as { why: string }).why, /vLLM only/);
  });
});
