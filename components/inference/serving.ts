/**
 * One worker's speed: how long a prefill of a prompt takes, how long a decode step takes at a batch size
 * and context, and the batch the KV cache allows. Pure arithmetic on the model's shape and a GPU's
 * measured rates (the rates section below); no Pulumi import. The load on several workers (queueing, the
 * two layouts, the balanced split) is the load section further down; the workload it is estimated for (its
 * annotation and its validation) is the last section, and the H200 measurements the rates come from the first.
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
import { KvLink, kvTransfer, kvLink, workerFit, efaPerWorker, usesEfa } from "./fit";
import {
  modelFacts,
  Backend,
  ResolvedInference,
  ResolvedRole,
  ResolvedWorkload,
  INFERENCE_DEFAULTS,
  resolveWorkload,
  WorkloadArgs,
  WORKLOAD_LIMITS as L,
} from "./args";
import { INSTANCES } from "../catalog/instances";
import type { GpuPoolFacts } from "../catalog/pool";
import { Annotation } from "../_shared/annotations";
import { checkNumberRange, checkRange } from "../_shared/limits";
import type { Problem } from "../_shared/problems";

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

/*
 * Workers under load: the time to first token (TTFT) and inter-token latency (ITL) a declared workload
 * sees on the disaggregated layout (prefill and decode workers) and on aggregated workers on the same GPUs,
 * the requests per second each sustains, and the prefill:decode split that balances the two roles. Pure;
 * per-worker speeds come from the sections above.
 *
 * Queueing (the approximations, chosen to be closed-form and monotone in the load):
 * - prefill workers are an M/D/c queue: Poisson arrivals, a deterministic service time per prompt; its wait is
 *   taken as half the M/M/c (Erlang C) wait, the usual M/D/c approximation. A prefill worker batches prompts
 *   up to `PREFILL_BATCH_TOKENS` tokens per forward, which sets its capacity;
 * - decode workers hold `b` sequences where Little's law balances: b = arrivals per worker x OSL x ITL(b);
 *   ITL(b) is the decode step at that batch, at the mean context ISL + OSL/2. No batch solves it above the KV
 *   cache's batch limit: the layout is saturated;
 * - aggregated workers (vLLM's chunked prefill, the same in TensorRT-LLM's in-flight batching) run prefill
 *   and decode in the same steps. Prefill takes the share u = arrivals per worker x prefill time per prompt of
 *   the GPU, and the decode batch advances only in the rest: ITL = step(b) / (1 - u) — prefill stalls
 *   decode. A prompt's own prefill is spread over ceil(ISL / (chunk budget - b)) steps, each also carrying
 *   the decode batch, so TTFT = prefill + those steps + an M/D/1 wait at utilisation u.
 * - disaggregated TTFT = prefill + M/D/c wait + the KV transfer + the first decode step.
 * A closed-loop load (`concurrency` requests in flight) is turned into an arrival rate by Little's law:
 * concurrency = rate x (TTFT + OSL x ITL).
 */

/** Prompt tokens one prefill forward takes at most (vLLM's chunk budget on large GPUs; the model's assumption). */
export const PREFILL_BATCH_TOKENS = 8192;

/** A declared workload, every default filled. */
export interface ServingWorkload {
  /** Prompt tokens per request. */
  readonly isl: number;
  /** Output tokens per request. */
  readonly osl: number;
  /** Open-loop arrival rate; exactly one of this and `concurrency`. */
  readonly requestsPerSecond?: number;
  /** Closed-loop requests in flight. */
  readonly concurrency?: number;
  /** TTFT objective, ms. */
  readonly ttftMs?: number;
  /** ITL objective, ms. */
  readonly itlMs?: number;
}

/** One role's workers: how fast each is and how many. */
export interface RoleWorkers {
  readonly speed: WorkerSpeed;
  readonly replicas: number;
}

/** What a layout gives at one arrival rate. `ttftMs`/`itlMs` are undefined when saturated. */
export interface LoadPoint {
  readonly requestsPerSecond: number;
  readonly ttftMs?: number;
  readonly itlMs?: number;
}

/** A layout: latency at an arrival rate, and the rate it saturates at. */
export interface Layout {
  readonly capacityRequestsPerSecond: number;
  at(requestsPerSecond: number): LoadPoint;
}

