/**
 * The field report's gate matrix (docs/FIELD-FAILURES.md#gate-matrix) as pure functions over data already fetched (pods, EndpointSlices,
 * HTTP responses, worker logs). No I/O here: `cli.ts` fetches, these decide PASS/FAIL with evidence.
 *
 * Gates, in order (docs/FIELD-FAILURES.md#gate-matrix: rev6/rev7):
 *  A. pods of the graph Running and Ready; every worker pod has a `ready==true` EndpointSlice endpoint
 *     (Dynamo's Kubernetes discovery only lists those, F2).
 *  B. `/v1/models` lists the served model.
 *  C. completions: non-stream text + OpenAI shape (not double-wrapped), SSE ending in `[DONE]`, chat message.
 *  D. worker logs prove NIXL's KV path is the stack's chosen backend (inference.kvTransport; LIBFABRIC on EFA) (F3).
 *  E. time to first token below a threshold (~1 s on EFA, ~100 s on a silent TCP fallback).
 */

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
export const GateId = { A: "A", B: "B", C: "C", D: "D", E: "E", F: "F" } as const;
export type GateId = (typeof GateId)[keyof typeof GateId];

/** One-line title of each gate, as printed in the table. */
export const GATE_TITLES: Readonly<Record<GateId, string>> = {
  A: "pods Ready + worker EndpointSlices ready",
  B: "/v1/models lists the served model",
  C: "completions (non-stream, SSE, chat)",
  D: "worker logs: NIXL KV path is LIBFABRIC",
  E: "time to first token",
  F: "TTFT/ITL read back from Prometheus",
};

