/**
 * Fit per worker and the model-aware config errors: weights that do not fit, no room for one
 * maxModelLen sequence, a TP that does not split the heads, maxModelLen past the context.
 */
import { strict as assert } from "assert";
import { instance, modelRow } from "../../components/catalog";
import { factsOfRow } from "../../components/catalog/models";
import { validate } from "../../components/inference";
import { engineFor } from "../../components/inference/graph";
import {
  headSplitProblem,
  kvLink,
  RUNTIME_RESERVE_GIB,
  transferMs,
  workerFit,
  smallestFit,
} from "../../components/inference/fit";
import { modelFacts } from "../../components/catalog/models";
import { pool, resolved } from "../helpers/inference-fixtures";
import { loadFacts } from "../contracts/facts";

interface GpuMemoryFact {
  readonly cudaTotalGiB: number;
  readonly contextAndCublasGiB: number;
}
const h200 = loadFacts<Record<string, GpuMemoryFact>>("gpu-memory").facts["NVIDIA H200"];
/** A reserve covers what was measured: CUDA context + cuBLAS, and the catalog's GiB that CUDA does not expose (at utilization 1). */
const coversMeasured = (reserveGiB: number) =>
  reserveGiB >= h200.contextAndCublasGiB + (p5en.gpuMemoryGiB - h200.cudaTotalGiB);

const p5en = instance("p5en.48xlarge");
const facts = (id: string) => factsOfRow(modelRow(id)!);
const fit = (id: string, tp: number, maxModelLen = 4096, util = 0.85) =>
  workerFit({
    model: facts(id),
    instance: p5en,
    backend: "vllm",
    tensorParallel: tp,
    gpuMemoryUtilization: util,
    maxModelLen,
    kvCacheDtype: "auto",
  });
const problemsAt = (ps: readonly { propertyPath: string }[]) => ps.map((p) => p.propertyPath);

describe("inference: model fit per worker", () => {
  it("the runtime reserve covers what an H200 was measured to hold back (and 1 GiB would not)", () => {
    assert.ok(coversMeasured(RUNTIME_RESERVE_GIB), `${RUNTIME_RESERVE_GIB} GiB < ${JSON.stringify(h200)}`);
    assert.equal(coversMeasured(1), false);
  });

  it("Llama-3.1-8B on one H200: KV = 141 x 0.85 - weights - reserve", () => {
    const f = fit("meta-llama/Llama-3.1-8B-Instruct", 1);
    const weights = facts("meta-llama/Llama-3.1-8B-Instruct").weightBytes / 2 ** 30;
    assert.ok(Math.abs(f.kvCacheGiBPerGpu - (141 * 0.85 - weights - RUNTIME_RESERVE_GIB)) < 1e-9);
    assert.equal(f.kvCapacityTokens, Math.floor((f.kvCacheGiBPerGpu * 2 ** 30) / 131072));
    assert.equal(f.maxConcurrentAtMaxLen, Math.floor(f.kvCapacityTokens / 4096));
    assert.ok(f.weightsFit);
  });

  it("Llama-3.1-70B: weights do not fit 1 GPU, fit 2; TP splits weights and KV heads", () => {
    assert.equal(fit("meta-llama/Llama-3.1-70B-Instruct", 1).weightsFit, false);
    const f2 = fit("meta-llama/Llama-3.1-70B-Instruct", 2);
    const f4 = fit("meta-llama/Llama-3.1-70B-Instruct", 4);
    assert.ok(f2.weightsFit && f4.weightsFit);
    assert.ok(Math.abs(f2.weightsGiBPerGpu - 2 * f4.weightsGiBPerGpu) < 1e-9);
    assert.equal(f4.kvBytesPerTokenPerGpu, 80 * 2 * 2 * 128 * 2);
  });

  it("TensorRT-LLM: the fraction applies to what is free after the weights", () => {
    const m = facts("meta-llama/Llama-3.1-8B-Instruct");
    const f = workerFit({
      model: m,
      instance: p5en,
      backend: "trtllm",
      tensorParallel: 1,
      gpuMemoryUtilization: 0.5,
      maxModelLen: 4096,
      kvCacheDtype: "auto",
    });
    assert.ok(Math.abs(f.kvCacheGiBPerGpu - (141 - m.weightBytes / 2 ** 30 - RUNTIME_RESERVE_GIB) * 0.5) < 1e-9);
  });

  it("head splits follow vLLM's rule", () => {
    const llama = facts("meta-llama/Llama-3.1-8B-Instruct"); // 32 heads, 8 KV heads
    assert.equal(headSplitProblem(llama, 8), undefined);
    const odd = { ...llama, attentionHeads: 12, kvHeads: 12 };
    assert.match(headSplitProblem(odd, 8) ?? "", /12 attention heads are not divisible by tensor parallel 8/);
    assert.match(headSplitProblem({ ...llama, attentionHeads: 24, kvHeads: 6 }, 4) ?? "", /6 KV heads cannot be split/);
  });

  it("KV link: EFA rails x per-rail Gbps on LIBFABRIC, one 5 Gbps TCP flow otherwise", () => {
    const efa = kvLink(pool("p5en.48xlarge", 2), 2);
    assert.deepEqual([efa.transport, efa.gbps], ["LIBFABRIC", 400]);
    assert.deepEqual(
      [kvLink(pool("p5.48xlarge", 2), 4).gbps, kvLink(pool("g6e.48xlarge", 1, false), 0).transport],
      [400, "UCX"],
    );
    // 4096 tokens x 131072 B = 512 MiB at 400 Gbps.
    assert.ok(Math.abs(transferMs(4096 * 131072, efa) - ((4096 * 131072 * 8) / 400e9) * 1000) < 1e-9);
  });

  it("an unknown model without modelShape: fit unknown, no problem", () => {
    assert.equal(modelFacts("acme/private-model"), undefined);
    assert.deepEqual(validate(resolved("p5en-1gpu", "vllm", { model: "acme/private-model" }), true), []);
  });
});

