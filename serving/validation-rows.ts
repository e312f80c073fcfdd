/**
 * The serving model's setups of published measurements: for each, what was published and what the model predicts for
 * the same setup, in four sets kept apart (docs/SERVING.md#validation):
 * - calibration: what the model is fitted on, the H200 decode steps of serving/facts/h200-serving-attention.json
 *   (reproduced by construction; shown so that a refit that drifts is seen);
 * - validation: published measurements the model's rates never saw, whose errors give each regime's bias correction
 *   and range (serving/bands.json): TensorRT-LLM's H100 offline throughput, NVIDIA NIM's Llama-3.1-8B latencies,
 *   Dynamo's p5 disaggregation table;
 * - held-out: published measurements nothing is fitted on, neither the rates nor the bands: TensorRT-LLM's H200
 *   offline throughput, NIM's Llama-3.3-70B TP2 latencies, NVIDIA's Llama-3.1-70B disaggregated-against-aggregated
 *   pair on H100 (triton-distributed-disagg.json);
 * - reference: AIConfigurator's H200 case, a model's prediction rather than a measurement.
 * Each row: what was published, what the model predicts for the same setup (null: no estimate, and why), its regime
 * and quantity. Pure.
 */
import { INSTANCES } from "../components/catalog/instances";
import { factsOfRow, KvCacheDtype, modelFacts, ModelFacts, modelRow, WeightDtype } from "../components/catalog/models";
import { Backend } from "../components/inference/args";
import { workerFit } from "../components/inference/fit";
import { engineSettings } from "./engine-settings";
import { loadOf, Quantity, regimeOf, ttftRegime } from "./errors";
import { decodeStepMs, H200_MEASUREMENTS, prefillMs, ratesFor, servingShape, WorkerSpeed } from "./worker-speed";
import * as L from "./layouts";
import trtllmPerf from "./published/trtllm-perf-overview.json";
import nim8b from "./published/nim-llama-3.1-8b-h100.json";
import nim70b from "./published/nim-llama-3.3-70b-h100-tp2.json";
import dynamoP5 from "./published/dynamo-disagg-p5.json";
import aicCase from "./published/aiconfigurator-h200-case.json";
import tritonDistributed from "./published/triton-distributed-disagg.json";

/** The facts of a published-measurement file (serving/published/, each with its provenance; tests/contracts/facts.spec.ts checks it). */
const factsOf = <T>(file: unknown): T => (file as { facts: T }).facts;

/** The sets of rows, kept apart. */
export const SETS = ["calibration", "validation", "held-out", "reference"] as const;
export type ValidationSet = (typeof SETS)[number];

/** One row of the table. */
export interface ValidationRow {
  readonly set: ValidationSet;
  readonly source: string;
  readonly setup: string;
  readonly quantity: Quantity;
  readonly label: string;
  readonly regime: string;
  readonly published: number;
  /** null: no estimate (`why`). */
  readonly predicted: number | null;
  readonly why?: string;
}

/** A worker of `m` on `instanceType` at tensor parallel `tp` under `backend` (fit at 0.9 of GPU memory). */
export function worker(
  m: ModelFacts,
  instanceType: string,
  tp: number,
  maxLen: number,
  kv: KvCacheDtype,
  backend: Backend,
) {
  const instance = INSTANCES.get(instanceType)!;
  const fit = workerFit({
    model: m,
    instance,
    backend,
    tensorParallel: tp,
    gpuMemoryUtilization: 0.9,
    maxModelLen: maxLen,
    kvCacheDtype: kv,
  });
  const speed: WorkerSpeed = {
    shape: servingShape(m),
    tp,
    rates: ratesFor(instance.gpuModel)!,
    kvCacheDtype: kv,
    kvCapacityTokens: fit.kvCapacityTokens,
    engine: engineSettings(backend, instance.gpuModel, instance.gpuMemoryGiB),
  };
  return speed;
}

const isMoe = (m: ModelFacts) => m.paramsActive !== undefined && m.paramsActive < m.paramsTotal;
const regime = (m: ModelFacts, tp: number) => regimeOf({ moe: isMoe(m), tp });
/** A catalog model with FP8 linear weights (NVIDIA's ModelOpt FP8 checkpoints, which also quantize the KV cache). */
const fp8Of = (id: string) => factsOfRow({ ...modelRow(id)!, weights: { dtype: WeightDtype.Fp8, scope: "linear" } });
const INSTANCE_OF = { H100: "p5.48xlarge", H200: "p5en.48xlarge" } as const;

