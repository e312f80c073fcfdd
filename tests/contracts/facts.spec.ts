/**
 * Every fact file, not only those a spec happens to load: each has a complete provenance block, a commit
 * of 40 hex digits (a device measurement says "measured" instead) and an extractor script that exists,
 * so no fact can be written from memory and no source can rot unnoticed. See tests/contracts/README.md.
 */
import { strict as assert } from "assert";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { FACT_DIRS, loadFacts } from "./facts";

const ROOT = join(__dirname, "..", "..");
/** Facts measured on the device machine rather than read from an upstream commit. */
const MEASURED = new Set(["gpu-memory", "h200-serving-attention", "h200-serving-calibration", "h200-serving-extended"]);
/** Facts read from a published page (a pull request's description) rather than a commit: its URL is the repository. */
const PUBLISHED = new Set(["allreduce-h100", "dynamo-ucx-kv"]);
const names = FACT_DIRS.flatMap((d) => readdirSync(d))
  .filter((f) => f.endsWith(".json"))
  .map((f) => f.slice(0, -".json".length))
  .sort();

describe("contract fact files: provenance on every one", () => {
  it("finds the fact files", () => assert.ok(names.length > 0));

  for (const name of names) {
    it(`${name}.json: complete provenance, a pinned commit and an extractor that exists`, () => {
      const { provenance } = loadFacts<unknown>(name);
      if (MEASURED.has(name)) assert.match(provenance.commit, /^measured\b/);
      else if (PUBLISHED.has(name)) {
        assert.equal(provenance.commit, "published");
        assert.match(provenance.repository, /^https:\/\//, `${name}.json: provenance.repository is the page's URL`);
      } else assert.match(provenance.commit, /^[0-9a-f]{40}$/, `${name}.json: provenance.commit`);
      const script = provenance.extractor.split(/\s+/)[0];
      assert.ok(existsSync(join(ROOT, script)), `${name}.json: extractor ${script} does not exist`);
    });
  }
});
