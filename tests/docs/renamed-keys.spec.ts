/**
 * No message or doc sends a user to a key that was renamed: a renamed key (`RENAMES` in program/config.ts) fails with
 * exit 2, so a message or a page that names one sends the user in a circle (the EFS cache error once named
 * `inference.modelCacheGiB`, which the config then refused as renamed). Every text a user reads is scanned: the
 * README and docs, the stack files, and the code of components/, program/, tools/ and policy/ (its messages and the
 * JSDoc that ships). The renames table itself and docs/CONFIG.md's table generated from it are where old keys belong.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import { RENAMES } from "../../program/config";

const ROOT = path.resolve(__dirname, "..", "..");

/** Where a renamed key may be written: the table and what is generated from it, or a comment about renaming. */
const DEFINED_AT = new Set(["program/config.ts", "program/keys.ts", "docs/CONFIG.md"]);

function files(dir: string, ext: RegExp): string[] {
  const abs = path.join(ROOT, dir);
  if (!fs.existsSync(abs)) return [];
  if (fs.statSync(abs).isFile()) return [dir];
  return fs.readdirSync(abs, { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    return e.isDirectory() ? files(rel, ext) : ext.test(e.name) ? [rel] : [];
  });
}

/** A renamed key as a whole key: not part of a longer one (`cluster.availabilityZones` is a key of today). */
const keyPattern = (key: string) => new RegExp(`(?<![\\w.])${key.replace(/\./g, "\\.")}(?![\\w])`);

/** Every place in `texts` that names a renamed key. */
function namings(texts: readonly (readonly [string, string])[]): string[] {
  return texts.flatMap(([file, text]) =>
    Object.keys(RENAMES).flatMap((key) =>
      text
        .split("\n")
        .flatMap((line, i) =>
          keyPattern(key).test(line) ? [`${file}:${i + 1}: ${key}: ${line.trim().slice(0, 120)}`] : [],
        ),
    ),
  );
}

/**
 * A renamed key's own name written alone in a doc (`modelCacheGiB`, a page once said so beside
 * `inference.modelCacheMode: efs`): the camelCase last segments of renamed keys that no key of today ends with
 * (CONFIG.md's tables above "Keys of earlier versions"), in backticks. Common words (`count`, `type`) are left out.
 */
function leafNamings(texts: readonly (readonly [string, string])[], config: string): string[] {
  const today = config.slice(0, config.indexOf("## Keys of earlier versions"));
  const current = new Set([...today.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]!.split(".").pop()!));
  const leaves = [...new Set(Object.keys(RENAMES).map((k) => k.split(".").pop()!))].filter(
    (l) => /[a-z][A-Z]/.test(l) && !current.has(l),
  );
  return texts.flatMap(([file, text]) =>
    leaves.flatMap((leaf) =>
      text
        .split("\n")
        .flatMap((line, i) =>
          line.includes(`\`${leaf}\``) ? [`${file}:${i + 1}: ${leaf}: ${line.trim().slice(0, 120)}`] : [],
        ),
    ),
  );
}

describe("renamed keys: no message or doc recommends one", () => {
  it("no text a user reads names a renamed key (outside the renames table and CONFIG.md's copy of it)", () => {
    const all = [
      "README.md",
      ...files("docs", /\.md$/),
      ...files("stacks", /\.ya?ml$/),
      ...["components", "program", "tools", "policy"].flatMap((d) => files(d, /\.ts$/)),
      ...files("dockerfiles", /\.md$/),
    ].filter((f) => !DEFINED_AT.has(f));
    assert.deepEqual(namings(all.map((f) => [f, fs.readFileSync(path.join(ROOT, f), "utf8")] as const)), []);
  });

  it("no doc names a renamed key by its last segment alone", () => {
    const config = fs.readFileSync(path.join(ROOT, "docs", "CONFIG.md"), "utf8");
    const docs = ["README.md", ...files("docs", /\.md$/), ...files("dockerfiles", /\.md$/)].filter(
      (f) => !DEFINED_AT.has(f),
    );
    assert.deepEqual(
      leafNamings(
        docs.map((f) => [f, fs.readFileSync(path.join(ROOT, f), "utf8")] as const),
        config,
      ),
      [],
    );
    assert.equal(leafNamings([["d.md", "efs with `modelCacheGiB` keeps"]], config).length, 1, "the scan can fail");
    assert.deepEqual(leafNamings([["d.md", "with `modelCache.sizeGiB`, `count`"]], config), []);
  });

  it("the scan catches a message naming one, and passes today's keys that share a prefix", () => {
    assert.equal(namings([["m.ts", "set inference.modelCacheGiB"]]).length, 1);
    assert.equal(namings([["m.ts", "set inference.platform.version to 1.6.2"]]).length, 2, "both renamed keys");
    assert.deepEqual(
      namings([["m.ts", "cluster.availabilityZones, inference.platformNamespace, platform.version"]]),
      [],
    );
  });

  it("CONFIG.md lists every renamed key with what to write instead (generated from the table)", () => {
    const doc = fs.readFileSync(path.join(ROOT, "docs", "CONFIG.md"), "utf8");
    for (const [from, to] of Object.entries(RENAMES))
      assert.ok(doc.includes(`| \`${from}\` | ${to.replace(/\|/g, "\\|")} |`), from);
  });
});
