/**
 * The predicates the policies share (shell words, flag values, Kubernetes quantities, probe budgets, the KV-transfer
 * config) on their edge cases, and the pack's field-failure coverage map against the F-codes a plan can show.
 */
import { strict as assert } from "assert";
import { flagValue, kvTransferConfig, shellWords } from "../../policy/rules/_command";
import { parseQuantity, probeBudgetSeconds } from "../../policy/rules/_predicates";
import { FIELD_FAILURES, POLICY_NAMES } from "../../policy/policies";

describe("policy predicates", () => {
  const words: [string, string[]][] = [
    ["python3 -m dynamo.vllm --model m", ["python3", "-m", "dynamo.vllm", "--model", "m"]],
    [`x --kv-transfer-config '{"a": [1, 2]}' y`, ["x", "--kv-transfer-config", '{"a": [1, 2]}', "y"]],
    [`a "b \\"c\\" d" e\\ f`, ["a", 'b "c" d', "e f"]],
    ["unset A; exec b && c | d", ["unset", "A", "exec", "b", "c", "d"]],
    ["''", [""]],
  ];
  for (const [s, w] of words) it(`shellWords(${JSON.stringify(s)})`, () => assert.deepEqual(shellWords(s), w));

  it("flagValue reads `--f v` and `--f=v`, the last one winning", () => {
    assert.equal(flagValue(["--model", "a", "--model=b"], "--model"), "b");
    assert.equal(flagValue(["--model"], "--model"), undefined);
    assert.equal(flagValue(["--model-path", "p"], "--model"), undefined);
  });

  const quantities: [unknown, number | undefined][] = [
    ["5120Mi", 5120 * 2 ** 20],
    ["10Gi", 10 * 2 ** 30],
    ["2", 2],
    ["500m", 0.5],
    ["1.5k", 1500],
    [3, 3],
    ["5 Mi", undefined],
    ["Mi", undefined],
    [null, undefined],
  ];
  for (const [q, n] of quantities)
    it(`parseQuantity(${JSON.stringify(q)}) = ${n}`, () => assert.equal(parseQuantity(q), n));

  it("probe budgets use the Kubernetes defaults (0 s delay, 10 s period, 3 failures)", () => {
    assert.equal(probeBudgetSeconds(undefined), 30);
    assert.equal(probeBudgetSeconds({ initialDelaySeconds: 120, periodSeconds: 10, failureThreshold: 60 }), 720);
  });

  it("kvTransferConfig distinguishes absent, invalid and parsed", () => {
    const svc = (args: string[]) => ({
      extraPodSpec: { mainContainer: { command: ["python3", "-m", "dynamo.vllm"], args } },
    });
    assert.deepEqual(kvTransferConfig(svc([])), { kind: "absent" });
    assert.equal(kvTransferConfig(svc(["--kv-transfer-config", "{"])).kind, "invalid");
    assert.deepEqual(kvTransferConfig(svc(["--kv-transfer-config", '{"kv_connector":"NixlConnector"}'])), {
      kind: "ok",
      raw: '{"kv_connector":"NixlConnector"}',
      json: { kv_connector: "NixlConnector" },
    });
  });

  it("every field failure a policy can see is covered (F4 and F11 are outside the plan: a request flag and the Dockerfile)", () => {
    const covered = new Set(POLICY_NAMES.flatMap((n) => FIELD_FAILURES[n]));
    assert.deepEqual(
      [...covered].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1))),
      ["F1", "F2", "F3", "F5", "F6", "F7", "F8", "F9", "F10", "F12", "F13", "F14"],
    );
  });
});
