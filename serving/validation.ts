/**
 * The serving model against measurements, in two sets kept apart (docs/SERVING.md#validation):
 * - calibration: what the model is fitted on, the H200 decode steps of tests/contracts/facts/h200-serving-*.json
 *   (the model reproduces them by construction; shown so that a refit that drifts is seen);
 * - validation: published engine measurements the model never saw: TensorRT-LLM's offline-throughput tables
 *   (trtllm-perf-overview.json), NVIDIA NIM's latency tables (nim-*.json), Dynamo's p5 disaggregation table
 *   (dynamo-disagg-p5.json); and, as a reference only (a model's prediction, not a measurement), AIConfigurator's
 *   H200 case (aiconfigurator-h200-case.json).
 * Each row: what was published, what the model predicts for the same setup (null: no estimate, and why), its
 * regime and quantity. The error bands of serving/bands.json are computed from the validation rows.
 *
 * A tool: `npx tsx serving/validation.ts` writes serving/bands.json and docs/SERVING.md's validation table;
 * `--check` exits 1 when either is stale (tests/serving/validation.spec.ts holds them current).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { INSTANCES } from "../components/catalog/instances";
import { factsOfRow, KvCacheDtype, modelFacts, ModelFacts, modelRow, WeightDtype } from "../components/catalog/models";
import { Backend } from "../components/inference/args";
import { workerFit } from "../components/inference/fit";
import { engineSettings } from "./engine-settings";
import { ErrorBand, Quantity, regimeOf } from "./errors";
import { decodeStepMs, H200_MEASUREMENTS, prefillMs, ratesFor, servingShape, WorkerSpeed } from "./worker-speed";
import * as L from "./layouts";
import trtllmPerf from "./published/trtllm-perf-overview.json";
import nim8b from "./published/nim-llama-3.1-8b-h100.json";
import nim70b from "./published/nim-llama-3.3-70b-h100-tp2.json";
import dynamoP5 from "./published/dynamo-disagg-p5.json";
import aicCase from "./published/aiconfigurator-h200-case.json";

/** The facts of a published-measurement file (serving/published/, each with its provenance; tests/contracts/facts.spec.ts checks it). */
const factsOf = <T>(file: unknown): T => (file as { facts: T }).facts;

