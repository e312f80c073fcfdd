/**
 * One worker's speed: how long a prefill of a prompt takes, how long a decode step takes at a batch size
 * and context, and the batch the KV cache allows. Pure arithmetic on the model's shape and a GPU's
 * measured rates (the rates section below; the H200 measurements they come from are the first section), or
 * other GPUs' rates scaled from their datasheets; no Pulumi import. The load on several workers (queueing, the
 * two layouts) is `./layouts.ts`, the estimate of a graph `./serving.ts`, the workload `./workload.ts`.
 *
 * Prefill of `n` prompts of `s` tokens on a worker of tensor parallel `t` (per GPU of the worker):
 *   GEMM      = 2 x linear parameters one token uses x n s / t  FLOPs at the measured rate for n s tokens
 *   attention = layers x 2 s^2 x heads x headDim x n / t       FLOPs at the measured rate for s (causal:
 *               half of QK^T and PV's 4 s^2 h d)
 *   lm_head   = 2 x vocab x hidden x n / t (only the last token of each prompt is sampled)
 *   TP        = 2 all-reduces per layer of n s x hidden bf16 values at the engine's published all-reduce
 *               latency for that message size and TP (./engine-settings.ts), 0 at t = 1
 *   + the measured fixed cost of one forward (the batch-1 step overhead).
 * GEMM rates are the measured curve of the weights' dtype (bf16, or FP8 as measured, not a fixed factor).
 * Decode step of batch `b` at context `c`:
 *   max(weight bytes read / HBM rate, GEMM FLOPs at the curve's peak) + b c KV bytes / measured KV read rate
 *   + TP all-reduces + the measured per-step overhead at b (to batch 1024, per weight dtype)
 *   + the measured eager-launch cost when b exceeds the engine's CUDA-graph batch.
 * The batch is at most the engine's own limit (vLLM max_num_seqs, TensorRT-LLM max_batch_size).
 * Weight bytes read per step leave out the input-embedding table (a gather of b rows) and, for an MoE,
 * the routed experts no token of the batch chose (expected distinct experts of b tokens choosing k of E).
 */
import {
  KvCacheDtype,
  kvBytesPerTokenPerGpu,
  ModelFacts,
  paramGroups,
  modelRow,
  WEIGHT_DTYPE_BYTES,
  WeightDtype,
} from "../components/catalog/models";
import { GPU_DATASHEETS, GpuDatasheet } from "./gpu-datasheet";
import { DEFAULT_ENGINE, EngineSettings } from "./engine-settings";
import calibrationFacts from "./facts/h200-serving-calibration.json";
import extendedFacts from "./facts/h200-serving-extended.json";

/*
 * The H200 measurements the serving model is calibrated on, loaded from the fact files themselves (shipped with
 * the package; no copy): serving/facts/h200-serving-calibration.json (bf16 GEMM, prefill attention, HBM
 * read, CUDA-graph decode steps to batch 128, transformers' prefill) and h200-serving-extended.json (bf16 and FP8
 * GEMM at the 8B/70B TP1-8 layer shapes, bf16 and FP8-weight decode steps to batch 1024, decode attention, eager
 * against CUDA-graph launch). Both: torch 2.11.0+cu130, CUDA 13.0, one NVIDIA H200; their extractors are in
 * tests/contracts/extract/.
 */
/** The measured timings the rates are fitted from (milliseconds). */
export interface ServingMeasurements {
  readonly gpu: string;
  readonly torch: string;
  /** GB/s of a read-only reduction over 4 GiB. */
  readonly hbmReadGBs: number;
  /** Matmul of an `m` x `k` activation by a `k` x `n` weight: [model, tp, op, m, k, n, bf16 ms, fp8 ms]. */
  readonly gemm: readonly (readonly [string, number, string, number, number, number, number, number])[];
  /** Causal flash SDPA of one prompt: [heads, kvHeads, headDim, seq, ms]. */
  readonly attention: readonly (readonly [number, number, number, number, number])[];
  /** A Llama-3.1-8B-shaped decode step in a CUDA graph: [weights, batch, context, ms, weightBytes, kvBytes]. */
  readonly decodeStep: readonly (readonly [WeightsMeasured, number, number, number, number, number])[];
  /** The same step at batch 1 launched eagerly and replayed as a CUDA graph: ms each. */
  readonly launch: { readonly eagerMs: number; readonly graphMs: number; readonly layers: number };
  /** transformers' LlamaForCausalLM (8B config, eager, sdpa) at batch 1: [isl, ms]. */
  readonly prefillForward: readonly (readonly [number, number])[];
}

