/**
 * One worker's speed: how long a prefill of a prompt takes, how long a decode step takes at a batch size
 * and context, and the batch the KV cache allows. Pure arithmetic on the model's shape and a GPU's
 * measured rates (the rates section below; the H200 measurements they come from are the first section), or
 * other GPUs' rates scaled from their datasheets; no Pulumi import. The load on several workers (queueing, the
 * two layouts, the balanced split) and the workload it is estimated for are `./serving.ts`.
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
import {
  KvCacheDtype,
  kvBytesPerTokenPerGpu,
  ModelFacts,
  paramGroups,
  modelRow,
  WEIGHT_DTYPE_BYTES,
  WeightDtype,
} from "../catalog/models";
import { GPU_DATASHEETS, GpuDatasheet } from "../catalog/gpu-datasheet";

/*
 * The H200 measurements the serving model is calibrated on, as numbers: a copy of the subset of
 * tests/contracts/facts/h200-serving-calibration.json that this file reads (the GEMM, attention,
 * HBM-read, CUDA-graph decode-step and transformers prefill timings; torch 2.11.0+cu130, CUDA 13.0, on
 * one NVIDIA H200). tests/unit/serving-calibration.spec.ts holds this copy equal to the fact file, so a
 * re-measurement that is not copied here fails the suite. Pure data.
 */
/** The measured timings (milliseconds), in the fact file's units. */
export interface ServingMeasurements {
  readonly gpu: string;
  readonly torch: string;
  /** GB/s of a read-only reduction over 4 GiB. */
  readonly hbmReadGBs: number;
  /** bf16 matmul of an `m` x `k` activation by a `k` x `n` weight: [model, tp, op, m, k, n, ms]. */
  readonly gemm: readonly (readonly [string, number, string, number, number, number, number])[];
  /** Causal flash SDPA of one prompt: [heads, kvHeads, headDim, seq, ms]. */
  readonly attention: readonly (readonly [number, number, number, number, number])[];
  /** A Llama-3.1-8B-shaped decode step in a CUDA graph: [batch, context, ms, weightBytes, kvBytes]. */
  readonly decodeStep: readonly (readonly [number, number, number, number, number])[];
  /** transformers' LlamaForCausalLM (8B config, eager, sdpa) at batch 1: [isl, ms]. */
  readonly prefillForward: readonly (readonly [number, number])[];
}

/** Where the measurements are recorded. */
export const H200_MEASUREMENTS_FACT = "tests/contracts/facts/h200-serving-calibration.json";

