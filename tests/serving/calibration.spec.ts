/**
 * The serving model's H200 calibration: the worker speed reads the two fact files directly
 * (serving/facts/h200-serving-calibration.json and h200-serving-extended.json, no copy in code), the rates
 * fitted from them reproduce the measured decode steps (bf16 and FP8 weights, batch 1..1024), FP8 runs at its
 * measured rate rather than twice bf16, and the prefill model sits below transformers' eager forward.
 */
import { strict as assert } from "assert";
import { loadFacts } from "../contracts/facts";
import {
  H200_MEASUREMENTS,
  H200_RATES,
  measurementsOf,
  measuredRates,
  ratesFor,
  decodeStepMs,
  gemmTflops,
  prefillMs,
  servingShape,
  WorkerSpeed,
} from "../../serving/worker-speed";
import { engineSettings } from "../../serving/engine-settings";
import { Backend } from "../../components/inference/args";
import { factsOfRow, modelFacts, modelRow, KvCacheDtype, WeightDtype } from "../../components/catalog/models";
import { GPU_DATASHEETS } from "../../serving/gpu-datasheet";

type AnyFacts = Parameters<typeof measurementsOf>[0];
const calibration = loadFacts<AnyFacts["facts"]>("h200-serving-calibration");
const extended = loadFacts<Parameters<typeof measurementsOf>[1]["facts"]>("h200-serving-extended");
const m8 = modelFacts("meta-llama/Llama-3.1-8B-Instruct")!;
const m8fp8 = factsOfRow({
  ...modelRow("meta-llama/Llama-3.1-8B-Instruct")!,
  weights: { dtype: WeightDtype.Fp8, scope: "linear" },
});
/** TensorRT-LLM's settings: CUDA graphs to its batch limit, as the measured steps were replayed. */
const graphed = engineSettings(Backend.Trtllm, "H200 141GB", 141);
const worker = (m: typeof m8): WorkerSpeed => ({
  shape: servingShape(m),
  tp: 1,
  rates: H200_RATES,
  kvCacheDtype: KvCacheDtype.Auto,
  kvCapacityTokens: 1e7,
  engine: graphed,
});

describe("serving calibration (tests/contracts/facts/h200-serving-*.json)", () => {
  it("the measurements are the fact files' rows, every measured decode step of both", () => {
    const fresh = measurementsOf(calibration, extended);
    assert.deepEqual(H200_MEASUREMENTS, fresh);
    const measured = [...calibration.facts.decodeStep, ...extended.facts.decodeStep].filter((r) => r.ms !== undefined);
    assert.equal(H200_MEASUREMENTS.decodeStep.length, measured.length);
    assert.equal(H200_MEASUREMENTS.gemm.length, extended.facts.gemm.length);
  });

  it("a re-measured number changes the fitted rates (mutation)", () => {
    const changed = structuredClone(extended);
    changed.facts.decodeStep.find((r) => r.batch === 1024 && r.weights === "bf16")!.ms! *= 1.5;
    const sheet = GPU_DATASHEETS.get("H200 141GB")!;
    assert.notDeepEqual(
      measuredRates(measurementsOf(calibration, changed), sheet).stepOverheadMs,
      H200_RATES.stepOverheadMs,
    );
  });

  it("the fitted decode model reproduces every measured Llama-3.1-8B step, bf16 and FP8, batch 1..1024, within 6%", () => {
    for (const [weights, b, ctx, ms] of H200_MEASUREMENTS.decodeStep) {
      const got = decodeStepMs(worker(weights === "fp8" ? m8fp8 : m8), b, ctx);
      assert.ok(
        Math.abs(got / ms - 1) < 0.06,
        `${weights} batch ${b} context ${ctx}: model ${got} ms, measured ${ms} ms`,
      );
    }
  });

  it("FP8 GEMM runs at its measured rate: 1.4-1.9x bf16 at prefill sizes, not the 2x the old model assumed", () => {
    for (const tokens of [4096, 8192]) {
      const r = gemmTflops(worker(m8fp8), tokens) / gemmTflops(worker(m8), tokens);
      assert.ok(r > 1.4 && r < 1.9, `${tokens} tokens: FP8/bf16 = ${r}`);
    }
  });

  it("a decode step above vLLM's CUDA-graph batch (512) pays the measured eager launch cost", () => {
    const vllm = { ...worker(m8), engine: engineSettings(Backend.Vllm, "H200 141GB", 141) };
    const extra = decodeStepMs(vllm, 1024, 512) - decodeStepMs(worker(m8), 1024, 512);
    const launch = extended.facts.hostOverhead.find((h) => h.weights === "bf16")!;
    assert.ok(Math.abs(extra - (launch.eagerMs - launch.graphMs)) < 1e-9, `${extra}`);
    assert.equal(decodeStepMs(vllm, 512, 512), decodeStepMs(worker(m8), 512, 512));
  });

  it("prefill is 70-95% of transformers' eager forward (which adds unfused elementwise ops and a full lm_head)", () => {
    for (const [isl, ms] of H200_MEASUREMENTS.prefillForward) {
      const r = prefillMs(worker(m8), isl) / ms;
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
