/**
 * Decode and prefill within the physics for every model of the catalog (tests/serving/physics.spec.ts holds the 8B
 * and 70B shapes closely, against the measurements): on every GPU the estimate has rates for, at every tensor-parallel
 * size whose weights fit, both KV dtypes and both engines, at every context up to the model's maximum and every batch
 * from 1 to the engine's limit. A decode step is finite, never faster than its weights' and its KV's bytes at the
 * GPU's datasheet memory rate, its attention never faster than those KV bytes nor its FLOPs at the datasheet peak, and
 * it grows with batch and context; a prefill is finite, never faster than its FLOPs at the measured peaks and grows
 * faster than linearly in the prompt once attention dominates.
 */
import { strict as assert } from "assert";
import { INSTANCES } from "../../components/catalog/instances";
import { KvCacheDtype, kvBytesPerTokenPerGpu, modelFacts, MODELS } from "../../components/catalog/models";
import { Backend } from "../../components/inference/args";
import { engineSettings } from "../../serving/engine-settings";
import { GPU_DATASHEETS } from "../../serving/gpu-datasheet";
import {
  decodeAttentionMs,
  decodeStepMs,
  decodeWeightBytesPerGpu,
  prefillMs,
  ratesFor,
  servingShape,
  WorkerSpeed,
} from "../../serving/worker-speed";

/** Each GPU of the instance catalog the estimate has rates for, with its memory per GPU. */
const GPUS = [...new Map([...INSTANCES.values()].map((i) => [i.gpuModel, i.gpuMemoryGiB] as const))].filter(
  ([g]) => ratesFor(g) !== undefined,
);

/** 1k, 2k, ... up to the model's maximum context, and the maximum itself. */
const contexts = (max: number) => {
  const out: number[] = [];
  for (let c = 1024; c < max; c *= 2) out.push(c);
  return [...out, max];
};
/** 1, 2, 4, ... up to the engine's limit, and the limit itself. */
const batches = (max: number) => {
  const out: number[] = [];
  for (let b = 1; b < max; b *= 2) out.push(b);
  return [...out, max];
};

const workers = (): [string, WorkerSpeed, number][] => {
  const out: [string, WorkerSpeed, number][] = [];
  for (const [gpu, memGiB] of GPUS)
    for (const id of MODELS.keys()) {
      const m = modelFacts(id)!;
      for (const tp of [1, 2, 4, 8]) {
        if (m.weightBytes / tp > memGiB * 2 ** 30 * 0.95) continue; // the weights do not fit: no worker
        for (const kv of [KvCacheDtype.Auto, KvCacheDtype.Fp8])
          for (const backend of [Backend.Vllm, Backend.Trtllm]) {
            const w: WorkerSpeed = {
              shape: servingShape(m),
              tp,
              rates: ratesFor(gpu)!,
              kvCacheDtype: kv,
              kvCapacityTokens: 1e12,
              engine: engineSettings(backend, gpu, memGiB),
            };
            out.push([`${id} TP${tp} ${kv} KV ${backend} on ${gpu}`, w, m.maxContext]);
          }
      }
    }
  return out;
};

