/**
 * Fake Dynamo Frontends on loopback for the first-token check (components/inference/first-token/check.py): each
 * answers `/v1/models` and `/v1/completions` (plain and SSE) the way a real Frontend does when the graph works, or
 * the way it does when one piece is broken. The shapes are the OpenAI ones verify's gates B and C read
 * (tools/verify/gates-http.ts).
 */
import * as http from "http";
import type { AddressInfo } from "net";

/** How the fake behaves. */
export const FakeMode = {
  /** Lists the model, answers, streams to [DONE]. */
  Good: "good",
  /** `/v1/models` lists nothing (the Frontend could not load a worker's model card). */
  EmptyModels: "empty-models",
  /** Lists only another model. */
  OtherModelListed: "other-model-listed",
  /** Lists the served model, but another model answers (routing). */
  OtherModelAnswers: "other-model-answers",
  /** Lists the model; a completion never comes back (the request plane or the KV path). */
  NoAnswer: "no-answer",
  /** Lists and answers; the stream sends one token and then nothing, never closing. */
  StallAfterFirstToken: "stall-after-first-token",
  /** `/v1/models` answers HTTP 503 (the Frontend up, its model registry not). */
  ModelsUnavailable: "models-unavailable",
  /** Lists and answers; the stream's chunks come from another model. */
  StreamOtherModel: "stream-other-model",
  /** Lists and answers; the stream opens and no token ever comes. */
  StreamNoToken: "stream-no-token",
  /** Lists and answers; the stream sends one token and closes without [DONE]. */
  StreamClosedEarly: "stream-closed-early",
  /** Lists and answers; the stream sends one token, then an error event. */
  StreamError: "stream-error",
} as const;
export type FakeMode = (typeof FakeMode)[keyof typeof FakeMode];

export interface FakeFrontend {
  readonly url: string;
  /** Requests seen, as `METHOD path`. */
  readonly seen: string[];
  close(): Promise<void>;
}

const json = (res: http.ServerResponse, body: unknown) => {
  res.writeHead(200, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
};

function completion(model: string, text: string) {
  return { id: "cmpl-1", object: "text_completion", model, choices: [{ index: 0, text, finish_reason: "length" }] };
}

function stream(res: http.ServerResponse, model: string, mode: FakeMode): void {
  res.writeHead(200, { "Content-Type": "text/event-stream" });
  const who = mode === FakeMode.StreamOtherModel ? "other/model" : model;
  const chunk = (text: string) => `data: ${JSON.stringify(completion(who, text))}\n\n`;
  if (mode === FakeMode.StreamNoToken) return void res.flushHeaders(); // open, and silent
  res.write(chunk(" Paris"));
  if (mode === FakeMode.StallAfterFirstToken) return; // the connection stays open: the next chunk never comes
  if (mode === FakeMode.StreamClosedEarly) return void res.end();
  if (mode === FakeMode.StreamError)
    return void res.end(`data: ${JSON.stringify({ error: { message: "decode worker lost", code: 500 } })}\n\n`);
  res.write(chunk("."));
  res.end("data: [DONE]\n\n");
}

/** Starts a fake Frontend for `model` in `mode` on 127.0.0.1. */
export async function fakeFrontend(model: string, mode: FakeMode): Promise<FakeFrontend> {
  const seen: string[] = [];
  const open = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    open.add(res);
    res.on("close", () => open.delete(res));
    let body = "";
    req.on("data", (d) => (body += String(d)));
    req.on("end", () => {
      if (req.url === "/v1/models") {
        if (mode === FakeMode.ModelsUnavailable) {
          res.writeHead(503, { "Content-Type": "application/json" });
          return res.end('{"error":"no model registry yet"}');
        }
        const ids = mode === FakeMode.EmptyModels ? [] : mode === FakeMode.OtherModelListed ? ["other/model"] : [model];
        return json(res, { object: "list", data: ids.map((id) => ({ id, object: "model", owned_by: "nvidia" })) });
      }
      if (req.url === "/v1/completions" && req.method === "POST") {
        if (mode === FakeMode.NoAnswer) return; // never answers
        const who = mode === FakeMode.OtherModelAnswers ? "other/model" : model;
        const asked = JSON.parse(body) as { stream?: boolean; max_tokens?: number };
        if (!(typeof asked.max_tokens === "number" && asked.max_tokens >= 1)) {
          res.writeHead(400);
          return res.end('{"error":"max_tokens must be >= 1"}');
        }
        if (asked.stream) return stream(res, who, mode);
        return json(res, completion(who, " Paris."));
      }
      res.writeHead(404);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of open) r.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
