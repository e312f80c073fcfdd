/** The config schema's messages for two common slips: a YAML flow mapping without a space, a scalar for a list. */
import { strict as assert } from "assert";
import { check, Spec } from "../../program/schema";

describe("config schema: messages that name the fix", () => {
  const workload: Spec = {
    kind: "object",
    fields: {
      isl: { spec: { kind: "integer", min: 1, max: 100 }, doc: "input tokens" },
      osl: { spec: { kind: "integer", min: 1, max: 100 }, doc: "output tokens" },
    },
  };

  it("`{isl:40}` (YAML reads the key 'isl:40') suggests the spaced form", () => {
    const { problems } = check("inference.workload", { "isl:40": null }, workload);
    assert.deepEqual(problems, [
      {
        propertyPath: "inference.workload.isl:40",
        reason: "unknown key; did you mean `isl: 40` (YAML needs a space after the colon)?",
      },
    ]);
  });

  it("a key with a colon but an unknown prefix, or a value of its own, keeps the generic message", () => {
    const other = check("inference.workload", { "foo:40": null }, workload).problems.map((p) => p.reason);
    assert.deepEqual(other, ["unknown key; known keys: isl, osl"]);
    const valued = check("inference.workload", { "isl:40": 3 }, workload).problems.map((p) => p.reason);
    assert.deepEqual(valued, ["unknown key; known keys: isl, osl"]);
  });

  it("a scalar where a list is expected: the items' allowed values, and the one-item list when it would pass", () => {
    const skew: Spec = { kind: "array", items: { kind: "string", enum: ["vllm", "nixl"] } };
    assert.deepEqual(
      check("image.acceptVersionSkew", "vllm", skew).problems.map((p) => p.reason),
      [
        `must be a list (each item one of "vllm", "nixl"); got "vllm" (a string); did you mean the list ["vllm"] (\`--set 'image.acceptVersionSkew=[vllm]'\`)?`,
      ],
    );
    assert.deepEqual(
      check("image.acceptVersionSkew", "maybe", skew).problems.map((p) => p.reason),
      [`must be a list (each item one of "vllm", "nixl"); got "maybe" (a string)`],
    );
    const ranges: Spec = { kind: "array", items: { kind: "string" } };
    assert.match(
      check("x.sourceRanges", "10.0.0.0/8", ranges).problems[0].reason,
      /did you mean the list \["10.0.0.0\/8"\]/,
    );
  });
});
