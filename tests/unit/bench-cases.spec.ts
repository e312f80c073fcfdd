/**
 * `npm run bench`'s cases (bench/cases.ts) are configs the render accepts: each is read and checked exactly as the
 * render does before it runs the program (`loadStack`), so a renamed key fails here rather than in a bench run
 * (exit 2 on its third case). No render and no timing: the bench's speed is the bench's business, not a test's.
 */
import { strict as assert } from "assert";
import * as path from "path";
import { BENCH_CASES } from "../../bench/cases";
import { parseArgs } from "../../tools/render/cli/cli";
import { loadStack } from "../../tools/render/cli/command";

const ROOT = path.join(__dirname, "..", "..");

describe("bench cases", () => {
  for (const c of BENCH_CASES)
    it(`${c.label}: the render accepts its config`, () => {
      const args = parseArgs([...c.argv, "--out", "unused"]);
      try {
        loadStack(args, { root: ROOT, cwd: ROOT });
      } catch (e) {
        assert.fail(`${c.label}: ${(e as Error).message}: ${JSON.stringify(e)}`);
      }
    });

  it("a stale key fails the check (the rule can fail)", () => {
    const args = parseArgs(["p5en-8gpu", "--set", "cluster.gpuNodes.count=4", "--out", "unused"]);
    assert.throws(
      () => loadStack(args, { root: ROOT, cwd: ROOT }),
      (e: { problems?: { propertyPath: string }[] }) => e.problems?.[0]?.propertyPath === "cluster.gpuNodes.count",
    );
  });
});