/** Gates a gate needs: when one of them did not pass, the gate is SKIPPED. */
export const GATE_NEEDS: Readonly<Record<GateId, readonly GateId[]>> = {
  A: [],
  B: ["A"],
  C: ["B"],
  D: [],
  E: ["C"],
  F: ["C"],
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

/** Process exit code for a finished run: 0 when every gate passed, else 1. */
export function exitCodeOf(results: readonly GateResult[]): 0 | 1 {
  return results.every((r) => r.status === GateStatus.Pass) ? 0 : 1;
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
  const readyEps = endpoints.filter((e) => e.ready === true && e.pod !== undefined && workerNames.includes(e.pod)).length;
  return result("A", GateStatus.Pass, [`${pods.length} pods Running+Ready; ${readyEps} ready worker endpoints`, ...good], latencyMs);
}

// ---------------------------------------------------------------------------------------------
// Gates B, C, E: HTTP
// ---------------------------------------------------------------------------------------------

/** A buffered HTTP response. `json` is undefined when the body is not JSON. */
export interface HttpReply {
  readonly status: number;
  readonly text: string;
  readonly json: unknown;
  readonly ms: number;
  /** Transport error (timeout, reset) when the request did not complete. */
  readonly error?: string;
}

/** A streamed (SSE) response: the `data:` payloads in order. */
export interface SseReply {
  readonly status: number;
  /** Every `data:` payload, `[DONE]` included. */
  readonly events: readonly string[];
  /** Milliseconds from sending the request to the first event carrying non-empty text. */
  readonly ttftMs: number | undefined;
  readonly ms: number;
  readonly error?: string;
  /** Body text when the response was not `text/event-stream` (e.g. a 500). */
  readonly text?: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function clip(s: string, n = 160): string {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > n ? `${one.slice(0, n)}...` : one;
}

function httpProblem(what: string, r: { status: number; error?: string; text?: string }): string | undefined {
  if (r.error) return `${what}: ${r.error}`;
  if (r.status !== 200) return `${what}: HTTP ${r.status} ${clip(r.text ?? "")}`;
  return undefined;
}

/** Gate B. `/v1/models` answers `{object:"list", data:[{id}]}` and one id is the served model. */
export function gateModels(reply: HttpReply, servedModel: string): GateResult {
  const p = httpProblem("GET /v1/models", reply);
  if (p) return result("B", GateStatus.Fail, [p], reply.ms);
  const data = isObject(reply.json) ? reply.json.data : undefined;
  if (!Array.isArray(data)) {
    return result("B", GateStatus.Fail, [`GET /v1/models: no "data" array in ${clip(reply.text)}`], reply.ms);
  }
  // Only a string id names a model: ["x"] must not pass as "x" through String().
  const ids = data.map((m) => (isObject(m) && typeof m.id === "string" ? m.id : `? (id ${clip(JSON.stringify(isObject(m) ? m.id : m) ?? "none", 40)})`));
  if (!ids.includes(servedModel)) {
    const seen = ids.length ? ids.join(", ") : "none (Frontend discovered no worker)";
    return result("B", GateStatus.Fail, [`served model "${servedModel}" not listed; listed: ${seen}`], reply.ms);
  }
  return result("B", GateStatus.Pass, [`lists "${servedModel}" (${ids.length} model${ids.length === 1 ? "" : "s"})`], reply.ms);
}

/** Problems with a non-stream completion body: OpenAI shape, not double-wrapped, non-empty text. */
export function completionProblems(body: unknown, kind: "text" | "chat"): string[] {
  if (!isObject(body)) return ["body is not a JSON object"];
  const keys = Object.keys(body);
  if (!("choices" in body) && "data" in body) return [`double-wrapped: top-level keys [${keys.join(", ")}], expected choices`];
  const choices = body.choices;
  if (!Array.isArray(choices) || choices.length === 0) return [`no choices: top-level keys [${keys.join(", ")}]`];
  const first = choices[0];
  const text = kind === "text" ? (isObject(first) ? first.text : undefined) : isObject(first) && isObject(first.message) ? first.message.content : undefined;
  const field = kind === "text" ? "choices[0].text" : "choices[0].message.content";
  if (typeof text !== "string") return [`${field} missing`];
  if (text.trim() === "") return [`${field} is empty`];
  return [];
}

/** Text carried by one streamed chunk (completion `text` or chat `delta.content`). */
export function chunkText(chunk: unknown): string {
  if (!isObject(chunk) || !Array.isArray(chunk.choices)) return "";
  const c = chunk.choices[0];
  if (!isObject(c)) return "";
  if (typeof c.text === "string") return c.text;
  if (isObject(c.delta) && typeof c.delta.content === "string") return c.delta.content;
  return "";
}

/** Problems with an SSE completion: every event a chunk, text produced, last event `[DONE]`. */
export function sseProblems(reply: SseReply): string[] {
  const p = httpProblem("stream", reply);
  if (p) return [p];
  const out: string[] = [];
  const events = reply.events;
  if (events.length === 0) return ["stream: no SSE data events"];
  const done = events.indexOf("[DONE]");
  if (done < 0) out.push(`stream: ended without [DONE] after ${events.length} events`);
  else if (done < events.length - 1) out.push(`stream: ${events.length - 1 - done} event(s) after [DONE]`);
  let text = "";
  for (const e of events.filter((x) => x !== "[DONE]")) {
    let chunk: unknown;
    try {
      chunk = JSON.parse(e);
    } catch {
      out.push(`stream: event is not JSON: ${clip(e, 80)}`);
      break;
    }
    if (isObject(chunk) && "error" in chunk) {
      out.push(`stream: error event mid-stream: ${clip(JSON.stringify(chunk.error) ?? "", 120)}`);
      break;
    }
    text += chunkText(chunk);
  }
  if (text.trim() === "") out.push("stream: chunks carried no text");
  return out;
}

/** The three requests of gate C. */
export interface CompletionReplies {
  readonly completion: HttpReply;
  readonly stream: SseReply;
  readonly chat: HttpReply;
}

/** Gate C over the three replies; evidence names each request's latency. */
export function gateCompletions(r: CompletionReplies): GateResult {
  const bad: string[] = [];
  const pc = httpProblem("POST /v1/completions stream=false", r.completion);
  if (pc) bad.push(pc);
  else bad.push(...completionProblems(r.completion.json, "text").map((m) => `completions stream=false: ${m}`));
  bad.push(...sseProblems(r.stream).map((m) => `completions stream=true: ${m.replace(/^stream: /, "")}`));
  const ph = httpProblem("POST /v1/chat/completions stream=false", r.chat);
  if (ph) bad.push(ph);
  else bad.push(...completionProblems(r.chat.json, "chat").map((m) => `chat: ${m}`));
  const ms = r.completion.ms + r.stream.ms + r.chat.ms;
  if (bad.length > 0) return result("C", GateStatus.Fail, bad, ms);
  const sample = isObject(r.completion.json) && Array.isArray(r.completion.json.choices) ? chunkText(r.completion.json) : "";
  return result(
    "C",
    GateStatus.Pass,
    [
      `non-stream ${r.completion.ms} ms, SSE ${r.stream.events.length} events to [DONE] ${r.stream.ms} ms, chat ${r.chat.ms} ms`,
      `text: ${JSON.stringify(clip(sample, 60))}`,
    ],
    ms,
  );
}

/** Gate E. Time to first token of a streamed completion is at most `thresholdMs`. */
export function gateTtft(reply: SseReply, thresholdMs: number): GateResult {
  const p = httpProblem("stream", reply);
  if (p && reply.ttftMs === undefined) return result("E", GateStatus.Fail, [p], reply.ms);
  if (reply.ttftMs === undefined) return result("E", GateStatus.Fail, ["no token arrived"], reply.ms);
  const line = `TTFT ${reply.ttftMs} ms (threshold ${thresholdMs} ms)`;
  if (reply.ttftMs > thresholdMs) {
    return result("E", GateStatus.Fail, [line, "a slow first token is what a silent TCP fallback of the KV transfer looks like"], reply.ttftMs);
  }
  return result("E", GateStatus.Pass, [line], reply.ttftMs);
}
