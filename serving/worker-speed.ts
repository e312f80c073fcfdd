/**
 * One worker's speed: how long a prefill of a prompt takes, how long a decode step takes at a batch size
 * and context, and the batch the KV cache allows. Pure arithmetic on the model's shape and a GPU's
 * measured rates (./rates.ts: the H200 measurements, other GPUs scaled from their datasheets); no Pulumi import.
 * The load on several workers (queueing, the two layouts) is `./layouts.ts`, the estimate of a graph `./estimate.ts`.
 *
 * Prefill of `n` prompts of `s` tokens on a worker of tensor parallel `t` (per GPU of the worker), in chunks of at
 * most the engine's token budget per step (chunked prefill: a prompt longer than the budget takes several steps,
 * each chunk attending to the prompt's earlier chunks):
 *   GEMM      = 2 x linear parameters one token uses x chunk tokens / t  FLOPs at the measured rate for that many rows
 *   attention = layers x 4 C (P + C/2) x heads x headDim / t  FLOPs for a chunk of C tokens after P (causal:
 *               2 s^2 h d over the whole prompt) at the measured causal rate for P + C tokens
 *   lm_head   = 2 x vocab x hidden x n / t (only the last token of each prompt is sampled)
 *   TP        = 2 all-reduces per layer of the chunk's activations at the engine's published latency (0 at t = 1)
 *   + the measured fixed cost of one forward (the batch-1 step overhead) per chunk.
 * Decode step of batch `b`, each sequence at context `c`:
 *   max(weight bytes read / HBM rate, GEMM FLOPs at the curve's peak)
 *   + layers x the attention of b c KV bytes (the KV dtype's bytes) at the kernel's measured read rate for that
 *     batch and context (never above the HBM's datasheet rate, never below the kernel's launch floor)
 *   + TP all-reduces + the measured per-step overhead at b (to batch 1024, per weight dtype)
 *   + the measured eager-launch cost when b exceeds the engine's CUDA-graph batch.
 * The batch is at most the engine's own limit (vLLM max_num_seqs, TensorRT-LLM max_batch_size).
 * Weight bytes read per step leave out the input-embedding table (a gather of b rows) and, for an MoE,
 * the routed experts no token of the batch chose (expected distinct experts of b tokens choosing k of E).
 */
import {
  KvCacheDtype,
  kvBytesPerTokenPerGpu,
  kvHeadsPerGpu,
  ModelFacts,
  paramGroups,
  modelRow,
  WEIGHT_DTYPE_BYTES,
  WeightDtype,
} from "../components/catalog/models";
import { DEFAULT_ENGINE, EngineSettings } from "./engine-settings";
import {
  attentionLayerMs,
  decodeAttentionCurve,
  GemmCurve,
  GpuRates,
  interpolate,
  MEASURED_STEP_PARAMS,
  nearest,
  RatePoint,
} from "./rates";

export { H200_MEASUREMENTS, H200_RATES, interpolate, ratesFor } from "./rates";
export type { GpuRates, RatePoint } from "./rates";

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

/** One worker: the model on `tp` GPUs with `rates`, its KV cache holding `kvCapacityTokens`, run by `engine`. */
export interface WorkerSpeed {
  readonly shape: ServingShape;
  readonly tp: number;
  readonly rates: GpuRates;
  readonly kvCacheDtype: KvCacheDtype;
  readonly kvCapacityTokens: number;
  /** The engine's scheduler settings; vLLM's on an H200 when absent (`DEFAULT_ENGINE`). */
  readonly engine?: EngineSettings;
}

/** The worker's engine settings. */
export const engineOf = (w: WorkerSpeed): EngineSettings => w.engine ?? DEFAULT_ENGINE;

/** Linear parameters of one layer on one GPU of the worker (what picks the GEMM curve). */
function layerParamsPerGpu(w: WorkerSpeed): number {
  return w.shape.gemmParamsPerToken / w.shape.facts.layers / w.tp;
}

/** Whether the worker's linear layers run at the measured FP8 rate (FP8 weights on a GPU with FP8 tensor cores). */
export const runsFp8 = (w: WorkerSpeed) => w.shape.facts.weightDtype === WeightDtype.Fp8 && w.rates.fp8;

/**
 * `f` computed once per worker object. The estimate's searches (bisections nested in a goodput search) ask a
 * decode step of the same worker thousands of times; the curve it picks depends on the worker alone. Workers are
 * readonly plain data, so the object is the key.
 */
function perWorker<T>(f: (w: WorkerSpeed) => T): (w: WorkerSpeed) => T {
  const cache = new WeakMap<WorkerSpeed, T>();
  return (w) => {
    if (!cache.has(w)) cache.set(w, f(w));
    return cache.get(w)!;
  };
}