/** The H200 measurements. */
export const H200_MEASUREMENTS: ServingMeasurements = {
  gpu: "NVIDIA H200",
  torch: "2.11.0+cu130",
  hbmReadGBs: 4157.7,
  gemm: [
    ["Llama-3.1-8B", 1, "qkv", 1, 4096, 6144, 0.0315],
    ["Llama-3.1-8B", 1, "qkv", 8, 4096, 6144, 0.0288],
    ["Llama-3.1-8B", 1, "qkv", 32, 4096, 6144, 0.03619],
    ["Llama-3.1-8B", 1, "qkv", 64, 4096, 6144, 0.03355],
    ["Llama-3.1-8B", 1, "qkv", 128, 4096, 6144, 0.0281],
    ["Llama-3.1-8B", 1, "qkv", 256, 4096, 6144, 0.03546],
    ["Llama-3.1-8B", 1, "qkv", 512, 4096, 6144, 0.04757],
    ["Llama-3.1-8B", 1, "qkv", 1024, 4096, 6144, 0.08029],
    ["Llama-3.1-8B", 1, "qkv", 2048, 4096, 6144, 0.14771],
    ["Llama-3.1-8B", 1, "qkv", 4096, 4096, 6144, 0.28533],
    ["Llama-3.1-8B", 1, "qkv", 8192, 4096, 6144, 0.5335],
    ["Llama-3.1-8B", 1, "o", 1, 4096, 4096, 0.02454],
    ["Llama-3.1-8B", 1, "o", 8, 4096, 4096, 0.02491],
    ["Llama-3.1-8B", 1, "o", 32, 4096, 4096, 0.02758],
    ["Llama-3.1-8B", 1, "o", 64, 4096, 4096, 0.0217],
    ["Llama-3.1-8B", 1, "o", 128, 4096, 4096, 0.03024],
    ["Llama-3.1-8B", 1, "o", 256, 4096, 4096, 0.03173],
    ["Llama-3.1-8B", 1, "o", 512, 4096, 4096, 0.04038],
    ["Llama-3.1-8B", 1, "o", 1024, 4096, 4096, 0.06214],
    ["Llama-3.1-8B", 1, "o", 2048, 4096, 4096, 0.10758],
    ["Llama-3.1-8B", 1, "o", 4096, 4096, 4096, 0.19776],
    ["Llama-3.1-8B", 1, "o", 8192, 4096, 4096, 0.37032],
    ["Llama-3.1-8B", 1, "gate_up", 1, 4096, 28672, 0.06795],
    ["Llama-3.1-8B", 1, "gate_up", 8, 4096, 28672, 0.06718],
    ["Llama-3.1-8B", 1, "gate_up", 32, 4096, 28672, 0.0716],
    ["Llama-3.1-8B", 1, "gate_up", 64, 4096, 28672, 0.07288],
    ["Llama-3.1-8B", 1, "gate_up", 128, 4096, 28672, 0.11699],
    ["Llama-3.1-8B", 1, "gate_up", 256, 4096, 28672, 0.10202],
    ["Llama-3.1-8B", 1, "gate_up", 512, 4096, 28672, 0.17875],
    ["Llama-3.1-8B", 1, "gate_up", 1024, 4096, 28672, 0.31448],
    ["Llama-3.1-8B", 1, "gate_up", 2048, 4096, 28672, 0.61586],
    ["Llama-3.1-8B", 1, "gate_up", 4096, 4096, 28672, 1.22318],
    ["Llama-3.1-8B", 1, "gate_up", 8192, 4096, 28672, 2.6785],
    ["Llama-3.1-8B", 1, "down", 1, 14336, 4096, 0.04262],
    ["Llama-3.1-8B", 1, "down", 8, 14336, 4096, 0.04306],
    ["Llama-3.1-8B", 1, "down", 32, 14336, 4096, 0.0445],
    ["Llama-3.1-8B", 1, "down", 64, 14336, 4096, 0.04686],
    ["Llama-3.1-8B", 1, "down", 128, 14336, 4096, 0.04773],
    ["Llama-3.1-8B", 1, "down", 256, 14336, 4096, 0.06544],
    ["Llama-3.1-8B", 1, "down", 512, 14336, 4096, 0.10165],
    ["Llama-3.1-8B", 1, "down", 1024, 14336, 4096, 0.18442],
    ["Llama-3.1-8B", 1, "down", 2048, 14336, 4096, 0.35106],
    ["Llama-3.1-8B", 1, "down", 4096, 14336, 4096, 0.6839],
    ["Llama-3.1-8B", 1, "down", 8192, 14336, 4096, 1.31798],
    ["Llama-3.1-70B", 1, "qkv", 1, 8192, 10240, 0.05608],
    ["Llama-3.1-70B", 1, "qkv", 8, 8192, 10240, 0.05717],
    ["Llama-3.1-70B", 1, "qkv", 32, 8192, 10240, 0.06139],
    ["Llama-3.1-70B", 1, "qkv", 64, 8192, 10240, 0.05667],
    ["Llama-3.1-70B", 1, "qkv", 128, 8192, 10240, 0.05763],
    ["Llama-3.1-70B", 1, "qkv", 256, 8192, 10240, 0.08162],
    ["Llama-3.1-70B", 1, "qkv", 512, 8192, 10240, 0.12989],
    ["Llama-3.1-70B", 1, "qkv", 1024, 8192, 10240, 0.24018],
    ["Llama-3.1-70B", 1, "qkv", 2048, 8192, 10240, 0.45787],
    ["Llama-3.1-70B", 1, "qkv", 4096, 8192, 10240, 0.88573],
    ["Llama-3.1-70B", 1, "qkv", 8192, 8192, 10240, 1.9089],
    ["Llama-3.1-70B", 1, "o", 1, 8192, 8192, 0.05086],
    ["Llama-3.1-70B", 1, "o", 8, 8192, 8192, 0.04912],
    ["Llama-3.1-70B", 1, "o", 32, 8192, 8192, 0.05022],
    ["Llama-3.1-70B", 1, "o", 64, 8192, 8192, 0.05125],
    ["Llama-3.1-70B", 1, "o", 128, 8192, 8192, 0.05224],
    ["Llama-3.1-70B", 1, "o", 256, 8192, 8192, 0.06922],
    ["Llama-3.1-70B", 1, "o", 512, 8192, 8192, 0.11814],
    ["Llama-3.1-70B", 1, "o", 1024, 8192, 8192, 0.20438],
    ["Llama-3.1-70B", 1, "o", 2048, 8192, 8192, 0.37782],
    ["Llama-3.1-70B", 1, "o", 4096, 8192, 8192, 0.71272],
    ["Llama-3.1-70B", 1, "o", 8192, 8192, 8192, 1.52032],
    ["Llama-3.1-70B", 1, "gate_up", 1, 8192, 57344, 0.21776],
    ["Llama-3.1-70B", 1, "gate_up", 8, 8192, 57344, 0.21957],
    ["Llama-3.1-70B", 1, "gate_up", 32, 8192, 57344, 0.22346],
    ["Llama-3.1-70B", 1, "gate_up", 64, 8192, 57344, 0.32491],
    ["Llama-3.1-70B", 1, "gate_up", 128, 8192, 57344, 0.43966],
    ["Llama-3.1-70B", 1, "gate_up", 256, 8192, 57344, 0.40026],
    ["Llama-3.1-70B", 1, "gate_up", 512, 8192, 57344, 0.62197],
    ["Llama-3.1-70B", 1, "gate_up", 1024, 8192, 57344, 1.3144],
    ["Llama-3.1-70B", 1, "gate_up", 2048, 8192, 57344, 2.70109],
    ["Llama-3.1-70B", 1, "gate_up", 4096, 8192, 57344, 5.54245],
    ["Llama-3.1-70B", 1, "gate_up", 8192, 8192, 57344, 11.47566],
    ["Llama-3.1-70B", 1, "down", 1, 28672, 8192, 0.12858],
    ["Llama-3.1-70B", 1, "down", 8, 28672, 8192, 0.12387],
    ["Llama-3.1-70B", 1, "down", 32, 28672, 8192, 0.12438],
    ["Llama-3.1-70B", 1, "down", 64, 28672, 8192, 0.13038],
    ["Llama-3.1-70B", 1, "down", 128, 28672, 8192, 0.15736],
    ["Llama-3.1-70B", 1, "down", 256, 28672, 8192, 0.19898],
    ["Llama-3.1-70B", 1, "down", 512, 28672, 8192, 0.35058],
    ["Llama-3.1-70B", 1, "down", 1024, 28672, 8192, 0.67478],
    ["Llama-3.1-70B", 1, "down", 2048, 28672, 8192, 1.31986],
    ["Llama-3.1-70B", 1, "down", 4096, 28672, 8192, 2.66374],
    ["Llama-3.1-70B", 1, "down", 8192, 28672, 8192, 5.85235],
    ["Llama-3.1-70B", 8, "qkv", 1, 8192, 1280, 0.03838],
    ["Llama-3.1-70B", 8, "qkv", 8, 8192, 1280, 0.03808],
    ["Llama-3.1-70B", 8, "qkv", 32, 8192, 1280, 0.03483],
    ["Llama-3.1-70B", 8, "qkv", 64, 8192, 1280, 0.03464],
    ["Llama-3.1-70B", 8, "qkv", 128, 8192, 1280, 0.02859],
    ["Llama-3.1-70B", 8, "qkv", 256, 8192, 1280, 0.0307],
    ["Llama-3.1-70B", 8, "qkv", 512, 8192, 1280, 0.0415],
    ["Llama-3.1-70B", 8, "qkv", 1024, 8192, 1280, 0.05867],
    ["Llama-3.1-70B", 8, "qkv", 2048, 8192, 1280, 0.09534],
    ["Llama-3.1-70B", 8, "qkv", 4096, 8192, 1280, 0.16797],
    ["Llama-3.1-70B", 8, "qkv", 8192, 8192, 1280, 0.31491],
    ["Llama-3.1-70B", 8, "o", 1, 1024, 8192, 0.03528],
    ["Llama-3.1-70B", 8, "o", 8, 1024, 8192, 0.0356],
    ["Llama-3.1-70B", 8, "o", 32, 1024, 8192, 0.03477],
    ["Llama-3.1-70B", 8, "o", 64, 1024, 8192, 0.03403],
    ["Llama-3.1-70B", 8, "o", 128, 1024, 8192, 0.03509],
    ["Llama-3.1-70B", 8, "o", 256, 1024, 8192, 0.03213],
    ["Llama-3.1-70B", 8, "o", 512, 1024, 8192, 0.03432],
    ["Llama-3.1-70B", 8, "o", 1024, 1024, 8192, 0.04982],
    ["Llama-3.1-70B", 8, "o", 2048, 1024, 8192, 0.07677],
    ["Llama-3.1-70B", 8, "o", 4096, 1024, 8192, 0.13229],
    ["Llama-3.1-70B", 8, "o", 8192, 1024, 8192, 0.24259],
    ["Llama-3.1-70B", 8, "gate_up", 1, 8192, 7168, 0.0532],
    ["Llama-3.1-70B", 8, "gate_up", 8, 8192, 7168, 0.0529],
    ["Llama-3.1-70B", 8, "gate_up", 32, 8192, 7168, 0.05326],
    ["Llama-3.1-70B", 8, "gate_up", 64, 8192, 7168, 0.05032],
    ["Llama-3.1-70B", 8, "gate_up", 128, 8192, 7168, 0.0485],
    ["Llama-3.1-70B", 8, "gate_up", 256, 8192, 7168, 0.06251],
    ["Llama-3.1-70B", 8, "gate_up", 512, 8192, 7168, 0.11347],
    ["Llama-3.1-70B", 8, "gate_up", 1024, 8192, 7168, 0.2091],
    ["Llama-3.1-70B", 8, "gate_up", 2048, 8192, 7168, 0.37478],
    ["Llama-3.1-70B", 8, "gate_up", 4096, 8192, 7168, 0.66936],
    ["Llama-3.1-70B", 8, "gate_up", 8192, 8192, 7168, 1.3036],
    ["Llama-3.1-70B", 8, "down", 1, 3584, 8192, 0.03856],
    ["Llama-3.1-70B", 8, "down", 8, 3584, 8192, 0.0384],
    ["Llama-3.1-70B", 8, "down", 32, 3584, 8192, 0.03835],
    ["Llama-3.1-70B", 8, "down", 64, 3584, 8192, 0.03786],
    ["Llama-3.1-70B", 8, "down", 128, 3584, 8192, 0.03968],
    ["Llama-3.1-70B", 8, "down", 256, 3584, 8192, 0.04614],
    ["Llama-3.1-70B", 8, "down", 512, 3584, 8192, 0.06638],
    ["Llama-3.1-70B", 8, "down", 1024, 3584, 8192, 0.11232],
    ["Llama-3.1-70B", 8, "down", 2048, 3584, 8192, 0.2075],
    ["Llama-3.1-70B", 8, "down", 4096, 3584, 8192, 0.37718],
    ["Llama-3.1-70B", 8, "down", 8192, 3584, 8192, 0.72686],
  ],
  attention: [
    [32, 8, 128, 1024, 0.0872],
    [32, 8, 128, 2048, 0.2092],
    [32, 8, 128, 4096, 0.5945],
    [32, 8, 128, 8192, 1.8416],
    [32, 8, 128, 16384, 6.5799],
    [64, 8, 128, 1024, 0.1214],
    [64, 8, 128, 2048, 0.3009],
    [64, 8, 128, 4096, 0.9731],
    [64, 8, 128, 8192, 3.355],
    [64, 8, 128, 16384, 12.8906],
  ],
  decodeStep: [
    [1, 1024, 5.2056, 15009316864, 134217728],
    [8, 1024, 5.4289, 15009316864, 1073741824],
    [32, 1024, 6.0897, 15009316864, 4294967296],
    [64, 1024, 7.1665, 15009316864, 8589934592],
    [128, 1024, 10.6806, 15009316864, 17179869184],
    [1, 2048, 5.5842, 15009316864, 268435456],
    [8, 2048, 5.7742, 15009316864, 2147483648],
    [32, 2048, 7.0411, 15009316864, 8589934592],
    [64, 2048, 9.0461, 15009316864, 17179869184],
    [128, 2048, 14.6067, 15009316864, 34359738368],
    [1, 4096, 6.3182, 15009316864, 536870912],
    [8, 4096, 6.5042, 15009316864, 4294967296],
    [32, 4096, 8.8862, 15009316864, 17179869184],
    [64, 4096, 12.7728, 15009316864, 34359738368],
    [128, 4096, 22.3309, 15009316864, 68719476736],
    [1, 8192, 7.8267, 15009316864, 1073741824],
    [8, 8192, 7.9855, 15009316864, 8589934592],
    [32, 8192, 12.648, 15009316864, 34359738368],
    [64, 8192, 20.3755, 15009316864, 68719476736],
  ],
  prefillForward: [
    [1024, 30.945],
    [2048, 59.906],
    [4096, 121.918],
    [8192, 253.628],
  ],
};

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

/*
 * The rates a GPU runs the serving model's operations at: measured on an H200
 * (the measurements section of this file, a copy of tests/contracts/facts/h200-serving-calibration.json), and for
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
