/**
 * The EFA installer's signing against AWS's documentation (facts/efa-installer-signing.json): versions.ts and the
 * Dockerfile pin the documented key fingerprint and download the documented key and signature; and the Dockerfile's
 * own verification lines, run with a real gpg on keys made here, install only a tarball signed by the pinned key.
 */
import * as assert from "assert";
import { spawnSync } from "child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { argDefaults } from "../helpers/dockerfile";
import { loadFacts } from "./facts";
import { image } from "../../components/versions";
import type { EfaSigningFacts } from "./extract/efa-installer-signing";

const DOCKERFILE = readFileSync(join(__dirname, "..", "..", "dockerfiles", "Dockerfile.dynamo-combined-efa"), "utf8");
const FACT = loadFacts<EfaSigningFacts>("efa-installer-signing");

/** The URLs the Dockerfile's `curl` lines fetch, with simple `name="value"` shell assignments expanded. */
export function curlUrls(text: string): string[] {
  const vars = new Map<string, string>();
  for (const m of text.matchAll(/^(\w+)="([^"$]*(?:\$\{EFA_INSTALLER_VERSION\}[^"$]*)*)"$/gm)) vars.set(m[1], m[2]);
  const expand = (s: string) => s.replace(/\$\{(\w+)\}/g, (all, n: string) => vars.get(n) ?? all);
  return [...text.matchAll(/^curl .*"(https:\/\/[^"]+)"$/gm)].map((m) =>
    expand(m[1]).replace("${EFA_INSTALLER_VERSION}", "<version>"),
  );
}

/** Why the pins and downloads disagree with the fact; empty when they agree. */
export function signingPinProblems(f: EfaSigningFacts, pinned: string, dockerfile: string): string[] {
  const out: string[] = [];
  if (!/^[0-9A-F]{40}$/.test(f.fingerprint) || f.fingerprint !== f.fingerprintDocumented.replace(/ /g, ""))
    out.push(`fact fingerprint ${f.fingerprint} is not the documented ${f.fingerprintDocumented} without spaces`);
  if (pinned !== f.fingerprint) out.push(`versions.ts efaInstallerGpgFingerprint ${pinned} != AWS's ${f.fingerprint}`);
  const defaults = argDefaults(dockerfile, "EFA_INSTALLER_GPG_FINGERPRINT");
  if (defaults.length === 0 || defaults.some((d) => d !== f.fingerprint))
    out.push(
      `Dockerfile EFA_INSTALLER_GPG_FINGERPRINT defaults ${defaults.join(", ") || "(none)"} != ${f.fingerprint}`,
    );
  const urls = curlUrls(dockerfile);
  for (const [what, url] of [
    ["key", f.keyUrl],
    ["signature", f.signatureUrl],
    ["tarball", f.tarballUrl],
  ]) {
    if (!urls.includes(url)) out.push(`the Dockerfile does not download the ${what} from ${url}`);
  }
  return out;
}

describe("contract: AWS's EFA installer signing key (EC2 user guide)", () => {
  it("versions.ts and the Dockerfile pin the documented fingerprint and fetch the documented key, signature and tarball", () => {
    assert.deepStrictEqual(signingPinProblems(FACT.facts, image.efaInstallerGpgFingerprint, DOCKERFILE), []);
    assert.strictEqual(FACT.facts.keyUid, "Amazon EC2 EFA <ec2-efa-maintainers@amazon.com>");
  });

  it("a skewed pin, a skewed ARG default and another key URL are caught (mutations)", () => {
    const f = FACT.facts;
    assert.match(
      signingPinProblems(f, "A".repeat(40), DOCKERFILE).join("\n"),
      /versions\.ts efaInstallerGpgFingerprint A{40}/,
    );
    const arg = DOCKERFILE.replace(
      /^ARG EFA_INSTALLER_GPG_FINGERPRINT=\S+$/m,
      `ARG EFA_INSTALLER_GPG_FINGERPRINT=${"B".repeat(40)}`,
    );
    assert.notStrictEqual(arg, DOCKERFILE);
    assert.match(signingPinProblems(f, image.efaInstallerGpgFingerprint, arg).join("\n"), /defaults B{40}/);
    const key = DOCKERFILE.replace(
      "https://efa-installer.amazonaws.com/aws-efa-installer.key",
      "https://example.com/aws-efa-installer.key",
    );
    assert.notStrictEqual(key, DOCKERFILE);
    assert.match(signingPinProblems(f, image.efaInstallerGpgFingerprint, key).join("\n"), /download the key from/);
  });
});

/** The final stage's verification lines: from the pinned fingerprint's normalisation to the GNUPGHOME removal. */
function verificationScript(dockerfile: string): string {
  const start = dockerfile.search(/^efa_fpr=/m);
  const endMark = 'rm -rf "${GNUPGHOME}"\n';
  const end = dockerfile.indexOf(endMark, start);
  assert.ok(start >= 0 && end > start, "the Dockerfile's EFA verification lines were not found");
  return dockerfile.slice(start, end + endMark.length);
}

const hasGpg = spawnSync("gpg", ["--version"]).status === 0;

