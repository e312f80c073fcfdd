/**
 * One worker's speed: how long a prefill of a prompt takes, how long a decode step takes at a batch size
 * and context, and the batch the KV cache allows. Pure arithmetic on the model's shape and a GPU's
 * measured rates (`./serving-rates.ts`); no Pulumi import. The load on several workers (queueing, the
 * two layouts, the balanced split) is `./serving-load.ts`.
 *
 * Prefill of `n` prompts of `s` tokens on a worker of tensor parallel `t` (per GPU of the worker):
 *   GEMM      = 2 x linear parameters one token uses x n s / t  FLOPs at the measured rate for n s tokens
 *   attention = layers x 2 s^2 x heads x headDim x n / t       FLOPs at the measured rate for s (causal:
 *               half of QK^T and PV's 4 s^2 h d)
 *   lm_head   = 2 x vocab x hidden x n / t (only the last token of each prompt is sampled)
 *   TP        = 2 all-reduces per layer of n s x hidden bf16 values over NVLink (ring: 2 (t-1)/t of the
 *               bytes at the bus rate, plus a fixed latency per call), 0 at t = 1
 *   + the measured fixed cost of one forward (the batch-1 step overhead).
 * Decode step of batch `b` at context `c`:
 *   max(weight bytes read / HBM rate, GEMM FLOPs at the rate for b tokens) + b c KV bytes / HBM rate
 *   + TP all-reduces + the measured per-step overhead at b (what a CUDA-graph step costs beyond its bytes).
 * Weight bytes read per step leave out the input-embedding table (a gather of b rows) and, for an MoE,
 * the routed experts no token of the batch chose (expected distinct experts of b tokens choosing k of E).
 */
import { KvCacheDtype, kvBytesPerTokenPerGpu, ModelFacts, paramGroups } from "../catalog/model-math";
import { modelRow } from "../catalog/models";
import { WEIGHT_DTYPE_BYTES, WeightDtype } from "../catalog/model-row";
import type { GpuRates, RatePoint } from "./serving-rates";

/**
 * Sequences a decode worker runs at once at most, whatever its KV cache holds: vLLM's `--max-num-seqs`
 * default (256) and the batch sizes the plan reports stay below it. The model's assumption, the same for
 * TensorRT-LLM (whose `max_batch_size` the graph does not set).
 */
export const MAX_DECODE_BATCH = 256;

/** Bytes of one bf16 activation. */
const ACT_BYTES = 2;

/** What the speed model needs of a model, beyond its fit facts. */
export interface ServingShape {
  readonly facts: ModelFacts;
  readonly hiddenSize: number;
  /** Linear (GEMM) parameters one token multiplies: attention and MLP projections, its routed experts only. */
  readonly gemmParamsPerToken: number;
  /** lm_head parameters (vocab x hidden); 0 when unknown. */
  readonly lmHeadParams: number;
  /** Bytes a decode step does not read: the input-embedding table (0 when tied to lm_head or unknown). */
  readonly embeddingOnlyBytes: number;
  /** Routed experts (MoE): their count, how many a token chooses, and all their weight bytes. */
  readonly experts?: { readonly count: number; readonly perToken: number; readonly bytes: number };
  /** How the shape was derived: from the catalog's config.json, or estimated from a stated shape. */
  readonly basis: "catalog" | "stated shape";
}

const bytesOf = (d: WeightDtype) => WEIGHT_DTYPE_BYTES[d];

/**
 * The speed shape of a model: exact from its catalog row, else estimated from a stated shape (hidden =
 * heads x headDim; every parameter a GEMM parameter, so a stated model's prefill is overestimated by its
 * embedding share).
 */
export function servingShape(m: ModelFacts): ServingShape {
  const row = modelRow(m.id);
  if (!row)
    return {
      facts: m,
      hiddenSize: m.attentionHeads * m.headDim,
      gemmParamsPerToken: m.paramsActive ?? m.paramsTotal,
      lmHeadParams: 0,
      embeddingOnlyBytes: 0,
      basis: "stated shape",
    };
  const g = paramGroups(row);
  const q = bytesOf(row.weights.dtype);
  const embedBytes = row.weights.scope === "all" ? q : bytesOf(WeightDtype.Bf16);
  const moe = row.moe;
  return {
    facts: m,
    hiddenSize: row.hiddenSize,
    gemmParamsPerToken: g.linear + (moe ? (g.routedExperts * moe.expertsPerToken) / moe.experts : 0),
    lmHeadParams: row.vocabSize * row.hiddenSize,
    embeddingOnlyBytes: row.tiedEmbeddings ? 0 : row.vocabSize * row.hiddenSize * embedBytes,
    // Every quantization scope (all, linear, experts) stores the routed experts at the quantized dtype.
    ...(moe ? { experts: { count: moe.experts, perToken: moe.expertsPerToken, bytes: g.routedExperts * q } } : {}),
    basis: "catalog",
  };
}

/** `points` ([x, y], x ascending) at `x`: linear in log2(x) between points, the end values outside them. */
export function interpolate(points: readonly RatePoint[], x: number): number {
  if (points.length === 0) throw new Error("interpolate: no points");
  const first = points[0]!;
  const last = points[points.length - 1]!;
  if (x <= first[0]) return first[1];
  if (x >= last[0]) return last[1];
  const i = points.findIndex(([px]) => px >= x);
  const [x0, y0] = points[i - 1]!;
  const [x1, y1] = points[i]!;
  const f = (Math.log2(x) - Math.log2(x0)) / (Math.log2(x1) - Math.log2(x0));
  return y0 + f * (y1 - y0);
}

