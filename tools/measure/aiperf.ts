/**
 * AIPerf as `measure` runs it: the pinned version, the command line for one load point of the declared workload,
 * and the parser of AIPerf's own summary export (`profile_export_aiperf.json`), never its console table. Every
 * flag, file name, field and unit here is held to tests/contracts/facts/aiperf.json (read from ai-dynamo/aiperf
 * at the pinned commit) by tests/contracts/aiperf.spec.ts. Pure.
 */

/**
 * Where the command line and the export measure uses were read (tests/contracts/facts/aiperf.json). The Job runs the
 * AIPerf the release's frontend image ships (`Release.frontendImage.aiperf`, a later version: tools/measure/image.ts),
 * and the report states the version that ran, from its export.
 */
export const AIPERF = {
  repository: "ai-dynamo/aiperf",
  commit: "db4f6397d11ee2d4cfbb41f70b2327315163dcf0",
  version: "0.1.1",
  /** The summary export AIPerf writes into `--artifact-dir` (OutputDefaults.PROFILE_EXPORT_AIPERF_JSON_FILE). */
  summaryFile: "profile_export_aiperf.json",
} as const;

/** The load of one benchmark point: a closed loop (requests in flight) or an open loop (arrivals per second). */
export type Load = { readonly concurrency: number } | { readonly requestsPerSecond: number };

/** What one AIPerf run sends. */
export interface BenchSpec {
  /** The Frontend's base URL inside the cluster (`http://<graph>-frontend.<ns>.svc.cluster.local:8000`). */
  readonly url: string;
  /** The served model name requests carry. */
  readonly model: string;
  /** Hugging Face tokenizer that sizes the synthetic prompts (the model id). */
  readonly tokenizer: string;
  /** Prompt and output tokens per request. */
  readonly isl: number;
  readonly osl: number;
  readonly load: Load;
  /** Requests measured, after `warmupRequests` not measured. */
  readonly requests: number;
  readonly warmupRequests: number;
  /** Objectives goodput counts against, ms. @default - none (no --goodput) */
  readonly ttftMs?: number;
  readonly itlMs?: number;
  /** Where AIPerf writes its export. */
  readonly artifactDir: string;
}

/** The metric tags `--goodput` takes for the workload's objectives (AIPerf metric tags). */
export const GOODPUT_TAG = { ttft: "time_to_first_token", itl: "inter_token_latency" } as const;

/**
 * `aiperf profile ...` for one point. Streaming, so AIPerf measures TTFT and ITL; `completions` so the prompt is
 * exactly ISL tokens (no chat template added); `ignore_eos` so each request generates OSL tokens (the engine's
 * extension field: the export's output_sequence_length shows whether it was honoured); fixed lengths (stddev 0)
 * and a fixed seed, so two layouts see the same requests; Poisson arrivals for an open loop, the estimate's model.
 */
export function aiperfArgs(s: BenchSpec): string[] {
  const load =
    "concurrency" in s.load
      ? ["--concurrency", String(s.load.concurrency)]
      : ["--request-rate", String(s.load.requestsPerSecond), "--request-rate-mode", "poisson"];
  const slo = [
    ...(s.ttftMs !== undefined ? [`${GOODPUT_TAG.ttft}:${s.ttftMs}`] : []),
    ...(s.itlMs !== undefined ? [`${GOODPUT_TAG.itl}:${s.itlMs}`] : []),
  ];
  return [
    "profile",
    ...["--model", s.model, "--tokenizer", s.tokenizer, "--url", s.url],
    ...["--endpoint-type", "completions", "--streaming"],
    ...["--synthetic-input-tokens-mean", String(s.isl), "--synthetic-input-tokens-stddev", "0"],
    ...["--output-tokens-mean", String(s.osl), "--output-tokens-stddev", "0", "--extra-inputs", "ignore_eos:true"],
    ...load,
    ...["--request-count", String(s.requests), "--warmup-request-count", String(s.warmupRequests)],
    ...(slo.length > 0 ? ["--goodput", slo.join(" ")] : []),
    ...["--random-seed", "42", "--ui-type", "none", "--artifact-dir", s.artifactDir],
  ];
}

/** Percentiles the report reads of a latency metric. */
export interface Percentiles {
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
}