/**
 * The calibration rows: every measured 8B decode step with bf16 KV and the paged split-KV attention the model prices
 * (bf16 and FP8 weights, batch 1-1024, context 512-128k; CUDA graphs, as measured).
 */
export function calibrationRows(): ValidationRow[] {
  const m8 = modelFacts("meta-llama/Llama-3.1-8B-Instruct")!;
  const m8fp8 = fp8Of("meta-llama/Llama-3.1-8B-Instruct");
  return H200_MEASUREMENTS.decodeStep
    .filter(([, kvDtype]) => kvDtype === "bf16")
    .map(([weights, kvDtype, b, ctx, ms]) => {
      const m = weights === "fp8" ? m8fp8 : m8;
      const w = worker(m, "p5en.48xlarge", 1, ctx + 1, KvCacheDtype.Auto, Backend.Trtllm);
      return {
        set: "calibration",
        source: "H200 measurement (this project)",
        setup: `Llama-3.1-8B shape, ${weights} weights, ${kvDtype} KV, 1 x H200`,
        quantity: "itl",
        label: `decode step ms, batch ${b}, context ${ctx}`,
        regime: regime(m, 1),
        published: ms,
        predicted: decodeStepMs({ ...w, kvCapacityTokens: 1e9 }, b, ctx),
      };
    });
}

interface PerfPoint {
  model: string;
  gpu: "H100" | "H200";
  tp: number;
  isl: number;
  osl: number;
  outputTokensPerSecond: number;
}
/** The TensorRT-LLM table's models in the catalog. */
const TRT_MODELS: Readonly<Record<string, string>> = {
  "Llama 3.1 8B": "meta-llama/Llama-3.1-8B-Instruct",
  "Llama 3.3 70B": "meta-llama/Llama-3.3-70B-Instruct",
  "Llama 3.1 405B": "meta-llama/Llama-3.1-405B-Instruct",
  "Qwen3-235B-A22B": "Qwen/Qwen3-235B-A22B",
};

/** TensorRT-LLM's offline throughput: one aggregated worker at its capacity (every request queued at once). */
export function trtllmRows(): ValidationRow[] {
  const points = factsOf<{ points: PerfPoint[] }>(trtllmPerf).points;
  // Llama 4 (Scout, Maverick) is not in the model catalog: not a setup the estimate is asked about.
  return points
    .filter((p) => TRT_MODELS[p.model] !== undefined)
    .map((p) => {
      const base = {
        set: p.gpu === "H100" ? ("validation" as const) : ("held-out" as const),
        source: "TensorRT-LLM perf overview",
        setup: `${p.model} FP8, ${p.gpu} TP${p.tp}`,
        quantity: "throughput" as const,
        label: `output tokens/s, ISL ${p.isl} / OSL ${p.osl}`,
        published: p.outputTokensPerSecond,
      };
      const id = TRT_MODELS[p.model]!;
      const m = fp8Of(id);
      const w = worker(m, INSTANCE_OF[p.gpu], p.tp, p.isl + p.osl, KvCacheDtype.Fp8, Backend.Trtllm);
      const a = L.aggregated({ speed: w, replicas: 1 }, { isl: p.isl, osl: p.osl, concurrency: 1 });
      const note = isMoe(m) ? " (published with attention DP + EP; estimated as TP)" : "";
      return {
        ...base,
        setup: base.setup + note,
        regime: regime(m, p.tp),
        predicted: a.capacityRequestsPerSecond * p.osl,
      };
    });
}

