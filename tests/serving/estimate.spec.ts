/**
 * The serving model's parts as plain data: queueing formulas, the worker model's monotonic shape, the two
 * layouts (aggregated prefill stalls decode; disaggregated pays the KV transfer), the gain and the split, the
 * workload's defaults, annotation and validation errors.
 */
import { strict as assert } from "assert";
import { KvCacheDtype } from "../../components/catalog/models";
import { modelFacts } from "../../components/catalog/models";
import { resolveWorkload, type ResolvedInference } from "../../components/inference/args";
import { validateWorkload } from "../../components/inference/workload";
import { decodeStepMs, prefillMs, servingShape, WorkerSpeed, H200_RATES } from "../../serving/worker-speed";
import * as L from "../../serving/layouts";
import { recommendedSplit } from "../../serving/split";
import { Placement } from "../../components/inference/args";

const speed = (id: string, tp: number, kvCapacityTokens = 800_000): WorkerSpeed => ({
  shape: servingShape(modelFacts(id)!),
  tp,
  rates: H200_RATES,
  kvCacheDtype: KvCacheDtype.Auto,
  kvCapacityTokens,
});
const w8 = speed("meta-llama/Llama-3.1-8B-Instruct", 1);

describe("serving model: queueing", () => {
  it("Erlang C: one server waits with probability rho; two servers at 1 erlang wait 1/3 of the time", () => {
    assert.ok(Math.abs(L.erlangC(1, 0.5) - 0.5) < 1e-12);
    assert.ok(Math.abs(L.erlangC(2, 1) - 1 / 3) < 1e-12);
  });
  it("M/D/c wait: half the M/M/1 wait for one server (rho S / (2 (1 - rho))), none idle, unbounded at saturation", () => {
    assert.ok(Math.abs(L.mdcWaitMs(1, 5, 100) - (0.5 * 100) / (2 * 0.5)) < 1e-9);
    assert.equal(L.mdcWaitMs(3, 0, 100), 0);
    assert.equal(L.mdcWaitMs(2, 20, 100), Infinity);
  });
});

describe("serving model: one worker", () => {
  it("prefill grows with the prompt (nearly doubling; the GEMM rate still rising to 2k tokens), more than 8x over 8x past 2k (attention), and TP 8 prefills a 70B prompt faster than TP 2", () => {
    const p = [1024, 2048, 4096, 8192, 16384].map((isl) => prefillMs(w8, isl));
    for (let i = 1; i < p.length; i++) assert.ok(p[i]! > 1.7 * p[i - 1]!, `${p}`);
    assert.ok(p[4]! / p[1]! > 8, "attention makes an 8x longer prompt (past 2k) more than 8x slower");
    const seventy = "meta-llama/Llama-3.1-70B-Instruct";
    assert.ok(prefillMs(speed(seventy, 8), 4096) < prefillMs(speed(seventy, 2), 4096));
  });
  it("a decode step grows with the batch at a 4k context, and FP8 weights read half the bytes of bf16 (70B)", () => {
    const s = [1, 8, 32, 64, 128].map((b) => decodeStepMs(w8, b, 4096));
    for (let i = 1; i < s.length; i++) assert.ok(s[i]! > s[i - 1]!, `${s}`);
    const bf16 = decodeStepMs(speed("meta-llama/Llama-3.1-70B-Instruct", 4), 1, 1024);
    const fp8 = decodeStepMs(speed("nvidia/Llama-3.1-70B-Instruct-FP8", 4), 1, 1024);
    assert.ok(fp8 < bf16, `${fp8} vs ${bf16}`);
  });
  it("the decode batch is the KV capacity over ISL + OSL, at most the engine's limit (vLLM on an H200: 1024, not 256)", () => {
    assert.equal(
      L.decodeCapacity(speed("meta-llama/Llama-3.1-8B-Instruct", 1, 10_000), { isl: 900, osl: 100 }).batch,
      10,
    );
    assert.equal(L.decodeCapacity(w8, { isl: 100, osl: 100 }).batch, 1024);
    assert.equal(L.decodeCapacity(speed("meta-llama/Llama-3.1-8B-Instruct", 1, 500), { isl: 900, osl: 100 }).batch, 0);
  });
});

