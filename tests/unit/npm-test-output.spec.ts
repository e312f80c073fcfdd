/**
 * What `npm test` prints, for a CI reader: concurrently with package.json's own options for `npm test`, its two
 * checks stood in for by node scripts (mocha and tsc take half a minute; what is held here is how the options
 * order and report their output). The specs stream first; the type check's output is held and printed whole after
 * them; so mocha's "N passed, N failed, N skipped" is the last line a check prints unless the type check failed,
 * and then its errors close the run. A failing check never stops the other, and fails the run. Slow set: it
 * spawns concurrently and node.
 */
import { strict as assert } from "assert";
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { parallelOf, ROOT } from "../helpers/npm-scripts";

const CONCURRENTLY = path.join(ROOT, "node_modules", "concurrently", "dist", "bin", "concurrently.js");
const TOTALS = /^\[specs\] \d+ passed, \d+ failed, \d+ skipped$/;
const EXIT = /^\[(specs|types)\] .* exited with code \d+$/;

interface StandIn {
  /** Node code of the check. */
  readonly specs: string;
  readonly types: string;
}

/** Runs `npm test`'s concurrently options over stand-ins for its two checks; extra arguments as `npm test -- ...`. */
function npmTest(standIn: StandIn, extra: string[] = []): { status: number | null; lines: string[] } {
  const p = parallelOf("test")!;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "npm-test-output-"));
  try {
    const command = (name: keyof StandIn) => {
      const file = path.join(dir, `${name}.cjs`);
      fs.writeFileSync(file, standIn[name]);
      const placeholder = p.checks.get(name)!.endsWith("{@}") ? " {@}" : "";
      // `node` from PATH: concurrently strips quotes that open and close a whole command.
      return `node "${file}"${placeholder}`;
    };
    const r = spawnSync(
      process.execPath,
      [CONCURRENTLY, ...p.options, ...[...p.checks.keys()].map((n) => command(n as keyof StandIn)), "--", ...extra],
      { cwd: ROOT, encoding: "utf8", env: { ...process.env, FORCE_COLOR: "0" } },
    );
    return { status: r.status, lines: r.stdout.split("\n").filter((l) => l.trim() !== "") };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const PASSING_SPECS = `console.log("  ok one"); setTimeout(() => console.log("3 passed, 0 failed, 0 skipped"), 300)`;
const indexOf = (lines: string[], re: RegExp) => lines.findIndex((l) => re.test(l));

describe("npm test's output: the totals last, every check's failure reported", function () {
  this.timeout(30000);

  it("both pass: the totals are the last line a check prints; only each check's exit status follows", () => {
    const r = npmTest({ specs: PASSING_SPECS, types: `setTimeout(() => process.exit(0), 100)` });
    assert.equal(r.status, 0, r.lines.join("\n"));
    const totals = indexOf(r.lines, TOTALS);
    assert.ok(totals >= 0, r.lines.join("\n"));
    const after = r.lines.slice(totals + 1);
    assert.deepEqual(
      after.filter((l) => !EXIT.test(l)),
      [],
    );
    assert.deepEqual(
      after.map((l) => EXIT.exec(l)![1]),
      ["specs", "types"],
    );
  });

  it("the type check fails while the specs pass: the run fails and its errors and status close the log", () => {
    const r = npmTest({
      specs: PASSING_SPECS,
      types: `console.log("x.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'."); process.exit(2)`,
    });
    assert.equal(r.status, 1);
    const totals = indexOf(r.lines, TOTALS);
    const error = indexOf(r.lines, /^\[types\] x\.ts\(1,7\): error TS2322/);
    assert.ok(totals >= 0 && error > totals, `the type errors come after the totals:\n${r.lines.join("\n")}`);
    assert.match(r.lines.at(-1)!, /^\[types\] .* exited with code 2$/);
  });

  it("the specs fail first: the type check still runs to its end and reports", () => {
    const r = npmTest({
      specs: `console.log("0 passed, 1 failed, 0 skipped"); process.exit(1)`,
      types: `setTimeout(() => { console.log("types done"); process.exit(0) }, 500)`,
    });
    assert.equal(r.status, 1);
    assert.ok(r.lines.includes("[types] types done"), r.lines.join("\n"));
    assert.match(
      r.lines.find((l) => l.startsWith("[specs]") && EXIT.test(l))!,
      /exited with code 1$/,
    );
    assert.match(r.lines.at(-1)!, /^\[types\] .* exited with code 0$/);
  });

  it("`npm test -- <mocha options>` reaches the specs, quoted as given, and not the type check", () => {
    const r = npmTest(
      {
        specs: `console.log(JSON.stringify(process.argv.slice(2))); console.log("1 passed, 0 failed, 0 skipped")`,
        types: `console.log(JSON.stringify(process.argv.slice(2)))`,
      },
      ["--grep", "fit a"],
    );
    assert.equal(r.status, 0);
    assert.ok(r.lines.includes(`[specs] ${JSON.stringify(["--grep", "fit a"])}`), r.lines.join("\n"));
    assert.ok(r.lines.includes("[types] []"), r.lines.join("\n"));
  });
});