/** Weight dtypes of the measured decode steps. */
export type WeightsMeasured = "bf16" | "fp8";

/** Where the measurements are recorded. */
export const H200_MEASUREMENTS_FACTS = [
  "serving/facts/h200-serving-calibration.json",
  "serving/facts/h200-serving-extended.json",
] as const;

interface CalibrationFile {
  facts: {
    gpu: string;
    torch: string;
    hbm: { readGBs: number };
    attention: { heads: number; kvHeads: number; headDim: number; seq: number; ms: number }[];
    decodeStep: { batch: number; context: number; ms?: number; weightBytes?: number; kvBytes?: number }[];
    prefillForward: { runs: { isl: number; ms: number }[] };
  };
}
interface ExtendedFile {
  facts: {
    gemm: { model: string; tp: number; op: string; m: number; k: number; n: number; bf16Ms: number; fp8Ms: number }[];
    decodeStep: {
      weights: WeightsMeasured;
      batch: number;
      context: number;
      ms?: number;
      weightBytes?: number;
      kvBytes?: number;
    }[];
    hostOverhead: { weights: WeightsMeasured; eagerMs: number; graphMs: number }[];
  };
}

/** The two fact files in the shape the fit reads. */
export function measurementsOf(c: CalibrationFile, e: ExtendedFile): ServingMeasurements {
  const cf = c.facts;
  const ef = e.facts;
  const measured = <T extends { ms?: number }>(r: T): r is T & { ms: number; weightBytes: number; kvBytes: number } =>
    r.ms !== undefined;
  const launch = ef.hostOverhead.find((h) => h.weights === "bf16")!;
  return {
    gpu: cf.gpu,
    torch: cf.torch,
    hbmReadGBs: cf.hbm.readGBs,
    gemm: ef.gemm.map((r) => [r.model, r.tp, r.op, r.m, r.k, r.n, r.bf16Ms, r.fp8Ms] as const),
    attention: cf.attention.map((r) => [r.heads, r.kvHeads, r.headDim, r.seq, r.ms] as const),
    decodeStep: [
      ...cf.decodeStep
        .filter(measured)
        .map((r) => ["bf16", r.batch, r.context, r.ms, r.weightBytes, r.kvBytes] as const),
      ...ef.decodeStep
        .filter(measured)
        .map((r) => [r.weights, r.batch, r.context, r.ms, r.weightBytes, r.kvBytes] as const),
    ],
    launch: { eagerMs: launch.eagerMs, graphMs: launch.graphMs, layers: MEASURED_LAYERS },
    prefillForward: cf.prefillForward.runs.map((r) => [r.isl, r.ms] as const),
  };
}

/** Layers, and linear + lm_head parameters, of the Llama-3.1-8B shape the decode steps were measured on. */
const MEASURED_LAYERS = 32;
const MEASURED_STEP_PARAMS = 32 * (4096 * 6144 + 4096 * 4096 + 4096 * 28672 + 14336 * 4096) + 128256 * 4096;

/** The H200 measurements. */
export const H200_MEASUREMENTS: ServingMeasurements = measurementsOf(
  calibrationFacts as unknown as CalibrationFile,
  extendedFacts as unknown as ExtendedFile,
);

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

/** The measured curve nearest to `x` on a log scale. */
function nearest<T>(curves: readonly T[], key: (c: T) => number, x: number): T {
  return curves.reduce((best, c) => (Math.abs(Math.log(key(c) / x)) < Math.abs(Math.log(key(best) / x)) ? c : best));
}

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

