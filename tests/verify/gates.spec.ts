/**
 * Pure gate logic of `verify`: gates A (pods), B (models), C (completions) and E (time to first token)
 * have passing and failing cases, judged as plain data; then the gates' order, exit code and table.
 * Gate D is gate-d.spec.ts, gate F gate-f.spec.ts, the stack resolution target.spec.ts.
 */
import * as assert from "node:assert/strict";
import {
  blockersOf,
  EndpointFact,
  exitCodeOf,
  gatePods,
  GateId,
  GateResult,
  PodFact,
  result,
} from "../../tools/verify/gates";
import {
  gateCompletions,
  gateModels,
  gateTtft,
  HttpReply,
  NO_MODEL_HINT,
  SseReply,
} from "../../tools/verify/gates-http";
import { SseParser } from "../../tools/verify/http";
import { renderTable } from "../../tools/verify/report";

const COMPONENTS = ["Frontend", "PrefillWorker", "DecodeWorker"];
const WORKERS = ["PrefillWorker", "DecodeWorker"];

function pod(name: string, component: string, ready = true, phase = "Running"): PodFact {
  return { name, component, componentType: component === "Frontend" ? "frontend" : "worker", phase, ready };
}
function ep(podName: string, ready: boolean | undefined): EndpointFact {
  return { slice: `${podName}-slice`, service: "svc", pod: podName, ready };
}
const PODS = [pod("fe", "Frontend"), pod("pw", "PrefillWorker"), pod("dw", "DecodeWorker")];
const EPS = [ep("fe", true), ep("pw", true), ep("dw", true)];

describe("verify gate A (pods, EndpointSlices)", () => {
  it("passes when every component runs Ready and every worker has a ready endpoint", () => {
    const r = gatePods(PODS, EPS, COMPONENTS, WORKERS);
    assert.equal(r.status, "PASS");
    assert.equal(r.evidence[0], "3 pods Running+Ready; 2 ready worker endpoints");
  });
  const failures: [string, PodFact[], EndpointFact[], string][] = [
    ["a component has no pod", PODS.slice(0, 2), EPS, "no pod of component DecodeWorker"],
    [
      "a pod is not Ready",
      [PODS[0], PODS[1], pod("dw", "DecodeWorker", false)],
      EPS,
      "pod dw: phase=Running ready=false",
    ],
    [
      "a pod is Pending",
      [PODS[0], PODS[1], pod("dw", "DecodeWorker", false, "Pending")],
      EPS,
      "pod dw: phase=Pending ready=false",
    ],
    [
      "a worker endpoint is ready=false (F2)",
      PODS,
      [EPS[0], EPS[1], ep("dw", false)],
      "worker dw: no ready endpoint (dw-slice ready=false); Frontend discovery skips it",
    ],
    [
      "a worker is in no EndpointSlice",
      PODS,
      EPS.slice(0, 2),
      "worker dw: in no EndpointSlice (Frontend cannot discover it)",
    ],
  ];
  for (const [why, pods, eps, line] of failures) {
    it(`fails when ${why}`, () => {
      const r = gatePods(pods, eps, COMPONENTS, WORKERS);
      assert.equal(r.status, "FAIL");
      assert.ok(r.evidence.includes(line), r.evidence.join("\n"));
    });
  }
});

function reply(status: number, body: unknown, ms = 5): HttpReply {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status, text, json, ms };
}

describe("verify gate B (/v1/models)", () => {
  it("passes when the served model is listed", () => {
    assert.equal(gateModels(reply(200, { object: "list", data: [{ id: "m" }] }), "m").status, "PASS");
  });
  const cases: [string, HttpReply, string][] = [
    [
      "no worker was discovered (rev5)",
      reply(200, { data: [] }),
      `served model "m" not listed; listed: none (${NO_MODEL_HINT})`,
    ],
    ["another model is listed", reply(200, { data: [{ id: "other" }] }), 'served model "m" not listed; listed: other'],
    ["the body has no data array", reply(200, { models: [] }), 'GET /v1/models: no "data" array in {"models":[]}'],
    ["the Frontend answers 503", reply(503, "busy"), "GET /v1/models: HTTP 503 busy"],
  ];
  for (const [why, r, line] of cases) {
    it(`fails when ${why}`, () => assert.deepEqual(gateModels(r, "m").evidence, [line]));
  }
});

const GOOD_TEXT = {
  id: "c",
  object: "text_completion",
  model: "m",
  choices: [{ text: " Paris.", finish_reason: "length" }],
};
const GOOD_CHAT = { id: "h", model: "m", choices: [{ message: { role: "assistant", content: "Paris." } }] };
function sse(events: string[], extra: Partial<SseReply> = {}): SseReply {
  return { status: 200, events, ttftMs: 3, ms: 4, ...extra };
}
const chunk = (t: string, model = "m") => JSON.stringify({ model, choices: [{ text: t }] });
const GOOD_SSE = sse([chunk(" Paris"), chunk("."), "[DONE]"]);

