/**
 * The plan's numbers and their ranges (serving/errors.ts): every number shown with a range is the model's value
 * corrected by its regime's validation bias and lies inside the range drawn around the model's value; a regime without
 * validation points says so (no range, listed as unvalidated) instead of borrowing another's band; the verdict on
 * disaggregation follows the gain's validated range.
 */
import { strict as assert } from "assert";
import * as path from "path";
import { KvCacheDtype, modelFacts } from "../../components/catalog/models";
import { Backend, resolveWorkload } from "../../components/inference/args";
import { inferencePlan } from "../../components/inference/plan";
import { type ServingEstimate, servingEstimate, type ServingInput, servingInputOf } from "../../serving";
import { bandFor, regimeOf, ttftRegime } from "../../serving/errors";
import { stackInference } from "../../tools/verify/target";
import { servingMarkdown } from "../../tools/render/plan/serving";

const ROOT = path.join(__dirname, "..", "..");
const stackInput = (stack: string): ServingInput => {
  const { resolved } = stackInference(ROOT, path.join(ROOT, "stacks", `Pulumi.${stack}.yaml`));
  const i = servingInputOf(inferencePlan(resolved), resolved.pool);
  assert.ok(!("why" in i));
  return i;
};
const estimate = (i: ServingInput): ServingEstimate => {
  const e = servingEstimate(i);
  assert.ok(!("why" in e), JSON.stringify(e));
  return e;
};
const WORKLOADS = [
  { isl: 1024, osl: 256 },
  { isl: 8000, osl: 128, concurrency: 16 },
  { isl: 200, osl: 2000, concurrency: 128 },
  { isl: 32000, osl: 512, concurrency: 8 },
  { isl: 3000, osl: 300, requestsPerSecond: 4 },
  { isl: 2000, osl: 500, concurrency: 1 },
  { isl: 4000, osl: 200, concurrency: 64, ttftMs: 800, itlMs: 30 },
];

/** Each [shown value, its range] pair of an estimate. */
function shownWithRange(e: ServingEstimate): [string, number | null, readonly [number, number] | null][] {
  const r = e.uncertainty.ranges;
  return [
    ["ttftMs", e.ttftMs, r.ttftMs],
    ["itlMs", e.itlMs, r.itlMs],
    ["ttftP90Ms", e.ttftP90Ms, r.ttftP90Ms],
    ["itlP90Ms", e.itlP90Ms, r.itlP90Ms],
    ["tokensPerSecondPerGpu", e.tokensPerSecondPerGpu, r.tokensPerSecondPerGpu],
    ["aggregated.tokensPerSecondPerGpu", e.aggregated.tokensPerSecondPerGpu, r.aggregatedTokensPerSecondPerGpu],
    ["disaggGain", e.disaggGain, r.disaggGain],
    ["aggregated.ttftMs", e.aggregated.ttftMs, r.aggregated.ttftMs],
    ["aggregated.itlMs", e.aggregated.itlMs, r.aggregated.itlMs],
    ["aggregated.ttftP90Ms", e.aggregated.ttftP90Ms, r.aggregated.ttftP90Ms],
    ["aggregated.itlP90Ms", e.aggregated.itlP90Ms, r.aggregated.itlP90Ms],
  ];
}

