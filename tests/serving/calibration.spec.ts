/**
 * The serving model's H200 calibration (serving/rates.ts): the rates read the three fact files directly
 * (serving/facts/h200-serving-calibration.json, -extended.json and -attention.json, no copy in code), each file is
 * the output of the extractor kept in the tree (its sha256, or its code's where only the docstring changed since), the
 * fitted model reproduces every measured decode
 * step, FP8 GEMM runs at its measured rate, prefill sits below transformers' eager forward, and other GPUs are scaled
 * from their datasheets.
 */
import { strict as assert } from "assert";
import { createHash } from "crypto";
import * as fs from "fs";
import * as path from "path";
import { loadFacts } from "../contracts/facts";
import {
  H200_FILES,
  H200_MEASUREMENTS,
  H200_RATES,
  MeasurementFiles,
  measurementsOf,
  measuredRates,
  ratesFor,
} from "../../serving/rates";
import { decodeStepMs, gemmTflops, prefillMs, servingShape, WorkerSpeed } from "../../serving/worker-speed";
import { engineSettings } from "../../serving/engine-settings";
import { Backend } from "../../components/inference/args";
import { factsOfRow, modelFacts, modelRow, KvCacheDtype, WeightDtype } from "../../components/catalog/models";
import { GPU_DATASHEETS } from "../../serving/gpu-datasheet";