/** Erlang C: the probability an arrival waits, `c` servers at offered load `a` (< c) erlangs. */
export function erlangC(c: number, a: number): number {
  let term = 1;
  let sum = 1;
  for (let k = 1; k < c; k++) {
    term *= a / k;
    sum += term;
  }
  const last = (term * a) / c / (1 - a / c);
  return last / (sum + last);
}

/** M/D/c mean wait, ms: half the M/M/c wait. `serviceMs` per request, `rate` per second. */
export function mdcWaitMs(c: number, rate: number, serviceMs: number): number {
  const a = (rate * serviceMs) / 1000;
  if (a <= 0) return 0;
  if (a >= c) return Infinity;
  return (0.5 * erlangC(c, a) * serviceMs) / (c - a);
}

/** Largest x in [lo, hi] with ok(x), for ok true below some threshold and false above it. */
function bisect(lo: number, hi: number, ok: (x: number) => boolean, steps = 60): number {
  if (!ok(lo)) return lo;
  if (ok(hi)) return hi;
  let a = lo;
  let b = hi;
  for (let i = 0; i < steps; i++) {
    const m = (a + b) / 2;
    if (ok(m)) a = m;
    else b = m;
  }
  return a;
}

/** Mean context of a decoding sequence: its prompt and half its output. */
const meanContext = (wl: ServingWorkload) => wl.isl + wl.osl / 2;

/** Prompts per prefill forward and a prefill worker's requests per second at that batch. */
export function prefillCapacity(w: WorkerSpeed, isl: number): { prompts: number; requestsPerSecond: number } {
  const prompts = Math.max(1, Math.floor(PREFILL_BATCH_TOKENS / isl));
  return { prompts, requestsPerSecond: (prompts * 1000) / prefillMs(w, isl, prompts) };
}

/**
 * The decode batch Little's law gives one worker at `rate` arrivals per second, where a sequence's ITL at
 * batch b is `itl(b)`; undefined when none fits under `maxBatch`.
 */
function balancedBatch(rate: number, osl: number, maxBatch: number, itl: (b: number) => number): number | undefined {
  const excess = (b: number) => (rate * osl * itl(Math.max(1, b))) / 1000 - b;
  if (maxBatch < 1 || excess(maxBatch) > 0) return undefined;
  return bisect(0, maxBatch, (b) => excess(b) > 0);
}

/** A decode worker's requests per second at its largest batch (within the ITL objective when one is set). */
export function decodeCapacity(w: WorkerSpeed, wl: ServingWorkload): { batch: number; requestsPerSecond: number } {
  const ctx = meanContext(wl);
  const max = maxDecodeBatch(w, wl.isl, wl.osl);
  const itlOk = (b: number) => wl.itlMs === undefined || decodeStepMs(w, b, ctx) <= wl.itlMs;
  const batch = max < 1 ? 0 : Math.floor(bisect(1, max, itlOk));
  if (batch < 1 || !itlOk(batch)) return { batch: 0, requestsPerSecond: 0 };
  return { batch, requestsPerSecond: (batch * 1000) / (wl.osl * decodeStepMs(w, batch, ctx)) };
}

/**
 * Milliseconds to move one request's KV cache (ISL tokens) from a prefill worker of tensor parallel `tp`: the fit
 * section's expected time (each rank at the measured NIXL rate, at most its line rate), not the line-rate bound.
 */
export function requestKvTransferMs(
  m: ModelFacts,
  kvDtype: KvCacheDtype,
  isl: number,
  tp: number,
  link: KvLink,
): number {
  return kvTransfer(m, tp, kvDtype, isl, link).expectedMs;
}

