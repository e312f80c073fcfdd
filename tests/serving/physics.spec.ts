/**
 * Decode and prefill within the physics, at every context up to the model's maximum and every batch from 1 to the
 * engine's limit: a decode step reads the weights once and each sequence's KV once at its context and KV dtype, so
 * it is never faster than those bytes at the HBM's datasheet rate, and its attention is slower than that floor only
 * by the decode-attention kernel's measured efficiency; prefill is never faster than its FLOPs at the measured peaks,
 * its attention grows with the square of the prompt at the measured causal rate, and chunked prefill at the
 * engine's token budget keeps the prompt's attention FLOPs.
 */
import { strict as assert } from "assert";
import {
  factsOfRow,
  KvCacheDtype,
  kvBytesPerTokenPerGpu,
  modelFacts,
  modelRow,
  WeightDtype,
} from "../../components/catalog/models";
import { Backend } from "../../components/inference/args";
import { engineSettings } from "../../serving/engine-settings";
import { H200_MEASUREMENTS, H200_RATES } from "../../serving/rates";
import {
  attentionTflops,
  decodeAttentionMs,
  decodeStepMs,
  decodeWeightBytesPerGpu,
  gemmTflops,
  mixedStepMs,
  prefillMs,
  servingShape,
  WorkerSpeed,
} from "../../serving/worker-speed";

const PEAK_GBS = 4800; // the H200 datasheet's HBM rate: no read is faster
const fp8Weights = (id: string) =>
  factsOfRow({ ...modelRow(id)!, weights: { dtype: WeightDtype.Fp8, scope: "linear" } });
const vllm = engineSettings(Backend.Vllm, "H200 141GB", 141);
const trtllm = engineSettings(Backend.Trtllm, "H200 141GB", 141);
const at = (m: ReturnType<typeof modelFacts>, tp: number, kv: KvCacheDtype, engine = vllm): WorkerSpeed => ({
  shape: servingShape(m!),
  tp,
  rates: H200_RATES,
  kvCacheDtype: kv,
  kvCapacityTokens: 1e9,
  engine,
});
const WORKERS: readonly [string, WorkerSpeed][] = [
  ["8B bf16, bf16 KV", at(modelFacts("meta-llama/Llama-3.1-8B-Instruct"), 1, KvCacheDtype.Auto)],
  ["8B FP8, FP8 KV (TensorRT-LLM)", at(fp8Weights("meta-llama/Llama-3.1-8B-Instruct"), 1, KvCacheDtype.Fp8, trtllm)],
  ...[1, 2, 4, 8].map((tp): [string, WorkerSpeed] => [
    `70B bf16 TP${tp}`,
    at(modelFacts("meta-llama/Llama-3.1-70B-Instruct"), tp, KvCacheDtype.Auto),
  ]),
  ["70B FP8 TP2, FP8 KV", at(fp8Weights("meta-llama/Llama-3.3-70B-Instruct"), 2, KvCacheDtype.Fp8)],
];
const CONTEXTS = [1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072];
const batches = (w: WorkerSpeed) => {
  const out: number[] = [];
  for (let b = 1; b <= w.engine!.maxNumSeqs; b *= 2) out.push(b);
  return out;
};
const kvBytes = (w: WorkerSpeed, b: number, c: number) =>
  b * c * kvBytesPerTokenPerGpu(w.shape.facts, w.tp, w.kvCacheDtype);
/** The lowest read rate the decode-attention kernel reached, as a share of the datasheet rate. */
const worstEfficiency = Math.min(
  ...H200_MEASUREMENTS.decodeAttention
    .filter(([, , kv]) => kv === "bf16")
    .map(([, , , , , ms, bytes]) => bytes / (ms * 1e6) / PEAK_GBS),
);
const floorMs = Math.min(...H200_RATES.decodeAttention.map((c) => c.floorMs));

