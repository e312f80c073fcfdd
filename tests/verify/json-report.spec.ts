/**
 * `verify --json F` never loses or hangs on the report: a regular file is replaced whole (written beside it and
 * renamed, nothing left behind), and a FIFO nobody reads is exit 73 at once instead of a run that never ends.
 */
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { closedPort, flags, ROOT, scratch, useVerifyCli } from "./cli-harness";
import { startKube } from "./fake-kube";

type Main = typeof import("../../tools/verify/cli").main;

describe("verify --json: the report file", function () {
  useVerifyCli();
  let main: Main;
  before(async () => {
    main = (await import("../../tools/verify/cli")).main;
  });

  /** One run whose Frontend is unreachable (exit 3, the report still written) with `--json file`. */
  async function run(file: string): Promise<{ code: number; err: string }> {
    const kube = await startKube("libfabric");
    let err = "";
    try {
      const argv = [...flags(kube, `http://127.0.0.1:${await closedPort()}`), "--json", file];
      const code = await main(argv, { stdout: () => undefined, stderr: (s) => (err += s), root: ROOT });
      return { code, err };
    } finally {
      await kube.close();
    }
  }

  it("replaces an existing report whole and leaves no temporary file beside it", async () => {
    const dir = fs.mkdtempSync(path.join(scratch(), "json-"));
    const file = path.join(dir, "report.json");
    fs.writeFileSync(file, "the previous report");
    const r = await run(file);
    assert.equal(r.code, 3, r.err);
    assert.equal(JSON.parse(fs.readFileSync(file, "utf8")).exitCode, 3);
    assert.deepEqual(fs.readdirSync(dir), ["report.json"]);
  });

  it("a FIFO with no reader is exit 73 naming ENXIO, not a hang", async function () {
    const fifo = path.join(scratch(), "no-reader.fifo");
    try {
      execFileSync("mkfifo", [fifo]);
    } catch (e) {
      console.log(`      skipped: mkfifo is not available here (${(e as Error).message})`);
      this.skip();
    }
    const r = await run(fifo);
    assert.equal(r.code, 73, r.err);
    assert.match(r.err, /cannot write --json .*no-reader\.fifo: ENXIO/);
  });
});
