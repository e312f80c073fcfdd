/**
 * `render` blames the user's input, precisely, and never itself: a stack name that would escape
 * --out, numbers JSON cannot carry, bad strings, key typos and files that are not stack files are each
 * exit 2 naming the key or the file. Numbered cases run through the CLI in-process (render-harness.ts);
 * the output side is robustness-output.spec.ts, the argument side robustness-cli.spec.ts.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { defaultDeps } from "../../tools/render/cli/cli";
import { ExitCode } from "../../tools/_shared/exit-codes";
import { ROOT, run, STACK_1, STACK_1_TEXT, stackFileWith } from "./render-harness";

describe("render robustness: the user's input blamed, never the tool", function () {
  this.timeout(120000);
  let tmp: string;
  beforeEach(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), "render-robust-in-"))));
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  describe("the stack name never escapes --out", () => {
    it("a name with separators or dots is exit 2 and deletes nothing outside --out", async () => {
      const victim = path.join(tmp, "v", "manifests", "important.yaml");
      fs.mkdirSync(path.dirname(victim), { recursive: true });
      fs.writeFileSync(victim, "keep me\n");
      for (const name of ["../../v", "../v", "..", ".", "a/b", "a\\b"]) {
        const r = await run([name, "--file", STACK_1, "--out", path.join(tmp, "x", "out")]);
        assert.equal(r.code, ExitCode.InvalidConfig, name);
        assert.match(r.err, /is not a valid stack name/);
      }
      assert.equal(fs.readFileSync(victim, "utf8"), "keep me\n");
      assert.ok(!fs.existsSync(path.join(tmp, "x")), "nothing was written");
    });

    it("a file named Pulumi....yaml cannot render into the parent of --out", async () => {
      const file = stackFileWith(tmp, "Pulumi....yaml", (t) => t);
      const r = await run(["--file", file, "--out", path.join(tmp, "out")]);
      assert.equal(r.code, ExitCode.InvalidConfig);
      assert.match(r.err, /stack name taken from --file .*"\.\." is not a valid stack name/);
    });
  });

  describe("numbers JSON cannot carry", () => {
    for (const v of [".inf", "-.inf", ".nan", "1e309"]) {
      it(`--set inference.prefill.replicas=${v} is exit 2 naming the key`, async () => {
        const r = await run(["p5en-1gpu", "--out", tmp, "--set", `inference.prefill.replicas=${v}`]);
        assert.equal(r.code, ExitCode.InvalidConfig);
        assert.match(r.err, /- inference\.prefill\.replicas: must be a finite number/);
      });
    }
    it("modelCacheGiB: .inf in a stack file is exit 2, not a dropped cache", async () => {
      const file = stackFileWith(tmp, "Pulumi.cache.yaml", (t) => `${t}    modelCacheGiB: .inf\n`);
      const r = await run(["--file", file, "--out", tmp]);
      assert.equal(r.code, ExitCode.InvalidConfig);
      assert.match(r.err, /- inference\.modelCacheGiB: must be a finite number; got Infinity/);
    });
  });

  describe("strings", () => {
    const bad: [string, string, RegExp][] = [
      ["a newline", "meta-llama/Llama\n-3.1", /must not contain the control character U\+000A/],
      ["a NUL", "meta-llama/Llama\u0000", /must not contain the control character U\+0000/],
      ["a bidi override", "meta-llama/\u202eLlama", /must not contain the control character U\+202E/],
      ["surrounding spaces", " meta-llama/Llama ", /must not start or end with whitespace/],
      ["10k characters", "m".repeat(10000), /must be at most 256 characters; got 10000/],
      [
        "U+FFFD (invalid UTF-8 on the command line)",
        "meta-\ufffd",
        /U\+FFFD \(the file or argument was not valid UTF-8\)/,
      ],
    ];
    for (const [why, value, re] of bad) {
      it(`a model id with ${why} is exit 2, echoing at most ~80 characters`, async () => {
        const r = await run(["p5en-1gpu", "--out", tmp, "--set", `inference.model=${JSON.stringify(value)}`]);
        assert.equal(r.code, ExitCode.InvalidConfig);
        assert.match(r.err, re);
        assert.match(r.err, /- inference\.model: /);
        for (const line of r.err.split("\n")) assert.ok(line.length < 300, `a long line: ${line.length} characters`);
      });
    }
    it("served names and image versions are checked the same way", async () => {
      const r = await run([
        "p5en-1gpu",
        "--out",
        tmp,
        "--set",
        'inference.servedModelName="a\\tb"',
        "--set",
        'image.versions={vllm: " v1"}',
      ]);
      assert.equal(r.code, ExitCode.InvalidConfig);
      assert.match(r.err, /- inference\.servedModelName: must not contain the control character U\+0009/);
      assert.match(r.err, /- image\.versions\.vllm: must not start or end with whitespace/);
    });
    it("a stack file that is not valid UTF-8 is exit 2 naming the line", async () => {
      const file = stackFileWith(tmp, "Pulumi.latin1.yaml", (t) =>
        Buffer.concat([
          Buffer.from(t.replace("model: meta-llama", "model: m\u00e9ta").split("m\u00e9ta")[0]),
          Buffer.from([0x6d, 0xe9, 0x74, 0x61]),
          Buffer.from(t.split("model: meta")[1]),
        ]),
      );
      const r = await run(["--file", file, "--out", tmp]);
      assert.equal(r.code, ExitCode.InvalidConfig);
      assert.match(r.err, /is not valid UTF-8 \(first bad byte on line \d+\); save it as UTF-8/);
    });
  });

  it("a stack name that contradicts --file is exit 2, and nothing is overwritten", async () => {
    const r = await run(["p5en-1gpu", "--file", path.join(ROOT, "stacks", "Pulumi.p5en-8gpu.yaml"), "--out", tmp]);
    assert.equal(r.code, ExitCode.InvalidConfig);
    assert.match(r.err, /stack "p5en-1gpu" does not match --file .* \(the file of stack "p5en-8gpu"\)/);
    assert.deepEqual(fs.readdirSync(tmp), []);
  });

  describe("key typos are exit 2 with did-you-mean", () => {
    const cases: [string, (t: string) => string, string[], RegExp][] = [
      [
        "dynamo-efa:inferense",
        (t) => t.replace("dynamo-efa:inference:", "dynamo-efa:inferense:"),
        [],
        /- dynamo-efa:inferense: unknown key; did you mean "inference"\?/,
      ],
      [
        "aws:regoin",
        (t) => t.replace("aws:region:", "aws:regoin:"),
        [],
        /- aws:regoin: not a key this program reads; did you mean "aws:region"\?/,
      ],
      [
        "graphname",
        (t) => `${t}  dynamo-efa:graphname: g\n`,
        [],
        /- dynamo-efa:graphname: unknown key; did you mean "graphName"\?/,
      ],
      [
        "a dotted key",
        (t) => `${t}  dynamo-efa:inference.model: m\n`,
        [],
        /- dynamo-efa:inference\.model: a dotted key is one literal key to Pulumi/,
      ],
      [
        "a look-alike namespace",
        (t) => `${t}  dynamo_efa:graphName: g\n`,
        [],
        /- dynamo_efa:graphName: namespace "dynamo_efa" is not the project's; did you mean "dynamo-efa:graphName"\?/,
      ],
      [
        "--set inferenc.prefill.replicas=4",
        (t) => t,
        ["--set", "inferenc.prefill.replicas=4"],
        /- dynamo-efa:inferenc: unknown key; did you mean "inference"\?/,
      ],
    ];
    for (const [why, edit, extra, re] of cases) {
      it(`${why}`, async () => {
        const file = stackFileWith(tmp, "Pulumi.typo.yaml", edit);
        const r = await run(["--file", file, "--out", tmp, ...extra]);
        assert.equal(r.code, ExitCode.InvalidConfig, r.err);
        assert.match(r.err, re);
      });
    }
  });

  describe("a file that is not a stack file says so", () => {
    const cases: [string, (t: string) => string | Buffer, RegExp][] = [
      [
        "UTF-16",
        (t) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(t, "utf16le")]),
        /not understood: it looks UTF-16 or binary/,
      ],
      [
        "no config: key",
        (t) => t.replace("config:\n", "").replace(/^ {2}/gm, ""),
        /not understood as a Pulumi stack file: it has no "config:" key .*indent the keys under "config:"/,
      ],
      ["a top-level list", () => "- a\n- b\n", /not understood as a Pulumi stack file: its top level is a list/],
      ["config: a string", () => "config: oops\n", /"config" must be a map of keys to values; got "oops"/],
      ["CR-only line endings", (t) => t.replace(/\n/g, "\r"), /not understood: it uses CR-only line endings/],
      [
        "an alias bomb",
        () =>
          `a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [${"*a, ".repeat(9)}*a]\nc: &c [${"*b, ".repeat(9)}*b]\nconfig: { x: [${"*c, ".repeat(99)}*c] }\n`,
        /more than 100 alias expansions/,
      ],
      [
        "nesting 40 levels deep",
        (t) => `${t}  dynamo-efa:graphName: ${"[".repeat(40)}${"]".repeat(40)}\n`,
        /nested deeper than 32 levels/,
      ],
    ];
    for (const [why, edit, re] of cases) {
      it(`${why}`, async () => {
        const r = await run(["--file", stackFileWith(tmp, "Pulumi.odd.yaml", edit), "--out", tmp]);
        assert.equal(r.code, ExitCode.InvalidConfig, r.err);
        assert.match(r.err, re);
        assert.doesNotMatch(r.err, /is required/);
      });
    }
    it("YAML merge keys work as in Pulumi's own loader", async () => {
      const model = "    model: meta-llama/Llama-3.1-8B-Instruct\n";
      const merged = STACK_1_TEXT.replace(
        model,
        `${model}    prefill: &role { replicas: 2, gpusPerWorker: 1 }\n    decode:\n      <<: *role\n`,
      );
      assert.notEqual(merged, STACK_1_TEXT);
      const r = await run(
        ["--file", stackFileWith(tmp, "Pulumi.p5en-1gpu.yaml", () => merged), "--out", path.join(tmp, "out")],
        { program: defaultDeps().program },
      );
      assert.equal(r.code, ExitCode.Ok, r.err);
      const plan = JSON.parse(fs.readFileSync(path.join(tmp, "out", "p5en-1gpu", "plan.json"), "utf8"));
      const roles = plan.workers
        .map((w: { role: string; replicas: number }) => `${w.role}:${w.replicas}`)
        .filter((x: string) => !x.startsWith("frontend"));
      assert.deepEqual(roles.sort(), ["decode:2", "prefill:2"]);
    });
  });
});
