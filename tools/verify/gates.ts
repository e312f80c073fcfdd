/**
 * The field report's gate matrix (docs/FIELD-FAILURES.md#gate-matrix) as pure functions over data already fetched (pods, EndpointSlices,
 * HTTP responses, worker logs). No I/O here: `cli.ts` fetches, these decide PASS/FAIL with evidence.
 * This file holds the gate results and gate A; the HTTP gates B, C and E are in `gates-http.ts`, D in
 * `kvlog.ts`, F in `gate-f.ts`.
 *
 * Gates, in order (docs/FIELD-FAILURES.md#gate-matrix: rev6/rev7):
 *  A. pods of the graph Running and Ready; every worker pod has a `ready==true` EndpointSlice endpoint
 *     (Dynamo's Kubernetes discovery only lists those, F2); no GPU node registered short of hugepages (`nodes.ts`).
 *  B. `/v1/models` lists the served model.
 *  C. completions: non-stream text + OpenAI shape (not double-wrapped), SSE ending in `[DONE]`, chat message.
 *  D. worker logs prove NIXL's KV path is the stack's chosen backend (inference.kvTransport; LIBFABRIC on EFA) (F3).
 *  E. time to first token below a threshold (~1 s on EFA, ~100 s on a silent TCP fallback).
 *  F. TTFT/ITL read back from Prometheus (`gate-f.ts`).
 *  G. (`--probe-workers`) each worker's engine process: RLIMIT_MEMLOCK/CapEff, the LIBFABRIC plugin mapped
 *     executable, the KV bytes NIXL reports moving (`efa-process.ts`).
 *  L. (`--check-locality`) each worker's EFA devices on its GPUs' PCIe tree (`locality.ts`).
 *
 * A cluster stack (no graph) has its own gates instead (`cluster-gates.ts`): N system nodes, P the platform, V the
 * device plugins or DRA drivers, M the monitoring; the graph gates are SKIPPED there as not applying.
 */

/** The error of a probe exec that printed more than `maxBytes` (k8s.ts `execInPod` stops reading there). */
export const execOverflow = (maxBytes: number): string =>
  `the probe printed more than ${maxBytes} bytes; not read further (a probe prints a few kB)`;

/** What to add to a failed probe exec's error: the permission it needs, unless it failed by printing too much. */
export const execFailureHint = (error: string): string =>
  /^the probe printed more than \d+ bytes/.test(error) ? "" : " (verify needs pods/exec on the graph's namespace)";

/** Outcome of one gate. `INCONCLUSIVE` = no reliable evidence either way; it counts as not passing, as do SKIPPED and NOT RUN. */
export const GateStatus = {
  Pass: "PASS",
  Fail: "FAIL",
  Inconclusive: "INCONCLUSIVE",
  Skipped: "SKIPPED",
  /** The gate's checks never ran: the cluster or Frontend became unreachable, or no time was left. */
  NotRun: "NOT RUN",
} as const;
export type GateStatus = (typeof GateStatus)[keyof typeof GateStatus];

/** Gate identifiers, in run order. */
export const GateId = {
  ...{ A: "A", B: "B", C: "C", D: "D", E: "E", F: "F", G: "G", L: "L" },
  ...{ N: "N", P: "P", V: "V", M: "M" },
} as const;
export type GateId = (typeof GateId)[keyof typeof GateId];

/** One-line title of each gate, as printed in the table. */
export const GATE_TITLES: Readonly<Record<GateId, string>> = {
  A: "pods Ready + worker EndpointSlices ready",
  B: "/v1/models lists the served model",
  C: "completions (non-stream, SSE, chat)",
  D: "worker logs: NIXL KV path is LIBFABRIC",
  E: "time to first token",
  F: "TTFT/ITL read back from Prometheus",
  G: "EFA worker process: memlock, LIBFABRIC mapped, KV bytes",
  L: "EFA devices on each worker's GPU PCIe tree",
  N: "system nodes Ready",
  P: "Dynamo platform pods Running and Ready",
  V: "device plugins or DRA drivers: DaemonSets ready",
  M: "monitoring: Prometheus Ready, DCGM exporter DaemonSet ready",
};

/** Gates a gate needs: when one of them did not pass, the gate is SKIPPED. */
export const GATE_NEEDS: Readonly<Record<GateId, readonly GateId[]>> = {
  A: [],
  B: ["A"],
  C: ["B"],
  D: [],
  E: ["C"],
  F: ["C"],
  G: ["C"],
  L: ["A"],
  N: [],
  P: [],
  V: [],
  M: [],
};

/** The verdict of one gate: status, the lines that justify it, and how long its checks took. */
export interface GateResult {
  readonly id: GateId;
  readonly title: string;
  readonly status: GateStatus;
  /** Human-readable facts behind the status (first line is the summary). */
  readonly evidence: readonly string[];
  /** Wall time of the gate's own requests, in milliseconds (undefined when SKIPPED). */
  readonly latencyMs?: number;
  /** SKIPPED because the gate does not apply to the stack (a graph gate on a cluster stack); never fails a run. */
  readonly notApplicable?: true;
}

