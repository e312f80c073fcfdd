/**
 * Workers under load, as closed-form queues: each role's capacity, the disaggregated and the aggregated layout at an
 * arrival rate, goodput within objectives, the served rate at a declared load and the gain of one layout over the
 * other. Pure; one worker's speed comes from `./worker-speed.ts`, and the estimate that reports these for a graph
 * is `./serving.ts`.
 */
import { KvCacheDtype, ModelFacts } from "../components/catalog/models";
import type { ResolvedWorkload } from "../components/inference/args";
import { KvLink, kvTransfer } from "../components/inference/fit";
import { decodeStepMs, engineOf, maxDecodeBatch, mixedStepMs, prefillMs, WorkerSpeed } from "./worker-speed";

/*
 * Workers under load: the time to first token (TTFT) and inter-token latency (ITL) a declared workload
 * sees on the disaggregated layout (prefill and decode workers) and on aggregated workers on the same GPUs,
 * the requests per second each sustains, and the prefill:decode split that balances the two roles. Pure;
 * per-worker speeds come from ./worker-speed.ts.
 *
 * Queueing (the approximations, chosen to be closed-form and monotone in the load):
 * - prefill workers are an M/D/c queue: Poisson arrivals, a deterministic service time per prompt; its wait is
 *   taken as half the M/M/c (Erlang C) wait, the usual M/D/c approximation, and its percentiles from the M/M/c
 *   tail P(W > t) = C e^(-(c - a) t / s) at twice the drain rate (the tail whose mean is that half wait). A prefill
 *   worker batches prompts up to the engine's token budget per step (`engineOf(w).maxBatchedTokens`: vLLM's
 *   max_num_batched_tokens, TensorRT-LLM's max_num_tokens), which sets its capacity;
 * - decode workers hold `b` sequences where Little's law balances: b = arrivals per worker x OSL x ITL(b);
 *   ITL(b) is the decode step at that batch, at the mean context ISL + OSL/2. No batch solves it above the KV
 *   cache's batch limit: the layout is saturated;
 * - aggregated workers (vLLM's chunked prefill, the same in TensorRT-LLM's in-flight batching) run prefill
 *   and decode in the same steps. Prefill takes the share u = arrivals per worker x prefill time per prompt of
 *   the GPU, and the decode batch advances only in the rest: ITL = step(b) / (1 - u) — prefill stalls
 *   decode. A prompt's own prefill is spread over ceil(ISL / (chunk budget - b)) steps, each also carrying
 *   the other sequences' share of those steps, so TTFT = prefill + that share + an M/D/1 wait at utilisation u. ITL's P50/P90 are the plain
 *   step or the step that carries a prefill chunk, by the share of steps that carry one.
 * - disaggregated TTFT = prefill + M/D/c wait + the KV transfer + the first decode step.
 * A closed-loop load (`concurrency` requests in flight) is turned into an arrival rate by Little's law:
 * concurrency = rate x (TTFT + OSL x ITL); its queue is bounded by what is in flight (a prompt waits behind at most
 * the others beyond the servers, so never when they are no more than the prefill servers: one request in flight
 * never queues), and its waves queue as `withWaves` says.
 */

/** A declared workload, every default filled. */
export type ServingWorkload = Omit<ResolvedWorkload, "declared">;

/** One role's workers: how fast each is and how many. */
export interface RoleWorkers {
  readonly speed: WorkerSpeed;
  readonly replicas: number;
}

/** What a layout gives at one arrival rate: means, and P50/P90. Latencies are undefined when saturated. */
export interface LoadPoint {
  readonly requestsPerSecond: number;
  readonly ttftMs?: number;
  readonly itlMs?: number;
  readonly ttftP50Ms?: number;
  readonly ttftP90Ms?: number;
  readonly itlP50Ms?: number;
  readonly itlP90Ms?: number;
  /** Aggregated: the ITL of decode steps that carry no prefill (what a closed loop's waves leave to decode). */
  readonly itlPlainMs?: number;
}

/** A layout: latency at an arrival rate, and the rate it saturates at. */
export interface Layout {
  readonly capacityRequestsPerSecond: number;
  /** The prefill servers (workers that prefill) and the time each spends per prompt at its batched rate. */
  readonly prefill: { readonly servers: number; readonly msPerPrompt: number };
  /**
   * The layout at an arrival rate. `inFlight`: a closed loop's requests in flight, which bounds the queue (a prompt
   * waits behind at most the others in flight beyond the servers: none when they are no more than the servers).
   */
  at(requestsPerSecond: number, inFlight?: number): LoadPoint;
}

