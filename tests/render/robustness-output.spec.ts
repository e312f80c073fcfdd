/**
 * `render` never loses data and never claims a success it did not have: the output is replaced
 * atomically under a lock (failures, Ctrl-C and SIGTERM, which no handler catches, leave the previous render), environment errors
 * have their own exit codes, and nothing hangs on /proc. In-process through the CLI
 * (render-harness.ts), and as a child process where the signal itself matters.
 */
import { strict as assert } from "assert";
import { ChildProcess, spawn, spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { ExitCode } from "../../tools/_shared/exit-codes";
import { outputError, writeRenderAtomic } from "../../tools/render/output/output";
import { RENDER_CLI, ROOT, run, snapshot } from "./render-harness";

/**
 * `render p5en-1gpu --out <out>` as a child process, returned once it holds the lock (or has exited): the
 * lock exists for the whole render (program, policies, write), so a signal sent then lands inside it.
 */
async function renderHoldingTheLock(out: string): Promise<{ child: ChildProcess; exited: Promise<number | null> }> {
  const cli = RENDER_CLI;
  const child = spawn(
    process.execPath,
    ["--import", "tsx", cli, "p5en-1gpu", "--out", out, "--set", "inference.prefill.replicas=2"],
    { cwd: ROOT, stdio: "ignore" },
  );
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const lock = path.join(out, ".p5en-1gpu.lock");
  while (!fs.existsSync(lock) && child.exitCode === null) await new Promise((r) => setTimeout(r, 10));
  return { child, exited };
}

describe("render robustness: no lost data, no false success", function () {
  this.timeout(120000);
  let tmp: string;
  beforeEach(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), "render-robust-out-"))));
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  describe("output is atomic and locked", () => {
    it("a failed render leaves the previous complete output untouched and says so", async () => {
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

    it("a write that fails half-way keeps the previous output and removes the partial copy", () => {
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

    it("a second render into a locked directory fails fast with exit 2 naming the holder", async () => {
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

    it("a lock left by a dead process is taken over", async () => {
      const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
        encoding: "utf8",
      });
      fs.writeFileSync(
        path.join(tmp, ".p5en-1gpu.lock"),
        JSON.stringify({ pid: Number(dead.stdout), host: os.hostname(), since: "then" }),
      );
      fs.mkdirSync(path.join(tmp, `.p5en-1gpu.tmp-${dead.stdout}-abc123`));
      // The lock's draft of a render killed before it linked the lock into place.
      fs.writeFileSync(path.join(tmp, `.p5en-1gpu.lock-${dead.stdout}-def456`), "{}\n");
      const r = await run(["p5en-1gpu", "--out", tmp]);
      assert.equal(r.code, ExitCode.Ok, r.err);
      assert.deepEqual(fs.readdirSync(tmp), ["p5en-1gpu"], "stale lock, lock draft and temporary directory are gone");
    });

    // No signal handler runs: each signal ends the render where it is, mid-write included.
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      it(`a render ended by ${signal} leaves the previous output; the next render takes over its lock and leftovers`, async function () {
        assert.equal((await run(["p5en-1gpu", "--out", tmp])).code, ExitCode.Ok);
        const before = snapshot(path.join(tmp, "p5en-1gpu"));
        const { child, exited } = await renderHoldingTheLock(tmp);
        child.kill(signal);
        await exited;
        if (!fs.existsSync(path.join(tmp, ".p5en-1gpu.lock"))) this.skip(); // the render finished before the signal landed: nothing to check
        assert.equal(child.signalCode, signal, "no handler caught the signal");
        assert.deepEqual(snapshot(path.join(tmp, "p5en-1gpu")), before, "the previous output is byte-identical");
        const again = await run(["p5en-1gpu", "--out", tmp]);
        assert.equal(again.code, ExitCode.Ok, again.err);
        assert.deepEqual(fs.readdirSync(tmp), ["p5en-1gpu"], "stale lock and any temporary directory are gone");
      });
    }
  });

  describe("environment errors have their own exit codes, never 70", () => {
    it("--out that is a regular file is exit 73 (cannot create)", async () => {
      const file = path.join(tmp, "afile");
      fs.writeFileSync(file, "");
      for (const out of [file, path.join(file, "below")]) {
        const r = await run(["p5en-1gpu", "--out", out]);
        assert.equal(r.code, ExitCode.CantCreate, r.err);
        assert.match(r.err, /exists and is not a directory|a path component is a file, not a directory \(ENOTDIR\)/);
      }
    });
    it("read-only, permission and disk-full errors map to 73 / 74 with a plain message", () => {
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

  describe("nothing hangs", () => {
    it("--out under /proc is exit 73, not a busy loop", async function () {
      if (!fs.existsSync("/proc/self")) this.skip();
      const r = await run(["p5en-1gpu", "--out", "/proc/x"]);
      assert.equal(r.code, ExitCode.CantCreate, r.err);
    });
  });
});
