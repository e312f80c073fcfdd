/**
 * `image.versions` overrides against the Dynamo commit's own pins (tests/contracts/facts/dynamo-pyproject.json):
 * versions.ts's `dynamoPins` are exactly the fact's requirements, an override outside them is an error naming both
 * versions unless `acceptVersionSkew` names its key, and a downloaded tool's version needs its checksum too.
 */
import * as assert from "assert";
import { loadFacts } from "./facts";
import { DYNAMO_COMMIT, dynamoPins } from "../../components/versions";
import { checksumProblems, satisfies, skewProblems } from "../../components/image/version-pins";

interface DynamoPins {
  trtllm: Record<string, string>;
  vllm: Record<string, string>;
}

describe("contract: image.versions overrides against the Dynamo commit's pins", () => {
  const f = loadFacts<DynamoPins>("dynamo-pyproject");

  it("dynamoPins are the fact's requirements, read at DYNAMO_COMMIT", () => {
    assert.strictEqual(f.provenance.commit, DYNAMO_COMMIT);
    const fact: Record<string, string> = {
      "tensorrt-llm": `==${f.facts.trtllm["tensorrt-llm"]}`,
      vllm: `==${f.facts.vllm.vllm}`,
      nixl: f.facts.vllm.nixl,
    };
    for (const p of dynamoPins) assert.strictEqual(p.spec, fact[p.project], p.project);
    assert.deepStrictEqual(dynamoPins.map((p) => p.project).sort(), Object.keys(fact).sort());
  });

  it("versions.vllm=v0.19.0 is an error naming both versions; acknowledged, it passes", () => {
    const ps = skewProblems({ vllm: "v0.19.0" }, []);
    assert.deepStrictEqual(
      ps.map((p) => p.propertyPath),
      ["versions.vllm"],
    );
    assert.match(ps[0].reason, /"v0\.19\.0" does not satisfy vllm==0\.17\.1/);
    assert.match(ps[0].reason, /acceptVersionSkew/);
    assert.deepStrictEqual(skewProblems({ vllm: "v0.19.0" }, ["vllm"]), []);
    assert.deepStrictEqual(skewProblems({ vllm: "v0.17.1", tensorrtLlm: "1.3.0rc7", nixl: "0.10.0" }, []), []);
  });

  it("satisfies: == is exact (a leading v ignored), <= compares releases", () => {
    assert.ok(satisfies("v0.17.1", "==0.17.1"));
    assert.ok(!satisfies("0.17.10", "==0.17.1"));
    assert.ok(satisfies("0.10.1", "<=0.10.1") && satisfies("0.9.0", "<=0.10.1"));
    assert.ok(!satisfies("0.10.2", "<=0.10.1") && !satisfies("1.0.1", "<=0.10.1"));
  });

  it("another Dynamo commit needs acknowledging; a bad acceptVersionSkew entry gets a suggestion", () => {
    assert.match(skewProblems({ dynamo: "0".repeat(40) }, [])[0].reason, /not the Dynamo commit f2fd3a16e/);
    assert.deepStrictEqual(skewProblems({ dynamo: "0".repeat(40) }, ["dynamo"]), []);
    const bad = skewProblems({}, ["vlm"]);
    assert.deepStrictEqual(
      bad.map((p) => p.propertyPath),
      ["acceptVersionSkew[0]"],
    );
    assert.match(bad[0].reason, /did you mean "vllm"/);
  });

  it("a downloaded tool's new version needs its SHA-256 (the old pin cannot apply)", () => {
    assert.deepStrictEqual(
      checksumProblems({ uv: "0.9.20", etcd: "v3.5.22", etcdSha256: "a".repeat(64) }).map((p) => p.propertyPath),
      ["versions.uvSha256"],
    );
    assert.deepStrictEqual(checksumProblems({ uv: "0.9.20", uvSha256: "b".repeat(64) }), []);
  });
});