/** Milliseconds of one forward over `prompts` prompts of `promptTokens` tokens each (prefill). */
export function prefillMs(w: WorkerSpeed, promptTokens: number, prompts = 1): number {
  const f = w.shape.facts;
  const tokens = promptTokens * prompts;
  const gemm = msOf((2 * w.shape.gemmParamsPerToken * tokens) / w.tp, gemmTflops(w, tokens));
  const attnFlops = (f.layers * 2 * promptTokens ** 2 * f.attentionHeads * f.headDim * prompts) / w.tp;
  const attn = msOf(attnFlops, attentionTflops(w, promptTokens));
  const lmHead = msOf((2 * w.shape.lmHeadParams * prompts) / w.tp, gemmTflops(w, prompts));
  return gemm + attn + lmHead + allReduceMs(w, tokens) + interpolate(w.rates.stepOverheadMs.bf16, 1);
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

/** Milliseconds of one decode step of `batch` sequences at `context` tokens each. */
export function decodeStepMs(w: WorkerSpeed, batch: number, context: number): number {
  const memMs = decodeWeightBytesPerGpu(w, batch) / (w.rates.hbmGBs * 1e6);
  const gemmFlops = (2 * (w.shape.gemmParamsPerToken + w.shape.lmHeadParams) * batch) / w.tp;
  const kvBytes = batch * context * kvBytesPerTokenPerGpu(w.shape.facts, w.tp, w.kvCacheDtype);
  const kvMs = kvBytes / (interpolate(w.rates.kvReadGBs, batch) * 1e6);
  const compute = Math.max(memMs, msOf(gemmFlops, peakGemmTflops(w)));
  return compute + kvMs + allReduceMs(w, batch) + stepOverheadMs(w, batch) + eagerLaunchMs(w, batch);
}

/** Sequences of `isl + osl` tokens the worker decodes at once: its KV capacity, at most the engine's limit. */
export function maxDecodeBatch(w: WorkerSpeed, isl: number, osl: number): number {
  return Math.min(engineOf(w).maxNumSeqs, Math.floor(w.kvCapacityTokens / (isl + osl)));
}

/*
 * The rates a GPU runs the serving model's operations at: measured on an H200 (the fact files above), and for
 * every other GPU the H200's rates scaled by the ratio of the two datasheets (`../catalog/gpu-datasheet.ts`),
 * marked as scaled. Pure.
 *
 * From the measurements:
 * - GEMM: one TFLOP/s curve over token count per measured layer shape and weight dtype (bf16 matmul, FP8
 *   _scaled_mm; the 4 projections of a layer, FLOPs summed over milliseconds summed); a model uses the curve of its
 *   dtype whose per-GPU layer size is nearest (log scale). FP8 is its measured curve, not twice bf16: about 1.5-1.8x
 *   at prefill sizes, slower than bf16 below ~512 rows (quantization and padding).
 * - attention: one causal-prefill TFLOP/s curve over sequence length per measured head count.
 * - decode: for each measured batch (1..1024), a straight line through its steps over the KV bytes they read
 *   (ms = a + KV bytes / rate): the slope is the KV read rate at that batch, and the intercept less the step's
 *   roof (weight bytes at the HBM rate, or its GEMM FLOPs at the curve's peak) is the step's overhead, one curve
 *   per weight dtype.
 * - launch: what an eager step costs beyond its CUDA-graph replay, per layer (batches above the engine's graph size).
 * All-reduce latency is the engine's (./engine-settings.ts, published for H100 over NVLink); its bus rate beyond the
 * published sizes half the bidirectional NVLink rate, 25 GB/s without NVLink (PCIe Gen4 x16).
 */

/** A point of a measured curve: [x, y]. */
export type RatePoint = readonly [number, number];

/** GEMM TFLOP/s by token count, for one measured layer size. */
export interface GemmCurve {
  /** Which measured shape (`Llama-3.1-70B tp8`). */
  readonly shape: string;
  /** Weight parameters of the layer's four projections on one GPU. */
  readonly layerParamsPerGpu: number;
  readonly tflops: readonly RatePoint[];
}

/** Causal prefill attention TFLOP/s by sequence length, for one measured head count. */
export interface AttentionCurve {
  readonly heads: number;
  readonly tflops: readonly RatePoint[];
}

/** The rates of one GPU type. */
export interface GpuRates {
  /** The instance catalog's `gpuModel`. */
  readonly gpuModel: string;
  /** True when scaled from the H200 measurement by datasheet ratios. */
  readonly scaled: boolean;
  /** Where the rates come from, for the plan. */
  readonly basis: string;
  readonly gemm: readonly GemmCurve[];
  /** FP8 GEMM curves (the same shapes). */
  readonly gemmFp8: readonly GemmCurve[];
  readonly attention: readonly AttentionCurve[];
  /** Memory read rate, GB/s. */
  readonly hbmGBs: number;
  /** Milliseconds of a decode step beyond its roof and KV read, by batch, per weight dtype (8B shape). */
  readonly stepOverheadMs: Readonly<Record<WeightsMeasured, readonly RatePoint[]>>;
  /** KV-cache read rate of decode attention, GB/s, by batch. */
  readonly kvReadGBs: readonly RatePoint[];
  /** Milliseconds per layer an eager step costs beyond its CUDA-graph replay. */
  readonly eagerLaunchMsPerLayer: number;
  /** All-reduce bus rate between the worker's GPUs beyond the published message sizes, GB/s. */
  readonly allReduceBusGBs: number;
  /** FP8 tensor cores (FP8 weights at the measured FP8 rate). */
  readonly fp8: boolean;
}

/** The GPU the measurements were taken on, as the instance catalog names it. */
export const MEASURED_GPU = "H200 141GB";
/** Assumed all-reduce bus rate without NVLink (PCIe Gen4 x16), GB/s. */
export const PCIE_BUS_GBS = 25;

const byX = (a: RatePoint, b: RatePoint) => a[0] - b[0];

/** FLOP-weighted TFLOP/s per token count of each measured model shape, in one dtype (index 6 bf16, 7 fp8). */
function gemmCurves(m: ServingMeasurements, col: 6 | 7): GemmCurve[] {
  const shapes = new Map<string, { params: Set<string>; layer: number; byM: Map<number, [number, number]> }>();
  for (const row of m.gemm) {
    const [model, tp, op, rows, k, n] = row;
    const ms = row[col];
    const key = `${model} tp${tp}`;
    const s = shapes.get(key) ?? { params: new Set(), layer: 0, byM: new Map() };
    if (!s.params.has(op)) {
      s.params.add(op);
      s.layer += k * n;
    }
    const [flops, t] = s.byM.get(rows) ?? [0, 0];
    s.byM.set(rows, [flops + 2 * rows * k * n, t + ms]);
    shapes.set(key, s);
  }
  return [...shapes].map(([shape, s]) => ({
    shape,
    layerParamsPerGpu: s.layer,
    tflops: [...s.byM].map(([rows, [f, t]]): RatePoint => [rows, f / (t * 1e9)]).sort(byX),
  }));
}

/** TFLOP/s (2 s^2 heads headDim FLOPs, causal) per sequence length of each measured head count. */
function attentionCurves(m: ServingMeasurements): AttentionCurve[] {
  const heads = [...new Set(m.attention.map(([h]) => h))].sort((a, b) => a - b);
  return heads.map((h) => ({
    heads: h,
    tflops: m.attention
      .filter(([x]) => x === h)
      .map(([, , d, seq, ms]): RatePoint => [seq, (2 * seq * seq * h * d) / (ms * 1e9)])
      .sort(byX),
  }));
}

/** Least-squares line y = a + b x. */
function line(points: readonly RatePoint[]): { a: number; b: number } {
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  const b = sxx === 0 ? 0 : points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0) / sxx;
  return { a: my - b * mx, b };
}

