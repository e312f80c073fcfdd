/**
 * Every key of the stack config, each sent every wrong type (generated from the key tables: tests/helpers/
 * key-cases.ts), through the render CLI in-process: exit 2, a problem at that key naming the value's type and what
 * is allowed, no stack trace, no `[object Object]` or function text, and the program never runs. The CLI as a child
 * process over a sample of the same cases is in tests/render/fuzz.spec.ts (the slow set).
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { runCli } from "../../tools/render/cli/cli";
import { ExitCode } from "../../tools/_shared/exit-codes";
import { isAtOrUnder } from "../../program/keys";
import { parse, stringify } from "yaml";
import { GARBAGE, KeyCase, keyCases } from "../helpers/key-cases";
import { ROOT, STACK_TRACE } from "../render/render-harness";

const never = () => {
  throw new Error("the program ran: a wrong-typed value was accepted");
};

/** p5en-1gpu's stack file with `path` (`cluster.gpuPools.gpu.efa`) set to `value`, written into `dir`. */
function stackFileWith(dir: string, keyPath: string, value: unknown): string {
  const doc = parse(fs.readFileSync(path.join(ROOT, "stacks", "Pulumi.p5en-1gpu.yaml"), "utf8"));
  const [section, ...rest] = keyPath.split(".");
  let o = (doc.config[`dynamo-efa:${section}`] ??= {}) as Record<string, unknown>;
  for (const k of rest.slice(0, -1)) o = (o[k] ??= {}) as Record<string, unknown>;
  o[rest[rest.length - 1]] = value;
  const file = path.join(dir, "Pulumi.p5en-1gpu.yaml");
  fs.writeFileSync(file, stringify(doc));
  return file;
}

describe("stack config: every key refuses every wrong type, generated from the key tables", function () {
  this.timeout(120000);
  const cases = keyCases();
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "key-types-"));
  after(() => fs.rmSync(out, { recursive: true, force: true }));
  const argv = (c: KeyCase): string[] =>
    c.file
      ? ["--file", stackFileWith(out, c.file.path, c.file.value), "--out", out]
      : ["p5en-1gpu", "--out", out, "--set", c.set];

  it("covers every section, and every kind of value the tables hold", () => {
    for (const s of ["cluster.", "cluster.gpuPools.gpu.", "image.", "platform.", "inference.", "observability."])
      assert.ok(
        cases.some((c) => c.key.startsWith(s)),
        s,
      );
    for (const w of [
      "a quoted 'false'",
      "a quoted number",
      "a list",
      "an object",
      "above its bounds",
      "__proto__ as a key",
    ])
      assert.ok(
        cases.some((c) => c.what === w),
        w,
      );
    assert.ok(cases.length > 500, `${cases.length} cases`);
    // A number for a string key goes in a stack file (a `--set` takes its text): still sent, at every string key.
    assert.ok(cases.some((c) => c.key === "cluster.kubernetesVersion" && c.file?.value === 1));
  });

  it("each case exits 2 naming its key, with the value's type and what is allowed", async () => {
    const failures: string[] = [];
    for (const c of cases) {
      const lines: string[] = [];
      const code = await runCli(argv(c), {
        root: ROOT,
        cwd: ROOT,
        program: never,
        policies: never,
        policyList: [],
        stdout: (l) => lines.push(l),
        stderr: (l) => lines.push(l),
      });
      const text = lines.join("\n");
      const problems = text
        .split("\n")
        .filter((l) => l.startsWith("  - "))
        .map((l) => l.slice(4));
      const named = problems.filter((p) => isAtOrUnder(p.slice(0, p.indexOf(": ")), c.key));
      const why =
        code !== ExitCode.InvalidConfig
          ? `exit ${code}`
          : named.length === 0
            ? "no problem at the key"
            : STACK_TRACE.test(text)
              ? "a stack trace"
              : GARBAGE.test(text)
                ? "object or function text"
                : undefined;
      if (why)
        failures.push(`${c.file ? "in the file: " : "--set "}${c.set} (${c.what}): ${why}\n${text.slice(0, 600)}`);
    }
    assert.deepEqual(
      failures,
      [],
      `${failures.length} of ${cases.length} cases:\n${failures.slice(0, 10).join("\n\n")}`,
    );
  });

  it("a refusal names the value, its type and what is allowed, and drops the validator's restatement", async () => {
    const lines: string[] = [];
    const code = await runCli(
      [
        "p5en-1gpu",
        "--out",
        out,
        "--set",
        "inference.createNamespace='false'",
        "--set",
        "inference.runAsUser=0",
        "--set",
        "cluster.gpuPools.gpu.nodes='2'",
      ],
      {
        root: ROOT,
        cwd: ROOT,
        program: never,
        policies: never,
        policyList: [],
        stdout: (l) => lines.push(l),
        stderr: (l) => lines.push(l),
      },
    );
    assert.equal(code, ExitCode.InvalidConfig);
    assert.deepEqual(
      lines
        .join("\n")
        .split("\n")
        .filter((l) => l.startsWith("  - ")),
      [
        '  - cluster.gpuPools.gpu.nodes: must be a whole number 1..450; got "2" (a string); write 2 without quotes',
        `  - inference.createNamespace: must be true or false; got "false" (a string); write false without quotes`,
        "  - inference.runAsUser: must be a whole number 1..2147483647; got 0 (a number)",
      ],
    );
  });
});