interface NimFacts {
  rows: {
    isl: number;
    osl: number;
    concurrency: number;
    ttftMs: number;
    itlMs: number;
    outputTokensPerSecond: number;
  }[];
}
/** NIM's closed-loop latency at concurrency 1, 5 and 25 (one aggregated TensorRT-LLM worker on H100, FP8). */
export function nimRows(): ValidationRow[] {
  const runs = [
    [nim8b, "meta-llama/Llama-3.1-8B-Instruct", 1],
    [nim70b, "meta-llama/Llama-3.3-70B-Instruct", 2],
  ] as const;
  return runs.flatMap(([file, id, tp]) => {
    const m = fp8Of(id);
    return factsOf<NimFacts>(file)
      .rows.filter((r) => [1, 5, 25].includes(r.concurrency))
      .flatMap((r): ValidationRow[] => {
        const wl = { isl: r.isl, osl: r.osl, concurrency: r.concurrency };
        const w = worker(m, "p5.48xlarge", tp, r.isl + r.osl, KvCacheDtype.Fp8, Backend.Trtllm);
        const p = L.atLoad(L.aggregated({ speed: w, replicas: 1 }, wl), wl);
        const row = {
          set: tp === 1 ? ("validation" as const) : ("held-out" as const),
          source: "NVIDIA NIM 1.8.0",
          setup: `${id.split("/")[1]} FP8, H100 TP${tp}`,
          regime: regime(m, tp),
        };
        const at = `ISL ${r.isl} / OSL ${r.osl}, ${r.concurrency} in flight`;
        return [
          {
            ...row,
            quantity: "ttft",
            regime: ttftRegime(row.regime, loadOf(wl)),
            label: `TTFT ms (mean), ${at}`,
            published: r.ttftMs,
            predicted: p.ttftMs ?? null,
          },
          { ...row, quantity: "itl", label: `ITL ms (mean), ${at}`, published: r.itlMs, predicted: p.itlMs ?? null },
        ];
      });
  });
}

interface DynamoP5 {
  readonly model: string;
  readonly instanceType: string;
  readonly osl: number;
  readonly concurrency: number;
  readonly throughputGainByIsl: Readonly<Record<string, number>>;
  readonly isl8000: Readonly<
    Record<"aggregated" | "disaggregated", { outputTokensPerSecond: number; itlMsAvg: number; ttftMsMin: number }>
  >;
  readonly kvTransferMsIsl8000: number;
}

/** Dynamo's p5 table: 1 aggregated worker against 1 prefill + 1 decode worker (vLLM), closed loop (the facts' notes). */
export function dynamoRows(): ValidationRow[] {
  const f = factsOf<DynamoP5>(dynamoP5);
  const m = modelFacts(f.model)!;
  const row = {
    set: "validation" as const,
    source: "Dynamo p5 (H100)",
    setup: "Llama-3.1-8B bf16, vLLM, 1P+1D vs 1 agg",
    regime: regime(m, 1),
  };
  const rows: ValidationRow[] = [];
  for (const [isl, gain] of Object.entries(f.throughputGainByIsl)) {
    const wl: L.ServingWorkload = { isl: Number(isl), osl: f.osl, concurrency: f.concurrency };
    const w = worker(m, f.instanceType, 1, wl.isl + wl.osl, KvCacheDtype.Auto, Backend.Vllm);
    const kvMs = (f.kvTransferMsIsl8000 * wl.isl) / 8000;
    const d = L.disaggregated({ speed: w, replicas: 1 }, { speed: w, replicas: 1 }, wl, kvMs);
    const a = L.aggregated({ speed: w, replicas: 1 }, wl);
    rows.push({
      ...row,
      quantity: "gain",
      label: `disagg / agg throughput, ISL ${isl}`,
      published: 1 + gain,
      predicted: L.disaggGain(d, a, wl) ?? null,
    });
    if (isl === "8000") rows.push(...dynamoIsl8000Rows(f, w, d, a, wl, row));
  }
  return rows;
}

