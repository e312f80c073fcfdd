/**
 * A measure run against a live deployment: each load point as a benchmark Job (NIXL's KV counters read on every
 * worker before and after it), then, with `twin`, the aggregated twin deployed on the same GPUs, measured at the
 * same points and torn down, and the report built. Whatever it creates is undone on success, failure and
 * SIGINT/SIGTERM (`Cleanup`); a paused disaggregated graph gets its replicas back.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import { GraphService, podSelector } from "../../components/_shared/names";
import type { ResolvedInference } from "../../components/inference/args";
import type { DynamoGraphDeployment } from "../../components/inference/dgd";
import { release } from "../../components/releases";
import { UsageError } from "../_shared/input";
import { UnreachableError } from "../verify/http";
import { ClusterReader, execInPod, type PodRef } from "../verify/k8s";
import { isWorker } from "../verify/gates";
import { parseSummary, type Load } from "./aiperf";
import { Cleanup, MeasureCluster } from "./cluster";
import { estimateView, type EstimateView } from "./estimate";
import { benchImage } from "./image";
import { exportFromLog, renderBenchConfigMap, RUN_LABEL, TOKENIZER_CONTAINER } from "./job";
import { hubAccess, type HubAccess } from "./tokenizer";
import { KV_PROBE_SCRIPT, kvDelta, kvPlanOf, parseKvCounters } from "./kv";
import { benchJobFor, benchPoliciesFor, loadPoints } from "./plan";
import type { MeasuredRun } from "./report";
import { buildReport, type MeasureReport } from "./summary";
import { aggregatedTwin, type Twin } from "./twin";

/** How to run. */
export interface MeasureOptions {
  readonly stack: string;
  readonly resolved: ResolvedInference;
  readonly kc: KubeConfig;
  /** Digest-pinned image to run AIPerf from. @default - the release's image that ships AIPerf (`benchImage`) */
  readonly image?: string;
  /** Multiples of the declared load. */
  readonly factors: readonly number[];
  /** Requests per point. @default - `requestsAt` of each point */
  readonly requests?: number;
  /** Each Job's limit, seconds. */
  readonly deadlineSeconds: number;
  /** Also measure the aggregated twin. @default false */
  readonly twin?: boolean;
  /** Let the twin take the disaggregated graph's GPUs (its workers scaled to 0 meanwhile). @default false */
  readonly pauseDisagg?: boolean;
  readonly log: (s: string) => void;
  readonly cleanup: Cleanup;
  /** Asks the hub whether the tokenizer needs the token (tests answer it). @default - `hubAccess` */
  readonly hubAccess?: (model: string) => Promise<HubAccess>;
}

const WORKERS: readonly string[] = [GraphService.Prefill, GraphService.Decode];

/** The options with the Job's image chosen and whether the tokenizer's download needs the token. */
type Run = MeasureOptions & { readonly image: string; readonly tokenizerToken: boolean };

/** NIXL's counters on every worker now (a failed exec or a worker without them counts as none). */
async function kvNow(o: MeasureOptions, workers: readonly PodRef[]) {
  const probes = await Promise.all(
    workers.map((p) => execInPod(o.kc, o.resolved.namespace, p, KV_PROBE_SCRIPT, 20_000)),
  );
  return probes.map((p) => (p.error ? undefined : parseKvCounters(p.text)));
}

