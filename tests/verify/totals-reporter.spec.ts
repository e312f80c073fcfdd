/**
 * The totals reporter (tests/helpers/totals-reporter.cjs) closes with "N passed, N failed, N skipped", and
 * never lets that line pass over tests a failed hook kept from running: it names their suite and fails the
 * run. Runs mocha as a child on a synthetic suite (tests/verify/fixtures/*.fixture.cjs) whose before-all
 * fails, serially and in parallel mode.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "..", "..");
const FIXTURES = path.join(__dirname, "fixtures");
const MOCHA = path.join(ROOT, "node_modules", "mocha", "bin", "mocha.js");
const REPORTER = path.join(ROOT, "tests", "helpers", "totals-reporter.cjs");

function mocha(files: string[], extra: string[] = []): { status: number | null; last: string } {
  const p = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      MOCHA,
      "--no-config",
      ...extra,
      "--reporter",
      REPORTER,
      ...files.map((f) => path.join(FIXTURES, f)),
    ],
    { cwd: ROOT, encoding: "utf8" },
  );
  const lines = p.stdout.trim().split("\n");
  return { status: p.status, last: lines[lines.length - 1] };
}

describe("totals reporter: never a plain total over tests a failed hook kept from running", function () {
  this.timeout(0); // child mocha runs: their start-up time says nothing about the reporter

  for (const [mode, extra] of [
    ["serially", []],
    ["in parallel mode", ["--parallel", "--jobs", "2"]],
  ] as const) {
    it(`names the suite a failed before-all kept from running, and fails the run (${mode})`, () => {
      const r = mocha(["failing-hook.fixture.cjs", "healthy.fixture.cjs"], [...extra]);
      assert.equal(
        r.last,
        `2 passed, 1 failed, 1 skipped; a failed hook kept the tests of "suite whose before-all fails" (${path.join("tests", "verify", "fixtures", "failing-hook.fixture.cjs")}) from running`,
      );
      assert.notEqual(r.status, 0);
    });
  }

  it("a healthy run closes with the plain totals and exits 0", () => {
    const r = mocha(["healthy.fixture.cjs"]);
    assert.equal(r.last, "1 passed, 0 failed, 0 skipped");
    assert.equal(r.status, 0);
  });
});
