/**
 * tools/side-by-side.mjs, which `npm test` and `npm run lint` are: checks run at once, a failing one fails the run
 * without stopping the others, the held output of each is printed under its name, and the closing line starts with
 * mocha's totals. Run with `node -e` children standing in for mocha and tsc (slow set: it spawns processes).
 */
import { strict as assert } from "assert";
import * as path from "path";
import { pathToFileURL } from "url";

const ROOT = path.resolve(__dirname, "..", "..");
type RunChecks = (
  checks: [string, string[]][],
  out: (s: string | Buffer) => void,
) => Promise<{ ok: boolean; line: string }>;

const node = (code: string): string[] => [process.execPath, "-e", code];

async function runChecks(checks: [string, string[]][]) {
  const mod = (await import(pathToFileURL(path.join(ROOT, "tools", "side-by-side.mjs")).href)) as {
    runChecks: RunChecks;
  };
  let out = "";
  const r = await mod.runChecks(checks, (s) => (out += s.toString()));
  return { ...r, out };
}

describe("side-by-side: the checks npm test runs at once", function () {
  this.timeout(30000);

  it("passes when every check passes, the live check's totals first on the closing line", async () => {
    const r = await runChecks([
      ["specs", node(`console.log("spec output"); console.log("3 passed, 0 failed, 0 skipped")`)],
      ["types", node(`process.exit(0)`)],
    ]);
    assert.equal(r.ok, true);
    assert.match(r.out, /spec output/);
    assert.match(r.line, /^3 passed, 0 failed, 0 skipped; specs ok in [\d.]+ s, types ok in [\d.]+ s; /);
  });

  it("finds the totals line when it arrives in pieces", async () => {
    const code = `process.stdout.write("x\\n2 passed, 0 fa"); setTimeout(() => process.stdout.write("iled, 1 skipped\\n"), 200)`;
    const r = await runChecks([["specs", node(code)]]);
    assert.match(r.line, /^2 passed, 0 failed, 1 skipped; specs ok/);
  });

  it("fails when one check fails, and still waits for the others and prints what the failed one said", async () => {
    const r = await runChecks([
      ["specs", node(`setTimeout(() => console.log("1 passed, 0 failed, 0 skipped"), 300)`)],
      ["types", node(`console.error("x.ts(1,7): error TS2322"); process.exit(2)`)],
    ]);
    assert.equal(r.ok, false);
    assert.match(r.out, /--- types: FAILED \(exit 2\)\nx\.ts\(1,7\): error TS2322/);
    assert.match(r.out, /1 passed, 0 failed, 0 skipped/, "the slower passing check ran to its end");
    assert.match(r.line, /^1 passed, 0 failed, 0 skipped; specs ok in [\d.]+ s, types FAILED \(exit 2\)/);
  });

  it("a failing live check fails the run; no totals line, no totals first", async () => {
    const r = await runChecks([
      ["specs", node(`console.log("Error: cannot load"); process.exit(1)`)],
      ["types", node(`process.exit(0)`)],
    ]);
    assert.equal(r.ok, false);
    assert.match(r.line, /^specs FAILED \(exit 1\) in [\d.]+ s, types ok/);
  });

  it("a command that cannot start is a failed check, not a crash", async () => {
    const r = await runChecks([["types", [path.join(ROOT, "no-such-binary")]]]);
    assert.equal(r.ok, false);
    assert.match(r.line, /^types FAILED \(.*ENOENT.*\)/);
  });
});