/**
 * The most a prompt can wait, ms, in a closed loop of `inFlight` requests on `servers` prefill servers of `serviceMs`
 * each: the others beyond the servers all ahead of it (0 when every request has its own server); unbounded in an open
 * loop (`inFlight` undefined).
 */
export function closedLoopWaitCapMs(inFlight: number | undefined, servers: number, serviceMs: number): number {
  return inFlight === undefined ? Infinity : (Math.max(0, inFlight - servers) * serviceMs) / servers;
}

/** Erlang C: the probability an arrival waits, `c` servers at offered load `a` (< c) erlangs. */
export function erlangC(c: number, a: number): number {
  let term = 1;
  let sum = 1;
  for (let k = 1; k < c; k++) {
    term *= a / k;
    sum += term;
  }
  const last = (term * a) / c / (1 - a / c);
  return last / (sum + last);
}

/** M/D/c mean wait, ms: half the M/M/c wait. `serviceMs` per request, `rate` per second. */
export function mdcWaitMs(c: number, rate: number, serviceMs: number): number {
  const a = (rate * serviceMs) / 1000;
  if (a <= 0) return 0;
  if (a >= c) return Infinity;
  return (0.5 * erlangC(c, a) * serviceMs) / (c - a);
}

/**
 * Percentile `p` (0..1) of the M/D/c wait, ms: the M/M/c tail C e^(-(c - a) t / s) at twice the drain rate, so that
 * its mean is `mdcWaitMs`; 0 when an arrival waits with probability below 1 - p.
 */
export function mdcWaitPercentileMs(c: number, rate: number, serviceMs: number, p: number): number {
  const a = (rate * serviceMs) / 1000;
  if (a <= 0) return 0;
  if (a >= c) return Infinity;
  const waits = erlangC(c, a);
  if (waits <= 1 - p) return 0;
  return (Math.log(waits / (1 - p)) * serviceMs) / (2 * (c - a));
}

/** Largest x in [lo, hi] with ok(x), for ok true below some threshold and false above it. */
function bisect(lo: number, hi: number, ok: (x: number) => boolean, steps = 40): number {
  if (!ok(lo)) return lo;
  if (ok(hi)) return hi;
  let a = lo;
  let b = hi;
  for (let i = 0; i < steps; i++) {
    const m = (a + b) / 2;
    if (ok(m)) a = m;
    else b = m;
  }
  return a;
}

/** Mean context of a decoding sequence: its prompt and half its output. */
const meanContext = (wl: ServingWorkload) => wl.isl + wl.osl / 2;

/** Prompts per prefill forward and a prefill worker's requests per second at that batch. */
export function prefillCapacity(w: WorkerSpeed, isl: number): { prompts: number; requestsPerSecond: number } {
  const prompts = Math.max(1, Math.floor(engineOf(w).maxBatchedTokens / isl));
  return { prompts, requestsPerSecond: (prompts * 1000) / prefillMs(w, isl, prompts) };
}

/**
 * The decode batch Little's law gives one worker at `rate` arrivals per second, where a sequence's ITL at
 * batch b is `itl(b)`; undefined when none fits under `maxBatch`.
 */
function balancedBatch(rate: number, osl: number, maxBatch: number, itl: (b: number) => number): number | undefined {
  const excess = (b: number) => (rate * osl * itl(Math.max(1, b))) / 1000 - b;
  if (maxBatch < 1) return undefined;
  // A batch whose prefill-carrying steps fill the worker has no ITL: search below the largest batch that has one.
  // 30 halvings: a batch to within 1e-6 of the largest engine limit, finer than any step time changes.
  const top = Number.isFinite(itl(maxBatch)) ? maxBatch : bisect(1, maxBatch, (b) => Number.isFinite(itl(b)), 30);
  if (excess(top) > 0) return undefined;
  return bisect(0, top, (b) => excess(b) > 0, 30);
}

