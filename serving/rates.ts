/**
 * The rates a GPU runs the serving model's operations at: measured on one H200 (the fact files below, read directly,
 * no copy), and for every other GPU the H200's rates scaled by the ratio of the two datasheets (./gpu-datasheet.ts),
 * marked as scaled. Pure; one worker's times from these rates are ./worker-speed.ts.
 *
 * The measurements (torch 2.11.0+cu130, CUDA 13.0, one NVIDIA H200; extractors in tests/contracts/extract/):
 * - facts/h200-serving-calibration.json: transformers' prefill forward (a check), the first decode steps;
 * - facts/h200-serving-extended.json: bf16 and FP8 GEMM at the Llama-3.1-8B/70B TP1-8 layer shapes to 8192 rows,
 *   eager against CUDA-graph launch (its SDPA decode steps are superseded by the attention file's);
 * - facts/h200-serving-attention.json: decode attention as the engines run it (a paged split-KV flash-decoding
 *   kernel, bf16 and FP8 KV, 8B and 70B per-GPU head shapes, batch 1-256, context 1k-128k), causal prefill
 *   attention to 128k (torch's flash and cuDNN backends), and the 8B decode step with that paged attention at batch
 *   1-1024 and context 512-128k, bf16 and FP8 weights, bf16 and FP8 KV; the HBM read rate of the same run.
 *
 * Fitted from them:
 * - GEMM: one TFLOP/s curve over token count per measured layer shape and weight dtype (the 4 projections of a
 *   layer, FLOPs summed over milliseconds summed); a model uses the curve of its dtype whose per-GPU layer size is
 *   nearest (log scale). FP8 is its measured `_scaled_mm` curve, not twice bf16.
 * - prefill attention: one causal TFLOP/s curve over sequence length per measured head count, from the faster
 *   backend (cuDNN, FlashAttention-3 class, as the engines' Hopper kernels), to 128k tokens.
 * - decode attention: per head shape and KV dtype, the achieved KV read rate (GB/s) over batch and context, and the
 *   shortest call measured (the launch floor of a layer's attention).
 * - per-step overhead: a measured decode step (bf16 KV) less its roof (weight bytes at the HBM rate, or its GEMM
 *   FLOPs at the curve's peak) and less its 32 layers' attention as measured alone, the median over the contexts of
 *   each batch; one curve per weight dtype.
 * - launch: what an eager step costs beyond its CUDA-graph replay, per layer.
 * All-reduce latency is the engine's (./engine-settings.ts); its bus rate beyond the published sizes half the
 * bidirectional NVLink rate, 25 GB/s without NVLink (PCIe Gen4 x16).
 */
import { GPU_DATASHEETS, GpuDatasheet } from "./gpu-datasheet";
import calibrationFacts from "./facts/h200-serving-calibration.json";
import extendedFacts from "./facts/h200-serving-extended.json";
import attentionFacts from "./facts/h200-serving-attention.json";

/** A point of a measured curve: [x, y]. */
export type RatePoint = readonly [number, number];
/** Weight dtypes of the measured decode steps. */
export type WeightsMeasured = "bf16" | "fp8";
/** KV-cache dtypes of the measured decode attention. */
export type KvMeasured = "bf16" | "fp8";

/** Where the measurements are recorded. */
export const H200_MEASUREMENTS_FACTS = [
  "serving/facts/h200-serving-calibration.json",
  "serving/facts/h200-serving-extended.json",
  "serving/facts/h200-serving-attention.json",
] as const;

/** The measured timings the rates are fitted from (milliseconds). */
export interface ServingMeasurements {
  readonly gpu: string;
  readonly torch: string;
  /** GB/s of a read-only reduction over 4 GiB (the attention file's run). */
  readonly hbmReadGBs: number;
  /** Matmul of an `m` x `k` activation by a `k` x `n` weight: [model, tp, op, m, k, n, bf16 ms, fp8 ms]. */
  readonly gemm: readonly (readonly [string, number, string, number, number, number, number, number])[];
  /** Causal prefill attention of one prompt, the faster backend: [heads, kvHeads, headDim, seq, ms]. */
  readonly prefillAttention: readonly (readonly [number, number, number, number, number])[];
  /** One layer's paged split-KV decode attention: [heads, kvHeads, kv dtype, batch, context, ms, KV bytes]. */
  readonly decodeAttention: readonly (readonly [number, number, KvMeasured, number, number, number, number])[];
  /** The Llama-3.1-8B-shaped decode step with it, in a CUDA graph: [weights, kv dtype, batch, context, ms, weightBytes]. */
  readonly decodeStep: readonly (readonly [WeightsMeasured, KvMeasured, number, number, number, number])[];
  /** The same step at batch 1 launched eagerly and replayed as a CUDA graph: ms each. */
  readonly launch: { readonly eagerMs: number; readonly graphMs: number; readonly layers: number };
  /** transformers' LlamaForCausalLM (8B config, eager, sdpa) at batch 1: [isl, ms]. */
  readonly prefillForward: readonly (readonly [number, number])[];
}