/** The disaggregated layout: prefill and decode workers, the KV cache crossing `kvTransferMs` per request. */
export function disaggregated(p: RoleWorkers, d: RoleWorkers, wl: ServingWorkload, kvTransferMs: number): Layout {
  const pc = prefillCapacity(p.speed, wl.isl);
  const serviceMs = 1000 / pc.requestsPerSecond;
  const oneMs = prefillMs(p.speed, wl.isl);
  const maxBatch = maxDecodeBatch(d.speed, wl.isl, wl.osl);
  const step = (b: number) => decodeStepMs(d.speed, b, meanContext(wl));
  const dc = decodeCapacity(d.speed, { ...wl, itlMs: undefined });
  return {
    capacityRequestsPerSecond: Math.min(p.replicas * pc.requestsPerSecond, d.replicas * dc.requestsPerSecond),
    at(rate) {
      const wait = mdcWaitMs(p.replicas, rate, serviceMs);
      const b = balancedBatch(rate / d.replicas, wl.osl, maxBatch, step);
      if (!Number.isFinite(wait) || b === undefined) return { requestsPerSecond: rate };
      const itlMs = step(Math.max(1, b));
      return { requestsPerSecond: rate, ttftMs: oneMs + wait + kvTransferMs + itlMs, itlMs };
    },
  };
}

/** Aggregated workers: each runs prefill and decode of its own requests in the same steps. */
export function aggregated(a: RoleWorkers, wl: ServingWorkload): Layout {
  const pc = prefillCapacity(a.speed, wl.isl);
  const perPromptMs = 1000 / pc.requestsPerSecond;
  const oneMs = prefillMs(a.speed, wl.isl);
  const maxBatch = maxDecodeBatch(a.speed, wl.isl, wl.osl);
  const step = (b: number) => decodeStepMs(a.speed, b, meanContext(wl));
  const point = (rate: number): LoadPoint => {
    const perWorker = rate / a.replicas;
    const u = (perWorker * perPromptMs) / 1000;
    if (u >= 1) return { requestsPerSecond: rate };
    const b = balancedBatch(perWorker, wl.osl, maxBatch, (x) => step(x) / (1 - u));
    if (b === undefined) return { requestsPerSecond: rate };
    const itlMs = step(Math.max(1, b)) / (1 - u);
    const chunks = Math.ceil(wl.isl / Math.max(1, PREFILL_BATCH_TOKENS - b));
    const ownMs = oneMs + chunks * step(Math.max(1, b));
    const wait = (u * ownMs) / (2 * (1 - u));
    return { requestsPerSecond: rate, ttftMs: ownMs + wait, itlMs };
  };
  const stable = (rate: number) => point(rate).itlMs !== undefined;
  const capacity = bisect(0, a.replicas * pc.requestsPerSecond, stable);
  return { capacityRequestsPerSecond: capacity, at: point };
}

/** Whether a load point meets the workload's objectives (and is not saturated). */
export function meetsObjectives(p: LoadPoint, wl: ServingWorkload): boolean {
  if (p.ttftMs === undefined || p.itlMs === undefined) return false;
  return (wl.ttftMs === undefined || p.ttftMs <= wl.ttftMs) && (wl.itlMs === undefined || p.itlMs <= wl.itlMs);
}

/** The most requests per second a layout serves within the workload's objectives (its capacity without any). */
export function goodput(l: Layout, wl: ServingWorkload): number {
  const cap = l.capacityRequestsPerSecond;
  if (cap <= 0) return 0;
  return bisect(0, cap * (1 - 1e-9), (r) => r === 0 || meetsObjectives(l.at(r), wl));
}

/** The load point of a layout at the workload's declared load (closed loop: Little's law). */
export function atLoad(l: Layout, wl: ServingWorkload): LoadPoint {
  if (wl.requestsPerSecond !== undefined) return l.at(wl.requestsPerSecond);
  const n = wl.concurrency ?? 1;
  const inFlight = (r: number) => {
    const p = l.at(r);
    return p.ttftMs === undefined || p.itlMs === undefined ? Infinity : (r * (p.ttftMs + wl.osl * p.itlMs)) / 1000;
  };
  const cap = l.capacityRequestsPerSecond * (1 - 1e-9);
  return l.at(bisect(0, cap, (r) => inFlight(r) <= n));
}

/** Requests per second a layout serves at the declared load: the load when it keeps up, else its capacity. */
export function servedAtLoad(l: Layout, wl: ServingWorkload): number {
  const p = atLoad(l, wl);
  return p.itlMs === undefined ? l.capacityRequestsPerSecond : p.requestsPerSecond;
}

/**
 * What each layout serves: requests per second within the objectives when any is declared, else requests per
 * second served at the declared load.
 */
