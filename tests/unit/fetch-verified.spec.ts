/**
 * dockerfiles/fetch-verified.sh (every download of the image build) on file:// URLs: the file appears only when its
 * SHA-256 is the pinned one or its signature is by the pinned key; an empty pin is refused. Needs bash, curl and
 * sha256sum (gpg for the signature cases); skips with a printed reason.
 */
import * as assert from "assert";
import { spawn, spawnSync } from "child_process";
import { createHash } from "crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "fs";
import * as http from "http";
import { AddressInfo } from "net";
import { tmpdir } from "os";
import { join } from "path";

const SCRIPT = join(__dirname, "..", "..", "dockerfiles", "fetch-verified.sh");
const has = (t: string) => spawnSync(t, ["--version"]).status === 0;

describe("fetch-verified.sh: a download is kept only if it is what its publisher released", function () {
  this.timeout(60_000);
  let root = "";
  beforeEach(function () {
    if (!["bash", "curl", "sha256sum"].every(has)) {
      console.log("    (skipped: bash, curl or sha256sum missing)");
      this.skip();
    }
    root = mkdtempSync(join(tmpdir(), "fetch-"));
    writeFileSync(join(root, "f.tar"), "release bytes\n");
  });
  afterEach(() => root && rmSync(root, { recursive: true, force: true }));
  const fetch = (...args: string[]) =>
    spawnSync("bash", [SCRIPT, ...args], { encoding: "utf8", env: { ...process.env, GNUPGHOME: "" } });
  const url = () => `file://${join(root, "f.tar")}`;

  it("sha256: the pinned digest keeps it; another digest or an empty pin leaves nothing", () => {
    const sum = createHash("sha256").update("release bytes\n").digest("hex");
    assert.strictEqual(fetch("sha256", url(), join(root, "out", "ok"), sum).status, 0);
    assert.ok(existsSync(join(root, "out", "ok")));
    const bad = fetch("sha256", url(), join(root, "out", "bad"), "0".repeat(64));
    assert.strictEqual(bad.status, 1);
    assert.match(bad.stderr, new RegExp(`sha256 ${sum} is not the pinned 0{64}`));
    assert.ok(!existsSync(join(root, "out", "bad")));
    const empty = fetch("sha256", url(), join(root, "out", "empty"), "");
    assert.strictEqual(empty.status, 64);
    assert.match(empty.stderr, /must be 64 lower-case hex digits/);
  });

  it("gpg: a signature by the pinned key keeps it; a signature by another key does not", function () {
    if (!has("gpg")) {
      console.log("    (skipped: gpg missing)");
      this.skip();
    }
    const keyring = (name: string) => {
      const home = join(root, `gpg-${name}`);
      const g = (...a: string[]) => spawnSync("gpg", ["--batch", "--homedir", home, ...a], { encoding: "utf8" });
      spawnSync("mkdir", ["-m", "0700", home]);
      assert.strictEqual(
        g("--passphrase", "", "--quick-gen-key", `${name} <${name}@example.invalid>`, "ed25519", "sign", "never")
          .status,
        0,
      );
      const fpr = /^fpr:+([0-9A-F]{40}):/m.exec(g("--with-colons", "--fingerprint").stdout)![1];
      writeFileSync(join(root, `${name}.asc`), g("--armor", "--export", fpr).stdout);
      g("--armor", "--output", join(root, `f.tar.${name}.sig`), "--detach-sign", join(root, "f.tar"));
      return fpr;
    };
    const pub = keyring("publisher");
    const other = keyring("other");
    const k = (n: string) => `file://${join(root, `${n}.asc`)}`;
    const s = (n: string) => `file://${join(root, `f.tar.${n}.sig`)}`;
    const good = fetch("gpg", url(), join(root, "out", "good"), s("publisher"), k("publisher"), pub);
    assert.strictEqual(good.status, 0, good.stderr);
    assert.ok(existsSync(join(root, "out", "good")));
    const wrongKey = fetch("gpg", url(), join(root, "out", "w1"), s("publisher"), k("other"), pub);
    assert.match(wrongKey.stderr, /does not hold the pinned key/);
    // Both keys offered, the pinned one among them, but the signature is the other key's: gpg's exit code alone
    // would accept it; the VALIDSIG fingerprint must be the pinned one.
    writeFileSync(
      join(root, "both.asc"),
      readFileSync(join(root, "publisher.asc"), "utf8") + readFileSync(join(root, "other.asc"), "utf8"),
    );
    const wrongSigner = fetch("gpg", url(), join(root, "out", "w2"), s("other"), k("both"), pub);
    assert.strictEqual(wrongSigner.status, 1);
    assert.match(wrongSigner.stderr, new RegExp(`no valid signature by the pinned key ${pub} \\(signers: ${other}\\)`));
    assert.ok(!existsSync(join(root, "out", "w1")) && !existsSync(join(root, "out", "w2")));
  });

  it("a server that accepts and then stalls fails the download at FETCH_STALL_SECONDS, naming the URL; no file", async () => {
    // Before, curl ran without a deadline: the build hung as long as the server held the connection open.
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { "Content-Length": "1000000" });
      res.write("x"); // then nothing: the connection stays open
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const u = `http://127.0.0.1:${(server.address() as AddressInfo).port}/f.tar`;
    try {
      const t0 = Date.now();
      const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn("bash", [SCRIPT, "sha256", u, join(root, "out", "stalled"), "0".repeat(64)], {
          env: { ...process.env, FETCH_STALL_SECONDS: "1", FETCH_RETRIES: "0" },
        });
        let stderr = "";
        child.stderr.on("data", (d) => (stderr += String(d)));
        child.on("close", (code) => resolve({ code, stderr }));
      });
      const ms = Date.now() - t0;
      assert.strictEqual(r.code, 1, r.stderr);
      assert.match(
        r.stderr,
        new RegExp(`fetch-verified: ${u}: download failed \\(curl exit 28; 28: no progress for 1 s`),
      );
      assert.ok(ms < 15_000, `ended after ${ms} ms, not at the 1 s stall limit`);
      assert.ok(!existsSync(join(root, "out", "stalled")));
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("FETCH_STALL_SECONDS and FETCH_RETRIES outside their ranges are refused (exit 64) naming the variable", () => {
    for (const [key, value] of [
      ["FETCH_STALL_SECONDS", "0"],
      ["FETCH_STALL_SECONDS", "1m"],
      ["FETCH_RETRIES", "-1"],
    ]) {
      const r = spawnSync("bash", [SCRIPT, "sha256", url(), join(root, "out", "x"), "0".repeat(64)], {
        encoding: "utf8",
        env: { ...process.env, [key]: value },
      });
      assert.strictEqual(r.status, 64, `${key}=${value}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`${key} must be a whole number .*; got '${value}'`));
    }
  });

  it("every curl in dockerfiles/ has a stall deadline (--speed-time) or goes through fetch-verified", () => {
    const dir = join(__dirname, "..", "..", "dockerfiles");
    const bare = readdirSync(dir)
      .filter((f) => statSync(join(dir, f)).isFile())
      .flatMap((f) =>
        readFileSync(join(dir, f), "utf8")
          .split("\n")
          .map((line, i) => ({ at: `${f}:${i + 1}`, line: line.trim() }))
          .filter(
            ({ line }) =>
              /(^|[;&|]\s*|\$\(\s*)curl\s+-/.test(line) && !line.startsWith("#") && !/--speed-time\b/.test(line),
          ),
      )
      .map(({ at, line }) => `${at}: ${line}`);
    assert.deepStrictEqual(bare, []);
  });
});
