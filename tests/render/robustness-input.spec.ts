/**
 * `render` blames the user's input, precisely, and never itself: a stack name that would escape
 * --out, numbers JSON cannot carry, padded strings, key typos, YAML that does not parse and files that are not
 * stack files are each exit 2 naming the key or the file. Through the CLI in-process (render-harness.ts);
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
    it("modelCache.sizeGiB: .inf in a stack file is exit 2, not a dropped cache", async () => {
      const file = stackFileWith(tmp, "Pulumi.cache.yaml", (t) => `${t}    modelCache: { sizeGiB: .inf }\n`);
      const r = await run(["--file", file, "--out", tmp]);
      assert.equal(r.code, ExitCode.InvalidConfig);
      assert.match(r.err, /- inference\.modelCache\.sizeGiB: must be a finite number; got Infinity/);
    });
  });

  it("a string with surrounding whitespace (a `|` block scalar's newline, a padded quote) is exit 2 naming each key", async () => {
    const file = stackFileWith(tmp, "Pulumi.pad.yaml", (t) =>
      t.replace(
        "    model: meta-llama/Llama-3.1-8B-Instruct\n",
        "    model: |\n      meta-llama/Llama-3.1-8B-Instruct\n",
      ),
    );
    const r = await run(["--file", file, "--out", tmp, "--set", 'image.versions={vllm: " v1"}']);
    assert.equal(r.code, ExitCode.InvalidConfig);
    assert.match(
      r.err,
      /- inference\.model: must not start or end with whitespace; got "meta-llama\/Llama-3\.1-8B-Instruct\\n"/,
    );
    assert.match(r.err, /- image\.versions\.vllm: must not start or end with whitespace/);
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
    const cases: [string, (t: string) => string, RegExp][] = [
      [
        "no config: key",
        (t) => t.replace("config:\n", "").replace(/^ {2}/gm, ""),
        /not understood as a Pulumi stack file: it has no "config:" key .*indent the keys under "config:"/,
      ],
      ["a top-level list", () => "- a\n- b\n", /not understood as a Pulumi stack file: its top level is a list/],
      ["config: a string", () => "config: oops\n", /"config" must be a map of keys to values; got "oops"/],
      [
        "a repeated key",
        (t) =>
          t
            .replace("    model: meta-llama", "    replicas: 1\n    model: meta-llama")
            .replace(/\n$/, "\n    replicas: 2\n"),
        // The line's key is named, not its value nor the parser's code frame (whose first line ends in a bare colon).
        /is not valid YAML: Map keys must be unique at line \d+, column \d+: key "replicas"\n/,
      ],
      ["a self-referencing alias", (t) => `${t}  dynamo-efa:graphName: &g [*g]\n`, /an alias refers to itself/],
      [
        "YAML that does not parse",
        (t) => `${t}  dynamo-efa:graphName: [a\n`,
        /is not valid YAML: .* at line \d+, column \d+\n/,
      ],
      [
        "an alias bomb",
        () =>
          `a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [${"*a, ".repeat(9)}*a]\nc: &c [${"*b, ".repeat(9)}*b]\nconfig: { x: [${"*c, ".repeat(99)}*c] }\n`,
        /more than 100 alias expansions/,
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
    it("a huge --set index is exit 2", async () => {
      const r = await run(["p5en-1gpu", "--out", tmp, "--set", "cluster.publicAccessCidrs[99999999999]=10.0.0.0/8"]);
      assert.equal(r.code, ExitCode.InvalidConfig);
      assert.match(r.err, /list index 99999999999 is larger than 1000/);
    });
    it("a missing file and a directory given as the file are exit 2 saying which", async () => {
      const missing = await run(["--file", path.join(tmp, "Pulumi.none.yaml"), "--out", tmp]);
      assert.equal(missing.code, ExitCode.InvalidConfig);
      assert.match(missing.err, /cannot read stack file .*Pulumi\.none\.yaml: no such file/);
      const dir = await run(["--file", tmp, "--out", tmp]);
      assert.equal(dir.code, ExitCode.InvalidConfig);
      assert.match(dir.err, /cannot read stack file .*: it is a directory, not a file/);
    });
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
