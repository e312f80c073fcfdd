/**
 * `npm run measure`'s command line without a cluster: --help, and every bad argument is a usage error (exit 2)
 * naming the flag, before anything loads: an image by tag, a bad sweep, --pause-disagg alone, a stack with no file.
 * `npm run measure -- <stack>` alone asks for no image: the Job runs AIPerf from the release's image.
 */
import { strict as assert } from "assert";
import { join } from "node:path";
import { parse, USAGE } from "../../tools/measure/args";
import { main } from "../../tools/measure/cli";
import { ExitCode } from "../../tools/_shared/exit-codes";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { closedPort } from "../verify/cli-harness";
import { kubeconfigText } from "../verify/fake-kube";
import { Cleanup } from "../../tools/measure/cluster";
import { interruptions } from "../../tools/measure/main-run";

const ROOT = join(__dirname, "..", "..");
const IMAGE = `123456789012.dkr.ecr.us-east-2.amazonaws.com/aiperf@sha256:${"c".repeat(64)}`;

async function run(argv: string[], env?: string) {
  let out = "";
  let err = "";
  const code = await main(argv, {
    stdout: (s) => (out += s),
    stderr: (s) => (err += s),
    root: ROOT,
    cwd: ROOT,
    ...(env ? { aiperfImageEnv: env } : {}),
  });
  return { code, out, err };
}

