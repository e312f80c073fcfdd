/**
 * `npm test` is the type check beside the fast specs; the linters and the slow specs are scripts of their own, and
 * concurrently runs the checks of a script at once. What keeps that from losing a check: `.ci/run` runs `npm test`
 * (the README's command) and, through the npm scripts it calls, every check any script runs and both spec sets;
 * and every script that runs checks at once runs each to its end and fails when one fails. What `npm test` prints
 * is held by tests/unit/npm-test-output.spec.ts.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import { commandsOf, parallelOf, ROOT, scripts } from "../helpers/npm-scripts";

/** The npm scripts `.ci/run` runs, in order (`npm test`, `npm run X`). */
function ciScripts(): string[] {
  return fs
    .readFileSync(path.join(ROOT, ".ci", "run"), "utf8")
    .split("\n")
    .map((l) => l.trim())
    .flatMap((l) => (l === "npm test" ? ["test"] : (/^npm run ([\w:]+)$/.exec(l)?.slice(1) ?? [])));
}

/** A command without concurrently's argument placeholder: the check it runs. */
const checkOf = (command: string): string => command.replace(/\s*\{@\}$/, "");

const parallelScripts = Object.keys(scripts).filter((s) => parallelOf(s) !== undefined);

describe("CI runs every check: npm test, the linters and the slow specs", () => {
  it("`.ci/run` runs `npm test`, the README's test command", () => {
    assert.ok(ciScripts().includes("test"), String(ciScripts()));
    assert.match(fs.readFileSync(path.join(ROOT, "README.md"), "utf8"), /`npm test`/);
  });

  it("`npm test` is the fast specs beside the type check, the specs first (they stream as they run)", () => {
    const p = parallelOf("test");
    assert.ok(p, `npm test is not a concurrently script: ${scripts.test}`);
    assert.deepEqual([...p.checks.keys()], ["specs", "types"]);
    assert.equal(checkOf(p.checks.get("specs")!), scripts["test:fast"]);
    assert.equal(p.checks.get("types"), scripts.typecheck);
  });

  it("every check a script runs at once runs in some script `.ci/run` calls", () => {
    assert.ok(parallelScripts.length >= 3, `test, lint and check run checks at once: ${parallelScripts.join(", ")}`);
    const ran = new Set(ciScripts().flatMap(commandsOf).map(checkOf));
    const missed = parallelScripts.flatMap(commandsOf).map(checkOf);
    assert.deepEqual(
      missed.filter((c) => !ran.has(c)),
      [],
    );
  });

  it("a script that runs checks at once runs each to its end and fails when any one fails", () => {
    for (const s of parallelScripts) {
      const { options } = parallelOf(s)!;
      assert.ok(options.join(" ").includes("--success all"), `${s}: ${options.join(" ")}`);
      assert.ok(options.includes("--group"), `${s}: each check's output whole, in the order named`);
      assert.deepEqual(
        options.filter((o) => /^(-k|--kill-others.*)$/.test(o)),
        [],
        `${s}: a failing check must not stop the others`,
      );
    }
  });

  it("`npm test -- <mocha options>` reaches the specs", () => {
    const p = parallelOf("test")!;
    assert.ok(p.options.includes("--passthrough-arguments"));
    assert.ok(p.passthrough, "the script ends with `--`, so npm's extra arguments are concurrently's to pass on");
    assert.match(p.checks.get("specs")!, / \{@\}$/);
    assert.doesNotMatch(p.checks.get("types")!, /\{@\}/);
  });

  it("the slow specs run in CI: `npm run test:slow` is mocha over .mocharc.slow.cjs", () => {
    assert.ok(ciScripts().includes("test:slow"));
    assert.equal(scripts["test:slow"], "mocha --config .mocharc.slow.cjs");
  });
});