/** The 8B step's GEMM peak (TFLOP/s) in a dtype: the roof the decode fit subtracts. */
function stepPeak(curves: readonly GemmCurve[]): number {
  const c = nearest(curves, (x) => x.layerParamsPerGpu, MEASURED_STEP_PARAMS / MEASURED_LAYERS);
  return Math.max(...c.tflops.map(([, y]) => y));
}

/** The decode fit per batch of one weight dtype: overhead beyond the roof (ms) and KV read rate (GB/s). */
function decodeFit(m: ServingMeasurements, weights: WeightsMeasured, peak: number) {
  const steps = m.decodeStep.filter(([w]) => w === weights);
  const batches = [...new Set(steps.map(([, b]) => b))].sort((a, b) => a - b);
  const overhead: RatePoint[] = [];
  const kv: RatePoint[] = [];
  for (const b of batches) {
    const at = steps.filter(([, x]) => x === b);
    const fit = line(at.map(([, , , ms, , kvBytes]): RatePoint => [kvBytes, ms]));
    const roof = Math.max(at[0]![4] / (m.hbmReadGBs * 1e6), msOf(2 * MEASURED_STEP_PARAMS * b, peak));
    overhead.push([b, Math.max(0, fit.a - roof)]);
    kv.push([b, fit.b > 0 ? 1e-6 / fit.b : m.hbmReadGBs]);
  }
  return { overhead, kv };
}

