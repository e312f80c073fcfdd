/**
 * The release's known issues as policy, through the real render: vLLM's NixlConnector refuses a decode worker with
 * less tensor parallelism than prefill's (`prefill-tp-within-decode-tp`, mandatory: render exits 1 naming the fix),
 * TensorRT-LLM is not held to it, and equal or larger decode TP passes; each release advises on its own NIXL.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { defaultDeps, runCli } from "../../tools/render/cli/cli";
import { ExitCode } from "../../tools/_shared/exit-codes";

async function render(out: string, sets: readonly string[]) {
  const log: string[] = [];
  const code = await runCli(["p5en-1gpu", "--out", out, ...sets.flatMap((s) => ["--set", s])], {
    ...defaultDeps(),
    stdout: (l) => log.push(l),
    stderr: (l) => log.push(l),
  });
  return { code, log: log.join("\n") };
}

describe("policy: the release's known issues through the render", function () {
  this.timeout(120000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "known-issues-"));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const tp = (p: number, d: number) => [`inference.prefill.gpusPerWorker=${p}`, `inference.decode.gpusPerWorker=${d}`];

  it("vLLM, prefill TP 2 over decode TP 1 (Llama, not MLA): mandatory violation naming the fix, exit 1", async () => {
    const r = await render(path.join(tmp, "a"), tp(2, 1));
    assert.equal(r.code, ExitCode.PolicyViolation, r.log);
    assert.match(
      r.log,
      /\[mandatory\] prefill-tp-within-decode-tp: .*--tensor-parallel-size 2 and decode 1.*inference\.decode\.gpusPerWorker >= inference\.prefill\.gpusPerWorker/,
    );
  });

  it("decode TP at least prefill's passes; TensorRT-LLM is not held to vLLM's assertion", async () => {
    for (const sets of [tp(1, 2), tp(2, 2), [...tp(2, 1), "inference.backend=trtllm"]]) {
      const r = await render(path.join(tmp, "b"), sets);
      assert.doesNotMatch(r.log, /prefill-tp-within-decode-tp/, sets.join(" "));
    }
  });

  it("each release advises on its own NIXL's EFA defects", async () => {
    const seed = await render(path.join(tmp, "c"), ["release=seed"]);
    assert.match(seed.log, /\[advisory\] release-known-issues: release "seed".*NIXL 0\.10\.1 on EFA.*nixl#1457/);
    const current = await render(path.join(tmp, "d"), []);
    assert.match(current.log, /\[advisory\] release-known-issues: release "dynamo-1\.6".*FI_MORE.*nixl#1862/);
  });
});
