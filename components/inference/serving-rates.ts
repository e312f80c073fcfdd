/**
 * The rates a GPU runs the serving model's operations at (`./serving.ts`): measured on an H200
 * (`./serving-calibration.ts`, a copy of tests/contracts/facts/h200-serving-calibration.json), and for
 * every other GPU the H200's rates scaled by the ratio of the two datasheets
 * (`../catalog/gpu-datasheet.ts`), marked as scaled. Pure.
 *
 * From the measurements:
 * - GEMM: one TFLOP/s curve over token count per measured model shape (the 4 projections of a layer, FLOPs
 *   summed over milliseconds summed); a model uses the curve whose per-GPU layer size is nearest (log scale).
 * - attention: one causal-prefill TFLOP/s curve over sequence length per measured head count.
 * - decode: for each measured batch, a straight line through its steps over the KV bytes they read
 *   (ms = a + KV bytes / rate): the slope is the KV read rate at that batch, and the intercept less the
 *   weight bytes at the measured HBM read rate is the step's fixed overhead (launches, norms, the
 *   lm_head's and small GEMMs' bandwidth shortfall) — both carried to every model as measured.
 * Not measured, from the datasheet: NVLink all-reduce at half the bidirectional NVLink rate (one direction
 * of a ring), 25 GB/s without NVLink (PCIe Gen4 x16), plus an assumed 10 us per all-reduce call.
 */
import { GPU_DATASHEETS, GpuDatasheet } from "../catalog/gpu-datasheet";
import { H200_MEASUREMENTS, H200_MEASUREMENTS_FACT, ServingMeasurements } from "./serving-calibration";

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
  readonly attention: readonly AttentionCurve[];
  /** Memory read rate, GB/s. */
  readonly hbmGBs: number;
  /** Fixed milliseconds of a decode step beyond its weight bytes, by batch. */
  readonly stepOverheadMs: readonly RatePoint[];
  /** KV-cache read rate of decode attention, GB/s, by batch. */
  readonly kvReadGBs: readonly RatePoint[];
  /** All-reduce bus rate between the worker's GPUs, GB/s. */
  readonly allReduceBusGBs: number;
  /** Fixed microseconds of one all-reduce call. */
  readonly allReduceLatencyUs: number;
  /** FP8 tensor cores (FP8 weights at twice the BF16 rate). */
  readonly fp8: boolean;
}

/** The GPU the measurements were taken on, as the instance catalog names it. */
export const MEASURED_GPU = "H200 141GB";
/** Assumed fixed cost of one all-reduce call (NVLink one-shot all-reduce of a small message), microseconds. */
export const ALL_REDUCE_LATENCY_US = 10;
/** Assumed all-reduce bus rate without NVLink (PCIe Gen4 x16), GB/s. */
export const PCIE_BUS_GBS = 25;

const byX = (a: RatePoint, b: RatePoint) => a[0] - b[0];

/** FLOP-weighted TFLOP/s per token count of each measured model shape. */
function gemmCurves(m: ServingMeasurements): GemmCurve[] {
  const shapes = new Map<string, { params: Set<string>; layer: number; byM: Map<number, [number, number]> }>();
  for (const [model, tp, op, rows, k, n, ms] of m.gemm) {
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

/** The decode fit per batch: fixed overhead (ms) and KV read rate (GB/s). */
function decodeFit(m: ServingMeasurements): { overhead: RatePoint[]; kv: RatePoint[] } {
  const batches = [...new Set(m.decodeStep.map(([b]) => b))].sort((a, b) => a - b);
  const overhead: RatePoint[] = [];
  const kv: RatePoint[] = [];
  for (const b of batches) {
    const steps = m.decodeStep.filter(([x]) => x === b);
    const fit = line(steps.map(([, , ms, , kvBytes]): RatePoint => [kvBytes, ms]));
    const weightMs = steps[0]![3] / (m.hbmReadGBs * 1e6);
    overhead.push([b, Math.max(0, fit.a - weightMs)]);
    kv.push([b, fit.b > 0 ? 1e-6 / fit.b : m.hbmReadGBs]);
  }
  return { overhead, kv };
}

const busGBs = (d: GpuDatasheet) => (d.nvlinkGBs > 0 ? d.nvlinkGBs / 2 : PCIE_BUS_GBS);

/** The rates measured on the calibration GPU. */
export function measuredRates(m: ServingMeasurements, sheet: GpuDatasheet): GpuRates {
  const fit = decodeFit(m);
  return {
    gpuModel: MEASURED_GPU,
    scaled: false,
    basis: `measured on an ${m.gpu} (torch ${m.torch}): ${H200_MEASUREMENTS_FACT}; all-reduce from the datasheet`,
    gemm: gemmCurves(m),
    attention: attentionCurves(m),
    hbmGBs: m.hbmReadGBs,
    stepOverheadMs: fit.overhead,
    kvReadGBs: fit.kv,
    allReduceBusGBs: busGBs(sheet),
    allReduceLatencyUs: ALL_REDUCE_LATENCY_US,
    fp8: sheet.fp8,
  };
}

const scalePoints = (p: readonly RatePoint[], f: number) => p.map(([x, y]): RatePoint => [x, y * f]);

/** `base` (measured on `baseSheet`'s GPU) scaled to the GPU of `sheet` by datasheet ratios; overheads kept. */
export function scaledRates(base: GpuRates, baseSheet: GpuDatasheet, gpuModel: string, sheet: GpuDatasheet): GpuRates {
  const compute = sheet.bf16DenseTflops / baseSheet.bf16DenseTflops;
  const memory = sheet.memoryGBs / baseSheet.memoryGBs;
  return {
    ...base,
    gpuModel,
    scaled: true,
    basis: `scaled from the ${base.gpuModel} measurement by datasheet ratios (compute x${compute.toFixed(2)}, memory x${memory.toFixed(2)}; per-step overheads as measured): ${sheet.source}`,
    gemm: base.gemm.map((c) => ({ ...c, tflops: scalePoints(c.tflops, compute) })),
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