export function layoutThroughputs(disagg: Layout, agg: Layout, wl: ServingWorkload): { disagg: number; agg: number } {
  const slo = wl.ttftMs !== undefined || wl.itlMs !== undefined;
  const of = (l: Layout) => (slo ? goodput(l, wl) : servedAtLoad(l, wl));
  return { disagg: of(disagg), agg: of(agg) };
}

/** Disaggregated over aggregated (`layoutThroughputs`); undefined when the aggregated layout serves none. */
export function disaggGain(disagg: Layout, agg: Layout, wl: ServingWorkload): number | undefined {
  const t = layoutThroughputs(disagg, agg, wl);
  return t.agg > 0 ? t.disagg / t.agg : undefined;
}

/**
 * The prefill and decode replica counts that balance the two roles on `gpus` GPUs: the split with the most
 * requests per second through its slower role (decode within the ITL objective when one is set); ties
 * go to fewer prefill workers.
 */
export function balancedSplit(
  p: WorkerSpeed,
  d: WorkerSpeed,
  gpus: number,
  wl: ServingWorkload,
): { prefill: number; decode: number; requestsPerSecond: number } | undefined {
  const pr = prefillCapacity(p, wl.isl).requestsPerSecond;
  const dr = decodeCapacity(d, wl).requestsPerSecond;
  let best: { prefill: number; decode: number; requestsPerSecond: number } | undefined;
  for (let np = 1; np * p.tp + d.tp <= gpus; np++) {
    const nd = Math.floor((gpus - np * p.tp) / d.tp);
    const rps = Math.min(np * pr, nd * dr);
    if (!best || rps > best.requestsPerSecond * (1 + 1e-9)) best = { prefill: np, decode: nd, requestsPerSecond: rps };
  }
  return best;
}

/*
 * The serving estimate of a graph (`plan.json` `serving`): from the model, the two roles' workers and the
 * declared workload, what one worker of each role does, what the layout gives at the load and
 * what aggregated workers on the same GPUs would give (the sections above), the gain of disaggregation and the
 * balanced split. Pure; the plan and the policy read a graph into `ServingInput` (policy/rules/_serving.ts).
 */

/** Batch sizes `serving.roles.decode.decodeStepMs` is keyed by. */
export const REPORTED_BATCHES = [1, 8, 32, 64, 128] as const;

/** Gain within which neither layout is said to win (the model's resolution is coarser than 2%). */
export const EVEN_WITHIN = 0.02;

/** One role's workers as the graph runs them. */
export interface ServingRoleInput {
  readonly replicas: number;
  readonly tensorParallel: number;
  readonly maxModelLen: number;
  readonly gpuMemoryUtilization: number;
  /** EFA devices of one worker (0 = KV over TCP). */
  readonly efaDevices: number;
}

/** What the estimate is computed from. */
export interface ServingInput {
  readonly model: ModelFacts;
  readonly kvCacheDtype: KvCacheDtype;
  readonly backend: Backend;
  readonly pool: Pick<GpuPoolFacts, "instanceType">;
  readonly prefill: ServingRoleInput;
  readonly decode: ServingRoleInput;
  readonly workload: ResolvedWorkload;
}

/** Latencies at a load; null when the layout cannot keep up with it (saturated). */
export interface ServingLatency {
  readonly requestsPerSecond: number;
  readonly ttftMs: number | null;
  readonly itlMs: number | null;
}