/** Dynamo's ISL-8000 throughputs, ITLs and unqueued TTFTs. */
function dynamoIsl8000Rows(
  f: DynamoP5,
  w: WorkerSpeed,
  d: L.Layout,
  a: L.Layout,
  wl: L.ServingWorkload,
  row: Pick<ValidationRow, "set" | "source" | "setup" | "regime">,
): ValidationRow[] {
  const pd = L.atLoad(d, wl);
  const pa = L.atLoad(a, wl);
  const pub = f.isl8000;
  const unqueued = prefillMs(w, wl.isl) + decodeStepMs(w, 1, wl.isl);
  return [
    {
      ...row,
      quantity: "throughput",
      label: "agg output tokens/s, ISL 8000",
      published: pub.aggregated.outputTokensPerSecond,
      predicted: pa.requestsPerSecond * f.osl,
    },
    {
      ...row,
      quantity: "throughput",
      label: "disagg output tokens/s, ISL 8000",
      published: pub.disaggregated.outputTokensPerSecond,
      predicted: pd.requestsPerSecond * f.osl,
    },
    {
      ...row,
      quantity: "itl",
      label: "agg ITL ms (avg), ISL 8000",
      published: pub.aggregated.itlMsAvg,
      predicted: pa.itlMs ?? null,
    },
    {
      ...row,
      quantity: "itl",
      label: "disagg ITL ms (avg), ISL 8000",
      published: pub.disaggregated.itlMsAvg,
      predicted: pd.itlMs ?? null,
    },
    {
      ...row,
      quantity: "ttft",
      regime: ttftRegime(row.regime, "1 in flight"),
      label: "agg TTFT ms (min, unqueued), ISL 8000",
      published: pub.aggregated.ttftMsMin,
      predicted: unqueued,
    },
    {
      ...row,
      quantity: "ttft",
      regime: ttftRegime(row.regime, "1 in flight"),
      label: "disagg TTFT ms (min, unqueued), ISL 8000",
      published: pub.disaggregated.ttftMsMin,
      predicted: unqueued + f.kvTransferMsIsl8000,
    },
  ];
}

interface AicCase {
  readonly isl: number;
  readonly osl: number;
  readonly ttftMs: number;
  readonly tpotMs: number;
  readonly disaggregated: {
    tokensPerSecondPerGpu: number;
    prefillWorkers: number;
    prefillTp: number;
    decodeWorkers: number;
    decodeTp: number;
    replicas: number;
  };
  readonly aggregated: { tokensPerSecondPerGpu: number; ttftMs: number; replicas: number; tp: number; batch: number };
  readonly disaggOverAgg: number;
}

/** AIConfigurator's H200 case (its prediction, TensorRT-LLM, Qwen3-32B FP8 + FP8 KV): tokens/s/GPU within TTFT <= 300 ms, TPOT <= 10 ms. */
export function aiconfiguratorRows(): ValidationRow[] {
  const f = factsOf<AicCase>(aicCase);
  const m = fp8Of("Qwen/Qwen3-32B");
  const wl: L.ServingWorkload = { isl: f.isl, osl: f.osl, ttftMs: f.ttftMs, itlMs: f.tpotMs, concurrency: 1 };
  const len = f.isl + f.osl;
  const dd = f.disaggregated;
  const at = (tp: number) => worker(m, "p5en.48xlarge", tp, len, KvCacheDtype.Fp8, Backend.Trtllm);
  const gpusD = dd.replicas * (dd.prefillWorkers * dd.prefillTp + dd.decodeWorkers * dd.decodeTp);
  const d = L.disaggregated(
    { speed: at(dd.prefillTp), replicas: dd.replicas * dd.prefillWorkers },
    { speed: at(dd.decodeTp), replicas: dd.replicas * dd.decodeWorkers },
    wl,
    0,
  );
  const a = L.aggregated({ speed: at(f.aggregated.tp), replicas: f.aggregated.replicas }, wl);
  const perGpuD = (L.goodput(d, wl) * f.osl) / gpusD;
  const perGpuA = (L.goodput(a, wl) * f.osl) / (f.aggregated.replicas * f.aggregated.tp);
  const row = {
    set: "reference" as const,
    source: "AIConfigurator H200 (its prediction)",
    setup: "Qwen3-32B FP8, TRT-LLM, 32 x H200",
    regime: regime(m, 4),
  };
  return [
    {
      ...row,
      quantity: "throughput",
      label: "disagg tokens/s/GPU within SLO",
      published: dd.tokensPerSecondPerGpu,
      predicted: perGpuD,
    },
    {
      ...row,
      quantity: "throughput",
      label: "agg tokens/s/GPU within SLO",
      published: f.aggregated.tokensPerSecondPerGpu,
      predicted: perGpuA,
    },
    { ...row, quantity: "gain", label: "disagg / agg", published: f.disaggOverAgg, predicted: perGpuD / perGpuA },
  ];
}

interface TritonDistributed {
  readonly isl: number;
  readonly osl: number;
  readonly disaggregated: {
    prefill: { tensorParallel: number; workers: number };
    decode: { tensorParallel: number; workers: number };
    concurrency: number;
    outputTokensPerSecondPerGpu: number;
    ttftMs: number;
    itlMs: number;
  };
  readonly aggregated: {
    worker: { tensorParallel: number; workers: number };
    concurrency: number;
    outputTokensPerSecondPerGpu: number;
    ttftMs: number;
    itlMs: number;
  };
}

