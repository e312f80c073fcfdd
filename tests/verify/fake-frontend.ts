/**
 * A fake OpenAI-compatible Dynamo Frontend for the verify tests: one healthy mode and each failure the
 * field saw (docs/FIELD-FAILURES.md), plus hostile answers verify must survive. Like the real one it
 * answers 500 to a request body without an explicit `stream` (F4).
 */
import * as http from "node:http";
import { Fake, json, listen, closer, readBody, writeMany } from "./fake-http";

/** The model the fake serves. */
export const MODEL = "meta-llama/Llama-3.1-8B-Instruct";

/** How the fake Frontend behaves. The field's failure modes, one each. */
export type FrontendMode =
  | "pass"
  | "noModels"
  | "emptyText"
  | "doubleWrapped"
  | "brokenSse"
  | "slowFirstToken"
  | "hangStream"
  // hostile or broken answers verify must survive and fail on
  | "hugeBody"
  | "manyEvents"
  | "errorMidStream"
  | "dataAfterDone"
  | "modelIdList"
  // completions from another deployment's model (the served model listed, another one answering)
  | "otherModel";

/** Bytes the `hugeBody` mode sends (over the client's cap); events the `manyEvents` mode sends. */
export const HUGE_BODY_BYTES = 64 * 1024 * 1024;
export const MANY_EVENTS = 200_000;

const COMPLETION = {
  id: "cmpl-0807a0be",
  object: "text_completion",
  created: 1,
  model: MODEL,
  choices: [{ index: 0, text: " Paris. The capital of France is Paris.", finish_reason: "length" }],
  usage: { prompt_tokens: 5, completion_tokens: 16, total_tokens: 21 },
};

/** The model the answers name: another one in `otherModel` mode. */
const answering = (mode: FrontendMode) => (mode === "otherModel" ? "other/model" : MODEL);

function completion(mode: FrontendMode): unknown {
  if (mode === "otherModel") return { ...COMPLETION, model: answering(mode) };
  if (mode === "emptyText") return { ...COMPLETION, choices: [{ index: 0, text: "", finish_reason: "length" }] };
  if (mode === "doubleWrapped") return { data: { data: COMPLETION } };
  return COMPLETION;
}

async function stream(res: http.ServerResponse, mode: FrontendMode, firstTokenDelayMs: number): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream" });
  const words = [" Paris", ".", " The", " capital"];
  if (mode === "slowFirstToken") await new Promise((r) => setTimeout(r, firstTokenDelayMs));
  if (mode === "hangStream")
    return void res.write(`data: ${JSON.stringify({ model: MODEL, choices: [{ index: 0, text: " Paris" }] })}\n\n`);
  if (mode === "manyEvents")
    return void writeMany(
      res,
      `data: ${JSON.stringify({ model: MODEL, choices: [{ index: 0, text: " x" }] })}\n\n`,
      MANY_EVENTS,
    );
  if (mode === "errorMidStream") words.splice(2, 0, "\u0000error");
  const chunk = (w: string) =>
    w === "\u0000error"
      ? { error: { message: "engine died", code: 500 } }
      : {
          id: "c",
          object: "text_completion",
          model: answering(mode),
          choices: [{ index: 0, text: w, finish_reason: null }],
        };
  for (const w of words) res.write(`data: ${JSON.stringify(chunk(w))}\n\n`);
  if (mode !== "brokenSse") res.write("data: [DONE]\n\n");
  if (mode === "dataAfterDone") res.write(`data: ${JSON.stringify(chunk(" more"))}\n\n`);
  res.end();
}

/**
 * Starts the fake Frontend. Like the Dynamo Frontend bug of docs/FIELD-FAILURES.md#f4, it answers 500
 * when a request body has no explicit `stream`.
 */
export async function startFrontend(mode: FrontendMode, firstTokenDelayMs = 600): Promise<Fake> {
  const requests: { path: string; body: unknown }[] = [];
  const server = http.createServer(async (req, res) => {
    const raw = await readBody(req);
    const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined;
    requests.push({ path: req.url ?? "", body });
    // Like Dynamo's Frontend, /health is 200 whatever it has loaded (facts/dynamo-model-card.json healthAlways200).
    if (req.method === "GET" && req.url === "/health") return json(res, 200, { status: "healthy", endpoints: [] });
    if (req.method === "GET" && req.url === "/v1/models") {
      if (mode === "hugeBody") {
        res.writeHead(200, { "content-type": "application/json" });
        return writeMany(res, " ".repeat(64 * 1024), HUGE_BODY_BYTES / (64 * 1024));
      }
      return json(res, 200, {
        object: "list",
        data:
          mode === "noModels"
            ? []
            : [{ id: mode === "modelIdList" ? [MODEL] : MODEL, object: "model", owned_by: "nvidia" }],
      });
    }
    if (req.method !== "POST" || !body) return json(res, 404, { error: "not found" });
    if (typeof body.stream !== "boolean") return json(res, 500, { error: "finish_reason: unknown variant `error`" });
    if (req.url === "/v1/completions")
      return body.stream ? stream(res, mode, firstTokenDelayMs) : json(res, 200, completion(mode));
    if (req.url === "/v1/chat/completions") {
      return json(res, 200, {
        id: "chat-1",
        object: "chat.completion",
        model: answering(mode),
        choices: [{ index: 0, message: { role: "assistant", content: "Paris." }, finish_reason: "stop" }],
      });
    }
    return json(res, 404, { error: "not found" });
  });
  return { url: await listen(server), requests, close: closer(server) };
}