/** `plan.json` `serving`. */
export interface ServingEstimate extends ServingLatency {
  readonly workload: ResolvedWorkload;
  readonly calibration: { readonly gpu: string; readonly scaled: boolean; readonly basis: string };
  readonly roles: {
    readonly prefill: {
      readonly replicas: number;
      readonly gpusPerWorker: number;
      /** One ISL prompt, batch 1, one worker. */
      readonly prefillMs: number;
      readonly promptsPerForward: number;
      readonly requestsPerSecond: number;
      /** KV cache of one prompt to its decode worker (the fit section's transfer time). */
      readonly kvTransferMs: number;
    };
    readonly decode: {
      readonly replicas: number;
      readonly gpusPerWorker: number;
      /** Context of `decodeStepMs`: ISL + OSL. */
      readonly contextTokens: number;
      readonly decodeStepMs: Readonly<Record<string, number>>;
      /** Sequences the KV cache holds at once (at most the engine's 256). */
      readonly maxBatch: number;
      readonly tokensPerSecond: number;
      readonly requestsPerSecond: number;
    };
  };
  /** Requests per second the layout sustains at most. */
  readonly capacityRequestsPerSecond: number;
  readonly aggregated: ServingLatency & {
    readonly replicas: number;
    readonly gpusPerWorker: number;
    readonly capacityRequestsPerSecond: number;
  };
  /** Disaggregated / aggregated requests per second within the objectives (at the load when none); null when aggregated serves none. */
  readonly disaggGain: number | null;
  readonly winner: "disaggregated" | "aggregated" | "even";
  /** Whether the estimate at the load meets each declared objective. */
  readonly objectives: { readonly ttft?: boolean; readonly itl?: boolean };
  /** Prefill and decode workers that balance the two roles on the same GPUs. */
  readonly recommended: { readonly prefill: number; readonly decode: number; readonly requestsPerSecond: number };
  /** TTFT and ITL of both layouts over a range of arrival rates (the plan's chart). */
  readonly curve: readonly {
    readonly requestsPerSecond: number;
    readonly disaggregated: ServingLatency;
    readonly aggregated: ServingLatency;
  }[];
}

const r3 = (n: number) => (n >= 100 ? Math.round(n * 10) / 10 : Math.round(n * 1000) / 1000);

function latency(p: LoadPoint, served: number): ServingLatency {
  return {
    requestsPerSecond: r3(served),
    ttftMs: p.ttftMs === undefined ? null : r3(p.ttftMs),
    itlMs: p.itlMs === undefined ? null : r3(p.itlMs),
  };
}

/** One worker of a role: its speed on the pool's GPUs and its KV capacity from the fit. */
function speedOf(i: ServingInput, r: ServingRoleInput, rates: GpuRates): WorkerSpeed {
  const instance = INSTANCES.get(i.pool.instanceType)!;
  const fit = workerFit({
    model: i.model,
    instance,
    backend: i.backend,
    tensorParallel: r.tensorParallel,
    maxModelLen: r.maxModelLen,
    gpuMemoryUtilization: r.gpuMemoryUtilization,
    kvCacheDtype: i.kvCacheDtype,
  });
  const shape = servingShape(i.model);
  return { shape, tp: r.tensorParallel, rates, kvCacheDtype: i.kvCacheDtype, kvCapacityTokens: fit.kvCapacityTokens };
}

function curveOf(d: Layout, a: Layout): ServingEstimate["curve"] {
  const top = Math.max(d.capacityRequestsPerSecond, a.capacityRequestsPerSecond);
  return [0.1, 0.25, 0.5, 0.7, 0.85, 0.95, 1.1].map((f) => {
    const rate = top * f;
    return {
      requestsPerSecond: r3(rate),
      disaggregated: latency(d.at(rate), rate),
      aggregated: latency(a.at(rate), rate),
    };
  });
}

/** Which layout serves more; "even" within `EVEN_WITHIN`, or when neither serves any. */
function winnerOf(t: { disagg: number; agg: number }): ServingEstimate["winner"] {
  if (t.agg <= 0) return t.disagg > 0 ? "disaggregated" : "even";
  const gain = t.disagg / t.agg;
  if (gain < 1 - EVEN_WITHIN) return "aggregated";
  return gain > 1 + EVEN_WITHIN ? "disaggregated" : "even";
}

function roles(i: ServingInput, p: WorkerSpeed, d: WorkerSpeed, kvMs: number): ServingEstimate["roles"] {
  const wl = i.workload;
  const pc = prefillCapacity(p, wl.isl);
  const dc = decodeCapacity(d, { ...wl, itlMs: undefined });
  const ctx = wl.isl + wl.osl;
  return {
    prefill: {
      replicas: i.prefill.replicas,
      gpusPerWorker: i.prefill.tensorParallel,
      prefillMs: r3(prefillMs(p, wl.isl)),
      promptsPerForward: pc.prompts,
      requestsPerSecond: r3(pc.requestsPerSecond),
      kvTransferMs: r3(kvMs),
    },
    decode: {
      replicas: i.decode.replicas,
      gpusPerWorker: i.decode.tensorParallel,
      contextTokens: ctx,
      decodeStepMs: Object.fromEntries(REPORTED_BATCHES.map((b) => [String(b), r3(decodeStepMs(d, b, ctx))])),
      maxBatch: maxDecodeBatch(d, wl.isl, wl.osl),
      tokensPerSecond: r3(dc.requestsPerSecond * wl.osl),
      requestsPerSecond: r3(dc.requestsPerSecond),
    },
  };
}