type Measured = { ms?: number };
const measured = <T extends Measured>(r: T): r is T & { ms: number } => r.ms !== undefined;

/** The three fact files' `facts`, as read. */
export interface MeasurementFiles {
  readonly calibration: {
    gpu: string;
    torch: string;
    prefillForward: { runs: { isl: number; ms: number }[] };
  };
  readonly extended: {
    gemm: { model: string; tp: number; op: string; m: number; k: number; n: number; bf16Ms: number; fp8Ms: number }[];
    hostOverhead: { weights: WeightsMeasured; eagerMs: number; graphMs: number }[];
  };
  readonly attention: {
    hbm: { readGBs: number };
    prefillAttention: (Measured & { heads: number; kvHeads: number; seq: number; backend: string })[];
    decodeAttention: {
      heads: number;
      kvHeads: number;
      kvDtype: KvMeasured;
      batch: number;
      context: number;
      ms: number;
      kvBytes: number;
    }[];
    decodeStep: (Measured & {
      weights: WeightsMeasured;
      kvDtype: KvMeasured;
      batch: number;
      context: number;
      weightBytes?: number;
    })[];
    headDim: number;
  };
}

/** The prefill-attention backend the model runs at: the faster one measured (cuDNN, FlashAttention-3 class). */
export const PREFILL_ATTENTION_BACKEND = "CUDNN_ATTENTION";

/** The fact files in the shape the fits read. */
export function measurementsOf(f: MeasurementFiles): ServingMeasurements {
  const { calibration: c, extended: e, attention: a } = f;
  const launch = e.hostOverhead.find((h) => h.weights === "bf16")!;
  return {
    gpu: c.gpu,
    torch: c.torch,
    hbmReadGBs: a.hbm.readGBs,
    gemm: e.gemm.map((r) => [r.model, r.tp, r.op, r.m, r.k, r.n, r.bf16Ms, r.fp8Ms] as const),
    prefillAttention: a.prefillAttention
      .filter(measured)
      .filter((r) => r.backend === PREFILL_ATTENTION_BACKEND)
      .map((r) => [r.heads, r.kvHeads, a.headDim, r.seq, r.ms] as const),
    decodeAttention: a.decodeAttention.map(
      (r) => [r.heads, r.kvHeads, r.kvDtype, r.batch, r.context, r.ms, r.kvBytes] as const,
    ),
    decodeStep: a.decodeStep
      .filter(measured)
      .map((r) => [r.weights, r.kvDtype, r.batch, r.context, r.ms, r.weightBytes!] as const),
    launch: { eagerMs: launch.eagerMs, graphMs: launch.graphMs, layers: MEASURED_LAYERS },
    prefillForward: c.prefillForward.runs.map((r) => [r.isl, r.ms] as const),
  };
}

/** Layers, and linear + lm_head parameters, of the Llama-3.1-8B shape the decode steps were measured on. */
export const MEASURED_LAYERS = 32;
export const MEASURED_STEP_PARAMS = 32 * (4096 * 6144 + 4096 * 4096 + 4096 * 28672 + 14336 * 4096) + 128256 * 4096;
/** Query and KV heads of the measured step. */
const MEASURED_HEADS = { heads: 32, kvHeads: 8 } as const;

/** The fact files as the package reads them. */
export const H200_FILES: MeasurementFiles = {
  calibration: (calibrationFacts as unknown as { facts: MeasurementFiles["calibration"] }).facts,
  extended: (extendedFacts as unknown as { facts: MeasurementFiles["extended"] }).facts,
  attention: (attentionFacts as unknown as { facts: MeasurementFiles["attention"] }).facts,
};

