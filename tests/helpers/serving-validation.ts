/**
 * The serving model against published numbers it was not calibrated on (docs/SERVING.md#validation): Dynamo's
 * p5 disaggregation table (tests/contracts/facts/dynamo-disagg-p5.json) and AIConfigurator's H200 case
 * (tests/contracts/facts/aiconfigurator-h200-case.json). Each row: what was published, what the model predicts
 * for the same setup, and the error. tests/unit/serving-validation.spec.ts holds docs/SERVING.md's table
 * equal to these rows.
 */
import { INSTANCES } from "../../components/catalog/instances";
import { factsOfRow, KvCacheDtype, modelRow, WeightDtype } from "../../components/catalog/models";
import { Backend } from "../../components/inference/args";
import { modelFacts } from "../../components/catalog/models";
import { workerFit } from "../../components/inference/fit";
import { decodeStepMs, prefillMs, servingShape, WorkerSpeed, ratesFor } from "../../components/inference/worker-speed";
import * as L from "../../components/inference/serving";
import { loadFacts } from "../contracts/facts";

/** One validation row. */
export interface ValidationRow {
  readonly source: string;
  readonly quantity: string;
  readonly published: number;
  readonly predicted: number;
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

/** A worker of `model` facts on `instanceType` at tensor parallel `tp` (vLLM fit at 0.9 of GPU memory). */
function worker(m: ReturnType<typeof factsOfRow>, instanceType: string, tp: number, maxLen: number, kv: KvCacheDtype) {
  const instance = INSTANCES.get(instanceType)!;
  const fit = workerFit({
    model: m,
    instance,
    backend: Backend.Vllm,
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
  };
  return speed;
}

/** Dynamo's p5 table: 1 aggregated worker against 1 prefill + 1 decode worker, closed loop (the facts' notes). */
export function dynamoRows(): ValidationRow[] {
  const f = loadFacts<DynamoP5>("dynamo-disagg-p5").facts;
  const m = modelFacts(f.model)!;
  const src = "Dynamo p5 (H100)";
  const rows: ValidationRow[] = [];
  for (const [isl, gain] of Object.entries(f.throughputGainByIsl)) {
    const wl: L.ServingWorkload = { isl: Number(isl), osl: f.osl, concurrency: f.concurrency };
    const w = worker(m, f.instanceType, 1, wl.isl + wl.osl, KvCacheDtype.Auto);
    const kvMs = (f.kvTransferMsIsl8000 * wl.isl) / 8000;
    const d = L.disaggregated({ speed: w, replicas: 1 }, { speed: w, replicas: 1 }, wl, kvMs);
    const a = L.aggregated({ speed: w, replicas: 1 }, wl);
    rows.push({
      source: src,
      quantity: `throughput gain, ISL ${isl}`,
      published: gain,
      predicted: L.disaggGain(d, a, wl)! - 1,
    });
    if (isl !== "8000") continue;
    const pd = L.atLoad(d, wl);
    const pa = L.atLoad(a, wl);
    const pub = f.isl8000;
    const unqueued = prefillMs(w, wl.isl) + decodeStepMs(w, 1, wl.isl);
    rows.push(
      {
        source: src,
        quantity: "agg output tokens/s, ISL 8000",
        published: pub.aggregated.outputTokensPerSecond,
        predicted: pa.requestsPerSecond * f.osl,
      },
      {
        source: src,
        quantity: "disagg output tokens/s, ISL 8000",
        published: pub.disaggregated.outputTokensPerSecond,
        predicted: pd.requestsPerSecond * f.osl,
      },
      { source: src, quantity: "agg ITL ms (avg), ISL 8000", published: pub.aggregated.itlMsAvg, predicted: pa.itlMs! },
      {
        source: src,
        quantity: "disagg ITL ms (avg), ISL 8000",
        published: pub.disaggregated.itlMsAvg,
        predicted: pd.itlMs!,
      },
      {
        source: src,
        quantity: "agg TTFT ms (min, unqueued), ISL 8000",
        published: pub.aggregated.ttftMsMin,
        predicted: unqueued,
      },
      {
        source: src,
        quantity: "disagg TTFT ms (min, unqueued), ISL 8000",
        published: pub.disaggregated.ttftMsMin,
        predicted: unqueued + f.kvTransferMsIsl8000,
      },
    );
  }
  return rows;
}

/** Qwen3-32B with FP8 weights (linear layers) and FP8 KV cache, as AIConfigurator's case runs it. */
function qwen32Fp8() {
  const row = modelRow("Qwen/Qwen3-32B")!;
  return factsOfRow({ ...row, weights: { dtype: WeightDtype.Fp8, scope: "linear" } });
}

/** AIConfigurator's H200 case: tokens/s/GPU within TTFT <= 300 ms and TPOT <= 10 ms, per layout. */
export function aiconfiguratorRows(): ValidationRow[] {
  const f = loadFacts<AicCase>("aiconfigurator-h200-case").facts;
  const m = qwen32Fp8();
  const wl: L.ServingWorkload = { isl: f.isl, osl: f.osl, ttftMs: f.ttftMs, itlMs: f.tpotMs, concurrency: 1 };
  const len = f.isl + f.osl;
  const dd = f.disaggregated;
  const p = worker(m, "p5en.48xlarge", dd.prefillTp, len, KvCacheDtype.Fp8);
  const dw = worker(m, "p5en.48xlarge", dd.decodeTp, len, KvCacheDtype.Fp8);
  const aw = worker(m, "p5en.48xlarge", f.aggregated.tp, len, KvCacheDtype.Fp8);
  const gpusD = dd.replicas * (dd.prefillWorkers * dd.prefillTp + dd.decodeWorkers * dd.decodeTp);
  const gpusA = f.aggregated.replicas * f.aggregated.tp;
  const d = L.disaggregated(
    { speed: p, replicas: dd.replicas * dd.prefillWorkers },
    { speed: dw, replicas: dd.replicas * dd.decodeWorkers },
    wl,
    0,
  );
  const a = L.aggregated({ speed: aw, replicas: f.aggregated.replicas }, wl);
  const perGpuD = (L.goodput(d, wl) * f.osl) / gpusD;
  const perGpuA = (L.goodput(a, wl) * f.osl) / gpusA;
  const src = "AIConfigurator H200 (its prediction)";
  return [
    {
      source: src,
      quantity: "disagg tokens/s/GPU within SLO",
      published: dd.tokensPerSecondPerGpu,
      predicted: perGpuD,
    },
    {
      source: src,
      quantity: "agg tokens/s/GPU within SLO",
      published: f.aggregated.tokensPerSecondPerGpu,
      predicted: perGpuA,
    },
    { source: src, quantity: "disagg / agg", published: f.disaggOverAgg, predicted: perGpuD / perGpuA },
    {
      source: src,
      quantity: "agg TTFT ms at its batch",
      published: f.aggregated.ttftMs,
      predicted: L.atLoad(a, { ...wl, concurrency: f.aggregated.replicas * f.aggregated.batch }).ttftMs!,
    },
  ];
}

const fmt = (n: number) => n.toFixed(Math.abs(n) >= 100 ? 0 : Math.abs(n) >= 10 ? 1 : 2);

/** The error of a row: relative for absolute quantities, in points for gains (published near 0). */
export function errorOf(r: ValidationRow): string {
  if (r.quantity.startsWith("throughput gain")) return `${((r.predicted - r.published) * 100).toFixed(0)} pts`;
  return `${(((r.predicted - r.published) / r.published) * 100).toFixed(0)}%`;
}

/** The validation table as docs/SERVING.md shows it. */
export function validationTable(): string {
  const rows = [...dynamoRows(), ...aiconfiguratorRows()];
  const gain = (r: ValidationRow, v: number) =>
    r.quantity.startsWith("throughput gain") ? `${(v * 100).toFixed(0)}%` : fmt(v);
  return [
    "| source | quantity | published | predicted | error |",
    "|---|---|---|---|---|",
    ...rows.map(
      (r) => `| ${r.source} | ${r.quantity} | ${gain(r, r.published)} | ${gain(r, r.predicted)} | ${errorOf(r)} |`,
    ),
  ].join("\n");
}