/** A decode worker's requests per second at its largest batch (within the ITL objective when one is set). */
export function decodeCapacity(w: WorkerSpeed, wl: ServingWorkload): { batch: number; requestsPerSecond: number } {
  const ctx = meanContext(wl);
  const max = maxDecodeBatch(w, wl.isl, wl.osl);
  const itlOk = (b: number) => wl.itlMs === undefined || decodeStepMs(w, b, ctx) <= wl.itlMs;
  const batch = max < 1 ? 0 : Math.floor(bisect(1, max, itlOk));
  if (batch < 1 || !itlOk(batch)) return { batch: 0, requestsPerSecond: 0 };
  return { batch, requestsPerSecond: (batch * 1000) / (wl.osl * decodeStepMs(w, batch, ctx)) };
}

/**
 * Milliseconds to move one request's KV cache (ISL tokens) from a prefill worker of tensor parallel `tp`: the fit
 * section's expected time (each rank at the measured NIXL rate, at most its line rate), not the line-rate bound.
 */
export function requestKvTransferMs(
  m: ModelFacts,
  kvDtype: KvCacheDtype,
  isl: number,
  tp: number,
  link: KvLink,
): number {
  return kvTransfer(m, tp, kvDtype, isl, link).expectedMs;
}

/** The disaggregated layout: prefill and decode workers, the KV cache crossing `kvTransferMs` per request. */
export function disaggregated(p: RoleWorkers, d: RoleWorkers, wl: ServingWorkload, kvTransferMs: number): Layout {
  const pc = prefillCapacity(p.speed, wl.isl);
  const serviceMs = 1000 / pc.requestsPerSecond;
  const oneMs = prefillMs(p.speed, wl.isl);
  const maxBatch = maxDecodeBatch(d.speed, wl.isl, wl.osl);
  const step = (b: number) => decodeStepMs(d.speed, b, meanContext(wl));
  const dc = decodeCapacity(d.speed, { ...wl, itlMs: undefined });
  return {
    capacityRequestsPerSecond: Math.min(p.replicas * pc.requestsPerSecond, d.replicas * dc.requestsPerSecond),
    prefill: { servers: p.replicas, msPerPrompt: serviceMs },
    at(rate, inFlight) {
      const queued = mdcWaitMs(p.replicas, rate, serviceMs);
      const b = balancedBatch(rate / d.replicas, wl.osl, maxBatch, step);
      if (!Number.isFinite(queued) || b === undefined) return { requestsPerSecond: rate };
      const cap = closedLoopWaitCapMs(inFlight, p.replicas, serviceMs);
      const wait = Math.min(cap, queued);
      const itlMs = step(Math.max(1, b));
      const fixed = oneMs + kvTransferMs + itlMs;
      const pct = (q: number) => fixed + Math.min(cap, mdcWaitPercentileMs(p.replicas, rate, serviceMs, q));
      return {
        requestsPerSecond: rate,
        ttftMs: fixed + wait,
        itlMs,
        ttftP50Ms: pct(0.5),
        ttftP90Ms: pct(0.9),
        itlP50Ms: itlMs,
        itlP90Ms: itlMs,
      };
    },
  };
}

/** What aggregated decode gets beside prefill: its ITL, the ms of a step that carries prefill, the share of such steps. */
interface MixedDecode {
  readonly itl: number;
  readonly mixedMs: number;
  readonly share: number;
}

/**
 * Decode beside prefill on an aggregated worker `w` at `perWorker` arrivals per second and a batch of `b`: each step
 * advances every sequence by one token and carries the prompt tokens that arrived during it, up to the token budget
 * less the batch. A step that carries prefill carries whole prompts (as many as arrive while it runs) or, for a prompt
 * longer than the room, one room-sized chunk at the prompt's middle (the chunks' mean attention, linear in the
 * prefix). The step time T solves T = plain + the share of steps that carry prefill x what such a step adds;
 * undefined (saturated) when prefill needs more tokens per step than the room holds.
 */
function decodeBesidePrefill(
  w: WorkerSpeed,
  wl: ServingWorkload,
  b: number,
  perWorker: number,
): MixedDecode | undefined {
  const ctx = meanContext(wl);
  const plain = decodeStepMs(w, Math.max(1, b), ctx);
  const room = Math.max(1, engineOf(w).maxBatchedTokens - b);
  const mixedOf = (tokens: number) =>
    wl.isl > room
      ? mixedStepMs(w, b, ctx, room, (wl.isl - room) / 2)
      : mixedStepMs(w, b, ctx, tokens, 0, tokens / wl.isl);
  let t = plain;
  let share = 0;
  let unit = -1;
  let mixedMs = plain;
  for (let i = 0; i < 30; i++) {
    const demand = (perWorker * wl.isl * t) / 1000; // prompt tokens arriving per step
    if (demand > room * (1 + 1e-9)) return undefined;
    const u = wl.isl > room ? room : Math.min(Math.floor(room / wl.isl) * wl.isl, Math.max(wl.isl, demand));
    if (u !== unit) mixedMs = mixedOf((unit = u));
    share = demand / unit;
    const next = plain + share * (mixedMs - plain);
    if (Math.abs(next - t) < 1e-7 * t) break;
    t = next;
  }
  return { itl: t, mixedMs, share };
}