/**
 * NVIDIA's Llama-3.1-70B FP8 pair on H100 (vLLM, closed loop, ISL 3000 / OSL 150): 4 prefill workers of TP2 and one
 * decode worker of TP8 at 48 in flight, against one aggregated TP4 worker at 4 in flight; each number and the gain
 * per GPU. Held out.
 */
export function tritonDistributedRows(): ValidationRow[] {
  const f = factsOf<TritonDistributed>(tritonDistributed);
  const { perGpuD, perGpuA, pd, pa } = tritonDistributedLayouts(f);
  const fd = f.disaggregated;
  const fa = f.aggregated;
  const row = {
    set: "held-out" as const,
    source: "NVIDIA triton_distributed (H100)",
    setup: "Llama-3.1-70B FP8, vLLM, 4P TP2 + 1D TP8 vs 1 agg TP4",
  };
  const m = fp8Of("meta-llama/Llama-3.1-70B-Instruct");
  const dense = (tp: number) => regime(m, tp);
  const loaded = (tp: number) => ttftRegime(dense(tp), "closed loop");
  const of = (quantity: Quantity, label: string, reg: string, published: number, predicted: number | undefined) => ({
    ...row,
    quantity,
    label,
    regime: reg,
    published,
    predicted: predicted ?? null,
  });
  return [
    of("throughput", "disagg tokens/s/GPU, 48 in flight", dense(8), fd.outputTokensPerSecondPerGpu, perGpuD),
    of("throughput", "agg tokens/s/GPU, 4 in flight", dense(4), fa.outputTokensPerSecondPerGpu, perGpuA),
    of("ttft", "disagg TTFT ms (mean)", loaded(8), fd.ttftMs, pd.ttftMs),
    of("ttft", "agg TTFT ms (mean)", loaded(4), fa.ttftMs, pa.ttftMs),
    of("itl", "disagg ITL ms (mean)", dense(8), fd.itlMs, pd.itlMs),
    of("itl", "agg ITL ms (mean)", dense(4), fa.itlMs, pa.itlMs),
    of(
      "gain",
      "disagg / agg tokens/s per GPU",
      dense(8),
      fd.outputTokensPerSecondPerGpu / fa.outputTokensPerSecondPerGpu,
      perGpuA > 0 ? perGpuD / perGpuA : undefined,
    ),
  ];
}

/** The two layouts of the triton_distributed pair at their published loads, and each one's tokens/s per GPU. */
function tritonDistributedLayouts(f: TritonDistributed) {
  const m = fp8Of("meta-llama/Llama-3.1-70B-Instruct");
  const at = (tp: number) => worker(m, INSTANCE_OF.H100, tp, f.isl + f.osl, KvCacheDtype.Auto, Backend.Vllm);
  const fd = f.disaggregated;
  const fa = f.aggregated;
  const wl = (n: number): L.ServingWorkload => ({ isl: f.isl, osl: f.osl, concurrency: n });
  const d = L.disaggregated(
    { speed: at(fd.prefill.tensorParallel), replicas: fd.prefill.workers },
    { speed: at(fd.decode.tensorParallel), replicas: fd.decode.workers },
    wl(fd.concurrency),
    0,
  );
  const a = L.aggregated({ speed: at(fa.worker.tensorParallel), replicas: fa.worker.workers }, wl(fa.concurrency));
  const pd = L.atLoad(d, wl(fd.concurrency));
  const pa = L.atLoad(a, wl(fa.concurrency));
  const gpusD = fd.prefill.workers * fd.prefill.tensorParallel + fd.decode.workers * fd.decode.tensorParallel;
  return {
    pd,
    pa,
    perGpuD: (pd.requestsPerSecond * f.osl) / gpusD,
    perGpuA: (pa.requestsPerSecond * f.osl) / (fa.worker.workers * fa.worker.tensorParallel),
  };
}

/** Every row: calibration, validation, held-out, reference. */
export function allRows(): ValidationRow[] {
  return [
    ...calibrationRows(),
    ...trtllmRows(),
    ...nimRows(),
    ...dynamoRows(),
    ...tritonDistributedRows(),
    ...aiconfiguratorRows(),
  ];
}
