/**
 * Gate F: after gate C's completions, read TTFT and ITL back from Prometheus (what the dashboard
 * shows) and report them; a missing series fails with the metric name. The judging is pure
 * (`gatePrometheus` over Prometheus HTTP API answers); `readLatencies` asks a Prometheus at `base`:
 * `--prometheus-url`, or (gate-f.ts) a port-forward to the Prometheus pod the program installs.
 */
import { OBSERVABILITY_DEFAULTS, PrometheusMode } from "../../components/observability/args";
import { FrontendMetric, ScrapeLabel } from "../../components/observability/metrics";
import { PROMETHEUS_POD_LABEL, PROMETHEUS_POD_PORT } from "../../components/observability/render";
import type { StackConfig } from "../../program/config";
import { GateResult, GateStatus, result } from "./gates";
import type { HttpReply } from "./gates-http";
import { requestJson } from "./http";

/** TTFT and ITL the plan estimates for the declared workload (null: saturated). */
export interface LatencyEstimate {
  readonly ttftMs: number | null;
  readonly itlMs: number | null;
  /** False when the stack declares no inference.workload (the estimate is at the defaults). */
  readonly declared: boolean;
}

/** One latency the gate reads: a histogram quantile over a recent window. */
export interface LatencyQuery {
  readonly label: string;
  readonly metric: string;
  readonly quantile: number;
  readonly expr: string;
}

/** Window of the rate() the quantiles are computed over (covers gate C's requests). */
export const WINDOW = "10m";

/** The TTFT and ITL p50/p95 queries for one graph (series labelled by the graph's PodMonitors). */
export function latencyQueries(graph: string, namespace: string): LatencyQuery[] {
  const sel = `${ScrapeLabel.Graph}="${graph}", namespace="${namespace}"`;
  const q = (label: string, metric: string, quantile: number): LatencyQuery => ({
    label,
    metric,
    quantile,
    expr: `histogram_quantile(${quantile}, sum by (le) (rate(${metric}_bucket{${sel}}[${WINDOW}])))`,
  });
  return [
    q("TTFT p50", FrontendMetric.TimeToFirstToken, 0.5),
    q("TTFT p95", FrontendMetric.TimeToFirstToken, 0.95),
    q("ITL p50", FrontendMetric.InterTokenLatency, 0.5),
    q("ITL p95", FrontendMetric.InterTokenLatency, 0.95),
  ];
}

/** What one query gave: a number of seconds, or why there is none. */
export type Reading = { readonly seconds: number } | { readonly problem: string };

/** Reads a Prometheus `/api/v1/query` answer for `q` (instant vector of one series). */
export function readAnswer(q: LatencyQuery, reply: HttpReply): Reading {
  if (reply.status === 0) return { problem: `Prometheus unreachable: ${reply.error ?? "no reply"}` };
  const body = reply.json as
    | {
        status?: string;
        error?: string;
        errorType?: string;
        data?: { resultType?: string; result?: { value?: [number, string] }[] };
      }
    | undefined;
  if (!body || typeof body !== "object")
    return { problem: `HTTP ${reply.status}, not a Prometheus API answer: ${reply.text.slice(0, 120)}` };
  if (body.status !== "success")
    return { problem: `query failed (${body.errorType ?? `HTTP ${reply.status}`}): ${body.error ?? "no error text"}` };
  const series = body.data?.result ?? [];
  if (body.data?.resultType !== "vector")
    return { problem: `expected an instant vector, got ${JSON.stringify(body.data?.resultType)}` };
  if (series.length === 0)
    return { problem: `no series ${q.metric}_bucket for this graph (not scraped: PodMonitor, port or labels?)` };
  const v = Number(series[0]!.value?.[1]);
  if (!Number.isFinite(v))
    return {
      problem: `${q.metric} has no samples in the last ${WINDOW} (value ${JSON.stringify(series[0]!.value?.[1])})`,
    };
  return { seconds: v };
}

const ms = (s: number) => `${Math.round(s * 1000)} ms`;

