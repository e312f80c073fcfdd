/**
 * Gates B, C and E: the HTTP answers of the Frontend (`/v1/models`, completions, the SSE stream and its
 * time to first token), as pure functions over replies already fetched. No I/O here.
 */
import { GateResult, GateStatus, result } from "./gates";

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

/**
 * Why an empty model list matters even though the Frontend is Ready: its `/health` answers 200 whatever it has
 * loaded (tests/contracts/facts/dynamo-model-card.json `healthAlways200`), so an empty list is the only sign that
 * no worker registered, or that the Frontend could not load the model card a worker published.
 */
export const NO_MODEL_HINT =
  "the Frontend discovered no worker, or could not load a worker's model card: its /health is 200 either way; read its log";

/** Gate B. `/v1/models` answers `{object:"list", data:[{id}]}` and one id is the served model. */
export function gateModels(reply: HttpReply, servedModel: string): GateResult {
  const p = httpProblem("GET /v1/models", reply);
  if (p) return result("B", GateStatus.Fail, [p], reply.ms);
  const data = isObject(reply.json) ? reply.json.data : undefined;
  if (!Array.isArray(data)) {
    return result("B", GateStatus.Fail, [`GET /v1/models: no "data" array in ${clip(reply.text)}`], reply.ms);
  }
  // Only a string id names a model: ["x"] must not pass as "x" through String().
  const ids = data.map((m) =>
    isObject(m) && typeof m.id === "string"
      ? m.id
      : `? (id ${clip(JSON.stringify(isObject(m) ? m.id : m) ?? "none", 40)})`,
  );
  if (!ids.includes(servedModel)) {
    const seen = ids.length ? ids.join(", ") : `none (${NO_MODEL_HINT})`;
    return result("B", GateStatus.Fail, [`served model "${servedModel}" not listed; listed: ${seen}`], reply.ms);
  }
  return result(
    "B",
    GateStatus.Pass,
    [`lists "${servedModel}" (${ids.length} model${ids.length === 1 ? "" : "s"})`],
    reply.ms,
  );
}

/** A problem when a body or chunk does not name the served model (another deployment's workers answered). */
function modelProblem(body: Record<string, unknown>, servedModel: string, where: string): string[] {
  if (body.model === servedModel) return [];
  const got = typeof body.model === "string" ? JSON.stringify(body.model) : "no model";
  return [`${where}answered by ${got}, not the served model "${servedModel}"`];
}

/** Problems with a non-stream completion body: OpenAI shape, not double-wrapped, the served model, non-empty text. */
export function completionProblems(body: unknown, kind: "text" | "chat", servedModel: string): string[] {
  if (!isObject(body)) return ["body is not a JSON object"];
  const keys = Object.keys(body);
  if (!("choices" in body) && "data" in body)
    return [`double-wrapped: top-level keys [${keys.join(", ")}], expected choices`];
  const choices = body.choices;
  if (!Array.isArray(choices) || choices.length === 0) return [`no choices: top-level keys [${keys.join(", ")}]`];
  const first = choices[0];
  const text =
    kind === "text"
      ? isObject(first)
        ? first.text
        : undefined
      : isObject(first) && isObject(first.message)
        ? first.message.content
        : undefined;
  const field = kind === "text" ? "choices[0].text" : "choices[0].message.content";
  if (typeof text !== "string") return [`${field} missing`];
  if (text.trim() === "") return [`${field} is empty`];
  return modelProblem(body, servedModel, "");
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

/** Problems with an SSE completion: every event a chunk of the served model, text produced, last event `[DONE]`. */
export function sseProblems(reply: SseReply, servedModel: string): string[] {
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
    const wrong = isObject(chunk) ? modelProblem(chunk, servedModel, "stream: a chunk ") : [];
    if (wrong.length > 0) return [...out, ...wrong];
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

/** Gate C over the three replies, each of which must come from `servedModel`; evidence names each request's latency. */
export function gateCompletions(r: CompletionReplies, servedModel: string): GateResult {
  const bad: string[] = [];
  const pc = httpProblem("POST /v1/completions stream=false", r.completion);
  if (pc) bad.push(pc);
  else
    bad.push(
      ...completionProblems(r.completion.json, "text", servedModel).map((m) => `completions stream=false: ${m}`),
    );
  bad.push(...sseProblems(r.stream, servedModel).map((m) => `completions stream=true: ${m.replace(/^stream: /, "")}`));
  const ph = httpProblem("POST /v1/chat/completions stream=false", r.chat);
  if (ph) bad.push(ph);
  else bad.push(...completionProblems(r.chat.json, "chat", servedModel).map((m) => `chat: ${m}`));
  const ms = r.completion.ms + r.stream.ms + r.chat.ms;
  if (bad.length > 0) return result("C", GateStatus.Fail, bad, ms);
  const sample =
    isObject(r.completion.json) && Array.isArray(r.completion.json.choices) ? chunkText(r.completion.json) : "";
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
    return result(
      "E",
      GateStatus.Fail,
      [line, "a slow first token is what a silent TCP fallback of the KV transfer looks like"],
      reply.ttftMs,
    );
  }
  return result("E", GateStatus.Pass, [line], reply.ttftMs);
}