/** One row of the table. */
export interface ValidationRow {
  readonly set: "calibration" | "validation" | "reference";
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

/** The calibration rows: every fourth measured 8B decode step, bf16 and FP8 (CUDA graphs, as measured). */
export function calibrationRows(): ValidationRow[] {
  const m8 = modelFacts("meta-llama/Llama-3.1-8B-Instruct")!;
  const m8fp8 = fp8Of("meta-llama/Llama-3.1-8B-Instruct");
  return H200_MEASUREMENTS.decodeStep
    .filter((_, i) => i % 4 === 0)
    .map(([weights, b, ctx, ms]) => {
      const m = weights === "fp8" ? m8fp8 : m8;
      const w = worker(m, "p5en.48xlarge", 1, ctx + 1, KvCacheDtype.Auto, Backend.Trtllm);
      return {
        set: "calibration",
        source: "H200 measurement (this project)",
        setup: `Llama-3.1-8B shape, ${weights} weights, 1 x H200`,
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
        set: "validation" as const,
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
          set: "validation" as const,
          source: "NVIDIA NIM 1.8.0",
          setup: `${id.split("/")[1]} FP8, H100 TP${tp}`,
          regime: regime(m, tp),
        };
        const at = `ISL ${r.isl} / OSL ${r.osl}, ${r.concurrency} in flight`;
        return [
          {
            ...row,
            quantity: "ttft",
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
      label: "agg TTFT ms (min, unqueued), ISL 8000",
      published: pub.aggregated.ttftMsMin,
      predicted: unqueued,
    },
    {
      ...row,
      quantity: "ttft",
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

/** Every row: calibration, validation, reference. */
export function allRows(): ValidationRow[] {
  return [...calibrationRows(), ...trtllmRows(), ...nimRows(), ...dynamoRows(), ...aiconfiguratorRows()];
}

/** Published / predicted. */
const ratio = (r: ValidationRow) => r.published / r.predicted!;
const estimated = (r: ValidationRow) => r.predicted !== null && r.predicted > 0;

/** The summary a set of rows gets: points, no estimates, within +-30% (|predicted / published - 1|), mean error. */
export function summary(rows: readonly ValidationRow[]) {
  const est = rows.filter(estimated);
  const err = est.map((r) => Math.abs(r.predicted! / r.published - 1));
  return {
    points: rows.length,
    noEstimate: rows.length - est.length,
    within30: err.filter((e) => e <= 0.3).length,
    meanError: err.length ? err.reduce((a, b) => a + b, 0) / err.length : 0,
  };
}

const r3 = (n: number) => Math.round(n * 1000) / 1000;

/** The error bands of the validation rows: per regime and quantity, and over all regimes per quantity. */
export function errorBands(rows: readonly ValidationRow[]): ErrorBand[] {
  const valid = rows.filter((r) => r.set === "validation" && estimated(r));
  const band = (regime: string, quantity: Quantity, of: readonly ValidationRow[]): ErrorBand => ({
    regime,
    quantity,
    points: of.length,
    low: r3(Math.min(...of.map(ratio))),
    high: r3(Math.max(...of.map(ratio))),
    meanAbsError: r3(of.reduce((s, r) => s + Math.abs(r.predicted! / r.published - 1), 0) / of.length),
  });
  const out: ErrorBand[] = [];
  for (const q of ["throughput", "ttft", "itl", "gain"] as const) {
    const ofQ = valid.filter((r) => r.quantity === q);
    if (ofQ.length === 0) continue;
    for (const reg of [...new Set(ofQ.map((r) => r.regime))].sort())
      out.push(
        band(
          reg,
          q,
          ofQ.filter((r) => r.regime === reg),
        ),
      );
    out.push(band("all", q, ofQ));
  }
  return out;
}

const fmt = (n: number) => n.toFixed(Math.abs(n) >= 100 ? 0 : Math.abs(n) >= 10 ? 1 : 2);
const pct = (n: number) => `${(n * 100).toFixed(0)}%`;

/** The error of a row, relative to the published number; "no estimate" with the reason. */
export function errorOf(r: ValidationRow): string {
  if (!estimated(r)) return `no estimate: ${r.why ?? "saturated"}`;
  return `${((r.predicted! / r.published - 1) * 100).toFixed(0)}%`;
}

/** The validation section of docs/SERVING.md: the summaries, then every row by set. */
export function validationTable(): string {
  const rows = allRows();
  const head = [
    "| set | source | setup | quantity | regime | published | predicted | error |",
    "|---|---|---|---|---|---|---|---|",
  ];
  const line = (r: ValidationRow) =>
    `| ${r.set} | ${r.source} | ${r.setup} | ${r.label} | ${r.regime} | ${fmt(r.published)} | ${estimated(r) ? fmt(r.predicted!) : "-"} | ${errorOf(r)} |`;
  const sum = (set: ValidationRow["set"]) => {
    const s = summary(rows.filter((r) => r.set === set));
    return `| ${set} | ${s.points} | ${s.noEstimate} | ${s.within30} | ${pct(s.meanError)} |`;
  };
  const bands = errorBands(rows).map(
    (b) => `| ${b.regime} | ${b.quantity} | ${b.points} | ${b.low} - ${b.high} | ${pct(b.meanAbsError)} |`,
  );
  return [
    "| set | points | no estimate | within +-30% | mean error |",
    "|---|---|---|---|---|",
    ...(["calibration", "validation", "reference"] as const).map(sum),
    "",
    "Error bands of the validation set (published / predicted; the plan's ranges):",
    "",
    "| regime | quantity | points | published / predicted | mean error |",
    "|---|---|---|---|---|",
    ...bands,
    "",
    ...head,
    ...rows.map(line),
  ].join("\n");
}

const ROOT = path.join(__dirname, "..");
/** The files the tool writes. */
export const SERVING_MD = path.join(ROOT, "docs", "SERVING.md");
export const BANDS_JSON = path.join(ROOT, "serving", "bands.json");
const START =
  "<!-- serving-validation:start (generated by serving/validation.ts; npx tsx serving/validation.ts to refresh) -->";
const END = "<!-- serving-validation:end -->";

/** serving/bands.json as the validation rows make it. */
export function bandsJson(rows: readonly ValidationRow[] = allRows()): string {
  return `${JSON.stringify({ generatedBy: "serving/validation.ts", bands: errorBands(rows) }, null, 1)}\n`;
}

/** `doc` (docs/SERVING.md) with its validation section regenerated; throws when the markers are missing. */
export function servingMdWith(doc: string): string {
  const i = doc.indexOf(START);
  const j = doc.indexOf(END);
  if (i < 0 || j < i) throw new Error(`docs/SERVING.md lacks the markers ${START} ... ${END}`);
  return `${doc.slice(0, i + START.length)}\n${validationTable()}\n${doc.slice(j)}`;
}

if (require.main === module) {
  const fresh: [string, string][] = [
    [BANDS_JSON, bandsJson()],
    [SERVING_MD, servingMdWith(fs.readFileSync(SERVING_MD, "utf8"))],
  ];
  if (process.argv.includes("--check")) {
    const stale = fresh.filter(([f, text]) => !fs.existsSync(f) || fs.readFileSync(f, "utf8") !== text);
    for (const [f] of stale)
      process.stderr.write(`${path.relative(ROOT, f)} is stale: run npx tsx serving/validation.ts\n`);
    process.exit(stale.length ? 1 : 0);
  }
  for (const [f, text] of fresh) fs.writeFileSync(f, text);
}