/** The H200 measurements. */
export const H200_MEASUREMENTS: ServingMeasurements = measurementsOf(H200_FILES);

/** `points` ([x, y], x ascending) at `x`: linear in log2(x) between points, the end values outside them. */
export function interpolate(points: readonly RatePoint[], x: number): number {
  if (points.length === 0) throw new Error("interpolate: no points");
  const first = points[0]!;
  const last = points[points.length - 1]!;
  if (x <= first[0]) return first[1];
  if (x >= last[0]) return last[1];
  // A plain loop: the estimate's searches call this millions of times.
  let i = 1;
  while (points[i]![0] < x) i++;
  const p0 = points[i - 1]!;
  const p1 = points[i]!;
  return between(p0[0], p0[1], p1[0], p1[1], x);
}

/** Linear in log2(x) between (x0, y0) and (x1, y1). */
function between(x0: number, y0: number, x1: number, y1: number, x: number): number {
  return y0 + ((Math.log2(x) - Math.log2(x0)) / (Math.log2(x1) - Math.log2(x0))) * (y1 - y0);
}

/** The measured curve nearest to `x` on a log scale. */
export function nearest<T>(curves: readonly T[], key: (c: T) => number, x: number): T {
  return curves.reduce((best, c) => (Math.abs(Math.log(key(c) / x)) < Math.abs(Math.log(key(best) / x)) ? c : best));
}

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

/** One layer's decode attention of one head shape and KV dtype: the KV read rate over batch and context. */
export interface DecodeAttentionCurve {
  readonly heads: number;
  readonly kvHeads: number;
  readonly kvDtype: KvMeasured;
  /** Per measured batch (ascending): GB/s of KV read over context. */
  readonly rows: readonly { readonly batch: number; readonly gbs: readonly RatePoint[] }[];
  /** The shortest call measured, ms: a layer's attention takes at least this (launch and merge). */
  readonly floorMs: number;
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
  /** Memory read rate, GB/s (the weights' read per step). */
  readonly hbmGBs: number;
  /** The datasheet's memory bandwidth, GB/s: no read is faster (the physics floor). */
  readonly hbmPeakGBs: number;
  /** Decode attention as the engines run it (paged split-KV), per head shape and KV dtype. */
  readonly decodeAttention: readonly DecodeAttentionCurve[];
  /** Milliseconds of a decode step beyond its roof and its attention, by batch, per weight dtype (8B shape). */
  readonly stepOverheadMs: Readonly<Record<WeightsMeasured, readonly RatePoint[]>>;
  /** Milliseconds per layer an eager step costs beyond its CUDA-graph replay. */
  readonly eagerLaunchMsPerLayer: number;
  /** All-reduce bus rate between the worker's GPUs beyond the published message sizes, GB/s. */
  readonly allReduceBusGBs: number;
  /** FP8 tensor cores (FP8 weights at the measured FP8 rate). */
  readonly fp8: boolean;
}

/**
 * Milliseconds of one layer's decode attention reading `bytes` of KV for `batch` sequences of `context` tokens, at
 * the curve's measured rate for that batch and context (bilinear in log batch and log context, the measured edge
 * outside), never below the curve's launch floor nor above `peakGBs`.
 */
export function attentionLayerMs(
  c: DecodeAttentionCurve,
  batch: number,
  context: number,
  bytes: number,
  peakGBs: number,
): number {
  const rows = c.rows;
  let i = 0;
  while (i < rows.length && rows[i]!.batch < batch) i++;
  let gbs: number;
  if (i === 0 || i === rows.length) gbs = interpolate(rows[Math.min(i, rows.length - 1)]!.gbs, context);
  else {
    const lo = rows[i - 1]!;
    const hi = rows[i]!;
    gbs = between(lo.batch, interpolate(lo.gbs, context), hi.batch, interpolate(hi.gbs, context), batch);
  }
  return Math.max(c.floorMs, bytes / (Math.min(gbs, peakGBs) * 1e6));
}

/** The measured curve nearest a worker's heads per GPU (KV heads first, then query heads), in its KV dtype. */
export function decodeAttentionCurve(
  r: Pick<GpuRates, "decodeAttention">,
  kvHeads: number,
  heads: number,
  kvDtype: KvMeasured,
): DecodeAttentionCurve {
  const of = r.decodeAttention.filter((c) => c.kvDtype === kvDtype);
  const kv = nearest(of, (c) => c.kvHeads, kvHeads).kvHeads;
  return nearest(
    of.filter((c) => c.kvHeads === kv),
    (c) => c.heads,
    heads,
  );
}

