/**
 * The calibration copy in components/inference/worker-speed.ts (`H200_MEASUREMENTS`) equals the H200 fact file
 * (tests/contracts/facts/h200-serving-calibration.json), and the rates fitted from it reproduce its
 * decode steps; the prefill model sits below transformers' eager forward measured in the same file.
 */
import { strict as assert } from "assert";
import { loadFacts } from "../contracts/facts";
import {
  H200_MEASUREMENTS,
  ServingMeasurements,
  H200_RATES,
  ratesFor,
  decodeStepMs,
  prefillMs,
  servingShape,
  WorkerSpeed,
} from "../../components/inference/worker-speed";
import { modelFacts } from "../../components/catalog/models";
import { KvCacheDtype } from "../../components/catalog/models";

interface CalibrationFacts {
  gpu: string;
  torch: string;
  hbm: { readGBs: number };
  gemm: { model: string; tp: number; op: string; m: number; k: number; n: number; ms: number }[];
  attention: { heads: number; kvHeads: number; headDim: number; seq: number; ms: number }[];
  decodeStep: { batch: number; context: number; ms?: number; weightBytes?: number; kvBytes?: number }[];
  prefillForward: { runs: { isl: number; ms: number }[] };
}

/** The fact file in the copy's shape (skipped decode points left out, as the copy leaves them). */
function fromFacts(f: CalibrationFacts): ServingMeasurements {
  return {
    gpu: f.gpu,
    torch: f.torch,
    hbmReadGBs: f.hbm.readGBs,
    gemm: f.gemm.map((r) => [r.model, r.tp, r.op, r.m, r.k, r.n, r.ms] as const),
    attention: f.attention.map((r) => [r.heads, r.kvHeads, r.headDim, r.seq, r.ms] as const),
    decodeStep: f.decodeStep
      .filter((r) => r.ms !== undefined)
      .map((r) => [r.batch, r.context, r.ms!, r.weightBytes!, r.kvBytes!] as const),
    prefillForward: f.prefillForward.runs.map((r) => [r.isl, r.ms] as const),
  };
}

const facts = loadFacts<CalibrationFacts>("h200-serving-calibration");
const m8 = modelFacts("meta-llama/Llama-3.1-8B-Instruct")!;
const w8: WorkerSpeed = {
  shape: servingShape(m8),
  tp: 1,
  rates: H200_RATES,
  kvCacheDtype: KvCacheDtype.Auto,
  kvCapacityTokens: 1e6,
};

describe("serving calibration (tests/contracts/facts/h200-serving-calibration.json)", () => {
  it("the code's copy equals the fact file", () => {
    assert.deepEqual(H200_MEASUREMENTS, fromFacts(facts.facts));
  });

  it("a re-measured number not copied into the code fails the comparison (mutation)", () => {
    const changed = structuredClone(facts.facts);
    changed.decodeStep[0]!.ms = changed.decodeStep[0]!.ms! + 0.1;
    assert.notDeepEqual(H200_MEASUREMENTS, fromFacts(changed));
  });

  it("the fitted decode model reproduces every measured Llama-3.1-8B step within 1%", () => {
    for (const [b, ctx, ms] of H200_MEASUREMENTS.decodeStep) {
      const got = decodeStepMs(w8, b, ctx);
      assert.ok(Math.abs(got / ms - 1) < 0.01, `batch ${b} context ${ctx}: model ${got} ms, measured ${ms} ms`);
    }
  });

  it("prefill is 70-95% of transformers' eager forward (which adds unfused elementwise ops and a full lm_head)", () => {
    for (const [isl, ms] of H200_MEASUREMENTS.prefillForward) {
      const r = prefillMs(w8, isl) / ms;
      assert.ok(r > 0.7 && r < 0.95, `ISL ${isl}: model/eager = ${r}`);
    }
  });

  it("the H200 is measured; the H100 is scaled by its datasheet (same compute, 3.35/4.8 of the memory); an A10G has no rates", () => {
    assert.equal(H200_RATES.scaled, false);
    const h100 = ratesFor("H100 80GB")!;
    assert.equal(h100.scaled, true);
    assert.match(h100.basis, /scaled from the H200 141GB measurement/);
    assert.ok(Math.abs(h100.hbmGBs - (H200_RATES.hbmGBs * 3350) / 4800) < 1e-6);
    assert.deepEqual(h100.gemm, H200_RATES.gemm);
    assert.equal(ratesFor("A10G"), undefined);
  });
});