describe("serving estimate: numbers inside their ranges, regimes that say what is not validated", function () {
  this.timeout(120000);
  const stacks = ["p5en-1gpu", "p5en-8gpu"].map((s) => [s, stackInput(s)] as const);

  for (const [stack, base] of stacks)
    it(`${stack}: at every workload, each number with a range lies inside it, and is the model's value x its band's bias`, () => {
      for (const w of WORKLOADS) {
        const e = estimate({ ...base, workload: resolveWorkload(w) });
        for (const [name, v, range] of shownWithRange(e)) {
          if (v === null || range === null) continue;
          assert.ok(v >= range[0] && v <= range[1], `${JSON.stringify(w)} ${name}: ${v} outside ${range}`);
        }
        const b = e.uncertainty.bands;
        if (b.gain && e.uncertainty.model.disaggGain !== null)
          assert.ok(Math.abs(e.disaggGain! - e.uncertainty.model.disaggGain * b.gain.bias) < 1e-3 * e.disaggGain!);
        if (b.ttft && e.uncertainty.model.ttftMs !== null)
          assert.ok(Math.abs(e.ttftMs! - e.uncertainty.model.ttftMs * b.ttft.bias) < 1e-3 * e.ttftMs! + 1e-3);
      }
    });

  it("the verdict follows the gain's validated range: disaggregated only when it excludes 1 from above, aggregated from below", () => {
    const base = stacks[1]![1];
    for (const w of WORKLOADS) {
      const e = estimate({ ...base, workload: resolveWorkload(w) });
      const g = e.uncertainty.ranges.disaggGain;
      if (g === null) continue;
      const want = g[0] > 1 ? "disaggregated" : g[1] < 1 ? "aggregated" : "too close to call";
      assert.equal(e.winner, want, `${JSON.stringify(w)}: gain ${e.disaggGain} in ${g}`);
    }
  });

  it("TTFT's band depends on the load: one request in flight, a closed loop and an open loop each have their own (or none)", () => {
    const base = stacks[0]![1];
    const regime = regimeOf({ moe: false, tp: 1 });
    const of = (w: object) => estimate({ ...base, workload: resolveWorkload(w) }).uncertainty.bands.ttft;
    assert.deepEqual(of({ isl: 1000, osl: 100, concurrency: 1 }), bandFor(ttftRegime(regime, "1 in flight"), "ttft"));
    assert.deepEqual(of({ isl: 1000, osl: 100, concurrency: 32 }), bandFor(ttftRegime(regime, "closed loop"), "ttft"));
    assert.deepEqual(
      of({ isl: 1000, osl: 100, requestsPerSecond: 2 }),
      bandFor(ttftRegime(regime, "open loop"), "ttft"),
    );
  });

  it("a regime without validation points says so: Llama-3.1-70B at TP8 has no validated gain, so no range and no verdict but 'measure'", () => {
    const role = { replicas: 1, tensorParallel: 8, maxModelLen: 8192, gpuMemoryUtilization: 0.9, efaDevices: 16 };
    const e = estimate({
      model: modelFacts("meta-llama/Llama-3.1-70B-Instruct")!,
      kvCacheDtype: KvCacheDtype.Auto,
      backend: Backend.Vllm,
      pool: { instanceType: "p5en.48xlarge" },
      prefill: role,
      decode: role,
      workload: resolveWorkload({ isl: 3000, osl: 150, concurrency: 48 }),
    });
    assert.equal(e.uncertainty.regime, "dense TP4-8");
    assert.ok(e.uncertainty.unvalidated.includes("gain"));
    assert.equal(e.uncertainty.ranges.disaggGain, null);
    assert.equal(e.disaggGain, e.uncertainty.model.disaggGain, "no band: the model's own value, uncorrected");
    assert.equal(e.winner, "too close to call");
    assert.match(e.uncertainty.settle ?? "", /no validated range for dense TP4-8/);
  });
  it("plan.md words each verdict as its gain's range says: excludes 1, includes 1, not validated, or no gain at all", () => {
    const base = stacks[1]![1];
    const md = (w: object, i: ServingInput = base) => {
      const e = estimate({ ...i, workload: resolveWorkload(w) });
      return { e, verdict: servingMarkdown({ serving: e }).find((l) => l.startsWith("**"))! };
    };
    const agg = md({ isl: 1024, osl: 256, concurrency: 64 });
    assert.equal(agg.e.winner, "aggregated");
    assert.match(
      agg.verdict,
      /does not pay[^]*range \d[\d.]*-0\.\d+; the model's [\d.]+ x the gain's validation bias [\d.]+\); the range excludes 1/,
    );
    const dis = md({ isl: 2000, osl: 200, concurrency: 16, ttftMs: 100000, itlMs: 6 });
    assert.equal(dis.e.winner, "disaggregated");
    assert.match(
      dis.verdict,
      /^\*\*Disaggregation pays[^]*within the objectives = [\d.]+ \(range 1\.[\d.]+-[\d.]+;[^]*the range excludes 1\.$/,
    );
    const close = md({ isl: 3000, osl: 300, concurrency: 32, ttftMs: 200, itlMs: 10 });
    assert.equal(close.e.winner, "too close to call");
    assert.match(
      close.verdict,
      /^\*\*Too close to call\*\*: [^]*\(range 0\.[\d]+-1\.[\d]+;[^]*includes 1: measure both layouts/,
    );
    assert.doesNotMatch(close.verdict, /excludes/);
    const none = md({ isl: 3000, osl: 300, requestsPerSecond: 5, ttftMs: 1, itlMs: 0.5 });
    assert.equal(none.e.disaggGain, null);
    assert.match(none.verdict, /^\*\*Too close to call\*\*: neither layout serves this workload within its objectives/);
    assert.doesNotMatch(none.verdict, /range/);
    const role = { replicas: 1, tensorParallel: 8, maxModelLen: 8192, gpuMemoryUtilization: 0.9, efaDevices: 16 };
    const big = { ...base, model: modelFacts("meta-llama/Llama-3.1-70B-Instruct")!, prefill: role, decode: role };
    const unvalidated = md({ isl: 3000, osl: 150, concurrency: 48 }, big);
    assert.match(unvalidated.verdict, /= [\d.]+ \(not validated\)\. The gain has no validated range for dense TP4-8/);
    assert.doesNotMatch(unvalidated.verdict, /excludes|bias/);
  });

  it("the chart (open-loop arrival rates) takes the open-loop TTFT band, never the declared closed loop's", () => {
    const e = estimate({ ...stacks[1]![1], workload: resolveWorkload({ isl: 1024, osl: 256, concurrency: 64 }) });
    const regime = e.uncertainty.regime;
    assert.ok(e.uncertainty.bands.ttft, "the closed loop has a TTFT band");
    assert.deepEqual(e.uncertainty.curveBands.ttft, bandFor(ttftRegime(regime, "open loop"), "ttft"));
    const dis = servingEstimate({
      ...stacks[1]![1],
      workload: resolveWorkload({ isl: 1024, osl: 256, requestsPerSecond: e.curve[2]!.requestsPerSecond }),
    }) as ServingEstimate;
    // The chart's point at that rate is what an open-loop estimate at that rate shows (to the chart's rounding).
    const near = (a: number | null, b: number | null) => assert.ok(Math.abs(a! / b! - 1) < 1e-3, `${a} vs ${b}`);
    near(e.curve[2]!.disaggregated.ttftMs, dis.ttftMs);
    near(e.curve[2]!.disaggregated.itlMs, dis.itlMs);
    const md = servingMarkdown({ serving: e }).join("\n");
    if (!e.uncertainty.curveBands.ttft)
      assert.match(md, /its TTFT not validated for open-loop arrivals in this regime/);
  });
});