/** The GPU the measurements were taken on, as the instance catalog names it. */
export const MEASURED_GPU = "H200 141GB";
/** Assumed all-reduce bus rate without NVLink (PCIe Gen4 x16), GB/s. */
export const PCIE_BUS_GBS = 25;

const byX = (a: RatePoint, b: RatePoint) => a[0] - b[0];
const msOf = (flops: number, tflops: number) => flops / (tflops * 1e9);
const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

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
  const heads = [...new Set(m.prefillAttention.map(([h]) => h))].sort((a, b) => a - b);
  return heads.map((h) => ({
    heads: h,
    tflops: m.prefillAttention
      .filter(([x]) => x === h)
      .map(([, , d, seq, ms]): RatePoint => [seq, (2 * seq * seq * h * d) / (ms * 1e9)])
      .sort(byX),
  }));
}

/**
 * One head shape's decode-attention calls as a grid of milliseconds by batch and context, evened so that more bytes
 * never take less time (at the launch floor two neighbouring calls differ by noise): each time at least the one at
 * the next smaller batch and at the next shorter context.
 */
function monotoneMs(pts: readonly (readonly [number, number, number])[]): Map<number, Map<number, number>> {
  const grid = new Map<number, Map<number, number>>();
  const batches = [...new Set(pts.map(([b]) => b))].sort((a, b) => a - b);
  const contexts = [...new Set(pts.map(([, c]) => c))].sort((a, b) => a - b);
  for (const [i, b] of batches.entries()) {
    const row = new Map<number, number>();
    for (const c of contexts) {
      const ms = pts.find(([x, y]) => x === b && y === c)?.[2];
      if (ms === undefined) continue;
      const below = i > 0 ? (grid.get(batches[i - 1]!)?.get(c) ?? 0) : 0;
      row.set(c, Math.max(ms, below, ...[...row.values()]));
    }
    grid.set(b, row);
  }
  return grid;
}

/** The decode-attention curves: one per head shape and KV dtype. */
function decodeAttentionCurves(m: ServingMeasurements): DecodeAttentionCurve[] {
  const keys = [...new Set(m.decodeAttention.map(([h, kv, d]) => `${h}|${kv}|${d}`))];
  return keys.map((key) => {
    const [h, kv, d] = key.split("|");
    const pts = m.decodeAttention.filter(([hh, kk, dd]) => `${hh}|${kk}|${dd}` === key);
    const bytesPerToken = pts[0]![6] / (pts[0]![3] * pts[0]![4]);
    const grid = monotoneMs(pts.map(([, , , b, c, ms]) => [b, c, ms] as const));
    return {
      heads: Number(h),
      kvHeads: Number(kv),
      kvDtype: d as KvMeasured,
      rows: [...grid].map(([batch, row]) => ({
        batch,
        gbs: [...row].map(([ctx, ms]): RatePoint => [ctx, (batch * ctx * bytesPerToken) / (ms * 1e6)]),
      })),
      floorMs: Math.min(...pts.map(([, , , , , ms]) => ms)),
    };
  });
}

/** The 8B step's GEMM peak (TFLOP/s) in a dtype: the roof the overhead fit subtracts. */
function stepPeak(curves: readonly GemmCurve[]): number {
  const c = nearest(curves, (x) => x.layerParamsPerGpu, MEASURED_STEP_PARAMS / MEASURED_LAYERS);
  return Math.max(...c.tflops.map(([, y]) => y));
}

/** Bytes of one layer's KV per token in the measured 8B shape (K and V, 8 heads of 128). */
const measuredLayerKvBytes = (d: KvMeasured, headDim: number) =>
  2 * MEASURED_HEADS.kvHeads * headDim * (d === "bf16" ? 2 : 1);

/**
 * `ys` made non-decreasing by pooling adjacent violators (the least-squares non-decreasing fit): each run of values
 * that falls is replaced by its mean.
 */
