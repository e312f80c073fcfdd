/**
 * `render` never loses data, never lies, never blames itself for the user's
 * input. Each numbered case runs through the CLI (`runCli`, in-process, with a one-resource program
 * where the real one is not needed; the config is still checked by the real schema) and, where the
 * process itself matters (signals, --help, INIT_CWD), as a child process.
 */
import { strict as assert } from "assert";
import { spawn, spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { CliDeps, defaultDeps, ExitCode, runCli } from "../../tools/render/cli";
import { outputError, writeRenderAtomic } from "../../tools/render/output";
import type { RenderFacts } from "../../program/run";

const ROOT = path.join(__dirname, "..", "..");
const STACK_TRACE = /^\s+at .+(\(|:\d+:\d+)/m;
const STACK_1 = path.join(ROOT, "stacks", "Pulumi.p5en-1gpu.yaml");
const STACK_1_TEXT = fs.readFileSync(STACK_1, "utf8");

interface Run {
  code: number;
  out: string;
  err: string;
}

function tinyProgram(): { exports: Record<string, unknown>; result: RenderFacts } {
  new pulumi.ComponentResource("fixture:index:Thing", "thing");
  return {
    exports: {},
    result: { region: "us-east-2", gpuPools: [], image: { cudaArchs: ["sm_90"], cudaToolkit: "12.9", build: false } },
  };
}

async function run(argv: string[], over: Partial<CliDeps> = {}): Promise<Run> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runCli(argv, {
    ...defaultDeps(),
    program: tinyProgram,
    cwd: ROOT,
    stdout: (l) => stdout.push(l),
    stderr: (l) => stderr.push(l),
    ...over,
  });
  const r = { code, out: stdout.join("\n"), err: stderr.join("\n") };
  assert.doesNotMatch(r.err, STACK_TRACE, "a stack trace was printed");
  return r;
}

/** A stack file: the 1-GPU stack with `edit` applied to its text. */
function stackFileWith(dir: string, name: string, edit: (text: string) => string | Buffer): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, edit(STACK_1_TEXT));
  return file;
}

