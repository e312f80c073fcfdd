/**
 * What a measure run does, decided from the stack's resolved settings before anything touches the cluster: the
 * load points (the declared load, or a sweep of multiples of it), how many requests each measures, the Job and
 * NetworkPolicies of each point, and each Job's time limit. Pure.
 */
import type { V1Job } from "@kubernetes/client-node";
import { graphNames } from "../../components/_shared/names";
import type { ResolvedInference, ResolvedWorkload } from "../../components/inference/args";
import type { NetworkPolicyObject } from "../../components/inference/network";
import { aiperfArgs, type Load } from "./aiperf";
import { modelCacheDir } from "../../components/inference/cache";
import { ARTIFACT_DIR, frontendUrl, renderBenchJob, renderBenchPolicies } from "./job";
import { TOKENIZER_ROOT } from "./tokenizer";

/** The load points: the declared load times each factor (concurrency rounded, at least 1). */
export function loadPoints(
  w: Pick<ResolvedWorkload, "concurrency" | "requestsPerSecond">,
  factors: readonly number[],
): Load[] {
  return factors.map((f) =>
    w.requestsPerSecond !== undefined
      ? { requestsPerSecond: Math.round(w.requestsPerSecond * f * 1000) / 1000 }
      : { concurrency: Math.max(1, Math.round((w.concurrency ?? 1) * f)) },
  );
}

/** Seconds of measured traffic an open-loop point aims at (enough arrivals for a P99). */
export const OPEN_LOOP_SECONDS = 120;
/** Requests per in-flight slot a closed-loop point measures (each slot turns over this many times). */
export const REQUESTS_PER_SLOT = 8;
/** The fewest requests a point measures: below this, P99 is one request. */
export const MIN_REQUESTS = 200;

/** Requests measured at a point, and the warm-up before them (one turn of the load, not measured). */
export function requestsAt(load: Load): { requests: number; warmup: number } {
  if ("concurrency" in load)
    return { requests: Math.max(MIN_REQUESTS, load.concurrency * REQUESTS_PER_SLOT), warmup: load.concurrency };
  return {
    requests: Math.max(MIN_REQUESTS, Math.ceil(load.requestsPerSecond * OPEN_LOOP_SECONDS)),
    warmup: Math.max(1, Math.ceil(load.requestsPerSecond * 10)),
  };
}

/** What one point's Job needs beyond the stack. */
export interface PointOptions {
  /** Digest-pinned AIPerf image. */
  readonly image: string;
  readonly runId: string;
  /** The point's index in the run (names the Job). */
  readonly index: number;
  readonly deadlineSeconds: number;
  /** Requests measured. @default - `requestsAt(load)` */
  readonly requests?: number;
  /** The tokenizer's download needs the graph's token (a gated or private model: ./tokenizer.ts). @default false */
  readonly tokenizerToken?: boolean;
}

/** The Job's and policies' name of a point: `<graph>-measure-<run>-<index>`. */
export const jobName = (graph: string, o: Pick<PointOptions, "runId" | "index">): string =>
  `${graph}-measure-${o.runId}-${o.index}`.slice(0, 63).replace(/-+$/, "");

/** The Job of one load point against the graph of `r` (the stack's graph, or its aggregated twin). */
export function benchJobFor(r: ResolvedInference, load: Load, o: PointOptions): V1Job {
  const n = requestsAt(load);
  const w = r.workload;
  const args = aiperfArgs({
    url: frontendUrl(r.graphName, r.namespace),
    model: r.servedModelName,
    tokenizer: modelCacheDir(TOKENIZER_ROOT, r.model, r.modelRevision),
    isl: w.isl,
    osl: w.osl,
    load,
    requests: o.requests ?? n.requests,
    warmupRequests: n.warmup,
    ...(w.ttftMs !== undefined ? { ttftMs: w.ttftMs } : {}),
    ...(w.itlMs !== undefined ? { itlMs: w.itlMs } : {}),
    artifactDir: ARTIFACT_DIR,
  });
  return renderBenchJob({
    name: jobName(r.graphName, o),
    namespace: r.namespace,
    graph: r.graphName,
    image: o.image,
    args,
    tokenizer: {
      model: r.model,
      revision: r.modelRevision,
      ...(o.tokenizerToken ? { hfSecret: r.hfSecretName ?? graphNames(r.graphName, r.namespace).hfSecret } : {}),
    },
    runId: o.runId,
    deadlineSeconds: o.deadlineSeconds,
    runAsUser: r.runAsUser,
  });
}

/** The point's NetworkPolicies (none when the graph renders none: then nothing denies the Job). */
export function benchPoliciesFor(
  r: ResolvedInference,
  o: Pick<PointOptions, "runId" | "index">,
): NetworkPolicyObject[] {
  if (!r.networkPolicy.enabled) return [];
  return renderBenchPolicies({
    name: jobName(r.graphName, o),
    namespace: r.namespace,
    graph: r.graphName,
    runId: o.runId,
  });
}