/** The measured GEMM curve of the worker's layer size, in its weight dtype. */
const gemmCurve = perWorker((w): GemmCurve => {
  return nearest(runsFp8(w) ? w.rates.gemmFp8 : w.rates.gemm, (c) => c.layerParamsPerGpu, layerParamsPerGpu(w));
});

/** GEMM TFLOP/s of the worker's GPUs for `tokens` rows (FP8 weights at the measured FP8 rate). */
export function gemmTflops(w: WorkerSpeed, tokens: number): number {
  return interpolate(gemmCurve(w).tflops, tokens);
}

/** The highest GEMM TFLOP/s of the worker's curve: the compute roof of a decode step. */
const peakGemmTflops = perWorker((w): number => Math.max(...gemmCurve(w).tflops.map(([, y]) => y)));

/** Causal attention TFLOP/s for a prompt of `seq` tokens at the worker's heads per GPU. */
export function attentionTflops(w: WorkerSpeed, seq: number): number {
  const heads = Math.max(1, w.shape.facts.attentionHeads / w.tp);
  return interpolate(nearest(w.rates.attention, (c) => c.heads, heads).tflops, seq);
}

const msOf = (flops: number, tflops: number) => flops / (tflops * 1e9);

/** The engine's published all-reduce latency over message bytes at the worker's TP (the next published TP up). */
const allReduceCurve = perWorker((w): RatePoint[] => {
  const points = engineOf(w).allReduce;
  const tps = [...new Set(points.map(([t]) => t))].sort((a, b) => a - b);
  const tp = tps.find((t) => t >= w.tp) ?? tps[tps.length - 1]!;
  return points.filter(([t]) => t === tp).map(([, b, us]): RatePoint => [b, us]);
});

/** Published bytes of the largest all-reduce message per TP; beyond it a call adds the ring time of the rest. */
function allReduceCallUs(w: WorkerSpeed, bytes: number): number {
  const curve = allReduceCurve(w);
  const largest = curve[curve.length - 1]![0];
  const beyond = Math.max(0, bytes - largest);
  const ringUs = (((2 * (w.tp - 1)) / w.tp) * beyond) / (w.rates.allReduceBusGBs * 1e3);
  return interpolate(curve, Math.min(bytes, largest)) + ringUs;
}

/** Milliseconds of the 2 all-reduces per layer of `tokens` activations (0 at TP 1): the engine's published latency. */
export function allReduceMs(w: WorkerSpeed, tokens: number): number {
  if (w.tp <= 1) return 0;
  return (2 * w.shape.facts.layers * allReduceCallUs(w, tokens * w.shape.hiddenSize * ACT_BYTES)) / 1000;
}

/**
 * Milliseconds of one forward step over `prompts` chunks of `chunk` tokens, each after `prefix` tokens of its prompt
 * already in the KV cache; `last`: the step samples (the lm_head of each prompt's last token).
 */
function chunkMs(w: WorkerSpeed, chunk: number, prefix: number, prompts: number, last: boolean): number {
  const f = w.shape.facts;
  const tokens = chunk * prompts;
  const gemm = msOf((2 * w.shape.gemmParamsPerToken * tokens) / w.tp, gemmTflops(w, tokens));
  const attnFlops = (f.layers * 4 * chunk * (prefix + chunk / 2) * f.attentionHeads * f.headDim * prompts) / w.tp;
  const attn = msOf(attnFlops, attentionTflops(w, prefix + chunk));
  const lmHead = last ? msOf((2 * w.shape.lmHeadParams * prompts) / w.tp, gemmTflops(w, prompts)) : 0;
  return gemm + attn + lmHead + allReduceMs(w, tokens) + interpolate(w.rates.stepOverheadMs.bf16, 1);
}

/**
 * Milliseconds to prefill `prompts` prompts of `promptTokens` tokens each: one step when they fit the engine's token
 * budget, else (one prompt longer than the budget) chunked prefill, a step per budget-sized chunk.
 */