export function nonDecreasing(ys: readonly number[]): number[] {
  const blocks: { sum: number; n: number }[] = [];
  for (const y of ys) {
    blocks.push({ sum: y, n: 1 });
    while (blocks.length > 1) {
      const last = blocks[blocks.length - 1]!;
      const before = blocks[blocks.length - 2]!;
      if (before.sum / before.n <= last.sum / last.n) break;
      blocks.pop();
      before.sum += last.sum;
      before.n += last.n;
    }
  }
  return blocks.flatMap((b) => Array<number>(b.n).fill(b.sum / b.n));
}

/**
 * The per-step overhead of one weight dtype by batch: each measured step with bf16 KV less its roof and its layers'
 * attention (as measured alone), the median over the step's contexts at each batch, made non-decreasing in the batch
 * (`nonDecreasing`): a step of more rows never costs less beyond its roof, and the residuals' dips (where the roof
 * turns from the weights' bytes to the GEMM FLOPs, 256-512 rows) would otherwise make a larger model's step, whose
 * overhead scales with its FLOPs per token, faster at a larger batch.
 */
function stepOverheads(
  m: ServingMeasurements,
  weights: WeightsMeasured,
  peak: number,
  curves: readonly DecodeAttentionCurve[],
  headDim: number,
): RatePoint[] {
  const steps = m.decodeStep.filter(([w, kv]) => w === weights && kv === "bf16");
  const batches = [...new Set(steps.map(([, , b]) => b))].sort((a, b) => a - b);
  const curve = decodeAttentionCurve({ decodeAttention: curves }, MEASURED_HEADS.kvHeads, MEASURED_HEADS.heads, "bf16");
  const medians = batches.map((b) => {
    const rest = steps
      .filter(([, , x]) => x === b)
      .map(([, kv, , ctx, ms, weightBytes]) => {
        const roof = Math.max(weightBytes / (m.hbmReadGBs * 1e6), msOf(2 * MEASURED_STEP_PARAMS * b, peak));
        const attn = attentionLayerMs(curve, b, ctx, b * ctx * measuredLayerKvBytes(kv, headDim), Infinity);
        return ms - roof - MEASURED_LAYERS * attn;
      });
    return Math.max(0, median(rest));
  });
  const even = nonDecreasing(medians);
  return batches.map((b, i): RatePoint => [b, even[i]!]);
}

const busGBs = (d: GpuDatasheet) => (d.nvlinkGBs > 0 ? d.nvlinkGBs / 2 : PCIE_BUS_GBS);

/** The rates measured on the calibration GPU. */
export function measuredRates(m: ServingMeasurements, sheet: GpuDatasheet, headDim = 128): GpuRates {
  const gemm = gemmCurves(m, 6);
  const gemmFp8 = gemmCurves(m, 7);
  const decodeAttention = decodeAttentionCurves(m);
  return {
    gpuModel: MEASURED_GPU,
    scaled: false,
    basis: `measured on an ${m.gpu} (torch ${m.torch}): ${H200_MEASUREMENTS_FACTS.join(", ")}`,
    gemm,
    gemmFp8,
    attention: attentionCurves(m),
    hbmGBs: m.hbmReadGBs,
    hbmPeakGBs: sheet.memoryGBs,
    decodeAttention,
    stepOverheadMs: {
      bf16: stepOverheads(m, "bf16", stepPeak(gemm), decodeAttention, headDim),
      fp8: stepOverheads(m, "fp8", stepPeak(gemmFp8), decodeAttention, headDim),
    },
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
    hbmPeakGBs: sheet.memoryGBs,
    decodeAttention: base.decodeAttention.map((c) => ({
      ...c,
      rows: c.rows.map((r) => ({ ...r, gbs: scalePoints(r.gbs, memory) })),
    })),
    allReduceBusGBs: busGBs(sheet),
    fp8: sheet.fp8,
  };
}

const H200_SHEET = GPU_DATASHEETS.get(MEASURED_GPU)!;

/** The calibrated H200 rates. */
export const H200_RATES: GpuRates = measuredRates(H200_MEASUREMENTS, H200_SHEET, H200_FILES.attention.headDim);

/** The rates of a catalog GPU, or undefined when the datasheet table lacks it (no estimate then). */
export function ratesFor(gpuModel: string): GpuRates | undefined {
  if (gpuModel === MEASURED_GPU) return H200_RATES;
  const sheet = GPU_DATASHEETS.get(gpuModel);
  return sheet ? scaledRates(H200_RATES, H200_SHEET, gpuModel, sheet) : undefined;
}
