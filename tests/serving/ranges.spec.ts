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
});