/**
 * Measured p50 TTFT and ITL over the plan's estimate for the declared workload (plan.json `serving`), so every
 * deploy checks the serving model. Evidence only: gate C's few requests are not the declared load.
 */
export function estimateRatios(
  readings: readonly (readonly [LatencyQuery, Reading])[],
  estimate: LatencyEstimate | undefined,
): string[] {
  if (!estimate) return [];
  const out: string[] = [];
  const at = estimate.declared ? "the declared workload" : "the default workload (set inference.workload)";
  for (const [label, want] of [
    ["TTFT p50", estimate.ttftMs],
    ["ITL p50", estimate.itlMs],
  ] as const) {
    const got = readings.find(([q]) => q.label === label)?.[1];
    if (!got || !("seconds" in got)) continue;
    out.push(
      want === null || want <= 0
        ? `${label} ${ms(got.seconds)}; the plan estimates ${at} saturates the graph`
        : `${label} measured / plan estimate = ${((got.seconds * 1000) / want).toFixed(2)} (estimate ${want} ms at ${at})`,
    );
  }
  return out;
}

/** Gate F's verdict from one reply per query (same order as `queries`). */
export function gatePrometheus(
  queries: readonly LatencyQuery[],
  replies: readonly HttpReply[],
  latencyMs: number,
  estimate?: LatencyEstimate,
): GateResult {
  const readings = queries.map((q, i) => [q, readAnswer(q, replies[i]!)] as const);
  const ratios = estimateRatios(readings, estimate);
  const bad = readings.filter(([, r]) => "problem" in r);
  const good = readings
    .filter(([, r]) => "seconds" in r)
    .map(([q, r]) => `${q.label} ${ms((r as { seconds: number }).seconds)}`);
  if (bad.length === 0) return result("F", GateStatus.Pass, [good.join(", "), ...ratios], latencyMs);
  const missing = [...new Set(bad.map(([q]) => q.metric))];
  return result(
    "F",
    GateStatus.Fail,
    [
      `missing ${missing.join(", ")}`,
      ...bad.map(([q, r]) => `${q.label}: ${(r as { problem: string }).problem}`),
      ...(good.length ? [good.join(", ")] : []),
      ...ratios,
    ],
    latencyMs,
  );
}

/** Asks Prometheus at `base` every latency query and judges the answers. */
export async function readLatencies(
  base: string,
  graph: string,
  namespace: string,
  timeoutMs: number,
  estimate?: LatencyEstimate,
): Promise<GateResult> {
  const t0 = Date.now();
  const queries = latencyQueries(graph, namespace);
  const root = base.replace(/\/+$/, "");
  const replies = await Promise.all(
    queries.map((q) =>
      requestJson(`${root}/api/v1/query?query=${encodeURIComponent(q.expr)}`, "GET", undefined, timeoutMs),
    ),
  );
  return gatePrometheus(queries, replies, Date.now() - t0, estimate);
}

/** Where gate F finds Prometheus: a URL, or a pod to port-forward to through the Kubernetes API. */
export type PrometheusTarget =
  { readonly url: string } | { readonly namespace: string; readonly selector: string; readonly port: number };

/**
 * Gate F's Prometheus for a stack's checked observability config (the program's schema reads the
 * stack file): the in-cluster Prometheus the program installs, in the monitoring namespace; undefined when
 * monitoring is off or uses an existing Prometheus (then only `--prometheus-url` runs gate F).
 */
export function prometheusFor(
  observability: Pick<NonNullable<StackConfig["observability"]>, "prometheus" | "namespace"> | undefined,
): PrometheusTarget | undefined {
  if (!observability || (observability.prometheus ?? OBSERVABILITY_DEFAULTS.prometheus) !== PrometheusMode.Install)
    return undefined;
  return prometheusIn(observability.namespace ?? OBSERVABILITY_DEFAULTS.namespace);
}

/** The Prometheus pod the program installs (DynamoObservability), in `namespace`. */
export function prometheusIn(namespace: string): PrometheusTarget {
  const selector = Object.entries(PROMETHEUS_POD_LABEL)
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
  return { namespace, selector, port: PROMETHEUS_POD_PORT };
}
