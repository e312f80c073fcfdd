/**
 * Gate D of `verify` as plain data: the NIXL backend each worker's log says was instantiated must be
 * the one the stack chose (LIBFABRIC over EFA, F3), with no handshake, backend or plugin failure;
 * TensorRT-LLM without a backend line is INCONCLUSIVE, not PASS.
 */
import * as assert from "node:assert/strict";
import { exitCodeOf } from "../../tools/verify/gates";
import { gateKvLogs, TRTLLM_NOTE } from "../../tools/verify/kvlog";

const LF = "2026-05-06 NIXL INFO    _api.py:361 Backend LIBFABRIC was instantiated";
describe("verify gate D (NIXL backend in worker logs)", () => {
  it("passes when every vLLM worker logs the LIBFABRIC backend", () => {
    const r = gateKvLogs("vllm", [
      { pod: "pw", text: LF },
      { pod: "dw", text: `x\n${LF}\ny` },
    ]);
    assert.equal(r.status, "PASS");
    assert.deepEqual(r.evidence, [`pw: ${LF}`, `dw: ${LF}`]);
  });
  const failures: [string, string, string][] = [
    [
      "UCX was instantiated (F3)",
      "NIXL INFO _api.py:361 Backend UCX was instantiated",
      "pw: UCX backend instantiated (LIBFABRIC not selected): NIXL INFO _api.py:361 Backend UCX was instantiated",
    ],
    [
      "the handshake failed",
      `${LF}\nNIXL transfer failure: handshake_failed | Context`,
      "pw: NIXL handshake failed: NIXL transfer failure: handshake_failed | Context",
    ],
    [
      "NIXL_ERR_BACKEND was raised",
      `${LF}\nnixl._bindings.nixlBackendError: NIXL_ERR_BACKEND`,
      "pw: NIXL_ERR_BACKEND: nixl._bindings.nixlBackendError: NIXL_ERR_BACKEND",
    ],
    [
      "a plugin failed to load",
      `${LF}\nplugin load failed: libplugin_LIBFABRIC.so`,
      "pw: NIXL plugin load failure: plugin load failed: libplugin_LIBFABRIC.so",
    ],
  ];
  for (const [why, text, line] of failures) {
    it(`fails when ${why}`, () => {
      const r = gateKvLogs("vllm", [{ pod: "pw", text }]);
      assert.equal(r.status, "FAIL");
      assert.ok(r.evidence.includes(line), r.evidence.join("\n"));
    });
  }
  it("fails when a vLLM worker never logs its backend", () => {
    const r = gateKvLogs("vllm", [
      { pod: "pw", text: LF },
      { pod: "dw", text: "started" },
    ]);
    assert.equal(r.status, "FAIL");
    assert.match(r.evidence[0], /missing in dw /);
  });
  it("fails when a log cannot be read, and when there are no workers", () => {
    assert.equal(
      gateKvLogs("vllm", [{ pod: "pw", text: "", error: "HTTP 403" }]).evidence[0],
      "pw: log unreadable: HTTP 403",
    );
    assert.equal(gateKvLogs("vllm", []).status, "FAIL");
  });
  it("is INCONCLUSIVE (not PASS) for TRT-LLM without a backend line, and says why", () => {
    const r = gateKvLogs("trtllm", [{ pod: "pw", text: "Using KvCacheTransceiverV2" }]);
    assert.equal(r.status, "INCONCLUSIVE");
    assert.equal(r.evidence[1], TRTLLM_NOTE);
    assert.equal(exitCodeOf([r]), 1);
  });
  it("still FAILs TRT-LLM on a failure line and PASSes it on the LIBFABRIC line", () => {
    assert.equal(gateKvLogs("trtllm", [{ pod: "pw", text: "NIXL_ERR_BACKEND" }]).status, "FAIL");
    assert.equal(gateKvLogs("trtllm", [{ pod: "pw", text: LF }]).status, "PASS");
  });
  it("checks the backend the stack chose: with kvTransport ucx, UCX passes and LIBFABRIC is the wrong plugin", () => {
    const ucx = "NIXL INFO _api.py:361 Backend UCX was instantiated";
    assert.equal(gateKvLogs("vllm", [{ pod: "pw", text: ucx }], undefined, "UCX").status, "PASS");
    const wrong = gateKvLogs("vllm", [{ pod: "pw", text: LF }], undefined, "UCX");
    assert.equal(wrong.status, "FAIL");
    assert.deepEqual(wrong.evidence, [`pw: LIBFABRIC backend instantiated (UCX not selected): ${LF}`]);
  });
});