/** Builds a result; evidence of a PASS or FAIL must say why. */
export function result(id: GateId, status: GateStatus, evidence: string[], latencyMs?: number): GateResult {
  return { id, title: GATE_TITLES[id], status, evidence, latencyMs };
}

/** The SKIPPED result of `id` because `blockers` did not pass. */
export function skipped(id: GateId, blockers: readonly GateId[]): GateResult {
  return result(id, GateStatus.Skipped, [`needs gate ${blockers.join(", ")} to pass`]);
}

/** Gates among `needs` that did not PASS in `done`. */
export function blockersOf(id: GateId, done: ReadonlyMap<GateId, GateResult>): GateId[] {
  return GATE_NEEDS[id].filter((need) => done.get(need)?.status !== GateStatus.Pass);
}

/** Process exit code for a finished run: 0 when every gate passed (or does not apply), else 1. */
export function exitCodeOf(results: readonly GateResult[]): 0 | 1 {
  return results.every((r) => r.status === GateStatus.Pass || r.notApplicable === true) ? 0 : 1;
}

/** `id` SKIPPED as not applying to the stack, saying why (`why`). */
export function notApplicable(id: GateId, why: string): GateResult {
  return { ...result(id, GateStatus.Skipped, [`does not apply: ${why}`]), notApplicable: true };
}

// ---------------------------------------------------------------------------------------------
// Gate A: pods and EndpointSlices
// ---------------------------------------------------------------------------------------------

/** What gate A needs to know about a pod. */
export interface PodFact {
  readonly name: string;
  /** Value of the operator's component label (`Frontend`, `PrefillWorker`, ...). */
  readonly component: string | undefined;
  /** Value of the operator's component-type label (`frontend` | `worker` | `planner`). */
  readonly componentType: string | undefined;
  readonly phase: string | undefined;
  /** The pod's `Ready` condition is `True`. */
  readonly ready: boolean;
}

/** One endpoint of an EndpointSlice, reduced to what discovery looks at. */
export interface EndpointFact {
  readonly slice: string;
  /** `kubernetes.io/service-name` label of the slice. */
  readonly service: string | undefined;
  /** `targetRef.name` when the target is a Pod. */
  readonly pod: string | undefined;
  /** `conditions.ready`; Kubernetes discovery counts only `true` (Dynamo's daemon.rs filter: docs/FIELD-FAILURES.md#f2). */
  readonly ready: boolean | undefined;
}

/** Whether a pod is a worker: component type `worker`, or one of the graph's worker components. */
export function isWorker(pod: PodFact, workerComponents: readonly string[]): boolean {
  return pod.componentType === "worker" || (pod.component !== undefined && workerComponents.includes(pod.component));
}

/**
 * Gate A. Every expected component has at least one pod; every pod is Running and Ready; every
 * worker pod is the target of at least one endpoint with `ready == true` (else the Frontend cannot
 * discover it, F2). Dynamo's discovery daemon (`lib/runtime/src/discovery/kube/daemon.rs`) joins
 * ready EndpointSlice endpoints with the pods' DynamoWorkerMetadata; likewise, endpoints are matched
 * to pods here by `targetRef.name`, so the check does not depend on which Service the slice is for.
 */
export function gatePods(
  pods: readonly PodFact[],
  endpoints: readonly EndpointFact[],
  components: readonly string[],
  workerComponents: readonly string[],
  latencyMs?: number,
): GateResult {
  const bad: string[] = [];
  const good: string[] = [];
  for (const c of components) {
    const n = pods.filter((p) => p.component === c).length;
    if (n === 0) bad.push(`no pod of component ${c}`);
    else good.push(`${c}: ${n} pod${n === 1 ? "" : "s"}`);
  }
  for (const p of pods) {
    if (p.phase !== "Running" || !p.ready) bad.push(`pod ${p.name}: phase=${p.phase ?? "?"} ready=${p.ready}`);
  }
  for (const p of pods.filter((q) => isWorker(q, workerComponents))) {
    const mine = endpoints.filter((e) => e.pod === p.name);
    if (mine.length === 0) bad.push(`worker ${p.name}: in no EndpointSlice (Frontend cannot discover it)`);
    else if (!mine.some((e) => e.ready === true)) {
      const where = mine.map((e) => `${e.slice} ready=${String(e.ready)}`).join(", ");
      bad.push(`worker ${p.name}: no ready endpoint (${where}); Frontend discovery skips it`);
    }
  }
  if (bad.length > 0) return result("A", GateStatus.Fail, bad, latencyMs);
  const workerNames = pods.filter((p) => isWorker(p, workerComponents)).map((p) => p.name);
  const readyEps = endpoints.filter(
    (e) => e.ready === true && e.pod !== undefined && workerNames.includes(e.pod),
  ).length;
  return result(
    "A",
    GateStatus.Pass,
    [`${pods.length} pods Running+Ready; ${readyEps} ready worker endpoints`, ...good],
    latencyMs,
  );
}