/** Every file under `dir` with its bytes (for "unchanged" checks). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[path.relative(dir, p)] = fs.readFileSync(p, "utf8");
    }
  };
  walk(dir);
  return out;
}

describe("render robustness: no lost data, no false success, the user's input blamed", function () {
  this.timeout(120000);
  let tmp: string;
  beforeEach(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), "render-robust-"))));
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  describe("1: the stack name never escapes --out", () => {
    it("1: a name with separators or dots is exit 2 and deletes nothing outside --out", async () => {
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

    it("1: a file named Pulumi....yaml cannot render into the parent of --out", async () => {
      const file = stackFileWith(tmp, "Pulumi....yaml", (t) => t);
      const r = await run(["--file", file, "--out", path.join(tmp, "out")]);
      assert.equal(r.code, ExitCode.InvalidConfig);
      assert.match(r.err, /stack name taken from --file .*"\.\." is not a valid stack name/);
    });
  });

  describe("2: numbers JSON cannot carry", () => {
    for (const v of [".inf", "-.inf", ".nan", "1e309"]) {
      it(`2: --set inference.prefill.replicas=${v} is exit 2 naming the key`, async () => {
        const r = await run(["p5en-1gpu", "--out", tmp, "--set", `inference.prefill.replicas=${v}`]);
        assert.equal(r.code, ExitCode.InvalidConfig);
        assert.match(r.err, /- inference\.prefill\.replicas: must be a finite number/);
      });
    }
    it("2: modelCacheGiB: .inf in a stack file is exit 2, not a dropped cache", async () => {
      const file = stackFileWith(tmp, "Pulumi.cache.yaml", (t) => `${t}    modelCacheGiB: .inf\n`);
      const r = await run(["--file", file, "--out", tmp]);
      assert.equal(r.code, ExitCode.InvalidConfig);
      assert.match(r.err, /- inference\.modelCacheGiB: must be a finite number; got Infinity/);
    });
  });

  describe("3: --policy-config is checked against the pack", () => {
    const cases: [string, unknown, RegExp][] = [
      [
        "a capitalised level",
        { "no-noop-nixl-env": "Mandatory" },
        /- no-noop-nixl-env: must be one of "advisory", "mandatory", "remediate", "disabled"; got "Mandatory"; did you mean "mandatory"\?/,
      ],
      ["a misspelt level", { "no-noop-nixl-env": "mandatry" }, /did you mean "mandatory"\?/],
      ["a level Pulumi does not have", { all: "blocking" }, /- all: must be one of/],
      [
        "an unknown policy name",
        { "no-noop-nixl-envs": "mandatory" },
        /- no-noop-nixl-envs: not a policy of the pack; did you mean "no-noop-nixl-env"\?/,
      ],
      [
        "a setting of the wrong type",
        { "imdsv2-required": { maxHopLimit: "abc" } },
        /- imdsv2-required\.maxHopLimit: must be of type integer; got "abc"/,
      ],
      ["an unknown setting", { "imdsv2-required": { maxHopLimt: 1 } }, /did you mean "maxHopLimit"\?/],
    ];
    for (const [why, cfg, re] of cases) {
      it(`3: ${why} is exit 2 naming the key`, async () => {
        const file = path.join(tmp, "pack-config.json");
        fs.writeFileSync(file, JSON.stringify(cfg));
        const r = await run(["p5en-1gpu", "--out", tmp, "--policy-config", file]);
        assert.equal(r.code, ExitCode.InvalidConfig, r.err);
        assert.match(r.err, re);
      });
    }
    it("the README's exit-code tables list every code render and verify return", async () => {
      const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
      const table = (heading: string) => {
        const section = readme.slice(readme.indexOf(heading));
        const rows = section.slice(section.indexOf("| exit | meaning |")).split("\n").slice(2);
        const body = rows.slice(
          0,
          rows.findIndex((l) => !l.startsWith("|")),
        );
        return body
          .flatMap((l) =>
            l
              .split("|")[1]
              .split(",")
              .map((c) => Number(c.trim())),
          )
          .sort((a, b) => a - b);
      };
      const verify = (await import("../../tools/verify/cli")).ExitCode;
      assert.deepEqual(
        table("## See the whole plan offline: `render`"),
        [...Object.values(ExitCode)].sort((a, b) => a - b),
      );
      assert.deepEqual(
        table("## verify"),
        [...Object.values(verify)].sort((a, b) => a - b),
      );
    });

    it("3: the README's example file is not named policy.json (the render's own output)", () => {
      const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
      assert.doesNotMatch(readme, /--policy-config policy\.json/);
    });
  });

  describe("4: output is atomic and locked", () => {
    it("4: a failed render leaves the previous complete output untouched and says so", async () => {
      assert.equal((await run(["p5en-1gpu", "--out", tmp])).code, ExitCode.Ok);
      const before = snapshot(path.join(tmp, "p5en-1gpu"));
      const r = await run(["p5en-1gpu", "--out", tmp], {
        program: () => {
          throw new Error("boom");
        },
      });
      assert.equal(r.code, ExitCode.Internal);
      assert.match(r.err, /p5en-1gpu was left as it was \(the previous render\)/);
      assert.deepEqual(snapshot(path.join(tmp, "p5en-1gpu")), before);
      assert.deepEqual(fs.readdirSync(tmp), ["p5en-1gpu"], "no lock or temporary directory is left behind");
    });

    it("4: a write that fails half-way keeps the previous output and removes the partial copy", () => {
      const dir = path.join(tmp, "s");
      writeRenderAtomic(dir, [{ path: "plan.json", content: "old\n" }], []);
      fs.writeFileSync(path.join(dir, "notes.txt"), "mine\n");
      assert.throws(
        () =>
          writeRenderAtomic(
            dir,
            [
              { path: "plan.json", content: "new\n" },
              { path: "a/b", content: "x" },
              { path: "a", content: "y" },
            ],
            [],
          ),
        (e: Error & { code?: number }) => e.code === ExitCode.CantCreate && /nothing changed/.test(e.message),
      );
      assert.deepEqual(snapshot(dir), { "plan.json": "old\n", "notes.txt": "mine\n" });
      assert.deepEqual(fs.readdirSync(tmp), ["s"]);
      writeRenderAtomic(dir, [{ path: "plan.json", content: "new\n" }], ["plan.json"]);
      assert.deepEqual(
        snapshot(dir),
        { "plan.json": "new\n", "notes.txt": "mine\n" },
        "a user's own file survives a re-render",
      );
    });

    it("4: a second render into a locked directory fails fast with exit 2 naming the holder", async () => {
      fs.writeFileSync(
        path.join(tmp, ".p5en-1gpu.lock"),
        JSON.stringify({ pid: process.pid, host: os.hostname(), since: "then" }),
      );
      const r = await run(["p5en-1gpu", "--out", tmp]);
      assert.equal(r.code, ExitCode.InvalidConfig);
      assert.match(
        r.err,
        new RegExp(`another render is writing .*p5en-1gpu \\(pid ${process.pid} on ${os.hostname()} since then\\)`),
      );
      assert.ok(!fs.existsSync(path.join(tmp, "p5en-1gpu")));
    });

    it("4: a lock left by a dead process is taken over", async () => {
      const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
        encoding: "utf8",
      });
      fs.writeFileSync(
        path.join(tmp, ".p5en-1gpu.lock"),
        JSON.stringify({ pid: Number(dead.stdout), host: os.hostname(), since: "then" }),
      );
      fs.mkdirSync(path.join(tmp, `.p5en-1gpu.tmp-${dead.stdout}-abc123`));
      const r = await run(["p5en-1gpu", "--out", tmp]);
      assert.equal(r.code, ExitCode.Ok, r.err);
      assert.deepEqual(fs.readdirSync(tmp), ["p5en-1gpu"], "stale lock and temporary directory are gone");
    });

    it("4: Ctrl-C (SIGINT) during a render exits 130, keeps the previous output and releases the lock", async function () {
      assert.equal((await run(["p5en-1gpu", "--out", tmp])).code, ExitCode.Ok);
      const before = snapshot(path.join(tmp, "p5en-1gpu"));
      const child = spawn(
        process.execPath,
        [
          "--import",
          "tsx",
          path.join(ROOT, "tools", "render", "cli.ts"),
          "p5en-1gpu",
          "--out",
          tmp,
          "--set",
          "inference.prefill.replicas=2",
        ],
        { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] },
      );
      let err = "";
      child.stderr.on("data", (d) => (err += d));
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
      const lock = path.join(tmp, ".p5en-1gpu.lock");
      while (!fs.existsSync(lock) && child.exitCode === null) await new Promise((r) => setTimeout(r, 10));
      child.kill("SIGINT");
      const code = await exited;
      if (code === ExitCode.Ok) this.skip(); // the render finished before the signal landed: nothing to check
      assert.equal(code, ExitCode.Interrupted, err);
      assert.match(err, /interrupted \(SIGINT\); the previous output, if any, is unchanged/);
      assert.deepEqual(snapshot(path.join(tmp, "p5en-1gpu")), before);
      assert.deepEqual(
        fs.readdirSync(tmp).filter((n) => n !== "p5en-1gpu"),
        [],
        "no lock or temporary directory is left",
      );
    });

    it("4: a render killed half-way (SIGKILL) leaves the previous output; the next render takes over its lock", async function () {
      assert.equal((await run(["p5en-1gpu", "--out", tmp])).code, ExitCode.Ok);
      const before = snapshot(path.join(tmp, "p5en-1gpu"));
      const child = spawn(
        process.execPath,
        [
          "--import",
          "tsx",
          path.join(ROOT, "tools", "render", "cli.ts"),
          "p5en-1gpu",
          "--out",
          tmp,
          "--set",
          "inference.prefill.replicas=2",
        ],
        { cwd: ROOT, stdio: "ignore" },
      );
      const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
      const lock = path.join(tmp, ".p5en-1gpu.lock");
      // The lock exists for the whole render (program, policies, write): kill inside that window.
      while (!fs.existsSync(lock) && child.exitCode === null) await new Promise((r) => setTimeout(r, 10));
      child.kill("SIGKILL");
      await exited;
      if (!fs.existsSync(lock)) this.skip(); // the render finished before the kill landed: nothing to check
      assert.deepEqual(snapshot(path.join(tmp, "p5en-1gpu")), before, "the previous output is byte-identical");
      const again = await run(["p5en-1gpu", "--out", tmp]);
      assert.equal(again.code, ExitCode.Ok, again.err);
      assert.deepEqual(fs.readdirSync(tmp), ["p5en-1gpu"], "stale lock and any temporary directory are gone");
    });
  });

  describe("5: strings", () => {
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
      it(`5: a model id with ${why} is exit 2, echoing at most ~80 characters`, async () => {
        const r = await run(["p5en-1gpu", "--out", tmp, "--set", `inference.model=${JSON.stringify(value)}`]);
        assert.equal(r.code, ExitCode.InvalidConfig);
        assert.match(r.err, re);
        assert.match(r.err, /- inference\.model: /);
        for (const line of r.err.split("\n")) assert.ok(line.length < 300, `a long line: ${line.length} characters`);
      });
    }
    it("5: served names and image versions are checked the same way", async () => {
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
    it("5: a stack file that is not valid UTF-8 is exit 2 naming the line", async () => {
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

  it("6: a stack name that contradicts --file is exit 2, and nothing is overwritten", async () => {
    const r = await run(["p5en-1gpu", "--file", path.join(ROOT, "stacks", "Pulumi.p5en-8gpu.yaml"), "--out", tmp]);
    assert.equal(r.code, ExitCode.InvalidConfig);
    assert.match(r.err, /stack "p5en-1gpu" does not match --file .* \(the file of stack "p5en-8gpu"\)/);
    assert.deepEqual(fs.readdirSync(tmp), []);
  });

  describe("7: user and environment errors have their own exit codes, never 70", () => {
    it("7: a recursive YAML alias is exit 2", async () => {
      const file = stackFileWith(tmp, "Pulumi.rec.yaml", (t) => `${t}  dynamo-efa:graphName: &g [*g]\n`);
      const r = await run(["--file", file, "--out", tmp]);
      assert.equal(r.code, ExitCode.InvalidConfig);
      assert.match(r.err, /an alias refers to itself/);
    });
    it("7: a huge --set index is exit 2", async () => {
      const r = await run(["p5en-1gpu", "--out", tmp, "--set", "cluster.publicAccessCidrs[99999999999]=10.0.0.0/8"]);
      assert.equal(r.code, ExitCode.InvalidConfig);
      assert.match(r.err, /list index 99999999999 is larger than 1000/);
    });
    it("7: --out that is a regular file is exit 73 (cannot create)", async () => {
      const file = path.join(tmp, "afile");
      fs.writeFileSync(file, "");
      for (const out of [file, path.join(file, "below")]) {
        const r = await run(["p5en-1gpu", "--out", out]);
        assert.equal(r.code, ExitCode.CantCreate, r.err);
        assert.match(r.err, /exists and is not a directory|a path component is a file, not a directory \(ENOTDIR\)/);
      }
    });
    it("7: read-only, permission and disk-full errors map to 73 / 74 with a plain message", () => {
      const err = (code: string) => Object.assign(new Error(`${code}: x`), { code });
      assert.deepEqual(
        [
          outputError(err("EROFS"), "w").code,
          outputError(err("EACCES"), "w").code,
          outputError(err("ENOSPC"), "w").code,
          outputError(err("EIO"), "w").code,
        ],
        [73, 73, 74, 74],
      );
      assert.equal(
        outputError(err("ENOSPC"), "cannot write x").message,
        "cannot write x: no space left on the device (ENOSPC)",
      );
    });
  });

  describe("8: nothing hangs", () => {
    it("8: --out under /proc is exit 73, not a busy loop", async function () {
      if (!fs.existsSync("/proc/self")) this.skip();
      const r = await run(["p5en-1gpu", "--out", "/proc/x"]);
      assert.equal(r.code, ExitCode.CantCreate, r.err);
    });
    it("8: --file on a FIFO is exit 2 without reading it", async function () {
      const fifo = path.join(tmp, "Pulumi.fifo.yaml");
      if (spawnSync("mkfifo", [fifo]).status !== 0) this.skip();
      const r = await run(["--file", fifo, "--out", tmp]);
      assert.equal(r.code, ExitCode.InvalidConfig);
      assert.match(r.err, /is a named pipe \(FIFO\), not a regular file/);
      const dir = await run(["--file", tmp, "--out", tmp]);
      assert.match(dir.err, /is a directory, not a regular file/);
    });
  });

  describe("9: key typos are exit 2 with did-you-mean", () => {
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
      it(`9: ${why}`, async () => {
        const file = stackFileWith(tmp, "Pulumi.typo.yaml", edit);
        const r = await run(["--file", file, "--out", tmp, ...extra]);
        assert.equal(r.code, ExitCode.InvalidConfig, r.err);
        assert.match(r.err, re);
      });
    }
  });

  describe("10: a file that is not a stack file says so", () => {
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
      it(`10: ${why}`, async () => {
        const r = await run(["--file", stackFileWith(tmp, "Pulumi.odd.yaml", edit), "--out", tmp]);
        assert.equal(r.code, ExitCode.InvalidConfig, r.err);
        assert.match(r.err, re);
        assert.doesNotMatch(r.err, /is required/);
      });
    }
    it("10: YAML merge keys work as in Pulumi's own loader", async () => {
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

  describe("11: arguments first, user paths from INIT_CWD", () => {
    it("11: --help and usage errors never load the program (child process)", () => {
      const probe = path.join(__dirname, "fixtures", "loaded-modules.cjs");
      for (const argv of [["--help"], ["--bogus"]]) {
        const p = spawnSync(
          process.execPath,
          ["--import", "tsx", "--require", probe, path.join(ROOT, "tools", "render", "cli.ts"), ...argv],
          { cwd: ROOT, encoding: "utf8" },
        );
        assert.equal(p.status, argv[0] === "--help" ? 0 : 2, p.stderr);
        const loaded = JSON.parse(/loaded-modules: (.*)/.exec(p.stderr)![1]) as string[];
        assert.ok(
          loaded.some((m) => m.endsWith(path.join("tools", "render", "cli.ts"))),
          "the probe sees the CLI",
        );
        assert.deepEqual(
          loaded.filter((m) => /program[\\/]program|@pulumi[\\/]pulumi[\\/]index|policy[\\/]run/.test(m)),
          [],
        );
      }
    });
    for (const script of ["render.ts", "gencode.ts"]) {
      it(`11: bench/${script} --help prints usage and runs nothing`, () => {
        const p = spawnSync(process.execPath, ["--import", "tsx", path.join(ROOT, "bench", script), "--help"], {
          cwd: ROOT,
          encoding: "utf8",
        });
        assert.equal(p.status, 0, p.stderr);
        assert.match(p.stdout, /^usage: npm run bench/);
        assert.doesNotMatch(p.stdout, /module load|time x|KiB/, "it ran instead of printing usage");
      });
    }
    it("11: relative --out, --file and --policy-config resolve against INIT_CWD (where npm was run)", () => {
      fs.copyFileSync(STACK_1, path.join(tmp, "Pulumi.mine.yaml"));
      fs.writeFileSync(path.join(tmp, "pack.json"), JSON.stringify({ all: "advisory" }));
      const p = spawnSync(
        process.execPath,
        [
          "--import",
          "tsx",
          path.join(ROOT, "tools", "render", "cli.ts"),
          "--file",
          "Pulumi.mine.yaml",
          "--out",
          "rendered",
          "--policy-config",
          "pack.json",
        ],
        {
          cwd: ROOT,
          encoding: "utf8",
          env: { ...process.env, INIT_CWD: tmp },
        },
      );
      assert.equal(p.status, ExitCode.Ok, p.stderr);
      assert.ok(fs.existsSync(path.join(tmp, "rendered", "mine", "plan.json")));
      assert.match(p.stdout, /rendered mine -> rendered[\\/]mine /);
    });
  });
});
