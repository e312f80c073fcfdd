/**
 * The whole estimate over the catalog: every model at every tensor-parallel size, on the measured H200 (p5en) and the
 * scaled H100 (p5), both engines, both KV dtypes, and odd workloads (one token in and out, 90% of the model's maximum
 * context at one in flight, half of it at eight, a huge closed loop, a trickle and a flood of arrivals, objectives
 * met and objectives no layout meets). Each estimate is either a reason or numbers that are all finite and not
 * negative (JSON would print a NaN as null and hide it: this walks the object itself), every number shown with a
 * range lies inside it, a quantity listed as not validated has no band, and the verdict follows the gain's validated
 * range (too close to call where the gain has none). Slow set: about 3700 estimates.
 */
import { strict as assert } from "assert";
import { KvCacheDtype, modelFacts, MODELS } from "../../components/catalog/models";
import { Backend, resolveWorkload, type WorkloadArgs } from "../../components/inference/args";
import { type ServingEstimate, servingEstimate } from "../../serving";

/** Every number of `o` that is not finite or is negative, by path. */
function badNumbers(o: unknown, p: string, out: string[] = []): string[] {
  if (typeof o === "number") {
    if (!Number.isFinite(o) || o < 0) out.push(`${p}=${o}`);
  } else if (Array.isArray(o)) o.forEach((x, i) => badNumbers(x, `${p}[${i}]`, out));
  else if (o && typeof o === "object") for (const [k, v] of Object.entries(o)) badNumbers(v, `${p}.${k}`, out);
  return out;
}

/** Each shown number beside its range. */
function shown(e: ServingEstimate): [string, number | null, readonly [number, number] | null][] {
  const r = e.uncertainty.ranges;
  const a = e.aggregated;
  return [
    ["ttftMs", e.ttftMs, r.ttftMs],
    ["itlMs", e.itlMs, r.itlMs],
    ["ttftP90Ms", e.ttftP90Ms, r.ttftP90Ms],
    ["itlP90Ms", e.itlP90Ms, r.itlP90Ms],
    ["tokensPerSecondPerGpu", e.tokensPerSecondPerGpu, r.tokensPerSecondPerGpu],
    ["aggregated.tokensPerSecondPerGpu", a.tokensPerSecondPerGpu, r.aggregatedTokensPerSecondPerGpu],
    ["disaggGain", e.disaggGain, r.disaggGain],
    ["aggregated.ttftMs", a.ttftMs, r.aggregated.ttftMs],
    ["aggregated.itlMs", a.itlMs, r.aggregated.itlMs],
    ["aggregated.ttftP90Ms", a.ttftP90Ms, r.aggregated.ttftP90Ms],
    ["aggregated.itlP90Ms", a.itlP90Ms, r.aggregated.itlP90Ms],
  ];
}

const workloads = (maxContext: number): WorkloadArgs[] => {
  const max = Math.min(maxContext, 131072);
  return [
    { isl: 1024, osl: 256 },
    { isl: 1, osl: 1, concurrency: 1 },
    { isl: Math.floor(max * 0.9), osl: 100, concurrency: 1 },
    { isl: Math.floor(max / 2), osl: 500, concurrency: 8 },
    { isl: 500, osl: 500, concurrency: 100000 },
    { isl: 2000, osl: 200, requestsPerSecond: 0.001 },
    { isl: 2000, osl: 200, requestsPerSecond: 1e6 },
    { isl: 3000, osl: 300, concurrency: 32, ttftMs: 500, itlMs: 20 },
    { isl: 3000, osl: 300, requestsPerSecond: 3, ttftMs: 0.001, itlMs: 0.001 },
  ];
};

describe("the serving estimate over the whole catalog and odd workloads", function () {
  this.timeout(600000);

  for (const instanceType of ["p5en.48xlarge", "p5.48xlarge"])
    it(`${instanceType}: finite, non-negative numbers; each inside its range; verdicts by the validated gain`, () => {
      const problems: string[] = [];
      let estimates = 0;
      for (const id of MODELS.keys()) {
        const model = modelFacts(id)!;
        for (const tp of [1, 2, 4, 8])
          for (const w of workloads(model.maxContext))
            for (const backend of [Backend.Vllm, Backend.Trtllm])
              for (const kvCacheDtype of [KvCacheDtype.Auto, KvCacheDtype.Fp8]) {
                const workload = resolveWorkload(w);
                const role = {
                  replicas: Math.max(1, 8 / tp),
                  tensorParallel: tp,
                  maxModelLen: Math.min(model.maxContext, workload.isl + workload.osl + 16),
                  gpuMemoryUtilization: 0.9,
                  efaDevices: 2 * tp,
                };
                const at = `${id} TP${tp} ${backend} ${kvCacheDtype} KV ${JSON.stringify(w)}`;
                const e = servingEstimate({
                  model,
                  kvCacheDtype,
                  backend,
                  pool: { instanceType },
                  prefill: role,
                  decode: role,
                  workload,
                });
                if ("why" in e) {
                  if (!e.why) problems.push(`${at}: no estimate and no reason`);
                  continue;
                }
                estimates++;
                problems.push(...badNumbers(e, "serving").map((b) => `${at}: ${b}`));
                for (const [name, v, r] of shown(e))
                  if (v !== null && r !== null && !(v >= r[0] && v <= r[1]))
                    problems.push(`${at}: ${name} ${v} outside ${r.join("-")}`);
                for (const q of e.uncertainty.unvalidated)
                  if (e.uncertainty.bands[q]) problems.push(`${at}: ${q} listed unvalidated but has a band`);
                const g = e.uncertainty.ranges.disaggGain;
                const want = g
                  ? g[0] > 1
                    ? "disaggregated"
                    : g[1] < 1
                      ? "aggregated"
                      : "too close to call"
                  : e.disaggGain !== null
                    ? "too close to call"
                    : undefined;
                if (want && e.winner !== want)
                  problems.push(`${at}: verdict ${e.winner}, gain ${e.disaggGain} in ${g}`);
              }
      }
      assert.ok(estimates > 1000, `${estimates} estimates`);
      assert.deepEqual(problems.slice(0, 20), [], `${problems.length} problems`);
    });
});