describe("serving model: layouts", () => {
  const wl: L.ServingWorkload = { isl: 8000, osl: 128, concurrency: 64 };
  const dis = L.disaggregated({ speed: w8, replicas: 8 }, { speed: w8, replicas: 8 }, wl, 10);
  const agg = L.aggregated({ speed: w8, replicas: 16 }, wl);
  it("aggregated decode is stalled by prefill: its ITL at a rate is above the disaggregated decode step's", () => {
    const rate = 30;
    assert.ok(agg.at(rate).itlMs! > dis.at(rate).itlMs!);
    assert.ok(agg.at(2 * rate).itlMs! > agg.at(rate).itlMs!, "more prefill, more stall");
  });
  it("disaggregated TTFT is prefill + wait + KV transfer + one decode step; past capacity both layouts saturate", () => {
    const p = dis.at(1);
    assert.ok(p.ttftMs! > prefillMs(w8, 8000) + 10);
    assert.equal(dis.at(dis.capacityRequestsPerSecond * 1.2).ttftMs, undefined);
    assert.equal(agg.at(agg.capacityRequestsPerSecond * 1.2).itlMs, undefined);
  });
  it("a closed loop is Little's law: concurrency = rate x (TTFT + OSL x ITL)", () => {
    const p = L.atLoad(dis, wl);
    assert.ok(Math.abs((p.requestsPerSecond * (p.ttftMs! + wl.osl * p.itlMs!)) / 1000 - 64) < 0.01);
  });
  it("an ITL objective cuts the aggregated layout's goodput (prefill stalls) but not the disaggregated one's; tighter, more", () => {
    const share = (l: L.Layout, itlMs: number) => L.goodput(l, { ...wl, itlMs }) / l.capacityRequestsPerSecond;
    assert.ok(share(dis, 20) > 0.99);
    assert.ok(share(agg, 20) < 0.9);
    assert.ok(share(agg, 10) < share(agg, 20));
    assert.ok(L.disaggGain(dis, agg, { ...wl, itlMs: 10 })! > L.disaggGain(dis, agg, { ...wl, itlMs: 30 })!);
    assert.ok(meetsAll(agg, { ...wl, itlMs: 20 }));
  });
  const split = (w: L.ServingWorkload, nodes?: number) =>
    recommendedSplit({
      prefillTp: 1,
      decodeTp: 1,
      prefillRps: L.prefillCapacity(w8, w.isl).requestsPerSecond,
      decodeRps: L.decodeCapacity(w8, w).requestsPerSecond,
      gpus: 16,
      gpusPerNode: 8,
      ...(nodes !== undefined ? { nodes } : {}),
      placement: Placement.SeparateNodes,
      current: { prefill: 8, decode: 8 },
    });
  it("the balanced split of a prefill-heavy workload has more prefill than decode workers; of a decode-heavy one, fewer", () => {
    assert.ok(split(wl).prefill > 8);
    assert.ok(split({ isl: 1000, osl: 1000, concurrency: 64 }).prefill < 8);
  });
  it("under separate-nodes on 2 nodes of 8 the split takes whole nodes per role (8 + 8); it says how many nodes otherwise", () => {
    const free = split(wl);
    assert.equal(free.nodes.total, 3, "unconstrained, the prefill-heavy split needs a third node");
    const fitted = split(wl, 2);
    assert.deepEqual([fitted.prefill, fitted.decode, fitted.nodes.total, fitted.fitsPool], [8, 8, 2, true]);
  });
  it("P50 <= mean-ish <= P90 of the M/D/c wait; P90 of one server at rho 0.5 is ln(0.5/0.1) S / (2 (1 - 0.5))", () => {
    assert.ok(Math.abs(L.mdcWaitPercentileMs(1, 5, 100, 0.9) - Math.log(5) * 100) < 1e-9);
    assert.equal(L.mdcWaitPercentileMs(1, 5, 100, 0.5), 0);
    assert.ok(L.mdcWaitPercentileMs(4, 30, 100, 0.9) > L.mdcWaitMs(4, 30, 100));
  });
});

/** Goodput is a rate at which the objectives hold. */
function meetsAll(l: L.Layout, wl: L.ServingWorkload): boolean {
  return L.meetsObjectives(l.at(L.goodput(l, wl)), wl);
}

describe("inference.workload", () => {
  it("defaults: ISL 1024, OSL 256, 64 in flight, no objectives, not declared", () => {
    const w = resolveWorkload(undefined);
    assert.deepEqual(w, { isl: 1024, osl: 256, concurrency: 64, declared: false });
  });
  const r = (workload: Parameters<typeof resolveWorkload>[0], maxModelLen = 4096) =>
    ({ workload: resolveWorkload(workload), maxModelLen }) as unknown as ResolvedInference; // only the two fields read
  const at = (k: string) => `inference.${k}`;
  for (const [name, w, path, reason] of [
    [
      "both loads",
      { requestsPerSecond: 5, concurrency: 8 },
      "inference.workload.concurrency",
      "(8) and workload.requestsPerSecond (5) are both set; the load is one of them: an open-loop arrival rate or a closed-loop concurrency. Remove one",
    ],
    [
      "a request longer than maxModelLen",
      { isl: 4000, osl: 200 },
      "inference.workload.isl",
      "(4000) + workload.osl (200) = 4200 tokens exceeds inference.maxModelLen (4096): the engine refuses such a request. Raise inference.maxModelLen to at least 4200 or shorten the workload",
    ],
    [
      "a zero ITL objective",
      { itlMs: 0 },
      "inference.workload.itlMs",
      "must be milliseconds in (0, 60000], e.g. 25; got 0",
    ],
  ] as const)
    it(`rejects ${name} at ${path}`, () =>
      assert.deepEqual(validateWorkload(r(w), at), [{ propertyPath: path, reason }]));
  it("accepts ISL + OSL equal to maxModelLen (the acceptance workload 4000 + 96 on 4096)", () => {
    assert.deepEqual(validateWorkload(r({ isl: 4000, osl: 96 }), at), []);
  });
});
