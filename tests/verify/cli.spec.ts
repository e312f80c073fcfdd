/**
 * `verify` end to end against fakes on 127.0.0.1: the real CLI entry (`main`) in-process against a
 * fake Kubernetes API and a fake OpenAI-compatible Frontend, one case per field failure mode (each
 * must fail exactly its gate). Unreachable targets and usage errors are cli-errors.spec.ts.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import { requestJson } from "../../tools/verify/http";
import { gateCompletions } from "../../tools/verify/gates-http";
import { projectWith, stackText } from "./stacks";
import { against, flags, SLOW_TTFT_THRESHOLD_MS, statuses, useVerifyCli, verify } from "./cli-harness";
import { FrontendMode, MODEL, startFrontend } from "./fake-frontend";
import { GRAPH, KubeScenario, NAMESPACE, startKube } from "./fake-kube";
import { startPrometheus } from "./fake-prometheus";

describe("verify CLI against fake cluster and Frontend", function () {
  useVerifyCli();

  it("passes every gate on a healthy deployment and always sends `stream` explicitly (F4)", async () => {
    const r = await against("pass", "libfabric");
    assert.equal(r.code, 0, r.out + r.err);
    assert.equal(statuses(r), "A:PASS B:PASS C:PASS D:PASS E:PASS");
    const posts = r.bodies.filter((b): b is Record<string, unknown> => b !== undefined);
    assert.equal(posts.length, 4);
    for (const b of posts) assert.equal(typeof b.stream, "boolean");
    assert.match(r.out, /^E {5}time to first token {23}PASS/m);
  });

  const matrix: [string, FrontendMode, KubeScenario, string, string, string?][] = [
    [
      "a worker is not ready (F2)",
      "pass",
      "notReadyWorker",
      "A:FAIL B:SKIPPED C:SKIPPED D:PASS E:SKIPPED",
      "worker llama-decodeworker-0: no ready endpoint",
    ],
    [
      "the Frontend lists no model",
      "noModels",
      "libfabric",
      "A:PASS B:FAIL C:SKIPPED D:PASS E:SKIPPED",
      'served model "meta-llama/Llama-3.1-8B-Instruct" not listed; listed: none (the Frontend discovered no worker, or could not load',
    ],
    [
      "the completions come from another model",
      "otherModel",
      "libfabric",
      "A:PASS B:PASS C:FAIL D:PASS E:SKIPPED",
      'answered by "other/model", not the served model "meta-llama/Llama-3.1-8B-Instruct"',
    ],
    [
      "completion text is empty",
      "emptyText",
      "libfabric",
      "A:PASS B:PASS C:FAIL D:PASS E:SKIPPED",
      "choices[0].text is empty",
    ],
    [
      "the response is double-wrapped",
      "doubleWrapped",
      "libfabric",
      "A:PASS B:PASS C:FAIL D:PASS E:SKIPPED",
      "double-wrapped",
    ],
    [
      "the SSE stream ends without [DONE]",
      "brokenSse",
      "libfabric",
      "A:PASS B:PASS C:FAIL D:PASS E:SKIPPED",
      "ended without [DONE]",
    ],
    [
      "a GPU node reserved too few hugepages at boot (registered tainted)",
      "pass",
      "hugepagesShort",
      "A:FAIL B:SKIPPED C:SKIPPED D:PASS E:SKIPPED",
      "node ip-10-1-0-198.ec2.internal: tainted dynamo-efa/hugepages:NoSchedule at boot: the kernel reserved only 1000 of the 1282 2 MiB hugepages",
    ],
    ["NIXL instantiated UCX (F3)", "pass", "ucx", "A:PASS B:PASS C:PASS D:FAIL E:PASS", "Backend UCX was instantiated"],
    ["the NIXL handshake failed", "pass", "handshakeFailed", "A:PASS B:PASS C:PASS D:FAIL E:PASS", "handshake_failed"],
    [
      "the first token is slow (TCP fallback)",
      "slowFirstToken",
      "libfabric",
      "A:PASS B:PASS C:PASS D:PASS E:FAIL",
      `(threshold ${SLOW_TTFT_THRESHOLD_MS} ms)`,
    ],
    [
      "TRT-LLM logs no backend line",
      "pass",
      "trtllmNoLine",
      "A:PASS B:PASS C:PASS D:INCONCLUSIVE E:PASS",
      "TRTLLM_NIXL_KVCACHE_BACKEND",
      "trtllm",
    ],
  ];
  for (const [why, mode, scenario, expected, evidence, backend] of matrix) {
    it(`exits 1 and fails exactly the right gate when ${why}`, async () => {
      const r = await against(mode, scenario, backend);
      assert.equal(statuses(r), expected, r.out);
      assert.equal(r.code, 1);
      assert.equal(r.json?.exitCode, 1);
      assert.ok(r.out.includes(evidence), r.out);
    });
  }

  it("says so when listing nodes is refused, and judges gate A on the pods alone", async () => {
    const r = await against("pass", "nodesForbidden");
    assert.equal(statuses(r), "A:PASS B:PASS C:PASS D:PASS E:PASS", r.out);
    assert.match(
      r.out,
      /GPU nodes not read \(cluster at \S+ answered HTTP 403 to list nodes: nodes is forbidden.*\): hugepages taints not checked/,
    );
  });

  it("without --url, reaches the Frontend through a port-forward opened via the Kubernetes API", async () => {
    const fe = await startFrontend("pass");
    const kube = await startKube("libfabric", fe.url);
    try {
      const argv = flags(kube, fe.url).filter((a, i, all) => a !== "--url" && all[i - 1] !== "--url");
      const r = await verify(argv);
      assert.equal(statuses(r), "A:PASS B:PASS C:PASS D:PASS E:PASS", r.out + r.err);
      assert.ok(
        kube.requests.some(
          (q) => q.path === `/api/v1/namespaces/${NAMESPACE}/pods/${GRAPH}-frontend-0/portforward?ports=8000`,
        ),
      );
      assert.equal(fe.requests.length, 5);
    } finally {
      await fe.close();
      await kube.close();
    }
  });

  it("the fake Frontend really answers 500 when `stream` is omitted, and gate C fails on it", async () => {
    const fe = await startFrontend("pass");
    try {
      const noStream = await requestJson(
        `${fe.url}/v1/completions`,
        "POST",
        { model: MODEL, prompt: "x", max_tokens: 4 },
        1000,
      );
      assert.equal(noStream.status, 500);
      const ok = { status: 200, text: "", json: { choices: [{ message: { content: "x" } }] }, ms: 1 };
      const r = gateCompletions(
        {
          completion: noStream,
          stream: { status: 200, events: ['{"choices":[{"text":"a"}]}', "[DONE]"], ttftMs: 1, ms: 1 },
          chat: ok,
        },
        MODEL,
      );
      assert.equal(r.status, "FAIL");
      assert.match(r.evidence[0], /^POST \/v1\/completions stream=false: HTTP 500/);
    } finally {
      await fe.close();
    }
  });

  it("reads namespace, graph, model and backend from stacks/Pulumi.<stack>.yaml", async () => {
    const root = projectWith({
      p5en: stackText(`    backend: vllm\n    model: ${MODEL}\n`, `  dynamo-efa:graphName: ${GRAPH}\n`),
    });
    const fe = await startFrontend("pass");
    const prom = await startPrometheus(); // the stack file leaves observability on: gate F runs
    const kube = await startKube("libfabric", undefined, prom.url);
    try {
      const r = await verify(["p5en", "--kubeconfig", kube.kubeconfig, "--url", fe.url], root);
      assert.equal(r.code, 0, r.out + r.err);
      assert.match(r.out, /from stacks\/Pulumi\.p5en\.yaml/);
    } finally {
      await fe.close();
      await prom.close();
      await kube.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it("fails gate A naming the selector when the namespace holds no pod of the graph", async () => {
    const fe = await startFrontend("pass");
    const kube = await startKube("libfabric");
    try {
      const r = await verify(flags(kube, fe.url).map((a) => (a === NAMESPACE ? "elsewhere" : a)));
      assert.equal(statuses(r), "A:FAIL B:SKIPPED C:SKIPPED D:FAIL E:SKIPPED", r.out);
      assert.ok(
        r.json?.gates[0].evidence.includes(
          `no pod in namespace elsewhere matches nvidia.com/dynamo-graph-deployment-name=${GRAPH}`,
        ),
      );
    } finally {
      await fe.close();
      await kube.close();
    }
  });
});