export function prefillMs(w: WorkerSpeed, promptTokens: number, prompts = 1): number {
  const budget = engineOf(w).maxBatchedTokens;
  if (prompts > 1 || promptTokens <= budget) return chunkMs(w, promptTokens, 0, prompts, true);
  let ms = 0;
  for (let done = 0; done < promptTokens; done += budget)
    ms += chunkMs(w, Math.min(budget, promptTokens - done), done, 1, done + budget >= promptTokens);
  return ms;
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

/**
 * The measured per-step overhead at `batch` carried to this worker: the batch-1 part (launches, norms, sampling
 * of a CUDA-graph step) as measured, the growth above it (what large-batch steps lose to GEMM and attention
 * inefficiency beyond the roofs) in proportion to the worker's GEMM FLOPs per token against the measured 8B step.
 */
function stepOverheadMs(w: WorkerSpeed, batch: number): number {
  const curve = runsFp8(w) ? w.rates.stepOverheadMs.fp8 : w.rates.stepOverheadMs.bf16;
  const base = interpolate(curve, 1);
  const flopsRatio = (w.shape.gemmParamsPerToken + w.shape.lmHeadParams) / w.tp / MEASURED_STEP_PARAMS;
  return base + Math.max(0, interpolate(curve, batch) - base) * flopsRatio;
}

/** Milliseconds a step above the engine's CUDA-graph batch pays for launching its kernels one by one. */
function eagerLaunchMs(w: WorkerSpeed, batch: number): number {
  if (batch <= engineOf(w).cudaGraphMaxBatch) return 0;
  return w.rates.eagerLaunchMsPerLayer * w.shape.facts.layers;
}

/**
 * The read rate FP8 KV is priced at: its bytes at the bf16 kernel's measured rate. The FP8 kernel measured here
 * (dequantizing in registers) is bound by its dots, not by memory: 0.6-0.8 of the bf16 byte rate
 * (facts/h200-serving-attention.json); the engines' FP8-KV decode kernels are not, and TensorRT-LLM's published
 * FP8-KV throughput agrees with FP8 bytes at the bf16 rate (docs/SERVING.md#calibration).
 */
export const FP8_KV_PRICED_AT = "bf16";

/** The measured decode-attention curve of the worker's heads per GPU (bf16 kernel: `FP8_KV_PRICED_AT`). */
const attentionCurveOf = perWorker((w) => {
  const f = w.shape.facts;
  return decodeAttentionCurve(w.rates, kvHeadsPerGpu(f, w.tp), Math.max(1, f.attentionHeads / w.tp), FP8_KV_PRICED_AT);
});

/**
 * Milliseconds of one decode step's attention over all layers: `batch` sequences of `context` tokens, their KV bytes
 * in the worker's KV dtype at the kernel's measured read rate for that batch and context (./rates.ts).
 */
export function decodeAttentionMs(w: WorkerSpeed, batch: number, context: number): number {
  const f = w.shape.facts;
  const layerBytes = (batch * context * kvBytesPerTokenPerGpu(f, w.tp, w.kvCacheDtype)) / f.layers;
  return f.layers * attentionLayerMs(attentionCurveOf(w), batch, context, layerBytes, w.rates.hbmPeakGBs);
}

/** Milliseconds of a step over `rows` token rows, all but its attention: GEMMs, all-reduces, overhead, launches. */
function stepWithoutAttentionMs(w: WorkerSpeed, rows: number): number {
  const memMs = decodeWeightBytesPerGpu(w, rows) / (w.rates.hbmGBs * 1e6);
  const gemmFlops = (2 * (w.shape.gemmParamsPerToken + w.shape.lmHeadParams) * rows) / w.tp;
  const compute = Math.max(memMs, msOf(gemmFlops, peakGemmTflops(w)));
  return compute + allReduceMs(w, rows) + stepOverheadMs(w, rows) + eagerLaunchMs(w, rows);
}

/** Milliseconds of one decode step of `batch` sequences at `context` tokens each. */
export function decodeStepMs(w: WorkerSpeed, batch: number, context: number): number {
  return stepWithoutAttentionMs(w, batch) + decodeAttentionMs(w, batch, context);
}

/**
 * Milliseconds of one step that advances `batch` decoding sequences (context `context`) and prefills `tokens` more
 * tokens (`prompts` prompts, each chunk after `prefix` tokens of its prompt): chunked prefill's mixed step. Its GEMMs,
 * overhead and launches are a decode step's over `batch + tokens` rows; its attention is the batch's decode attention
 * and the chunks' causal attention at the measured prefill rate.
 */
export function mixedStepMs(
  w: WorkerSpeed,
  batch: number,
  context: number,
  tokens: number,
  prefix = 0,
  prompts = 1,
): number {
  const f = w.shape.facts;
  const rows = batch + tokens;
  const chunk = tokens / prompts;
  const attnFlops = (f.layers * 4 * chunk * (prefix + chunk / 2) * f.attentionHeads * f.headDim * prompts) / w.tp;
  return (
    stepWithoutAttentionMs(w, rows) +
    (batch > 0 ? decodeAttentionMs(w, batch, context) : 0) +
    msOf(attnFlops, attentionTflops(w, prefix + chunk))
  );
}

/** Sequences of `isl + osl` tokens the worker decodes at once: its KV capacity, at most the engine's limit. */
export function maxDecodeBatch(w: WorkerSpeed, isl: number, osl: number): number {
  return Math.min(engineOf(w).maxNumSeqs, Math.floor(w.kvCapacityTokens / (isl + osl)));
}
