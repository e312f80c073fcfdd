/**
 * Minimal HTTP client over Node's `http`/`https` for the OpenAI-compatible Frontend: buffered JSON
 * requests and SSE streams with time-to-first-token. Every request has a hard timeout; a refused or
 * unresolvable connection throws `UnreachableError` (exit code 3), everything else is returned as
 * data for the gates to judge.
 */
import * as http from "node:http";
import * as https from "node:https";
import { chunkText, HttpReply, SseReply } from "./gates-http";

/** The Frontend (or cluster) could not be reached at all. */
export class UnreachableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnreachableError";
  }
}

/** Largest JSON response body read; a Frontend answer is a few KiB. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Largest SSE stream read, in bytes and in events (16 tokens make ~20 events). */
export const MAX_SSE_BYTES = 16 * 1024 * 1024;
export const MAX_SSE_EVENTS = 10_000;
/** Longest SSE line kept while waiting for its newline. */
export const MAX_SSE_LINE = 1024 * 1024;
/** The error of a request that was never sent because the run's time budget was spent. */
export const NOT_SENT = "not sent: no time left in the --timeout budget";

/** Socket error codes that mean "nothing is listening there / no route", not "the server misbehaved". */
export const UNREACHABLE_CODES: readonly string[] = [
  "ECONNREFUSED",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
];

/** The error code of `e` or of its `cause`, if any. */
export function errorCode(e: unknown): string | undefined {
  const o = e as { code?: unknown; cause?: { code?: unknown } } | undefined;
  if (typeof o?.code === "string") return o.code;
  if (typeof o?.cause?.code === "string") return o.cause.code;
  return undefined;
}

interface Started {
  readonly res: http.IncomingMessage;
  readonly t0: number;
}