describe("verify gate C (completions)", () => {
  it("passes with text, an SSE stream ending in [DONE] and a chat message", () => {
    const r = gateCompletions(
      { completion: reply(200, GOOD_TEXT), stream: GOOD_SSE, chat: reply(200, GOOD_CHAT) },
      "m",
    );
    assert.equal(r.status, "PASS");
    assert.equal(r.latencyMs, 14);
  });
  const cases: [string, Partial<Parameters<typeof gateCompletions>[0]>, string | string[]][] = [
    [
      "text is empty",
      { completion: reply(200, { ...GOOD_TEXT, choices: [{ text: "  " }] }) },
      "completions stream=false: choices[0].text is empty",
    ],
    [
      "the body is double-wrapped",
      { completion: reply(200, { data: { data: GOOD_TEXT } }) },
      "completions stream=false: double-wrapped: top-level keys [data], expected choices",
    ],
    [
      "choices are missing",
      { completion: reply(200, { id: "x" }) },
      "completions stream=false: no choices: top-level keys [id]",
    ],
    [
      "the Frontend answers 500 (stream omitted, F4)",
      { completion: reply(500, { error: "finish_reason" }) },
      'POST /v1/completions stream=false: HTTP 500 {"error":"finish_reason"}',
    ],
    [
      "the SSE stream has no [DONE]",
      { stream: sse([chunk(" Paris")]) },
      "completions stream=true: ended without [DONE] after 1 events",
    ],
    [
      "the SSE chunks carry no text",
      { stream: sse([chunk(""), "[DONE]"]) },
      "completions stream=true: chunks carried no text",
    ],
    [
      "an SSE event is not JSON",
      { stream: sse(["oops", "[DONE]"]) },
      ["completions stream=true: event is not JSON: oops", "completions stream=true: chunks carried no text"],
    ],
    [
      "the stream times out",
      { stream: sse([], { status: 200, error: "timed out after 50 ms" }) },
      "completions stream=true: timed out after 50 ms",
    ],
    [
      "another model answers the completion",
      { completion: reply(200, { ...GOOD_TEXT, model: "other/model" }) },
      'completions stream=false: answered by "other/model", not the served model "m"',
    ],
    [
      "the completion names no model",
      { completion: reply(200, { ...GOOD_TEXT, model: undefined }) },
      'completions stream=false: answered by no model, not the served model "m"',
    ],
    [
      "another model streams",
      { stream: sse([chunk(" Paris", "other/model"), "[DONE]"]) },
      'completions stream=true: a chunk answered by "other/model", not the served model "m"',
    ],
    [
      "another model chats",
      { chat: reply(200, { ...GOOD_CHAT, model: "other/model" }) },
      'chat: answered by "other/model", not the served model "m"',
    ],
    [
      "chat has no message",
      { chat: reply(200, { choices: [{ text: "x" }] }) },
      "chat: choices[0].message.content missing",
    ],
  ];
  for (const [why, over, line] of cases) {
    it(`fails when ${why}`, () => {
      const r = gateCompletions(
        {
          completion: reply(200, GOOD_TEXT),
          stream: GOOD_SSE,
          chat: reply(200, GOOD_CHAT),
          ...over,
        },
        "m",
      );
      assert.equal(r.status, "FAIL");
      assert.deepEqual(r.evidence, typeof line === "string" ? [line] : line);
    });
  }
});

describe("verify gate E (time to first token)", () => {
  it("passes at or under the threshold", () =>
    assert.deepEqual(gateTtft(sse([], { ttftMs: 900 }), 1000).evidence, ["TTFT 900 ms (threshold 1000 ms)"]));
  it("fails over the threshold (the TCP-fallback signature)", () => {
    const r = gateTtft(sse([], { ttftMs: 98000 }), 5000);
    assert.equal(r.status, "FAIL");
    assert.equal(r.latencyMs, 98000);
  });
  it("fails when no token arrives", () =>
    assert.deepEqual(gateTtft(sse([], { ttftMs: undefined, error: "timed out after 10 ms" }), 5).evidence, [
      "stream: timed out after 10 ms",
    ]));
});

describe("verify ordering, exit code, SSE parsing, table", () => {
  const done = (s: Record<string, GateResult["status"]>) =>
    new Map(Object.entries(s).map(([k, v]) => [k as GateId, result(k as GateId, v, ["x"])]));
  it("skips a gate whose prerequisite did not pass", () => {
    assert.deepEqual(blockersOf("B", done({ A: "FAIL" })), ["A"]);
    assert.deepEqual(blockersOf("E", done({ C: "SKIPPED" })), ["C"]);
    assert.deepEqual(blockersOf("D", done({ A: "FAIL" })), []);
    assert.deepEqual(blockersOf("C", done({ B: "PASS" })), []);
  });
  it("exits 0 only when every gate passed", () => {
    assert.equal(exitCodeOf([result("A", "PASS", ["x"])]), 0);
    assert.equal(exitCodeOf([result("A", "PASS", ["x"]), result("B", "SKIPPED", ["x"])]), 1);
  });
  it("parses SSE across chunk boundaries, CRLF and multi-line data", () => {
    const p = new SseParser();
    assert.deepEqual(p.push('data: {"a"'), []);
    assert.deepEqual(p.push(":1}\r\n\r\ndata: x\ndata: y\n\n: comment\n\ndata: [DONE]"), ['{"a":1}', "x\ny"]);
    assert.deepEqual(p.end(), ["[DONE]"]);
  });
  it("renders one row per gate with evidence lines below", () => {
    const target = { namespace: "n", graph: "g", servedModel: "m", backend: "vllm" as const, source: "flags" };
    const out = renderTable(target, [
      result("A", "PASS", ["ok", "more"], 12),
      result("B", "SKIPPED", ["needs gate A to pass"]),
    ]).split("\n");
    assert.match(out[4], /^A {5}pods Ready \+ worker EndpointSlices ready {2}PASS {5}12 ms {4}ok$/);
    assert.equal(out[5].trim(), "more");
    assert.match(out[6], /SKIPPED {2}- {8}needs gate A to pass$/);
  });
});
