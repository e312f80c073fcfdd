/**
 * Whether a benchmark Job's tokenizer download gets the graph's Hugging Face token (tools/measure/tokenizer.ts): only
 * for a gated or private model, or when the hub cannot say (RELIABILITY-AUDIT-2 X1: every Job got the token). The
 * hub's public model info is asked without a token, read bounded, against loopback endpoints here.
 */
import { strict as assert } from "assert";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { accessOf, hubAccess, MODEL_INFO_MAX_BYTES } from "../../tools/measure/tokenizer";

/** A loopback hub answering `/api/models/<id>` with `answer`; records the requests' Authorization headers. */
async function hub(answer: (res: http.ServerResponse) => void) {
  const auth: (string | undefined)[] = [];
  const server = http.createServer((req, res) => {
    auth.push(req.headers.authorization);
    answer(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    auth,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("measure: the tokenizer's download gets the token only when it needs it", () => {
  it("reads the hub's gated and private fields", () => {
    assert.deepEqual(accessOf(200, { gated: false, private: false }), {
      token: false,
      why: "the model is public, not gated",
    });
    assert.equal(accessOf(200, { gated: "manual", private: false }).token, true);
    assert.equal(accessOf(200, { gated: "auto", private: false }).token, true);
    assert.equal(accessOf(200, { gated: false, private: true }).token, true);
    assert.equal(accessOf(200, { gated: false }).token, true, "an answer that does not say public is not public");
    assert.equal(accessOf(200, null).token, true);
    for (const s of [401, 403, 404]) assert.match(accessOf(s, undefined).why, /only with a token/);
    assert.equal(accessOf(500, undefined).token, true);
  });

  it("asks without a token: a public model gets none, a gated one gets it", async () => {
    for (const [gated, want] of [
      [false, false],
      ["manual", true],
    ] as const) {
      const h = await hub((res) => res.end(JSON.stringify({ id: "acme/m", gated, private: false })));
      try {
        assert.equal((await hubAccess("acme/m", h.url)).token, want);
        assert.deepEqual(h.auth, [undefined], "the question carries no token");
      } finally {
        await h.close();
      }
    }
  });

  it("a hub that does not answer, or answers too much, gives the token (the safe side), never throws", async () => {
    const silent = await hub(() => undefined);
    try {
      const a = await hubAccess("acme/m", silent.url, fetch, 0.3);
      assert.deepEqual(a, {
        token: true,
        why: "could not ask the hub (no answer in 0.3 s); giving the token to be safe",
      });
    } finally {
      await silent.close();
    }
    const flood = await hub((res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"pad":"');
      res.end(" ".repeat(MODEL_INFO_MAX_BYTES + 10));
    });
    try {
      assert.match((await hubAccess("acme/m", flood.url)).why, /larger than 4194304 bytes/);
    } finally {
      await flood.close();
    }
    assert.equal((await hubAccess("acme/m", "http://127.0.0.1:1")).token, true);
  });
});