const ROOT = path.join(__dirname, "..", "..");
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
/** A Python script after its shebang and module docstring: what runs. */
const codeOf = (script: string) => script.replace(/^(#![^\n]*\n)?"""[^]*?"""\n/, "");
/** What an H200 fact file records of the extractor that produced it. */
interface ScriptRecord {
  readonly scriptSha256: string;
  readonly scriptCodeSha256: string;
  readonly scriptCommit?: string;
  readonly scriptNote?: string;
}
const files: MeasurementFiles = {
  calibration: loadFacts<MeasurementFiles["calibration"]>("h200-serving-calibration").facts,
  extended: loadFacts<MeasurementFiles["extended"]>("h200-serving-extended").facts,
  attention: loadFacts<MeasurementFiles["attention"]>("h200-serving-attention").facts,
};
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
const sheet = GPU_DATASHEETS.get("H200 141GB")!;

describe("serving calibration (serving/facts/h200-serving-*.json)", () => {
  it("the measurements are the fact files' rows: every decode step and every decode-attention call measured", () => {
    assert.deepEqual(H200_FILES, files);
    assert.deepEqual(H200_MEASUREMENTS, measurementsOf(files));
    const steps = files.attention.decodeStep.filter((r) => r.ms !== undefined);
    assert.equal(H200_MEASUREMENTS.decodeStep.length, steps.length);
    assert.equal(H200_MEASUREMENTS.decodeAttention.length, files.attention.decodeAttention.length);
    assert.ok(steps.some((r) => r.weights === "fp8") && steps.some((r) => r.context === 131072));
  });

  it("each H200 fact file came from the extractor kept in the tree: the script's sha256 is the one recorded, or it differs from the version that ran only in its docstring (said so, not re-measured)", () => {
    for (const name of ["h200-serving-calibration", "h200-serving-extended", "h200-serving-attention"]) {
      const script = fs.readFileSync(path.join(ROOT, `tests/contracts/extract/${name}.py`), "utf8");
      const f = loadFacts<ScriptRecord>(name).facts;
      assert.match(f.scriptSha256, /^[0-9a-f]{64}$/, `${name}: scriptSha256`);
      assert.equal(
        sha256(codeOf(script)),
        f.scriptCodeSha256,
        `${name}: the extractor's code is not the code that ran`,
      );
      if (sha256(script) === f.scriptSha256) continue;
      assert.match(
        f.scriptCommit ?? "",
        /^[0-9a-f]{40}$/,
        `${name}: edited since it ran, but no scriptCommit says which ran`,
      );
      assert.match(f.scriptNote ?? "", /docstring only[^]*not re-measured/, `${name}: scriptNote`);
    }
  });

  it("the extractor check can fail: an edit to a script's code changes its code sha256, an edit to its docstring does not", () => {
    const script = fs.readFileSync(path.join(ROOT, "tests/contracts/extract/h200-serving-extended.py"), "utf8");
    const code = sha256(codeOf(script));
    assert.equal(sha256(codeOf(script.replace('"""Measures', '"""Measured'))), code);
    assert.notEqual(sha256(codeOf(script.replace("import torch", "import  torch"))), code);
    assert.notEqual(codeOf(script), script, "the docstring was found");
  });

  it("the split-KV kernel measured is correct (relative error under 1% against float32) and reaches the HBM rate", () => {
    const check = (files.attention as unknown as { check: { relError: number }[] }).check;
    assert.ok(check.length >= 16 && check.every((c) => c.relError < 0.01), JSON.stringify(check.slice(0, 2)));
    const best = Math.max(...files.attention.decodeAttention.map((r) => r.kvBytes / (r.ms * 1e6)));
    assert.ok(best > 0.85 * files.attention.hbm.readGBs && best < sheet.memoryGBs, `${best} GB/s`);
  });

  it("a re-measured number changes the fitted rates (mutation)", () => {
    const changed = structuredClone(files);
    changed.attention.decodeStep.find((r) => r.batch === 1024 && r.weights === "bf16")!.ms! *= 1.5;
    assert.notDeepEqual(measuredRates(measurementsOf(changed), sheet).stepOverheadMs, H200_RATES.stepOverheadMs);
    const slower = structuredClone(files);
    for (const r of slower.attention.decodeAttention) r.ms *= 2;
    assert.notDeepEqual(measuredRates(measurementsOf(slower), sheet).decodeAttention, H200_RATES.decodeAttention);
  });

  it("the model reproduces every measured Llama-3.1-8B step with bf16 KV (bf16 and FP8 weights, batch 1-1024, context 512-128k): mean within 3%, each within 15%", () => {
    const errs = H200_MEASUREMENTS.decodeStep
      .filter(([, kv]) => kv === "bf16")
      .map(([weights, , b, ctx, ms]) => {
        const got = decodeStepMs(worker(weights === "fp8" ? m8fp8 : m8), b, ctx);
        assert.ok(
          Math.abs(got / ms - 1) < 0.15,
          `${weights} batch ${b} context ${ctx}: model ${got} ms, measured ${ms} ms`,
        );
        return Math.abs(got / ms - 1);
      });
    assert.ok(errs.reduce((a, b) => a + b, 0) / errs.length < 0.03);
  });

  it("FP8 GEMM runs at its measured rate: 1.4-1.9x bf16 at prefill sizes, not 2x", () => {
    for (const tokens of [4096, 8192]) {
      const r = gemmTflops(worker(m8fp8), tokens) / gemmTflops(worker(m8), tokens);
      assert.ok(r > 1.4 && r < 1.9, `${tokens} tokens: FP8/bf16 = ${r}`);
    }
  });

  it("a decode step above vLLM's CUDA-graph batch (512) pays the measured eager launch cost", () => {
    const vllm = { ...worker(m8), engine: engineSettings(Backend.Vllm, "H200 141GB", 141) };
    const extra = decodeStepMs(vllm, 1024, 512) - decodeStepMs(worker(m8), 1024, 512);
    const launch = files.extended.hostOverhead.find((h) => h.weights === "bf16")!;
    assert.ok(Math.abs(extra - (launch.eagerMs - launch.graphMs)) < 1e-9, `${extra}`);
    assert.equal(decodeStepMs(vllm, 512, 512), decodeStepMs(worker(m8), 512, 512));
  });

  it("prefill is 60-95% of transformers' eager forward (which adds unfused elementwise ops, a full lm_head and flash rather than cuDNN attention)", () => {
    for (const [isl, ms] of H200_MEASUREMENTS.prefillForward) {
      const r = prefillMs(worker(m8), isl) / ms;
      assert.ok(r > 0.6 && r < 0.95, `ISL ${isl}: model/eager = ${r}`);
    }
  });

  it("the H200 is measured; the H100 is scaled by its datasheet (same compute, 3.35/4.8 of the memory, decode attention too); an A10G has no rates", () => {
    assert.equal(H200_RATES.scaled, false);
    const h100 = ratesFor("H100 80GB")!;
    assert.equal(h100.scaled, true);
    assert.match(h100.basis, /scaled from the H200 141GB measurement/);
    assert.ok(Math.abs(h100.hbmGBs - (H200_RATES.hbmGBs * 3350) / 4800) < 1e-6);
    const gbs = (r: typeof h100) => r.decodeAttention[0]!.rows[0]!.gbs[0]![1];
    assert.ok(Math.abs(gbs(h100) - (gbs(H200_RATES) * 3350) / 4800) < 1e-6);
    assert.deepEqual(h100.gemm, H200_RATES.gemm);
    assert.equal(ratesFor("A10G"), undefined);
  });
});
