/**
 * The lint and format configuration is live: the budgets docs/CONTRIBUTING.md states (600 lines a file as a warning, 60 a
 * function outside spec files, `@default` on optional component args, disable comments that say why, width 120)
 * are what eslint and prettier enforce on this repository, and `npm test` runs both. Each case lints a small text
 * with the repository's own config, so loosening a rule in eslint.config.mjs or .prettierrc.json fails here.
 */
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { ESLint } from "eslint";
import * as prettier from "prettier";

const ROOT = path.resolve(__dirname, "..", "..");

/** The rule ids eslint reports for `text` as if it were the file at `rel` in this repository. */
async function ruleIds(eslint: ESLint, rel: string, text: string): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath: path.join(ROOT, rel) });
  return result.messages.map((m) => m.ruleId ?? `fatal: ${m.message}`);
}

const lines = (n: number, make: (i: number) => string) => Array.from({ length: n }, (_, i) => make(i)).join("\n");

/** A function whose full span (signature to closing brace) is `span` lines. */
const fnOfSpan = (span: number) =>
  `export function f(): number {\n  let x = 0;\n${lines(span - 3, () => "  x += 1;")}\n  return x;\n}\n`.replace(
    /\n {2}return x;/,
    "",
  );

describe("lint and format configuration", function () {
  // Loading the TypeScript parser and plugins is the slow part (seconds on a loaded 2-core machine).
  this.timeout(120_000);
  let eslint: ESLint;
  before(() => {
    eslint = new ESLint({ cwd: ROOT });
  });

  it("a function spanning 61 lines breaks the function budget, 60 does not, and spec files are exempt", async () => {
    assert.equal(fnOfSpan(61).trimEnd().split("\n").length, 61);
    assert.ok((await ruleIds(eslint, "program/x.ts", fnOfSpan(61))).includes("max-lines-per-function"));
    assert.ok(!(await ruleIds(eslint, "program/x.ts", fnOfSpan(60))).includes("max-lines-per-function"));
    assert.ok(!(await ruleIds(eslint, "tests/unit/x.spec.ts", fnOfSpan(61))).includes("max-lines-per-function"));
    assert.ok((await ruleIds(eslint, "tests/helpers/x.ts", fnOfSpan(61))).includes("max-lines-per-function"));
  });

  it("an optional component argument without @default (or without JSDoc) is an error; resolved shapes are exempt", async () => {
    const rel = "components/cluster/args.ts";
    const args = (doc: string) => `export interface XArgs {\n  ${doc}\n  readonly replicas?: number;\n}\n`;
    assert.ok((await ruleIds(eslint, rel, args("/** How many. */"))).includes("jsdoc/no-restricted-syntax"));
    assert.ok((await ruleIds(eslint, rel, args(""))).includes("jsdoc/require-jsdoc"));
    assert.deepEqual(await ruleIds(eslint, rel, args("/** How many. @default 1 */")), []);
    assert.deepEqual(await ruleIds(eslint, rel, args("/**\n   * How many.\n   * @default 1\n   */")), []);
    const settings = "export interface XSettings {\n  /** How many. */\n  readonly replicas?: number;\n}\n";
    assert.ok((await ruleIds(eslint, rel, settings)).includes("jsdoc/no-restricted-syntax"));
    const resolved = "export interface ResolvedXArgs {\n  readonly zone?: string;\n}\n";
    assert.deepEqual(await ruleIds(eslint, rel, resolved), []);
  });

  it("a disable comment must say why, and must still be needed", async () => {
    const bare = "// eslint-disable-next-line @typescript-eslint/no-explicit-any\nexport const a: any = 1;\n";
    const why = bare.replace("no-explicit-any", "no-explicit-any -- the SDK types this as any");
    assert.ok(
      (await ruleIds(eslint, "tools/x.ts", bare)).includes("@eslint-community/eslint-comments/require-description"),
    );
    assert.deepEqual(await ruleIds(eslint, "tools/x.ts", why), []);
    const unused = "// eslint-disable-next-line no-console -- not needed\nexport const b = 1;\n";
    const [r] = await eslint.lintText(unused, { filePath: path.join(ROOT, "tools/x.ts") });
    assert.ok(
      r.messages.some((m) => /Unused eslint-disable directive/.test(m.message)),
      JSON.stringify(r.messages),
    );
  });

  it("`any` is an error in production code and in tests", async () => {
    for (const rel of ["policy/rules/x.ts", "tests/unit/x.spec.ts"])
      assert.ok(
        (await ruleIds(eslint, rel, "export const a: any = 1;\n")).includes("@typescript-eslint/no-explicit-any"),
      );
  });

  it("prettier formats at width 120 with the repository's config", async () => {
    const file = path.join(ROOT, "components", "x.ts");
    const options = await prettier.resolveConfig(file);
    assert.equal(options?.printWidth, 120);
    const long = `export const xs = [${lines(30, (i) => `"item${i}"`).replace(/\n/g, ", ")}];\n`;
    assert.ok(long.length > 120);
    assert.equal(await prettier.check(long, { ...options, filepath: file }), false);
    const formatted = await prettier.format(long, { ...options, filepath: file });
    assert.ok(formatted.split("\n").every((l) => l.length <= 120));
  });

  it("npm test runs the typecheck, eslint and prettier --check before the specs", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    assert.match(pkg.scripts.lint, /\beslint \./);
    assert.match(pkg.scripts.lint, /\bprettier --check \./);
    const steps = pkg.scripts.test.split("&&").map((s) => s.trim());
    assert.ok(
      steps.indexOf("npm run lint") >= 0 &&
        steps.indexOf("npm run lint") < steps.findIndex((s) => s.startsWith("mocha")),
      pkg.scripts.test,
    );
    assert.ok(steps.includes("npm run typecheck"), pkg.scripts.test);
  });
});