function send(url: string, method: string, body: unknown, timeoutMs: number, onTimeout: () => void): Promise<Started> {
  const u = new URL(url);
  const lib = u.protocol === "https:" ? https : http;
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const req = lib.request(
      u,
      {
        method,
        headers: {
          accept: "application/json, text/event-stream",
          ...(payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => resolve({ res, t0 }),
    );
    const timer = setTimeout(() => {
      onTimeout();
      req.destroy(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    req.on("close", () => clearTimeout(timer));
    req.on("error", (e) => {
      clearTimeout(timer);
      const code = errorCode(e);
      if (code && UNREACHABLE_CODES.includes(code))
        reject(new UnreachableError(`frontend unreachable at ${u.origin}: ${code}`));
      else reject(e);
    });
    if (payload) req.write(payload);
    req.end();
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Reads a response body up to `max` bytes; `over` is true when it had more (the socket is then closed). */
async function readCapped(res: http.IncomingMessage, max: number): Promise<{ text: string; over: boolean }> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of res) {
    n += (c as Buffer).length;
    if (n > max) {
      res.destroy();
      return { text: Buffer.concat(chunks).toString("utf8"), over: true };
    }
    chunks.push(c as Buffer);
  }
  return { text: Buffer.concat(chunks).toString("utf8"), over: false };
}

/** Sends one request and buffers the reply (at most `MAX_BODY_BYTES`); `body` is sent as JSON when given. */
export async function requestJson(
  url: string,
  method: "GET" | "POST",
  body: unknown,
  timeoutMs: number,
): Promise<HttpReply> {
  const t0 = Date.now();
  if (timeoutMs < 1) return { status: 0, text: "", json: undefined, ms: 0, error: NOT_SENT };
  let timedOut = false;
  try {
    const { res } = await send(url, method, body, timeoutMs, () => (timedOut = true));
    const { text, over } = await readCapped(res, MAX_BODY_BYTES);
    if (over)
      return {
        status: res.statusCode ?? 0,
        text: "",
        json: undefined,
        ms: Date.now() - t0,
        error: `response body larger than ${MAX_BODY_BYTES} bytes (not read further)`,
      };
    return { status: res.statusCode ?? 0, text, json: parseJson(text), ms: Date.now() - t0 };
  } catch (e) {
    if (e instanceof UnreachableError) throw e;
    const msg = timedOut ? `timed out after ${timeoutMs} ms` : (e as Error).message;
    return { status: 0, text: "", json: undefined, ms: Date.now() - t0, error: msg };
  }
}

/** Splits an SSE byte stream into `data:` payloads (one per event; multi-line data joined by "\n"). */
export class SseParser {
  private buf = "";
  private data: string[] = [];
  /** Feeds text; returns the payloads of the events it completed. Throws on a line over `MAX_SSE_LINE`. */
  push(text: string): string[] {
    this.buf += text;
    if (this.buf.length > MAX_SSE_LINE && !this.buf.includes("\n"))
      throw new Error(`an SSE line longer than ${MAX_SSE_LINE} characters`);
    const out: string[] = [];
    let nl: number;
    while ((nl = this.buf.indexOf("\n")) >= 0) {
      const line = this.buf.slice(0, nl).replace(/\r$/, "");
      this.buf = this.buf.slice(nl + 1);
      if (line === "") {
        if (this.data.length) out.push(this.data.join("\n"));
        this.data = [];
      } else if (line.startsWith("data:")) this.data.push(line.slice(5).replace(/^ /, ""));
    }
    return out;
  }
  /** Payload of an event left unterminated at end of stream, if any. */
  end(): string[] {
    const rest = this.push("\n\n");
    return rest;
  }
}

/** POSTs `body` (which must say `"stream": true`) and collects the SSE events, timing the first token. */
export async function requestSse(url: string, body: unknown, timeoutMs: number): Promise<SseReply> {
  const t0 = Date.now();
  if (timeoutMs < 1) return { status: 0, events: [], ttftMs: undefined, ms: 0, error: NOT_SENT };
  let timedOut = false;
  const events: string[] = [];
  let ttftMs: number | undefined;
  let status = 0;
  let bytes = 0;
  const note = (payloads: string[]) => {
    for (const p of payloads) {
      if (events.length >= MAX_SSE_EVENTS) throw new Error(`more than ${MAX_SSE_EVENTS} SSE events (not read further)`);
      events.push(p);
      if (ttftMs === undefined && p !== "[DONE]") {
        const t = chunkText(parseJson(p));
        if (t !== "") ttftMs = Date.now() - t0;
      }
    }
  };
  try {
    const { res } = await send(url, "POST", body, timeoutMs, () => (timedOut = true));
    status = res.statusCode ?? 0;
    const type = String(res.headers["content-type"] ?? "");
    if (!type.includes("text/event-stream")) {
      const { text, over } = await readCapped(res, MAX_BODY_BYTES);
      const error = over
        ? `response body larger than ${MAX_BODY_BYTES} bytes (not read further)`
        : status === 200
          ? `not an SSE response (content-type ${type || "none"})`
          : undefined;
      return { status, events, ttftMs, ms: Date.now() - t0, text, error };
    }
    const parser = new SseParser();
    res.setEncoding("utf8");
    try {
      for await (const c of res) {
        bytes += Buffer.byteLength(c as string);
        if (bytes > MAX_SSE_BYTES) throw new Error(`SSE stream larger than ${MAX_SSE_BYTES} bytes (not read further)`);
        note(parser.push(c as string));
      }
    } catch (e) {
      res.destroy();
      if (timedOut) throw e;
      return { status, events: events.slice(0, 100), ttftMs, ms: Date.now() - t0, error: (e as Error).message };
    }
    note(parser.end());
    return { status, events, ttftMs, ms: Date.now() - t0 };
  } catch (e) {
    if (e instanceof UnreachableError) throw e;
    const msg = timedOut ? `timed out after ${timeoutMs} ms` : (e as Error).message;
    return { status, events, ttftMs, ms: Date.now() - t0, error: msg };
  }
}