/** One load point against the graph `r` names: Job + policies, wait, the export from the log, cleaned up after. */
async function runPoint(o: Run, r: ResolvedInference, load: Load, index: number, runId: string) {
  const c = new MeasureCluster(o.kc, r.namespace);
  const local = new Cleanup();
  const labels = { [RUN_LABEL]: runId };
  // The point's objects are the run's too: a Ctrl-C mid-point deletes them with everything else.
  o.cleanup.add(`the Job of point ${index} and its ConfigMap and NetworkPolicies`, () => local.runAll(o.log));
  o.cleanup.assertOpen();
  try {
    for (const p of benchPoliciesFor(r, { runId, index })) await c.createPolicy(p, labels, local);
    const job = benchJobFor(r, load, {
      image: o.image,
      runId,
      index,
      deadlineSeconds: o.deadlineSeconds,
      tokenizerToken: o.tokenizerToken,
      ...(o.requests ? { requests: o.requests } : {}),
    });
    const name = job.metadata!.name!;
    o.cleanup.assertOpen();
    await c.createConfigMap(renderBenchConfigMap({ name, namespace: r.namespace }), labels, local);
    await c.createJob(job, local);
    o.log(`measure: ${r.graphName} at ${JSON.stringify(load)}: Job ${name} running (limit ${o.deadlineSeconds} s)\n`);
    const state = await c.waitJob(name, (o.deadlineSeconds + 60) * 1000);
    const log = await c.jobLog(name).catch(() => "");
    const text = exportFromLog(log);
    if (!text) {
      // No AIPerf output at all: the tokenizer's init container may be what failed (no access, no network).
      const from = log.trim() ? log : await c.jobLog(name, TOKENIZER_CONTAINER).catch(() => "");
      const which = log.trim() ? "its log" : `its ${TOKENIZER_CONTAINER} init container's log`;
      throw new UnreachableError(
        `Job ${name} ${state} without an AIPerf export; ${which} ends: ${from.trim().split("\n").slice(-5).join(" | ").slice(0, 600)}`,
      );
    }
    return parseSummary(text);
  } finally {
    await local.runAll(o.log);
  }
}

/** Every point against `r`, with NIXL's KV counters around each when `workers` are given. */
async function runPoints(
  o: Run,
  r: ResolvedInference,
  workers: readonly PodRef[],
  runId: string,
  first: number,
): Promise<MeasuredRun[]> {
  const out: MeasuredRun[] = [];
  const points = loadPoints(r.workload, o.factors);
  for (const [i, load] of points.entries()) {
    const before = workers.length ? await kvNow(o, workers) : [];
    const summary = await runPoint(o, r, load, first + i, runId);
    const kv = workers.length ? kvDelta(before, await kvNow(o, workers)) : undefined;
    out.push({ load, summary, ...(kv ? { kv } : {}) });
  }
  return out;
}

/** Polls `ready` every 10 s up to `seconds`, or until `stop` resolves; false when it never was ready. */
async function until(ready: () => Promise<boolean>, seconds: number, stop?: Promise<void>): Promise<boolean> {
  const end = Date.now() + seconds * 1000;
  let stopped = false;
  void stop?.then(() => (stopped = true));
  while (Date.now() < end && !stopped) {
    if (await ready()) return true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([new Promise((res) => (timer = setTimeout(res, 10_000))), ...(stop ? [stop] : [])]);
    clearTimeout(timer);
  }
  return false;
}

/** Scales the disaggregated workers to 0 and registers putting them back (and waiting for Ready). */
async function pause(o: MeasureOptions, c: MeasureCluster, live: DynamoGraphDeployment): Promise<void> {
  const r = o.resolved;
  const back = Object.fromEntries(WORKERS.map((s) => [s, live.spec.services[s]?.replicas ?? 1]));
  o.cleanup.add(`the replicas of ${r.graphName} (${JSON.stringify(back)})`, async () => {
    await c.scale(r.graphName, back);
    if (o.cleanup.isHurried) return o.log(`measure: ${r.graphName} scaled back to ${JSON.stringify(back)}\n`);
    o.log(`measure: ${r.graphName} scaled back to ${JSON.stringify(back)}; waiting for Ready (Ctrl-C: stop waiting)\n`);
    await until(() => c.graphReady(r.graphName), r.modelLoadBudgetSeconds + 600, o.cleanup.hurriedSignal);
  });
  await c.scale(r.graphName, Object.fromEntries(WORKERS.map((s) => [s, 0])));
  o.log(`measure: ${r.graphName}'s workers scaled to 0 for the twin (--pause-disagg)\n`);
}