const busGBs = (d: GpuDatasheet) => (d.nvlinkGBs > 0 ? d.nvlinkGBs / 2 : PCIE_BUS_GBS);

/** The rates measured on the calibration GPU. */
export function measuredRates(m: ServingMeasurements, sheet: GpuDatasheet): GpuRates {
  const gemm = gemmCurves(m, 6);
  const gemmFp8 = gemmCurves(m, 7);
  const bf16 = decodeFit(m, "bf16", stepPeak(gemm));
  const fp8 = decodeFit(m, "fp8", stepPeak(gemmFp8));
  return {
    gpuModel: MEASURED_GPU,
    scaled: false,
    basis: `measured on an ${m.gpu} (torch ${m.torch}): ${H200_MEASUREMENTS_FACTS.join(", ")}`,
    gemm,
    gemmFp8,
    attention: attentionCurves(m),
    hbmGBs: m.hbmReadGBs,
    stepOverheadMs: { bf16: bf16.overhead, fp8: fp8.overhead },
    kvReadGBs: bf16.kv,
    eagerLaunchMsPerLayer: (m.launch.eagerMs - m.launch.graphMs) / m.launch.layers,
    allReduceBusGBs: busGBs(sheet),
    fp8: sheet.fp8,
  };
}

const scalePoints = (p: readonly RatePoint[], f: number) => p.map(([x, y]): RatePoint => [x, y * f]);

/** `base` (measured on `baseSheet`'s GPU) scaled to the GPU of `sheet` by datasheet ratios; overheads kept. */
export function scaledRates(base: GpuRates, baseSheet: GpuDatasheet, gpuModel: string, sheet: GpuDatasheet): GpuRates {
  const compute = sheet.bf16DenseTflops / baseSheet.bf16DenseTflops;
  const memory = sheet.memoryGBs / baseSheet.memoryGBs;
  const curves = (cs: readonly GemmCurve[]) => cs.map((c) => ({ ...c, tflops: scalePoints(c.tflops, compute) }));
  return {
    ...base,
    gpuModel,
    scaled: true,
    basis: `scaled from the ${base.gpuModel} measurement by datasheet ratios (compute x${compute.toFixed(2)}, memory x${memory.toFixed(2)}; per-step overheads as measured): ${sheet.source}`,
    gemm: curves(base.gemm),
    gemmFp8: curves(base.gemmFp8),
    attention: base.attention.map((c) => ({ ...c, tflops: scalePoints(c.tflops, compute) })),
    hbmGBs: base.hbmGBs * memory,
    kvReadGBs: scalePoints(base.kvReadGBs, memory),
    allReduceBusGBs: busGBs(sheet),
    fp8: sheet.fp8,
  };
}

const H200_SHEET = GPU_DATASHEETS.get(MEASURED_GPU)!;

/** The calibrated H200 rates. */
export const H200_RATES: GpuRates = measuredRates(H200_MEASUREMENTS, H200_SHEET);

/** The rates of a catalog GPU, or undefined when the datasheet table lacks it (no estimate then). */
export function ratesFor(gpuModel: string): GpuRates | undefined {
  if (gpuModel === MEASURED_GPU) return H200_RATES;
  const sheet = GPU_DATASHEETS.get(gpuModel);
  return sheet ? scaledRates(H200_RATES, H200_SHEET, gpuModel, sheet) : undefined;
}