/**
 * Aggregated workers: each runs prefill and decode of its own requests in the same steps (chunked prefill). A step
 * that carries a prefill chunk also advances every decoding sequence by one token, so decode advances once per
 * step, plain or mixed: ITL = 1 / (plain steps per second + mixed steps per second).
 */
export function aggregated(a: RoleWorkers, wl: ServingWorkload): Layout {
  const pc = prefillCapacity(a.speed, wl.isl);
  const perPromptMs = 1000 / pc.requestsPerSecond;
  const oneMs = prefillMs(a.speed, wl.isl);
  const budget = engineOf(a.speed).maxBatchedTokens;
  const maxBatch = maxDecodeBatch(a.speed, wl.isl, wl.osl);
  const step = (b: number) => decodeStepMs(a.speed, b, meanContext(wl));
  const steps = (b: number, perWorker: number) => decodeBesidePrefill(a.speed, wl, b, perWorker);
  const itl = (b: number, perWorker: number) => steps(b, perWorker)?.itl ?? Infinity;
  const point = (rate: number, inFlight?: number): LoadPoint => {
    const perWorker = rate / a.replicas;
    const u = (perWorker * perPromptMs) / 1000;
    if (u >= 1) return { requestsPerSecond: rate };
    const b = balancedBatch(perWorker, wl.osl, maxBatch, (x) => itl(x, perWorker));
    if (b === undefined) return { requestsPerSecond: rate };
    const plain = step(Math.max(1, b));
    const m = steps(b, perWorker);
    if (m === undefined) return { requestsPerSecond: rate };
    const itlMs = m.itl;
    const chunks = Math.ceil(wl.isl / Math.max(1, Math.min(wl.isl, budget - b)));
    // The first token is sampled by the prompt's own last prefill step; each of its steps also advances the
    // other sequences, which adds their batch-dependent cost (KV reads, GEMM rows), not a whole decode step.
    const others = Math.max(0, b - 1);
    const ownMs = oneMs + (others > 0 ? chunks * Math.max(0, step(Math.max(1, others)) - step(1)) : 0);
    const cap = closedLoopWaitCapMs(inFlight, a.replicas, ownMs);
    const pct = (q: number) => ownMs + Math.min(cap, mdcWaitPercentileMs(1, (u * 1000) / ownMs, ownMs, q));
    return {
      requestsPerSecond: rate,
      ttftMs: ownMs + Math.min(cap, (u * ownMs) / (2 * (1 - u))),
      itlMs,
      ttftP50Ms: pct(0.5),
      ttftP90Ms: pct(0.9),
      itlP50Ms: m.share > 0.5 ? m.mixedMs : plain,
      itlP90Ms: m.share > 0.1 ? m.mixedMs : plain,
      itlPlainMs: plain,
    };
  };
  const stable = (rate: number) => point(rate).itlMs !== undefined;
  const capacity = bisect(0, a.replicas * pc.requestsPerSecond, stable);
  return { capacityRequestsPerSecond: capacity, prefill: { servers: a.replicas, msPerPrompt: perPromptMs }, at: point };
}

/** Whether a load point meets the workload's objectives (and is not saturated). */
export function meetsObjectives(p: LoadPoint, wl: ServingWorkload): boolean {
  if (p.ttftMs === undefined || p.itlMs === undefined) return false;
  return (wl.ttftMs === undefined || p.ttftMs <= wl.ttftMs) && (wl.itlMs === undefined || p.itlMs <= wl.itlMs);
}

/** The most requests per second a layout serves within the workload's objectives (its capacity without any). */
export function goodput(l: Layout, wl: ServingWorkload): number {
  const cap = l.capacityRequestsPerSecond;
  if (cap <= 0) return 0;
  return bisect(0, cap * (1 - 1e-9), (r) => r === 0 || meetsObjectives(l.at(r), wl));
}

