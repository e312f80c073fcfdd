/**
 * docs/ARCHITECTURE.md describes today's code: what states structure is generated from it and current (the import
 * rules from tools/architecture/layers.ts, which layering.spec enforces; the file map from each file's header
 * comment), and every name of the code the prose cites still exists (a renamed or deleted function fails here, as
 * `toConfigPath`, `clusterArgsOf` and `CLUSTER_FIELDS` once went stale while the links still resolved).
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import { ARCHITECTURE_MD, headerSentence, regenerate } from "../../tools/architecture/architecture";

const ROOT = path.resolve(__dirname, "..", "..");
const doc = fs.readFileSync(ARCHITECTURE_MD, "utf8");

/** Names the prose cites that are not this project's, with whose they are. */
const UPSTREAM: Readonly<Record<string, string>> = {
  validateResourceOfType: "@pulumi/policy's helper",
};

function sources(dir: string): string[] {
  const abs = path.join(ROOT, dir);
  if (fs.statSync(abs).isFile()) return [abs];
  return fs.readdirSync(abs, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory()
      ? e.name === "node_modules"
        ? []
        : sources(p)
      : e.name.endsWith(".ts")
        ? [path.join(ROOT, p)]
        : [];
  });
}

/** Backticked code names in `text` (camelCase, PascalCase with an inner capital, CONSTANT_CASE). */
const codeNames = (text: string): string[] =>
  [...new Set([...text.matchAll(/`([A-Za-z_][A-Za-z0-9_]*)(?:\(\))?`/g)].map((m) => m[1]!))].filter((n) =>
    /[a-z][A-Z]|^[A-Z][A-Z0-9_]{2,}$|^[A-Z][a-z]+[A-Z]/.test(n),
  );

describe("docs/ARCHITECTURE.md: today's code", () => {
  it("the generated blocks are current (regenerate: npx tsx tools/architecture/architecture.ts)", () => {
    assert.equal(regenerate(doc), doc);
  });

  it("every code name the prose cites exists in the code", () => {
    const code = ["components", "program", "tools", "policy", "serving", "index.ts", "tests/helpers"]
      .flatMap(sources)
      .map((f) => fs.readFileSync(f, "utf8"))
      .join("\n");
    const prose = doc.split("<!-- file-map:start")[0]!;
    const missing = codeNames(prose).filter((n) => !UPSTREAM[n] && !new RegExp(`\\b${n}\\b`).test(code));
    assert.deepEqual(missing, []);
    assert.deepEqual(codeNames("`toConfigPath`, `CLUSTER_FIELDS`, `walkKeys`, `plain`"), [
      "toConfigPath",
      "CLUSTER_FIELDS",
      "walkKeys",
    ]);
  });

  it("the file map takes each file's header: its first sentence, a missing header is an error", () => {
    assert.equal(headerSentence("/**\n * One thing. Another.\n */\nx"), "One thing");
    assert.equal(headerSentence("const x = 1;"), undefined);
    assert.ok(doc.includes("[`images.ts`](../components/catalog/images.ts): What each way"), "a file's line");
  });
});