/** The estimate, or why there is none (a GPU without datasheet rates, a worker whose weights do not fit). */
export function servingEstimate(i: ServingInput): ServingEstimate | { why: string } {
  const instance = INSTANCES.get(i.pool.instanceType);
  if (!instance) return { why: `instance type ${i.pool.instanceType} is not in the instance catalog` };
  const rates = ratesFor(instance.gpuModel);
  if (!rates)
    return {
      why: `no datasheet rates for the ${instance.gpuModel} (components/catalog/gpu-datasheet.ts) to scale the H200 calibration to`,
    };
  const wl = i.workload;
  const p = speedOf(i, i.prefill, rates);
  const d = speedOf(i, i.decode, rates);
  if (maxDecodeBatch(d, wl.isl, wl.osl) < 1)
    return { why: `the decode worker's KV cache does not hold one request of ${wl.isl + wl.osl} tokens` };
  const kvMs = requestKvTransferMs(
    i.model,
    i.kvCacheDtype,
    wl.isl,
    i.prefill.tensorParallel,
    kvLink(i.pool as GpuPoolFacts, i.prefill.efaDevices),
  );
  const dis = disaggregated(
    { speed: p, replicas: i.prefill.replicas },
    { speed: d, replicas: i.decode.replicas },
    wl,
    kvMs,
  );
  const gpus = i.prefill.replicas * i.prefill.tensorParallel + i.decode.replicas * i.decode.tensorParallel;
  const aggReplicas = Math.max(1, Math.floor(gpus / i.decode.tensorParallel));
  const agg = aggregated({ speed: d, replicas: aggReplicas }, wl);
  const atD = atLoad(dis, wl);
  const atA = atLoad(agg, wl);
  const served = layoutThroughputs(dis, agg, wl);
  const gain = served.agg > 0 ? served.disagg / served.agg : undefined;
  const split = balancedSplit(p, d, gpus, wl);
  return {
    workload: wl,
    calibration: { gpu: rates.gpuModel, scaled: rates.scaled, basis: rates.basis },
    roles: roles(i, p, d, kvMs),
    ...latency(atD, servedAtLoad(dis, wl)),
    capacityRequestsPerSecond: r3(dis.capacityRequestsPerSecond),
    aggregated: {
      replicas: aggReplicas,
      gpusPerWorker: i.decode.tensorParallel,
      ...latency(atA, servedAtLoad(agg, wl)),
      capacityRequestsPerSecond: r3(agg.capacityRequestsPerSecond),
    },
    disaggGain: gain === undefined ? null : r3(gain),
    winner: winnerOf(served),
    objectives: {
      ...(wl.ttftMs !== undefined ? { ttft: meetsObjectives(atD, { ...wl, itlMs: undefined }) } : {}),
      ...(wl.itlMs !== undefined ? { itl: meetsObjectives(atD, { ...wl, ttftMs: undefined }) } : {}),
    },
    recommended: split
      ? { prefill: split.prefill, decode: split.decode, requestsPerSecond: r3(split.requestsPerSecond) }
      : { prefill: i.prefill.replicas, decode: i.decode.replicas, requestsPerSecond: 0 },
    curve: curveOf(dis, agg),
  };
}

/** The serving input of resolved settings (what `verify` compares with); undefined for a model of unknown shape. */
export function servingInputOf(r: ResolvedInference): ServingInput | undefined {
  const model = modelFacts(r.model, r.modelShape);
  if (!model) return undefined;
  const role = (a: ResolvedRole): ServingRoleInput => ({
    replicas: a.replicas,
    tensorParallel: a.gpusPerWorker,
    maxModelLen: r.maxModelLen,
    gpuMemoryUtilization: r.gpuMemoryUtilization,
    efaDevices: usesEfa(r) ? efaPerWorker(r.pool, a.gpusPerWorker) : 0,
  });
  return {
    model,
    kvCacheDtype: r.kvCacheDtype,
    backend: r.backend,
    pool: r.pool,
    prefill: role(r.prefill),
    decode: role(r.decode),
    workload: r.workload,
  };
}