/**
 * How much of a closed loop's waves a prompt waits behind: a closed loop of `n` identical requests admits them in
 * waves (they start together and, all of one length, finish together), so a prompt waits for the prompts of its wave
 * ahead of it on its prefill server, (n / servers - 1) / 2 prompts on average, against a Poisson stream's wait; and
 * on aggregated workers the wave's prefills run before its decode steps rather than inside them, so decode runs
 * plain steps. Engines break waves up partly (arrival jitter, uneven token counts): the share of the wave behaviour
 * is the midpoint of a Poisson stream (0) and a deterministic closed loop (1) (docs/SERVING.md#the-model).
 */
export const CLOSED_LOOP_WAVE_SHARE = 0.5;

/** A closed loop's load point: the wave wait added to the TTFTs (mean, P50, P90). */
function withWaves(p: LoadPoint, l: Layout, n: number): LoadPoint {
  if (p.ttftMs === undefined || p.ttftP50Ms === undefined || p.ttftP90Ms === undefined) return p;
  const ahead = Math.max(0, n / l.prefill.servers - 1);
  const ms = (q: number) => CLOSED_LOOP_WAVE_SHARE * q * ahead * l.prefill.msPerPrompt;
  const itl = (v: number | undefined) =>
    v === undefined || p.itlPlainMs === undefined ? v : v + CLOSED_LOOP_WAVE_SHARE * (p.itlPlainMs - v);
  return {
    ...p,
    ttftMs: p.ttftMs + ms(0.5),
    ttftP50Ms: p.ttftP50Ms + ms(0.5),
    ttftP90Ms: p.ttftP90Ms + ms(0.9),
    itlMs: itl(p.itlMs),
    itlP50Ms: itl(p.itlP50Ms),
    itlP90Ms: itl(p.itlP90Ms),
  };
}

/** Load points already found, per layout and workload (the estimate asks the same one from several places). */
const atLoadCache = new WeakMap<Layout, Map<string, LoadPoint>>();

/** The load point of a layout at the workload's declared load (closed loop: Little's law, with its waves). */
export function atLoad(l: Layout, wl: ServingWorkload): LoadPoint {
  const key = JSON.stringify(wl);
  const seen = atLoadCache.get(l) ?? new Map<string, LoadPoint>();
  atLoadCache.set(l, seen);
  if (!seen.has(key)) seen.set(key, searchLoad(l, wl));
  return seen.get(key)!;
}

function searchLoad(l: Layout, wl: ServingWorkload): LoadPoint {
  if (wl.requestsPerSecond !== undefined) return l.at(wl.requestsPerSecond);
  const n = wl.concurrency ?? 1;
  const at = (r: number) => withWaves(l.at(r, n), l, n);
  const inFlight = (r: number) => {
    const p = at(r);
    return p.ttftMs === undefined || p.itlMs === undefined ? Infinity : (r * (p.ttftMs + wl.osl * p.itlMs)) / 1000;
  };
  const cap = l.capacityRequestsPerSecond * (1 - 1e-9);
  return at(bisect(0, cap, (r) => inFlight(r) <= n));
}

/** Requests per second a layout serves at the declared load: the load when it keeps up, else its capacity. */
export function servedAtLoad(l: Layout, wl: ServingWorkload): number {
  const p = atLoad(l, wl);
  return p.itlMs === undefined ? l.capacityRequestsPerSecond : p.requestsPerSecond;
}

/**
 * What each layout serves: requests per second within the objectives when any is declared, else requests per
 * second served at the declared load.
 */
export function layoutThroughputs(disagg: Layout, agg: Layout, wl: ServingWorkload): { disagg: number; agg: number } {
  const slo = wl.ttftMs !== undefined || wl.itlMs !== undefined;
  const of = (l: Layout) => (slo ? goodput(l, wl) : servedAtLoad(l, wl));
  return { disagg: of(disagg), agg: of(agg) };
}

/** Disaggregated over aggregated (`layoutThroughputs`); undefined when the aggregated layout serves none. */
export function disaggGain(disagg: Layout, agg: Layout, wl: ServingWorkload): number | undefined {
  const t = layoutThroughputs(disagg, agg, wl);
  return t.agg > 0 ? t.disagg / t.agg : undefined;
}