/** One worker: the model on `tp` GPUs with `rates`, its KV cache holding `kvCapacityTokens`. */
export interface WorkerSpeed {
  readonly shape: ServingShape;
  readonly tp: number;
  readonly rates: GpuRates;
  readonly kvCacheDtype: KvCacheDtype;
  readonly kvCapacityTokens: number;
}

/** The measured curve nearest to `x` on a log scale. */
function nearest<T>(curves: readonly T[], key: (c: T) => number, x: number): T {
  return curves.reduce((best, c) => (Math.abs(Math.log(key(c) / x)) < Math.abs(Math.log(key(best) / x)) ? c : best));
}

/** Linear parameters of one layer on one GPU of the worker (what picks the GEMM curve). */
function layerParamsPerGpu(w: WorkerSpeed): number {
  return w.shape.gemmParamsPerToken / w.shape.facts.layers / w.tp;
}

const fp8Factor = (w: WorkerSpeed) => (w.shape.facts.weightDtype === WeightDtype.Fp8 && w.rates.fp8 ? 2 : 1);

/** GEMM TFLOP/s of the worker's GPUs for `tokens` rows (FP8 weights at the GPU's FP8 rate). */
export function gemmTflops(w: WorkerSpeed, tokens: number): number {
  const curve = nearest(w.rates.gemm, (c) => c.layerParamsPerGpu, layerParamsPerGpu(w));
  return interpolate(curve.tflops, tokens) * fp8Factor(w);
}

/** The highest GEMM TFLOP/s of the worker's curve: the compute roof of a decode step. */
function peakGemmTflops(w: WorkerSpeed): number {
  const curve = nearest(w.rates.gemm, (c) => c.layerParamsPerGpu, layerParamsPerGpu(w));
  return Math.max(...curve.tflops.map(([, y]) => y)) * fp8Factor(w);
}

/** Causal attention TFLOP/s for a prompt of `seq` tokens at the worker's heads per GPU. */
export function attentionTflops(w: WorkerSpeed, seq: number): number {
  const heads = Math.max(1, w.shape.facts.attentionHeads / w.tp);
  return interpolate(nearest(w.rates.attention, (c) => c.heads, heads).tflops, seq);
}

const msOf = (flops: number, tflops: number) => flops / (tflops * 1e9);

/** Milliseconds of the 2 all-reduces per layer of `tokens` activations (0 at TP 1). */
export function allReduceMs(w: WorkerSpeed, tokens: number): number {
  if (w.tp <= 1) return 0;
  const bytes = tokens * w.shape.hiddenSize * ACT_BYTES;
  const perCall =
    ((2 * (w.tp - 1)) / w.tp) * (bytes / (w.rates.allReduceBusGBs * 1e6)) + w.rates.allReduceLatencyUs / 1000;
  return 2 * w.shape.facts.layers * perCall;
}

/** Milliseconds of one forward over `prompts` prompts of `promptTokens` tokens each (prefill). */
export function prefillMs(w: WorkerSpeed, promptTokens: number, prompts = 1): number {
  const f = w.shape.facts;
  const tokens = promptTokens * prompts;
  const gemm = msOf((2 * w.shape.gemmParamsPerToken * tokens) / w.tp, gemmTflops(w, tokens));
  const attnFlops = (f.layers * 2 * promptTokens ** 2 * f.attentionHeads * f.headDim * prompts) / w.tp;
  const attn = msOf(attnFlops, attentionTflops(w, promptTokens));
  const lmHead = msOf((2 * w.shape.lmHeadParams * prompts) / w.tp, gemmTflops(w, prompts));
  return gemm + attn + lmHead + allReduceMs(w, tokens) + interpolate(w.rates.stepOverheadMs, 1);
}

/** Weight bytes one decode step of `batch` reads on one GPU of the worker. */
export function decodeWeightBytesPerGpu(w: WorkerSpeed, batch: number): number {
  const s = w.shape;
  let bytes = s.facts.weightBytes - s.embeddingOnlyBytes;
  if (s.experts) {
    const touched = 1 - (1 - s.experts.perToken / s.experts.count) ** batch;
    bytes -= s.experts.bytes * (1 - touched);
  }
  return bytes / w.tp;
}

/** Milliseconds of one decode step of `batch` sequences at `context` tokens each. */
export function decodeStepMs(w: WorkerSpeed, batch: number, context: number): number {
  const memMs = decodeWeightBytesPerGpu(w, batch) / (w.rates.hbmGBs * 1e6);
  const gemmFlops = (2 * (w.shape.gemmParamsPerToken + w.shape.lmHeadParams) * batch) / w.tp;
  const kvBytes = batch * context * kvBytesPerTokenPerGpu(w.shape.facts, w.tp, w.kvCacheDtype);
  const kvMs = kvBytes / (interpolate(w.rates.kvReadGBs, batch) * 1e6);
  const overhead = interpolate(w.rates.stepOverheadMs, batch);
  return Math.max(memMs, msOf(gemmFlops, peakGemmTflops(w))) + kvMs + allReduceMs(w, batch) + overhead;
}

/** Sequences of `isl + osl` tokens the worker decodes at once: its KV capacity, at most `MAX_DECODE_BATCH`. */
export function maxDecodeBatch(w: WorkerSpeed, isl: number, osl: number): number {
  return Math.min(MAX_DECODE_BATCH, Math.floor(w.kvCapacityTokens / (isl + osl)));
}