describe("measure CLI: arguments", () => {
  it("--help prints the usage: the one command, the twin, the sweep", async () => {
    const r = await run(["--help"]);
    assert.equal(r.code, ExitCode.Ok);
    assert.equal(r.out, USAGE);
    assert.match(USAGE, /^usage: npm run measure -- <stack> \[options\]\n/);
    assert.match(USAGE, /--aiperf-image REF +run AIPerf from this image, by digest .*nothing to build/s);
    assert.match(USAGE, /--twin +also deploy the aggregated twin on the same GPUs/);
  });

  it("reads the declared load once by default, a sorted sweep when asked, the image from AIPERF_IMAGE", () => {
    const a = parse(["p5en-8gpu", "--sweep", "2,0.5,1"], IMAGE);
    assert.ok(!a.help);
    assert.deepEqual(a.factors, [0.5, 1, 2]);
    assert.equal(a.image, IMAGE);
    assert.equal(a.out, "measure-p5en-8gpu");
    assert.deepEqual((parse(["s", "--aiperf-image", IMAGE], undefined) as { factors: number[] }).factors, [1]);
  });

  it("`npm run measure -- p5en-8gpu` asks for no image: none given is none required", () => {
    const a = parse(["p5en-8gpu"], undefined);
    assert.ok(!a.help);
    assert.equal("image" in a, false);
  });

  it("refuses each bad argument with exit 2, naming the flag and the fix", async () => {
    const cases: [string[], string | undefined, RegExp][] = [
      [["p5en-8gpu", "--aiperf-image", "aiperf:latest"], undefined, /must be pinned by digest .* never a moving tag/],
      [["p5en-8gpu", "--sweep", "1,0"], IMAGE, /--sweep must be .*bad: "0"/],
      [["p5en-8gpu", "--sweep", "x"], IMAGE, /--sweep must be/],
      [["p5en-8gpu", "--requests", "5"], IMAGE, /--requests must be a whole number from 10/],
      [["p5en-8gpu", "--timeout", "1e9"], IMAGE, /--timeout must be a whole number/],
      [["p5en-8gpu", "--pause-disagg"], IMAGE, /--pause-disagg only applies with --twin/],
      [["a", "b"], IMAGE, /expected exactly one <stack>/],
      [["p5en-8gpu", "--bogus"], IMAGE, /Unknown option '--bogus'/],
      [["no-such-stack"], IMAGE, /no stack file stacks\/Pulumi.no-such-stack.yaml/],
    ];
    for (const [argv, env, re] of cases) {
      const r = await run(argv, env);
      assert.equal(r.code, ExitCode.InvalidConfig, `${argv.join(" ")}: ${r.err}`);
      assert.match(r.err, re, argv.join(" "));
    }
  });

  it("a cluster that does not answer is exit 3, naming the server; nothing is written", async function () {
    this.timeout(60000);
    const dir = mkdtempSync(join(tmpdir(), "measure-"));
    try {
      const kubeconfig = join(dir, "kubeconfig");
      writeFileSync(kubeconfig, kubeconfigText(`http://127.0.0.1:${await closedPort()}`));
      const r = await run(["p5en-8gpu", "--kubeconfig", kubeconfig, "--out", join(dir, "out")], IMAGE);
      assert.equal(r.code, ExitCode.Unreachable, r.err);
      assert.match(r.err, /cluster unreachable at http:\/\/127.0.0.1:\d+: ECONNREFUSED/);
      assert.equal(existsSync(join(dir, "out")), false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("measure: cleanup of what a run created", () => {
  it("undoes last-created first, keeps going past a failure, names what is left, and runs each step once", async () => {
    const c = new Cleanup();
    const done: string[] = [];
    c.add("graph paused", async () => done.push("scale back"));
    c.add("twin", async () => done.push("delete twin"));
    c.add("Job j", async () => {
      throw new Error("forbidden\nmore");
    });
    c.add("NetworkPolicy p", async () => done.push("delete policy"));
    let log = "";
    assert.deepEqual(await c.runAll((s) => (log += s)), ["Job j: forbidden"]);
    assert.deepEqual(done, ["delete policy", "delete twin", "scale back"]);
    assert.match(log, /could not clean up Job j: forbidden; delete it by hand \(label dynamo-efa\/measure-run\)/);
    assert.deepEqual(await c.runAll(() => undefined), []);
    assert.equal(done.length, 3);
  });
});

describe("measure: Ctrl-C, once, twice, three times (RELIABILITY-AUDIT-2 X1)", () => {
  /** A run that paused the graph (a step that scales back, then waits for Ready) and created a Job. */
  function pausedRun() {
    const c = new Cleanup();
    const done: string[] = [];
    c.add("the replicas of llm", async () => {
      done.push("scale back");
      // The stand-in for "wait for Ready": cleared once the race is decided, or its timer keeps mocha's process
      // alive for a minute after the last spec (npm test took 89 s wall for 25 s of specs).
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([c.hurriedSignal, new Promise((r) => (timer = setTimeout(r, 60_000)))]);
      clearTimeout(timer);
      done.push(c.isHurried ? "stopped waiting" : "ready");
    });
    c.add("Job j", async () => done.push("delete job"));
    return { c, done };
  }

  it("the second Ctrl-C stops waiting for Ready but the graph still gets its replicas back; nothing exits", async () => {
    const { c, done } = pausedRun();
    let err = "";
    let finished = false;
    const exits: number[] = [];
    const on = interruptions(
      c,
      { stderr: (s) => (err += s) },
      () => (finished = true),
      (n) => void exits.push(n),
    );
    on();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(done, ["delete job", "scale back"], "the first Ctrl-C undoes, last created first");
    assert.throws(() => c.assertOpen(), /interrupted: creating nothing more/);
    on();
    assert.match(err, /no longer waiting; still undoing: the replicas of llm/);
    await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(done, ["delete job", "scale back", "stopped waiting"]);
    assert.ok(finished, "the run ends once everything is undone");
    assert.deepEqual(exits, [], "no exit before the undo finished");
  });

  it("the third Ctrl-C leaves at once with 130, naming what is not undone", async () => {
    const c = new Cleanup();
    c.add("the replicas of llm", () => new Promise(() => undefined)); // a cluster that never answers
    c.add("NetworkPolicy p", async () => undefined);
    let err = "";
    const exits: number[] = [];
    const on = interruptions(
      c,
      { stderr: (s) => (err += s) },
      () => undefined,
      (n) => void exits.push(n),
    );
    on();
    await new Promise((r) => setImmediate(r));
    on();
    on();
    assert.deepEqual(exits, [130]);
    assert.match(
      err,
      /leaving now; not undone: the replicas of llm \(delete or restore by hand; objects carry the label dynamo-efa\/measure-run\)/,
    );
  });
});
