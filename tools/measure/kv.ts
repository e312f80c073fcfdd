/**
 * The KV cache bytes NIXL reports moving during a benchmark, against the rate the plan expects. vLLM's NIXL
 * connector publishes, per engine, the histograms `vllm:nixl_bytes_transferred` (bytes per transfer) and
 * `vllm:nixl_xfer_time_seconds` (duration of each transfer), and the counter `vllm:nixl_num_failed_transfers`
 * (tests/contracts/facts/vllm-nixl-metrics.json); a Dynamo vLLM worker serves them on its system port. Their
 * `_sum`/`_count` read before and after a run give the bytes, the transfers and the time spent transferring. The
 * plan's side is the fit section's transfer (components/inference/fit.ts `kvTransfer`). Pure, but the probe text.
 */
import { kvLink, kvTransfer, efaPerWorker, usesEfa } from "../../components/inference/fit";
import { modelFacts } from "../../components/catalog/models";
import type { ResolvedInference } from "../../components/inference/args";
import type { AiperfSummary } from "./aiperf";

/** The NIXL series read (names: tests/contracts/facts/vllm-nixl-metrics.json). */
export const NIXL_SERIES = {
  bytesSum: "vllm:nixl_bytes_transferred_sum",
  transfers: "vllm:nixl_bytes_transferred_count",
  xferSecondsSum: "vllm:nixl_xfer_time_seconds_sum",
  failed: "vllm:nixl_num_failed_transfers",
} as const;

/** `sh` probe run in a worker's main container: its system port's metrics, only the NIXL series. */
export const KV_PROBE_SCRIPT = `python3 -c 'import os,urllib.request as u;print(u.urlopen("http://127.0.0.1:"+os.environ.get("DYN_SYSTEM_PORT","9090")+"/metrics",timeout=5).read().decode())' | grep -E '^vllm:nixl_(bytes_transferred_(sum|count)|xfer_time_seconds_sum|num_failed_transfers)'`;

/** NIXL's counters of one or more engines at one instant. */
export interface KvCounters {
  readonly bytes: number;
  readonly transfers: number;
  readonly xferSeconds: number;
  readonly failed: number;
}

/** The sum of every sample of `name` (any labels, a `_total` suffix on counters) in exposition text. */
function sumOf(text: string, name: string): number {
  const re = new RegExp(`^${name.replace(/[.:]/g, "\\$&")}(?:_total)?(?:\\{[^}]*\\})?\\s+(\\S+)`, "gm");
  return [...text.matchAll(re)].reduce((a, m) => a + (Number.isFinite(Number(m[1])) ? Number(m[1]) : 0), 0);
}

/** The counters in one probe's output; undefined when the worker exports no NIXL series (not vLLM, or no KV yet). */
export function parseKvCounters(text: string): KvCounters | undefined {
  if (!text.includes(NIXL_SERIES.bytesSum)) return undefined;
  return {
    bytes: sumOf(text, NIXL_SERIES.bytesSum),
    transfers: sumOf(text, NIXL_SERIES.transfers),
    xferSeconds: sumOf(text, NIXL_SERIES.xferSecondsSum),
    failed: sumOf(text, NIXL_SERIES.failed),
  };
}

/** What moved between two readings of all workers (after minus before). */
export type KvReading = KvCounters;

/** `after - before`, summed over workers; workers without the series count as zero. */
export function kvDelta(
  before: readonly (KvCounters | undefined)[],
  after: readonly (KvCounters | undefined)[],
): KvReading | undefined {
  if (after.every((a) => a === undefined)) return undefined;
  const total = (xs: readonly (KvCounters | undefined)[], k: keyof KvCounters) =>
    xs.reduce((s, x) => s + (x?.[k] ?? 0), 0);
  return {
    bytes: total(after, "bytes") - total(before, "bytes"),
    transfers: total(after, "transfers") - total(before, "transfers"),
    xferSeconds: total(after, "xferSeconds") - total(before, "xferSeconds"),
    failed: total(after, "failed") - total(before, "failed"),
  };
}

