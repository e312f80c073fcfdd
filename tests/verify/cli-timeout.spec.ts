/**
 * `verify --timeout` bounds the whole run: a Frontend whose stream never ends costs the budget, not forever. The
 * budget is real wall-clock time (4 s, enough for the earlier gates on a loaded machine), so this case lives in the
 * slow set (.mocharc.slow.cjs): `npm test` holds no case that waits on a clock.
 */
import * as assert from "node:assert/strict";
import { flags, statuses, useVerifyCli, verify } from "./cli-harness";
import { startFrontend } from "./fake-frontend";
import { startKube } from "./fake-kube";

describe("verify CLI: --timeout against a hanging stream", function () {
  useVerifyCli();

  it("stays within --timeout when a stream hangs: gate C fails, E is skipped", async function () {
    this.timeout(90000);
    const fe = await startFrontend("hangStream");
    const kube = await startKube("libfabric");
    try {
      // The budget must leave the earlier gates (A, B, D and the non-stream request) room on a loaded
      // machine; only the hanging stream may use it up. The wall check only proves the run returns.
      const t0 = Date.now();
      const r = await verify([...flags(kube, fe.url), "--timeout", "4"]);
      assert.ok(Date.now() - t0 < 60000, `took ${Date.now() - t0} ms`); // a hang would never return
      assert.equal(statuses(r), "A:PASS B:PASS C:FAIL D:PASS E:SKIPPED", r.out);
      assert.match(r.out, /completions stream=true: timed out after \d+ ms/);
    } finally {
      await fe.close();
      await kube.close();
    }
  });
});
