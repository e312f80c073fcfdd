/**
 * `npm test` is the type check beside the fast specs; the linters and the slow specs are scripts of their own.
 * What keeps that from losing a check: `.ci/run` runs `npm test` (the README's command) and, through the npm
 * scripts it calls, every check tools/side-by-side.mjs knows and both spec sets.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import { pathToFileURL } from "url";

const ROOT = path.resolve(__dirname, "..", "..");
const scripts = (
  JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }
).scripts;

/** The npm scripts `.ci/run` runs, in order (`npm test`, `npm run X`). */
function ciScripts(): string[] {
  return fs
    .readFileSync(path.join(ROOT, ".ci", "run"), "utf8")
    .split("\n")
    .map((l) => l.trim())
    .flatMap((l) => (l === "npm test" ? ["test"] : (/^npm run ([\w:]+)$/.exec(l)?.slice(1) ?? [])));
}

/** The checks an npm script runs through tools/side-by-side.mjs. */
const sideBySide = (script: string): string[] =>
  /^node tools\/side-by-side\.mjs ((?:[\w-]+ ?)+)$/
    .exec(scripts[script] ?? "")?.[1]!
    .trim()
    .split(" ") ?? [];

describe("CI runs every check: npm test, the linters and the slow specs", () => {
  it("`.ci/run` runs `npm test`, the README's test command", () => {
    assert.ok(ciScripts().includes("test"), String(ciScripts()));
    assert.match(fs.readFileSync(path.join(ROOT, "README.md"), "utf8"), /`npm test`/);
  });

  it("`npm test` is the fast specs beside the type check", () => {
    assert.deepEqual(sideBySide("test"), ["specs", "types"]);
  });

  it("every check side-by-side knows runs in some script `.ci/run` calls", async () => {
    const url = pathToFileURL(path.join(ROOT, "tools", "side-by-side.mjs")).href;
    const { CHECKS } = (await import(url)) as { CHECKS: Record<string, string[]> };
    const ran = new Set(ciScripts().flatMap(sideBySide));
    assert.deepEqual(
      Object.keys(CHECKS).filter((c) => !ran.has(c)),
      [],
    );
    assert.deepEqual(CHECKS.specs!.slice(1, 3), ["--config", ".mocharc.fast.cjs"]);
  });

  it("`npm test -- <mocha options or spec files>` reaches the specs: files replace the fast set", async () => {
    const url = pathToFileURL(path.join(ROOT, "tools", "side-by-side.mjs")).href;
    const { specsWith } = (await import(url)) as { specsWith: (extra: string[]) => string[] };
    const grep = specsWith(["--grep", "fit"]);
    assert.deepEqual(grep.slice(1, 3), ["--config", ".mocharc.fast.cjs"]);
    assert.deepEqual(grep.slice(-2), ["--grep", "fit"]);
    const file = specsWith(["tests/unit/fit.spec.ts"]);
    assert.deepEqual(file.slice(1, 3), ["--config", ".mocharc.json"]);
    assert.equal(file.at(-1), "tests/unit/fit.spec.ts");
  });

  it("the slow specs run in CI: `npm run test:slow` is mocha over .mocharc.slow.cjs", () => {
    assert.ok(ciScripts().includes("test:slow"));
    assert.equal(scripts["test:slow"], "mocha --config .mocharc.slow.cjs");
  });
});