describe("serving physics over the whole catalog: every model, GPU, TP, KV dtype and engine", function () {
  this.timeout(60000);
  const all = workers();

  it("covers every catalog model on the measured H200 and on each scaled GPU", () => {
    for (const id of MODELS.keys())
      assert.ok(
        all.some(([name]) => name.startsWith(`${id} `) && name.endsWith("on H200 141GB")),
        `${id} has no worker on an H200`,
      );
    assert.ok(GPUS.length >= 2, `GPUs with rates: ${GPUS.map(([g]) => g).join(", ")}`);
  });

  it("each decode step is finite, never faster than its bytes at the datasheet memory rate, its attention never faster than its KV bytes or FLOPs, and it grows with batch and context", () => {
    const problems: string[] = [];
    for (const [name, w, maxContext] of all) {
      const sheet = GPU_DATASHEETS.get(w.rates.gpuModel)!;
      const f = w.shape.facts;
      const kvPerToken = kvBytesPerTokenPerGpu(f, w.tp, w.kvCacheDtype);
      // QK and PV of each query head over each cached token: 2 FLOPs a multiply-add, key and value dims.
      const headsPerGpu = Math.max(1, f.attentionHeads / w.tp);
      const dims = f.mla ? 2 * (f.mla.kvLoraRank + f.mla.qkRopeHeadDim) + 2 * f.mla.kvLoraRank : 4 * f.headDim;
      const prevByContext = new Map<number, number>();
      for (const b of batches(w.engine!.maxNumSeqs)) {
        let prev = 0;
        for (const c of contexts(maxContext)) {
          const step = decodeStepMs(w, b, c);
          const attn = decodeAttentionMs(w, b, c);
          const kvBytes = b * c * kvPerToken;
          const floor = (decodeWeightBytesPerGpu(w, b) + kvBytes) / (sheet.memoryGBs * 1e6);
          const attnFlops = f.layers * b * c * headsPerGpu * dims;
          const at = `${name}, batch ${b}, context ${c}: step ${step} ms, attention ${attn} ms`;
          if (!Number.isFinite(step) || !Number.isFinite(attn) || step <= 0) problems.push(`${at}: not finite`);
          if (step < floor * (1 - 1e-9)) problems.push(`${at}: faster than its bytes allow (${floor} ms)`);
          if (attn < (kvBytes / (sheet.memoryGBs * 1e6)) * (1 - 1e-9)) problems.push(`${at}: attention < KV bytes`);
          if (attn < (attnFlops / (sheet.bf16DenseTflops * 1e9)) * (1 - 1e-9))
            problems.push(`${at}: attention faster than its FLOPs at the datasheet peak`);
          if (step < prev * (1 - 1e-9)) problems.push(`${at}: faster than at a shorter context (${prev} ms)`);
          if (step < (prevByContext.get(c) ?? 0) * (1 - 1e-9))
            problems.push(`${at}: faster than a smaller batch (${prevByContext.get(c)} ms)`);
          prev = step;
          prevByContext.set(c, step);
        }
      }
    }
    assert.deepEqual(problems.slice(0, 20), [], `${problems.length} problems`);
  });

  it("each prefill to the model's maximum context is finite, no faster than its GEMM and attention FLOPs at the datasheet peak, and superlinear in the prompt", () => {
    const problems: string[] = [];
    for (const [name, w, maxContext] of all) {
      const sheet = GPU_DATASHEETS.get(w.rates.gpuModel)!;
      const f = w.shape.facts;
      // FP8 tensor cores run at most twice the dense BF16 rate.
      const peak = sheet.bf16DenseTflops * (w.rates.fp8 && f.weightDtype === "fp8" ? 2 : 1);
      const qkDim = f.mla ? f.mla.kvLoraRank + f.mla.qkRopeHeadDim : f.headDim;
      let prev = 0;
      for (const s of contexts(maxContext)) {
        const ms = prefillMs(w, s);
        const gemm = (2 * w.shape.gemmParamsPerToken * s) / w.tp;
        const attn = (f.layers * 2 * s * s * f.attentionHeads * Math.min(f.headDim, qkDim)) / w.tp;
        const floor = (gemm + attn) / (peak * 1e9);
        const at = `${name}, ISL ${s}: ${ms} ms`;
        if (!Number.isFinite(ms) || ms <= 0) problems.push(`${at}: not finite`);
        if (ms < floor) problems.push(`${at}: faster than its FLOPs at the datasheet peak (${floor} ms)`);
        if (ms < prev) problems.push(`${at}: faster than a shorter prompt (${prev} ms)`);
        prev = ms;
      }
      const top = maxContext;
      const half = Math.floor(top / 2);
      if (prefillMs(w, top) < 2 * prefillMs(w, half))
        problems.push(`${name}: prefill of ${top} tokens is less than twice that of ${half}`);
    }
    assert.deepEqual(problems.slice(0, 20), [], `${problems.length} problems`);
  });
});