describe("the Dockerfile's EFA verification, run with a real gpg", function () {
  this.timeout(120_000);
  let dir = "";
  const gpg = (home: string, ...args: string[]) => {
    const r = spawnSync("gpg", ["--homedir", home, "--batch", "--quiet", ...args], { encoding: "utf8" });
    assert.strictEqual(r.status, 0, r.stderr);
    return r.stdout;
  };
  /** A signing key of its own GNUPGHOME: [home, fingerprint]. */
  const newKey = (name: string): [string, string] => {
    const home = mkdtempSync(join(dir, "signer-"));
    gpg(home, "--passphrase", "", "--quick-gen-key", `${name} <${name}@example.com>`, "ed25519", "sign", "never");
    const fpr = /^fpr:(?:[^:]*:){8}([0-9A-F]{40}):/m.exec(gpg(home, "--with-colons", "--fingerprint"))![1];
    return [home, fpr];
  };
  /** Runs the verification lines on `efa/` with the key file, tarball and signature written there. */
  const verify = (
    files: { key: string; tgz: string; sig: Buffer },
    pinned: string,
    sha = "",
    edit = (s: string) => s,
  ) => {
    const efa = mkdtempSync(join(dir, "efa-"));
    writeFileSync(join(efa, "aws-efa-installer.key"), files.key);
    writeFileSync(join(efa, "aws-efa-installer-9.9.9.tar.gz"), files.tgz);
    writeFileSync(join(efa, "aws-efa-installer-9.9.9.tar.gz.sig"), files.sig);
    const script = `set -euo pipefail\nefa_dir=${JSON.stringify(efa)}\nefa_tgz=aws-efa-installer-9.9.9.tar.gz\n${edit(verificationScript(DOCKERFILE))}echo VERIFIED\n`;
    return spawnSync("bash", ["-c", script], {
      encoding: "utf8",
      env: { ...process.env, TMPDIR: dir, EFA_INSTALLER_GPG_FINGERPRINT: pinned, EFA_INSTALLER_SHA256: sha },
    });
  };
  let aws: [string, string];
  let other: [string, string];
  const signed = (signer: [string, string], body: string) => {
    const f = join(signer[0], "payload");
    writeFileSync(f, body);
    gpg(signer[0], "--yes", "--output", `${f}.sig`, "--detach-sign", f);
    return { key: gpg(signer[0], "--armor", "--export"), tgz: body, sig: readFileSync(`${f}.sig`) };
  };

  before(function () {
    if (!hasGpg) {
      console.log("    skipped: gpg is not installed (apt-get install gnupg)");
      this.skip();
    }
    dir = mkdtempSync(join(tmpdir(), "efa-gpg-"));
    aws = newKey("aws");
    other = newKey("other");
  });
  after(() => {
    if (!dir) return;
    // gpg starts an agent per GNUPGHOME; stop each before removing the directories.
    for (const d of readdirSync(dir))
      if (existsSync(join(dir, d, "S.gpg-agent"))) spawnSync("gpgconf", ["--homedir", join(dir, d), "--kill", "all"]);
    rmSync(dir, { recursive: true, force: true });
  });

  it("accepts a tarball signed by the pinned key (either case of the pin), with and without the sha256 pin", () => {
    const files = signed(aws, "installer bytes");
    for (const pin of [aws[1], aws[1].toLowerCase()]) {
      const r = verify(files, pin);
      assert.match(r.stdout, /VERIFIED/, r.stderr);
    }
    const sha = spawnSync("sha256sum", [], { input: "installer bytes", encoding: "utf8" }).stdout.split(" ")[0];
    assert.match(verify(files, aws[1], sha).stdout, /VERIFIED/);
    const wrongSha = verify(files, aws[1], "0".repeat(64));
    assert.notStrictEqual(wrongSha.status, 0);
    assert.match(wrongSha.stdout + wrongSha.stderr, /FAILED/);
  });

  it("refuses a key file that is not the pinned key, naming expected and found fingerprints", () => {
    const r = verify(signed(other, "installer bytes"), aws[1]);
    assert.strictEqual(r.status, 1);
    assert.match(r.stderr, new RegExp(`expected exactly ${aws[1]}, got ${other[1]}`));
    assert.doesNotMatch(r.stdout, /VERIFIED/);
  });

  it("refuses a tampered tarball and a signature by another key", () => {
    const good = signed(aws, "installer bytes");
    const tampered = verify({ ...good, tgz: "installer bytes, altered" }, aws[1]);
    assert.strictEqual(tampered.status, 1);
    assert.match(tampered.stderr, /gpg --verify rejected/);
    const foreign = verify({ ...good, sig: signed(other, "installer bytes").sig }, aws[1]);
    assert.strictEqual(foreign.status, 1);
    assert.match(foreign.stderr, /gpg --verify rejected/);
    assert.doesNotMatch(foreign.stdout, /VERIFIED/);
  });

  it("a key file that also carries the signer's key is refused, and VALIDSIG refuses it even past the key check", () => {
    // gpg --verify exits 0 here (a good signature by a key it holds): its exit code alone would install this tarball.
    const sig = signed(other, "installer bytes").sig;
    const both = {
      key: gpg(aws[0], "--armor", "--export") + gpg(other[0], "--armor", "--export"),
      tgz: "installer bytes",
      sig,
    };
    const r = verify(both, aws[1]);
    assert.strictEqual(r.status, 1);
    assert.match(r.stderr, new RegExp(`expected exactly ${aws[1]}, got (${aws[1]} ${other[1]}|${other[1]} ${aws[1]})`));
    const keyCheck = /^if \[ "\$\{efa_keys\}" != "\$\{efa_fpr\}" \]; then$/m;
    assert.match(verificationScript(DOCKERFILE), keyCheck);
    const past = verify(both, aws[1], "", (s) => s.replace(keyCheck, "if false; then"));
    assert.strictEqual(past.status, 1);
    assert.match(
      past.stderr,
      new RegExp(`no valid signature by the pinned key: expected VALIDSIG by ${aws[1]}, got ${other[1]}`),
    );
    assert.doesNotMatch(past.stdout, /VERIFIED/);
  });
});