/** What `measure` reads from one summary export, in the export's own units (named in the field). */
export interface AiperfSummary {
  readonly aiperfVersion?: string;
  /** Whether the run streamed; TTFT and ITL exist only for streamed runs. */
  readonly streaming: boolean;
  readonly ttftMs?: Percentiles;
  readonly itlMs?: Percentiles;
  readonly requestLatencyMs?: Percentiles;
  readonly requestsPerSecond: number;
  readonly outputTokensPerSecond: number;
  /** Requests per second within the `--goodput` objectives; undefined when none were given. */
  readonly goodputRequestsPerSecond?: number;
  readonly requests: number;
  readonly errorRequests: number;
  readonly durationS: number;
  readonly wasCancelled: boolean;
}

/** The unit AIPerf writes each metric the report reads in (tests/contracts/facts/aiperf.json `metricUnits`). */
export const EXPORT_UNITS = {
  time_to_first_token: "ms",
  inter_token_latency: "ms",
  request_latency: "ms",
  request_throughput: "requests/sec",
  output_token_throughput: "tokens/sec",
  goodput: "requests/sec",
  request_count: "requests",
  error_request_count: "requests",
  benchmark_duration: "sec",
} as const;
type Tag = keyof typeof EXPORT_UNITS;

/** A summary export that cannot be read as one: what is wrong, in AIPerf's own field names. */
export class ExportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ExportError";
  }
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** The metric object of `tag`, its unit checked against the one we read it in; undefined when absent. */
function metric(doc: Json, tag: Tag): Json | undefined {
  const m = doc[tag];
  if (m === undefined || m === null) return undefined;
  if (!isObj(m)) throw new ExportError(`${tag} is not a metric object ({"unit": ..., "avg": ...})`);
  if (m.unit !== EXPORT_UNITS[tag])
    throw new ExportError(`${tag}.unit is ${JSON.stringify(m.unit)}; measure reads it in "${EXPORT_UNITS[tag]}"`);
  return m;
}

function stat(m: Json, tag: Tag, key: string): number {
  const v = m[key];
  if (typeof v !== "number" || !Number.isFinite(v)) throw new ExportError(`${tag}.${key} is not a number`);
  return v;
}

const avg = (doc: Json, tag: Tag): number | undefined => {
  const m = metric(doc, tag);
  return m ? stat(m, tag, "avg") : undefined;
};

function percentiles(doc: Json, tag: Tag): Percentiles | undefined {
  const m = metric(doc, tag);
  return m ? { p50: stat(m, tag, "p50"), p90: stat(m, tag, "p90"), p99: stat(m, tag, "p99") } : undefined;
}

const need = (v: number | undefined, tag: Tag): number => {
  if (v === undefined) throw new ExportError(`${tag} is missing: AIPerf wrote no summary of the run`);
  return v;
};

/** Parses `profile_export_aiperf.json` (text); throws `ExportError` naming the field that is wrong. */
export function parseSummary(text: string): AiperfSummary {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new ExportError(`not JSON: ${(e as Error).message}`);
  }
  if (!isObj(doc)) throw new ExportError("not a JSON object");
  const endpoint = isObj(doc.input_config) && isObj(doc.input_config.endpoint) ? doc.input_config.endpoint : {};
  const goodput = avg(doc, "goodput");
  const ttft = percentiles(doc, "time_to_first_token");
  const itl = percentiles(doc, "inter_token_latency");
  const latency = percentiles(doc, "request_latency");
  const streaming = endpoint.streaming === true;
  if (streaming && (!ttft || !itl))
    throw new ExportError(
      "a streamed run without time_to_first_token and inter_token_latency: AIPerf measured no token timing (did every request fail?)",
    );
  return {
    ...(typeof doc.aiperf_version === "string" ? { aiperfVersion: doc.aiperf_version } : {}),
    streaming,
    ...(ttft ? { ttftMs: ttft } : {}),
    ...(itl ? { itlMs: itl } : {}),
    ...(latency ? { requestLatencyMs: latency } : {}),
    requestsPerSecond: need(avg(doc, "request_throughput"), "request_throughput"),
    outputTokensPerSecond: need(avg(doc, "output_token_throughput"), "output_token_throughput"),
    ...(goodput !== undefined ? { goodputRequestsPerSecond: goodput } : {}),
    requests: need(avg(doc, "request_count"), "request_count"),
    errorRequests: avg(doc, "error_request_count") ?? 0,
    durationS: need(avg(doc, "benchmark_duration"), "benchmark_duration"),
    wasCancelled: doc.was_cancelled === true,
  };
}
