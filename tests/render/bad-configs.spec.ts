/**
 * The broken-config corpus (`tests/fixtures/bad-configs/*.yaml`): each file's first line names the
 * key path(s) its error must mention (`# expect: a.b, c.d`). Every file must make the render exit 2
 * with a message naming those keys, and never print a stack trace.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { defaultDeps, runCli } from "../../tools/render/cli/cli";
import { ExitCode } from "../../tools/_shared/exit-codes";
import { STACK_TRACE } from "./render-harness";

const DIR = path.join(__dirname, "..", "fixtures", "bad-configs");

function expectedKeys(file: string): string[] {
  const first = fs.readFileSync(file, "utf8").split("\n")[0];
  const m = /^# expect: (.+)$/.exec(first);
  if (!m) throw new Error(`${file}: first line must be "# expect: <key path>[, <key path>...]"`);
  return m[1].split(",").map((s) => s.trim());
}

describe("render: bad-config corpus exits 2 naming the key, without a stack trace", function () {
  this.timeout(30000);
  const files = fs
    .readdirSync(DIR)
    .filter((f) => f.endsWith(".yaml"))
    .sort();
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "render-bad-"));
  after(() => fs.rmSync(out, { recursive: true, force: true }));

  it("has at least 20 cases", () => assert.ok(files.length >= 20, `${files.length} cases`));

  for (const f of files) {
    it(f, async () => {
      const file = path.join(DIR, f);
      const stdout: string[] = [];
      const stderr: string[] = [];
      const code = await runCli(["--file", file, "--out", out], {
        ...defaultDeps(),
        stdout: (l) => stdout.push(l),
        stderr: (l) => stderr.push(l),
      });
      const text = [...stdout, ...stderr].join("\n");
      assert.equal(code, ExitCode.InvalidConfig, text);
      for (const key of expectedKeys(file))
        assert.ok(text.includes(`- ${key}: `), `expected a problem at ${key}:\n${text}`);
      assert.doesNotMatch(text, STACK_TRACE, "a stack trace was printed");
      assert.ok(
        !fs.existsSync(path.join(out, f.replace(/\.yaml$/, ""), "plan.json")),
        "nothing is rendered for an invalid config",
      );
    });
  }
});