describe("serving physics: decode and prefill at every context and batch", () => {
  for (const [name, w] of WORKERS) {
    it(`${name}: each decode step reads its weights and every sequence's KV no faster than the HBM allows, its attention slower only by the kernel's measured efficiency, and it grows with batch and context`, () => {
      const layers = w.shape.facts.layers;
      for (const b of batches(w)) {
        let last = 0;
        for (const c of CONTEXTS) {
          const bytes = kvBytes(w, b, c);
          const floor = (decodeWeightBytesPerGpu(w, b) + bytes) / (PEAK_GBS * 1e6);
          const step = decodeStepMs(w, b, c);
          const attn = decodeAttentionMs(w, b, c);
          const at = `batch ${b}, context ${c}: step ${step} ms, attention ${attn} ms`;
          assert.ok(step >= floor, `${at} is faster than the bytes allow (${floor} ms)`);
          assert.ok(attn >= bytes / (PEAK_GBS * 1e6) - 1e-12, at);
          assert.ok(attn <= Math.max(layers * floorMs, bytes / (worstEfficiency * PEAK_GBS * 1e6)) + 1e-9, at);
          assert.ok(step >= last, `${at} is faster than at a shorter context`);
          last = step;
        }
      }
      for (const c of CONTEXTS)
        batches(w).reduce((prev, b) => {
          const s = decodeStepMs(w, b, c);
          assert.ok(s >= prev, `context ${c}: batch ${b} is faster than a smaller batch`);
          return s;
        }, 0);
    });
  }

  it("Llama-3.1-8B on an H200 at 64k: batch 1 is the measured 6.9 ms step (not 28.7 ms), and batch 8 costs the 7 more sequences' KV", () => {
    const w = WORKERS[0]![1];
    const measured = H200_MEASUREMENTS.decodeStep.find(
      ([wt, kv, b, c]) => wt === "bf16" && kv === "bf16" && b === 1 && c === 65536,
    )!;
    assert.ok(Math.abs(decodeStepMs(w, 1, 65536) / measured[4] - 1) < 0.05, `${decodeStepMs(w, 1, 65536)}`);
    const extra = decodeStepMs(w, 8, 65536) - decodeStepMs(w, 1, 65536);
    assert.ok(extra >= (kvBytes(w, 7, 65536) / (PEAK_GBS * 1e6)) * 0.99, `${extra} ms`);
    assert.ok(
      decodeStepMs(w, 1, 65536) - decodeStepMs(w, 1, 1024) < 2.5,
      "64k adds its 8.5 GB of KV, ~2 ms, not 23 ms",
    );
  });

  for (const [name, w] of WORKERS) {
    it(`${name}: prefill to the model's maximum context is no faster than its FLOPs at the measured peaks, and its attention grows with the square of the prompt`, () => {
      const f = w.shape.facts;
      const peakGemm = Math.max(
        ...(w.shape.facts.weightDtype === WeightDtype.Fp8 ? H200_RATES.gemmFp8 : H200_RATES.gemm).flatMap((c) =>
          c.tflops.map(([, y]) => y),
        ),
      );
      const peakAttn = Math.max(...H200_RATES.attention.flatMap((c) => c.tflops.map(([, y]) => y)));
      for (const s of [1024, 4096, 16384, 65536, 131072]) {
        const gemm = (2 * w.shape.gemmParamsPerToken * s) / w.tp / (peakGemm * 1e9);
        const attn = (f.layers * 2 * s * s * f.attentionHeads * f.headDim) / w.tp / (peakAttn * 1e9);
        assert.ok(prefillMs(w, s) >= gemm + attn, `ISL ${s}: ${prefillMs(w, s)} ms < ${gemm + attn} ms`);
      }
      const at128k = prefillMs(w, 131072) - prefillMs(w, 65536);
      assert.ok(
        at128k > 2 * (prefillMs(w, 65536) - prefillMs(w, 32768)),
        "the quadratic term dominates at long context",
      );
    });
  }

  it("prefill attention runs at the measured causal rate (cuDNN, to 128k), and chunked prefill at the engine's budget keeps the prompt's attention FLOPs", () => {
    const w = WORKERS[0]![1];
    const measured = H200_MEASUREMENTS.prefillAttention.find(([h, , , s]) => h === 32 && s === 131072)!;
    assert.ok(Math.abs(attentionTflops(w, 131072) - (2 * 131072 ** 2 * 32 * 128) / (measured[4] * 1e9)) < 1e-6);
    const wide = { ...w, engine: { ...vllm, maxBatchedTokens: 1 << 20 } };
    for (const s of [16384, 65536, 131072]) {
      const chunked = prefillMs(w, s);
      const whole = prefillMs(wide, s);
      assert.ok(
        chunked >= whole * 0.95 && chunked <= whole * 1.3,
        `ISL ${s}: chunked ${chunked} ms, whole ${whole} ms`,
      );
    }
    assert.ok(gemmTflops(w, 8192) > gemmTflops(w, 512), "a chunk of the budget runs its GEMMs at the rate of its rows");
  });

  it("a chunked-prefill step costs at least the decode step it carries and at least its chunk's FLOPs", () => {
    const w = WORKERS[0]![1];
    for (const [b, c, t] of [
      [1, 4096, 2048],
      [64, 8192, 4096],
      [256, 2048, 7936],
    ] as const) {
      const mixed = mixedStepMs(w, b, c, t);
      assert.ok(mixed >= decodeStepMs(w, b, c), `batch ${b}, chunk ${t}`);
      assert.ok(mixed >= (2 * w.shape.gemmParamsPerToken * t) / (gemmTflops(w, 8192) * 1e9), `batch ${b}, chunk ${t}`);
    }
  });
});