/** What the plan expects of one request's KV transfer. */
export interface KvPlan {
  /** Bytes one request's prompt moves from its prefill worker (all ranks). */
  readonly bytesPerRequest: number;
  /** GB/s one prefill worker's transfer runs at (its ranks in parallel, each at the measured NIXL rate). */
  readonly workerGBytesPerS: number;
  /** How the link was derived (rails x Gbps, or TCP). */
  readonly link: string;
}

/** The plan's KV transfer for resolved settings; undefined when the model's shape is unknown. */
export function kvPlanOf(r: ResolvedInference): KvPlan | undefined {
  const m = modelFacts(r.model, r.modelShape);
  if (!m) return undefined;
  const tp = r.prefill.gpusPerWorker;
  const link = kvLink(r.pool, usesEfa(r) ? efaPerWorker(r.pool, tp) : 0);
  const t = kvTransfer(m, tp, r.kvCacheDtype, r.workload.isl, link);
  return { bytesPerRequest: t.bytesPerRank * tp, workerGBytesPerS: t.expectedGBytesPerS * tp, link: link.basis };
}

/** Measured KV traffic beside the plan's. */
export interface KvVerdict {
  readonly measured: {
    readonly bytes: number;
    readonly transfers: number;
    readonly bytesPerRequest: number;
    /** Bytes per second over the benchmark's duration. */
    readonly bytesPerSecond: number;
    /** Bytes per second while transferring (bytes / the summed transfer time); undefined without transfer time. */
    readonly transferGBytesPerS?: number;
    readonly failedTransfers: number;
  };
  readonly planned: {
    readonly bytesPerRequest: number;
    /** The plan's bytes per request x the measured request rate. */
    readonly bytesPerSecond: number;
    readonly transferGBytesPerS: number;
  };
  readonly findings: readonly string[];
}

const r3 = (n: number) => Math.round(n * 1000) / 1000;

/** A reading against the plan, over the AIPerf run it spans. */
export function kvVerdict(
  k: KvReading,
  plan: KvPlan,
  run: Pick<AiperfSummary, "requests" | "requestsPerSecond" | "durationS">,
): KvVerdict {
  const perRequest = run.requests > 0 ? k.bytes / run.requests : 0;
  const gbps = k.xferSeconds > 0 ? k.bytes / k.xferSeconds / 1e9 : undefined;
  const findings: string[] = [];
  if (k.failed > 0) findings.push(`NIXL reports ${k.failed} failed KV transfer(s) during the run`);
  if (k.bytes === 0)
    findings.push("NIXL moved no KV bytes during the run: decode recomputed every prompt (see verify gates D and G)");
  else if (perRequest < plan.bytesPerRequest * 0.5 || perRequest > plan.bytesPerRequest * 2)
    findings.push(
      `KV bytes per request ${Math.round(perRequest)} vs the plan's ${Math.round(plan.bytesPerRequest)}: the model shape or KV dtype the plan assumed differs from what runs`,
    );
  if (gbps !== undefined && gbps < plan.workerGBytesPerS * 0.5)
    findings.push(
      `KV transfers ran at ${r3(gbps)} GB/s, under half the plan's ${r3(plan.workerGBytesPerS)} GB/s (${plan.link}): check the EFA locality gate (verify L) and NIXL's rails`,
    );
  return {
    measured: {
      bytes: k.bytes,
      transfers: k.transfers,
      bytesPerRequest: r3(perRequest),
      bytesPerSecond: r3(run.durationS > 0 ? k.bytes / run.durationS : 0),
      ...(gbps !== undefined ? { transferGBytesPerS: r3(gbps) } : {}),
      failedTransfers: k.failed,
    },
    planned: {
      bytesPerRequest: r3(plan.bytesPerRequest),
      bytesPerSecond: r3(plan.bytesPerRequest * run.requestsPerSecond),
      transferGBytesPerS: r3(plan.workerGBytesPerS),
    },
    findings,
  };
}