/*
 * The declared workload on the DynamoGraphDeployment: `dynamo-efa/workload`, the resolved workload as JSON,
 * written only when the config declares one, so the plan, the policy `serving-estimate-meets-workload` and a
 * person reading the graph see the traffic the estimate is for. A graph without it is estimated at the
 * defaults (`INFERENCE_DEFAULTS.workload`). Pure.
 */
/** The annotation of a declared workload (nothing for the defaults, so undeclared graphs render as before). */
export function workloadAnnotations(r: Pick<ResolvedInference, "workload">): Record<string, string> {
  if (!r.workload.declared) return {};
  const { declared: _declared, ...w } = r.workload;
  return { [Annotation.Workload]: JSON.stringify(w) };
}

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : undefined);

/**
 * The workload of a graph's annotations: the annotation's, else the defaults; a reason when the annotation is
 * not a workload (a hand edit).
 */
export function workloadOf(annotations: Readonly<Record<string, string>>): ResolvedWorkload | { why: string } {
  const raw = annotations[Annotation.Workload];
  if (raw === undefined) return resolveWorkload(undefined);
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(raw) as Record<string, unknown>;
  } catch (e) {
    return { why: `annotation ${Annotation.Workload} is not JSON (${(e as Error).message})` };
  }
  const w: WorkloadArgs = {
    isl: num(v?.isl) ?? INFERENCE_DEFAULTS.workload.isl,
    osl: num(v?.osl) ?? INFERENCE_DEFAULTS.workload.osl,
    ...(num(v?.requestsPerSecond) ? { requestsPerSecond: num(v.requestsPerSecond) } : {}),
    ...(num(v?.concurrency) ? { concurrency: num(v.concurrency) } : {}),
    ...(num(v?.ttftMs) ? { ttftMs: num(v.ttftMs) } : {}),
    ...(num(v?.itlMs) ? { itlMs: num(v.itlMs) } : {}),
  };
  return resolveWorkload(w);
}

/*
 * The declared workload (`workload`) against its bounds and the graph: one load, not two, and requests that
 * fit `maxModelLen` (the engine refuses a longer one, so the estimate would be for traffic that cannot run).
 * Pure.
 */

/** Every problem with `r.workload`; none when it was not declared (the defaults are valid by construction). */
export function validateWorkload(r: ResolvedInference, at: (k: string) => string): Problem[] {
  const w = r.workload;
  if (!w.declared) return [];
  const p = (k: string) => at(`workload.${k}`);
  const out: Problem[] = [...checkRange(p("isl"), w.isl, L.isl), ...checkRange(p("osl"), w.osl, L.osl)];
  if (w.concurrency !== undefined) out.push(...checkRange(p("concurrency"), w.concurrency, L.concurrency));
  if (w.requestsPerSecond !== undefined)
    out.push(...checkNumberRange(p("requestsPerSecond"), w.requestsPerSecond, L.requestsPerSecond, "a rate", 20));
  if (w.ttftMs !== undefined) out.push(...checkNumberRange(p("ttftMs"), w.ttftMs, L.ttftMs, "milliseconds", 1000));
  if (w.itlMs !== undefined) out.push(...checkNumberRange(p("itlMs"), w.itlMs, L.itlMs, "milliseconds", 25));
  if (w.requestsPerSecond !== undefined && w.concurrency !== undefined)
    out.push({
      propertyPath: p("concurrency"),
      reason: `(${w.concurrency}) and workload.requestsPerSecond (${w.requestsPerSecond}) are both set; the load is one of them: an open-loop arrival rate or a closed-loop concurrency. Remove one`,
    });
  if (out.length === 0 && w.isl + w.osl > r.maxModelLen)
    out.push({
      propertyPath: p("isl"),
      reason: `(${w.isl}) + workload.osl (${w.osl}) = ${w.isl + w.osl} tokens exceeds ${at("maxModelLen")} (${r.maxModelLen}): the engine refuses such a request. Raise ${at("maxModelLen")} to at least ${w.isl + w.osl} or shorten the workload`,
    });
  return out;
}