describe("inference: model-aware config errors", () => {
  const big = { prefill: { replicas: 1, gpusPerWorker: 1 }, decode: { replicas: 1, gpusPerWorker: 1 } };

  it("70B on 1 GPU: both roles' gpusPerWorker, the weight size, and the smallest fit (2)", () => {
    const ps = validate(
      resolved("p5en-8x1gpu", "vllm", { model: "meta-llama/Llama-3.1-70B-Instruct", ...big }),
      true,
      "inference",
    );
    assert.deepEqual(problemsAt(ps), ["inference.prefill.gpusPerWorker", "inference.decode.gpusPerWorker"]);
    assert.match(
      ps[0].reason,
      /131\.4 GiB of bf16 weights \(70\.55B parameters\): 131\.4 GiB per GPU at tensor parallel 1, more than the 115\.8 GiB one GPU offers/,
    );
    assert.match(ps[0].reason, /the smallest gpusPerWorker that fits is 2 \(65\.7 GiB of weights/);
  });

  it("70B with 4 GPUs per worker: no problem", () => {
    const four = { replicas: 2, gpusPerWorker: 4 };
    assert.deepEqual(
      validate(
        resolved("p5en-8x1gpu", "vllm", { model: "meta-llama/Llama-3.1-70B-Instruct", prefill: four, decode: four }),
        true,
      ),
      [],
    );
  });

  it("not one maxModelLen sequence fits the KV cache: names the tokens and the smallest fit", () => {
    const two = { replicas: 1, gpusPerWorker: 2 };
    const r = resolved("p5en-8x1gpu", "vllm", {
      model: "meta-llama/Llama-3.1-70B-Instruct",
      prefill: two,
      decode: two,
      gpuMemoryUtilization: 0.5,
      maxModelLen: 8192,
    });
    const ps = validate(r, true);
    assert.deepEqual(problemsAt(ps), ["prefill.gpusPerWorker", "decode.gpusPerWorker"]);
    assert.match(
      ps[0].reason,
      /tokens at 163,840 bytes per token per GPU, fewer than one maxModelLen sequence of 8,192 tokens/,
    );
    assert.match(ps[0].reason, /smallest gpusPerWorker that fits is 4/);
    assert.equal(smallestFit(r, facts("meta-llama/Llama-3.1-70B-Instruct"), p5en)?.tp, 4);
  });

  it("maxModelLen above the model's max context", () => {
    const ps = validate(
      resolved("p5en-1gpu", "vllm", { model: "Qwen/Qwen3-8B", maxModelLen: 65536 }),
      true,
      "inference",
    );
    assert.deepEqual(problemsAt(ps), ["inference.maxModelLen"]);
    assert.match(ps[0].reason, /\(65,536\) is above "Qwen\/Qwen3-8B"'s maximum context of 40,960 tokens/);
  });

  it("a stated shape whose heads TP cannot split; nothing fits: says so", () => {
    const shape = {
      paramsB: 30,
      weightDtype: "bf16" as const,
      layers: 48,
      attentionHeads: 12,
      kvHeads: 12,
      headDim: 128,
      maxContext: 32768,
    };
    const eight = { replicas: 1, gpusPerWorker: 8 };
    const ps = validate(
      resolved("p5en-8x1gpu", "vllm", { model: "acme/odd-30b", modelShape: shape, prefill: eight, decode: eight }),
      true,
    );
    assert.match(
      ps[0]?.reason ?? "",
      /12 attention heads are not divisible by tensor parallel 8. Fix: the smallest gpusPerWorker that fits is 1/,
    );
    const huge = { ...shape, paramsB: 2000, attentionHeads: 64, kvHeads: 8 };
    const none = validate(
      resolved("p5en-8x1gpu", "vllm", { model: "acme/huge", modelShape: huge, prefill: eight, decode: eight }),
      true,
    );
    assert.match(none[0]?.reason ?? "", /no gpusPerWorker up to 8 fits on p5en\.48xlarge/);
  });

  it("modelShape: kvHeads/headDim required without mla; refused for a catalogued model", () => {
    const shape = { paramsB: 7, weightDtype: "bf16" as const, layers: 32, attentionHeads: 32, maxContext: 8192 };
    const ps = validate(resolved("p5en-1gpu", "vllm", { model: "acme/7b", modelShape: shape }), true, "inference");
    assert.deepEqual(problemsAt(ps), ["inference.modelShape.kvHeads", "inference.modelShape.headDim"]);
    const known = validate(
      resolved("p5en-1gpu", "vllm", { modelShape: { ...shape, kvHeads: 8, headDim: 128 } }),
      true,
      "inference",
    );
    assert.deepEqual(problemsAt(known), ["inference.modelShape"]);
  });

  it("kvCacheDtype fp8 halves KV bytes: a sequence that did not fit now does", () => {
    const two = { replicas: 1, gpusPerWorker: 2 };
    const base = {
      model: "meta-llama/Llama-3.1-70B-Instruct",
      prefill: two,
      decode: two,
      gpuMemoryUtilization: 0.5,
      maxModelLen: 6144,
    };
    assert.equal(validate(resolved("p5en-8x1gpu", "vllm", base), true).length, 2);
    assert.deepEqual(validate(resolved("p5en-8x1gpu", "vllm", { ...base, kvCacheDtype: "fp8" }), true), []);
  });
});

describe("inference: kvCacheDtype reaches the engine", () => {
  it("vLLM gets --kv-cache-dtype fp8 and TRT-LLM kv_cache_config.dtype fp8 only when asked", () => {
    const args = (backend: "vllm" | "trtllm", kv: "auto" | "fp8") =>
      engineFor(resolved("p5en-1gpu", backend, { kvCacheDtype: kv }), "decode");
    const fp8 = args("vllm", "fp8").args;
    assert.equal(fp8[fp8.indexOf("--kv-cache-dtype") + 1], "fp8");
    assert.equal(args("vllm", "auto").args.includes("--kv-cache-dtype"), false);
    assert.match(args("trtllm", "fp8").file?.content ?? "", /kv_cache_config:\n(?: {2}\w+: .+\n)* {2}dtype: fp8/);
    assert.doesNotMatch(args("trtllm", "auto").file?.content ?? "", /dtype:/);
  });
});