/** The twin: deploy, wait Ready, measure, tear down (also on failure: its objects are in `o.cleanup`). */
async function runTwin(
  o: Run,
  twin: Twin,
  live: DynamoGraphDeployment,
  runId: string,
  first: number,
): Promise<MeasuredRun[]> {
  const r = o.resolved;
  const c = new MeasureCluster(o.kc, r.namespace);
  const local = new Cleanup();
  // Paused first, so that undoing runs the other way: the twin is deleted before the graph gets its GPUs back.
  o.cleanup.assertOpen();
  if (!twin.fitsBeside) await pause(o, c, live);
  o.cleanup.add(`the twin ${twin.name}`, () => local.runAll(o.log));
  for (const p of twin.policies) await c.createPolicy(p, { [RUN_LABEL]: runId }, local);
  await c.createGraph({ ...twin.graph, metadata: { ...twin.graph.metadata, labels: { [RUN_LABEL]: runId } } }, local);
  o.log(
    `measure: twin ${twin.name} (${twin.workers} aggregated workers, ${twin.gpus} GPUs) created; waiting for Ready\n`,
  );
  if (!(await until(() => c.graphReady(twin.name), r.modelLoadBudgetSeconds + 600)))
    throw new UnreachableError(`the twin ${twin.name} did not turn Ready within ${r.modelLoadBudgetSeconds + 600} s`);
  const runs = await runPoints(o, { ...r, graphName: twin.name }, [], runId, first);
  await local.runAll(o.log);
  return runs;
}

/** The twin to deploy, checked before anything is created: vLLM, and GPUs for it (or leave to pause the graph). */
function plannedTwin(o: MeasureOptions, view: EstimateView, image: string): Twin {
  const t = aggregatedTwin(o.resolved, image, view.atWorkload.aggregated.replicas);
  if ("why" in t) throw new UsageError(`--twin: ${t.why}`);
  if (!t.fitsBeside && !o.pauseDisagg)
    throw new UsageError(
      `--twin: the twin needs ${t.gpus} GPUs and the pool has none free beside ${o.resolved.graphName}; add --pause-disagg to scale ${o.resolved.graphName}'s workers to 0 while the twin runs (they are scaled back afterwards, also on failure or Ctrl-C)`,
    );
  return t;
}

/** The run; the report is built from what AIPerf exported. */
export async function measure(o: MeasureOptions): Promise<MeasureReport> {
  const r = o.resolved;
  const view = estimateView(r);
  if ("why" in view) throw new UsageError(`no estimate to compare with: ${view.why}`);
  const c = new MeasureCluster(o.kc, r.namespace);
  const live = await c.graph(r.graphName);
  if (!live)
    throw new UnreachableError(
      `no DynamoGraphDeployment ${r.graphName} in namespace ${r.namespace}: run pulumi up first`,
    );
  // The twin's workers run the engine image the graph's decode workers run (the Frontend may run another image).
  const engineImage = live.spec.services[GraphService.Decode]?.extraPodSpec?.mainContainer?.image;
  if (o.twin && !engineImage)
    throw new UnreachableError(`${r.graphName}'s decode workers name no image: the twin runs the graph's own image`);
  const twin = o.twin ? plannedTwin(o, view, engineImage!) : undefined;
  const image = benchImage(release(r.release), await c.runningImages(podSelector(r.graphName)), o.image);
  if ("problem" in image) throw new UsageError(image.problem);
  o.log(`measure: AIPerf runs from ${image.ref} (${image.why})\n`);
  const access = await (o.hubAccess ?? hubAccess)(r.model);
  o.log(
    `measure: the tokenizer of ${r.model} is fetched by each Job's init container ${access.token ? "with" : "without"} the graph's Hugging Face token (${access.why}); AIPerf reads it offline\n`,
  );
  const run: Run = { ...o, image: image.ref, tokenizerToken: access.token };
  const runId = Date.now().toString(36);
  const pods = await new ClusterReader(o.kc, r.namespace).pods(podSelector(r.graphName), 30_000);
  const workers = pods.filter((p) => isWorker(p, WORKERS));
  const disaggregated = await runPoints(run, r, workers, runId, 0);
  const aggregated = twin ? await runTwin(run, twin, live, runId, o.factors.length) : undefined;
  await o.cleanup.runAll(o.log);
  const kvPlan = kvPlanOf(r);
  return buildReport({
    stack: o.stack,
    graph: r.graphName,
    namespace: r.namespace,
    image: image.ref,
    workload: r.workload,
    prefill: r.prefill,
    decode: r.decode,
    pool: { gpusPerNode: r.pool.gpusPerNode, nodes: r.pool.nodes, placement: r.placement },
    estimate: view,
    disaggregated,
    ...(aggregated && twin ? { aggregated: { gpus: twin.gpus, runs: aggregated } } : {}),
    ...(kvPlan ? { kvPlan } : {}),
  });
}
