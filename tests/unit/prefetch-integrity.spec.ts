/**
 * The prefetch script cannot be tricked (issue 31 points 6, 7 and 9; docs/PREFETCH.md), against the fake hub on
 * 127.0.0.1: links planted in its cache are never followed and nothing outside the cache changes; the token goes
 * only to the endpoint's scheme, host and port; clean-up is by exact revision; the completion marker lists only what
 * is on disk; a body longer than listed stops at the listed size; malformed listings fail naming the model and file;
 * a full disk fails at once (exit 3). Needs python3 (skips with the reason otherwise); openssl for the https case.
 */
import { strict as assert } from "assert";
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as http from "http";
import { AddressInfo } from "net";
import * as os from "os";
import * as path from "path";
import { completionMarker } from "../../components/inference/cache";
import { Fake, fakeHf, MODEL, SHA, sibling, Tls } from "../helpers/fake-hf";
import { assertComplete, finalDir, marker, needPython, run, snapshot } from "../helpers/prefetch-run";

const KEY = "acme--tiny-llm--main";

/** A plain HTTP server on 127.0.0.1 that logs each request's path and Authorization header, answering 200 "x". */
async function witness(): Promise<{ url: string; seen: { path: string; auth?: string }[]; close(): Promise<void> }> {
  const seen: { path: string; auth?: string }[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ path: req.url ?? "", ...(req.headers.authorization ? { auth: req.headers.authorization } : {}) });
    res.writeHead(200, { "Content-Length": "1" }).end("x");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("prefetch integrity: links, token, clean-up, marker, sizes, listings, disk (fake HF on 127.0.0.1)", function () {
  this.timeout(120000);
  let hf: Fake;
  let tmp: string;
  let root: string;
  let outside: string;

  before(function () {
    needPython(this);
  });
  beforeEach(async () => {
    hf = await fakeHf();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "prefetch-int-"));
    root = path.join(tmp, "cache");
    outside = path.join(tmp, "outside");
    fs.mkdirSync(root);
    fs.mkdirSync(path.join(outside, "main"), { recursive: true });
    fs.writeFileSync(path.join(outside, "main", "users-precious.txt"), "not the cache's");
    fs.mkdirSync(path.join(outside, `${KEY}@victim.1`));
    fs.writeFileSync(path.join(outside, `${KEY}@victim.1`, "data"), "not the cache's either");
    fs.writeFileSync(path.join(outside, "victim-file"), "a file outside");
  });
  afterEach(async () => {
    await hf?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  describe("point 6: a link it did not create is never followed; nothing outside the cache is written or deleted", () => {
    // The audit's two shapes (D1): models/<org>--<name> -> outside (the old script emptied and replaced outside/main)
    // and .staging -> outside (its stale clean-up deleted outside/<key>.victim); then every other path it keeps.
    const shapes: [string, (root: string, outside: string) => void][] = [
      [
        "models/<org>--<name> -> a directory outside",
        (r, o) => {
          fs.mkdirSync(path.join(r, "models"));
          fs.symlinkSync(o, path.join(r, "models", "acme--tiny-llm"));
        },
      ],
      [
        ".staging -> a directory outside holding a stale-looking download",
        (r, o) => fs.symlinkSync(o, path.join(r, ".staging")),
      ],
      ["models -> a directory outside", (r, o) => fs.symlinkSync(o, path.join(r, "models"))],
      [".locks -> a directory outside", (r, o) => fs.symlinkSync(o, path.join(r, ".locks"))],
      [
        "the lock file -> a file outside",
        (r, o) => {
          fs.mkdirSync(path.join(r, ".locks"));
          fs.symlinkSync(path.join(o, "victim-file"), path.join(r, ".locks", `${KEY}.lock`));
        },
      ],
      [
        "the final directory -> a directory outside",
        (r, o) => {
          fs.mkdirSync(path.join(r, "models", "acme--tiny-llm"), { recursive: true });
          fs.symlinkSync(path.join(o, "main"), path.join(r, "models", "acme--tiny-llm", "main"));
        },
      ],
      [".complete -> a directory outside", (r, o) => fs.symlinkSync(o, path.join(r, ".complete"))],
      [
        "the marker is a FIFO (an open for reading would wait forever)",
        (r) => {
          fs.mkdirSync(path.join(r, ".complete"));
          spawnSync("mkfifo", [path.join(r, ".complete", KEY)]);
        },
      ],
      [
        "the marker -> a file outside",
        (r, o) => {
          fs.mkdirSync(path.join(r, ".complete"));
          fs.symlinkSync(path.join(o, "victim-file"), path.join(r, ".complete", KEY));
        },
      ],
    ];
    for (const [what, plant] of shapes) {
      it(`${what}: never followed or waited on; the download completes inside the cache, the outside is unchanged`, async () => {
        plant(root, outside);
        const before = snapshot(outside);
        const r = await run(root, hf).done;
        assert.equal(r.code, 0, r.stderr);
        assert.deepEqual(snapshot(outside), before, "nothing outside the cache changed");
        assertComplete(root);
        assert.ok(!fs.realpathSync(finalDir(root)).startsWith(fs.realpathSync(outside)));
        for (const p of ["models", "models/acme--tiny-llm", ".staging", ".locks", ".complete"])
          assert.ok(fs.lstatSync(path.join(root, p)).isDirectory(), `${p} is a real directory`);
      });
    }

    it("a file of a complete model swapped for a same-size link to a file outside is not complete: downloaded again, the target untouched", async () => {
      assert.equal((await run(root, hf).done).code, 0);
      const file = path.join(finalDir(root), "config.json");
      const size = fs.statSync(file).size;
      fs.writeFileSync(path.join(outside, "same-size"), Buffer.alloc(size, 0x61));
      fs.rmSync(file);
      fs.symlinkSync(path.join(outside, "same-size"), file);
      const before = snapshot(outside);
      const again = await run(root, hf).done;
      assert.equal(again.code, 0, again.stderr);
      assert.match(
        again.stderr,
        /config\.json is not the \d+-byte file its completion marker records; downloading again/,
      );
      assert.deepEqual(snapshot(outside), before);
      assert.ok(fs.lstatSync(file).isFile());
      assertComplete(root);
    });
  });

  describe("point 7: the token goes only to the endpoint's scheme, host and port", () => {
    it("a redirect to the same host on another port gets no Authorization header; the file still verifies", async () => {
      const other = await witness();
      try {
        hf.files = { "config.json": Buffer.from("x") };
        hf.redirect = () => `${other.url}/cdn/config.json`;
        const r = await run(root, hf).done;
        assert.equal(r.code, 0, r.stderr);
        assert.deepEqual(other.seen, [{ path: "/cdn/config.json" }], "reached once, without the token");
        assert.equal(marker(root).files["config.json"].size, 1);
      } finally {
        await other.close();
      }
    });

    it("an https endpoint's redirect to http on the same host is refused: no request in clear text, exit 1 naming both", async function () {
      const tls = selfSignedCert(tmp);
      if (!tls) {
        console.log("      skipped: openssl is not available here to make the https endpoint's certificate");
        this.skip();
      }
      const plain = await witness();
      const secure = await fakeHf(tls);
      try {
        secure.redirect = (name) => `${plain.url}/cdn/${name}`;
        const r = await run(root, secure, { SSL_CERT_FILE: path.join(tmp, "cert.pem") }).done;
        assert.equal(r.code, 1, r.stderr);
        assert.match(
          r.stderr,
          /refusing a redirect from https:\/\/127\.0\.0\.1:\d+\/acme\/tiny-llm\/resolve\/[0-9a-f]{40}\/config\.json to http:\/\/127\.0\.0\.1:\d+\/cdn\/config\.json: from https to http/,
        );
        assert.deepEqual(plain.seen, [], "nothing was sent over http");
        assert.ok(secure.requests.length > 0 && secure.requests.every((q) => q.auth === `Bearer ${secure.token}`));
        assert.equal(fs.existsSync(completionMarker(root, MODEL)), false);
      } finally {
        await secure.close();
        await plain.close();
      }
    });

    it("an http endpoint (set so by the user) may redirect to http, but never with the token to another origin", async () => {
      const other = await witness();
      try {
        hf.files = { "config.json": Buffer.from("x") };
        hf.redirect = () => `http://localhost:${new URL(other.url).port}/cdn/config.json`;
        const r = await run(root, hf).done;
        assert.equal(r.code, 0, r.stderr);
        assert.deepEqual(
          other.seen.map((s) => s.auth),
          [undefined],
        );
        assert.ok(!r.stderr.includes(hf.token), "the token is never logged");
      } finally {
        await other.close();
      }
    });

    it("redirects to another scheme or to a URL with user information are refused at once (exit 1)", async () => {
      for (const [to, says] of [
        ["ftp://127.0.0.1/x", /to a ftp URL: only http\(s\) is fetched/],
        [`http://user@127.0.0.1:1/x`, /to a URL with user information/],
      ] as const) {
        hf.redirect = () => to;
        const r = await run(root, hf, { DOWNLOAD_BUDGET_SECONDS: "60" }).done;
        assert.equal(r.code, 1, r.stderr);
        assert.match(r.stderr, says);
      }
    });
  });

  describe("point 9: clean-up by exact revision, a marker that lists only what is on disk, sizes, listings", () => {
    it("revision v1 never deletes revision v1.0's live download; both complete", async () => {
      hf.stallFile = "model-00001-of-00002.safetensors";
      const longer = run(root, hf, { MODEL_REVISION: "v1.0" });
      await hf.stalled;
      const staged = fs.readdirSync(path.join(root, ".staging"));
      assert.deepEqual(
        staged.map((n) => n.split("@")[0]),
        ["acme--tiny-llm--v1.0"],
      );
      const short = await run(root, hf, { MODEL_REVISION: "v1" }).done;
      assert.equal(short.code, 0, short.stderr);
      assert.ok(!/removing an interrupted download/.test(short.stderr), short.stderr);
      assert.ok(fs.existsSync(path.join(root, ".staging", staged[0])), "v1.0's staging is still there");
      hf.release();
      const done = await longer.done;
      assert.equal(done.code, 0, done.stderr);
      assertComplete(root, "v1");
      assertComplete(root, "v1.0");
    });

    it("a listing with X.part before X, and a repository file named like the marker: complete once, never downloaded again", async () => {
      hf.files = {
        "config.json.part": Buffer.from("a part file of the repository"),
        "config.json": Buffer.from('{"model_type": "llama"}'),
        ".dynamo-efa-complete": Buffer.from("{}"),
        ".complete": Buffer.from("not a marker"),
      };
      const first = await run(root, hf).done;
      assert.equal(first.code, 0, first.stderr);
      assert.deepEqual(Object.keys(marker(root).files).sort(), Object.keys(hf.files).sort());
      for (const [name, body] of Object.entries(hf.files))
        assert.ok(fs.readFileSync(path.join(finalDir(root), name)).equals(body), `${name} is on disk, intact`);
      for (let i = 0; i < 2; i += 1) {
        const again = await run(root, hf).done;
        assert.equal(again.code, 0, again.stderr);
        assert.match(again.stderr, /already complete/);
      }
      assert.deepEqual(Object.values(hf.gets), [1, 1, 1, 1], "each file fetched once");
    });

    it("the marker is written last, after the model directory is in place, and names only files on disk with their digests", async () => {
      const r = await run(root, hf).done;
      assert.equal(r.code, 0, r.stderr);
      const m = marker(root);
      for (const [name, meta] of Object.entries(m.files)) {
        assert.equal(fs.lstatSync(path.join(finalDir(root), name)).size, meta.size);
        assert.match(meta.digest, /^[0-9a-f]{40,64}$/);
      }
      assert.ok(
        fs.statSync(completionMarker(root, MODEL)).mtimeMs >= fs.statSync(finalDir(root)).mtimeMs,
        "the marker is not older than the directory's rename",
      );
      assert.deepEqual(fs.readdirSync(path.join(root, ".complete")), [KEY], "no temporary file left");
    });

    for (const [what, contentLength] of [
      ["without a Content-Length", undefined],
      ["announcing more bytes than listed", 64 << 20],
    ] as const) {
      it(`a body longer than the listed size (${what}) stops at the listed size and fails; nothing is kept`, async () => {
        // The old script wrote the whole body before comparing sizes; under this file-size limit it would fail
        // with EFBIG instead of naming the listed size.
        hf.oversizeFile = { name: "model-00002-of-00002.safetensors", contentLength };
        const r = await run(root, hf, { RETRY_MAX_ATTEMPTS: "2" }, { fileSizeLimit: 4 << 20 }).done;
        assert.equal(r.code, 1, r.stderr);
        assert.match(
          r.stderr,
          contentLength === undefined
            ? /downloading model-00002-of-00002\.safetensors of acme\/tiny-llm: the server sent more than the listing's 1048576 bytes; stopped at 1048576 after 2 attempts/
            : /downloading model-00002-of-00002\.safetensors of acme\/tiny-llm: the server announced 67108864 bytes, the listing 1048576 after 2 attempts/,
        );
        assert.deepEqual(fs.readdirSync(path.join(root, ".staging")), [], "the failed staging is removed");
        assert.equal(fs.existsSync(finalDir(root)), false);
      });
    }

    const malformed: [string, (f: Fake) => void, RegExp][] = [
      ["not JSON", (f) => (f.listingText = "<html>"), /the listing of acme\/tiny-llm at revision main is not JSON/],
      [
        "a JSON array",
        (f) => (f.listing = () => []),
        /the listing of acme\/tiny-llm at revision main is not a JSON object \(got list\)/,
      ],
      [
        "siblings a string",
        (f) => (f.listing = (l) => ({ ...l, siblings: "x" })),
        /at revision main has no list of files \(siblings is str\)/,
      ],
      [
        "a sibling without rfilename",
        (f) => (f.listing = (l) => ({ ...l, siblings: [{ size: 1 }] })),
        /refusing file name 'None' \(siblings\[0\]\.rfilename is not a file name\)/,
      ],
      [
        "a sibling that is a string",
        (f) => (f.listing = (l) => ({ ...l, siblings: ["config.json"] })),
        /siblings\[0\] is not an object \('config\.json'\)/,
      ],
      [
        "a size that is a string",
        (f) => (f.listing = (l) => ({ ...l, siblings: [{ ...sibling("config.json", Buffer.from("x")), size: "1" }] })),
        /gives config\.json no size and hash/,
      ],
      [
        "an lfs that is a list",
        (f) => (f.listing = (l) => ({ ...l, siblings: [{ ...sibling("a.safetensors", Buffer.from("x")), lfs: [] }] })),
        /gives a\.safetensors an lfs field that is not an object/,
      ],
      [
        "an lfs sha256 that is not hex",
        (f) =>
          (f.listing = (l) => ({
            ...l,
            siblings: [{ ...sibling("a.safetensors", Buffer.from("x")), lfs: { size: 1, sha256: "../x" } }],
          })),
        /gives a\.safetensors an lfs entry without a size and a 64-hex sha256/,
      ],
      [
        "a traversal name",
        (f) => (f.listing = (l) => ({ ...l, siblings: [sibling("a/../../x", Buffer.from("x"))] })),
        /refusing file name 'a\/\.\.\/\.\.\/x'/,
      ],
      [
        "a name listed twice",
        (f) =>
          (f.listing = (l) => ({
            ...l,
            siblings: [sibling("config.json", Buffer.from("x")), sibling("config.json", Buffer.from("y"))],
          })),
        /names config\.json twice/,
      ],
      [
        "a file that is also a directory",
        (f) =>
          (f.listing = (l) => ({
            ...l,
            siblings: [sibling("config.json", Buffer.from("x")), sibling("config.json/x", Buffer.from("y"))],
          })),
        /names config\.json as a file and as the directory of config\.json\/x/,
      ],
      [
        "a sha that is a path",
        (f) => (f.listing = (l) => ({ ...l, sha: "../../../../evil" })),
        /carries no commit sha \('\.\.\/\.\.\/\.\.\/\.\.\/evil'\)/,
      ],
    ];
    for (const [what, set, says] of malformed) {
      it(`a malformed listing (${what}) fails with one line naming the model and the entry, no traceback`, async () => {
        set(hf);
        const r = await run(root, hf).done;
        assert.equal(r.code, 1, r.stderr);
        assert.match(r.stderr, says);
        assert.match(r.stderr, /acme\/tiny-llm/);
        assert.ok(!/Traceback|KeyError|AttributeError|TypeError/.test(r.stderr), r.stderr);
        assert.deepEqual(hf.gets, {}, "nothing downloaded");
      });
    }

    it("a file the listing names but the hub does not serve: exit 1 naming the file, not 'model not found'", async () => {
      hf.listing = (l) => ({ ...l, siblings: [...l.siblings, sibling("tokenizer.json", Buffer.from("{}"))] });
      const r = await run(root, hf).done;
      assert.equal(r.code, 1, r.stderr);
      assert.match(
        r.stderr,
        /downloading tokenizer\.json of acme\/tiny-llm: HTTP 404 from http:\/\/127\.0\.0\.1:\d+\/acme\/tiny-llm\/resolve\/[0-9a-f]{40}\/tokenizer\.json: the revision's listing names a file the hub does not serve/,
      );
    });
  });

  describe("the node's disk", () => {
    it("a model larger than the cache's free space is refused before any download (exit 3)", async () => {
      const huge = 2 ** 60;
      hf.listing = (l) => ({
        ...l,
        siblings: [{ ...sibling("a.safetensors", Buffer.from("x")), lfs: { size: huge, sha256: "a".repeat(64) } }],
      });
      const r = await run(root, hf).done;
      assert.equal(r.code, 3, r.stderr);
      assert.match(
        r.stderr,
        new RegExp(`FAILED: the node cache: acme/tiny-llm needs ${huge} bytes and the node cache .* has \\d+ free`),
      );
      assert.deepEqual(hf.gets, {});
    });

    it("a write that fails for space (EFBIG/ENOSPC) ends the run at once (exit 3), not retried; the staging is removed", async () => {
      const r = await run(root, hf, {}, { fileSizeLimit: 1 << 20 }).done;
      assert.equal(r.code, 3, r.stderr);
      assert.match(r.stderr, /FAILED: the node cache is full: File too large/);
      assert.equal(hf.gets["model-00001-of-00002.safetensors"], 1, "not retried");
      assert.deepEqual(fs.readdirSync(path.join(root, ".staging")), []);
      assert.equal(fs.existsSync(completionMarker(root, MODEL)), false);
    });
  });

  it("a commit is the listing's: the marker records it and the final directory is named by it", async () => {
    const r = await run(root, hf, { MODEL_REVISION: SHA }).done;
    assert.equal(r.code, 0, r.stderr);
    assert.equal(marker(root, SHA).sha, SHA);
    assert.ok(!/moves/.test(r.stderr), "a commit is not a moving revision");
  });
});

/** A self-signed certificate for 127.0.0.1 made with openssl in `dir`, or undefined without openssl. */
function selfSignedCert(dir: string): Tls | undefined {
  const key = path.join(dir, "key.pem");
  const cert = path.join(dir, "cert.pem");
  const r = spawnSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      key,
      "-out",
      cert,
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
    ],
    { encoding: "utf8" },
  );
  if (r.error || r.status !== 0) return undefined;
  return { key: fs.readFileSync(key, "utf8"), cert: fs.readFileSync(cert, "utf8") };
}
