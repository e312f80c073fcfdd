/**
 * tools/metrics.ts on a tiny tree built in a temp dir, where every count is known: a file of 301 lines, a
 * 61-line function, `any` in an exported signature, a barrel of 3 exports. The line and function counts are
 * also held to eslint's own `max-lines` and `max-lines-per-function` (the Linter API on the same text), and the
 * budgets to eslint.config.mjs, so the closing numbers of a change are eslint's numbers.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { Linter } from "eslint";
import tseslint from "typescript-eslint";
import { main } from "../../tools/metrics";
import { functionSpans, lineCount } from "../../tools/metrics/code-size";
import { BUDGETS, measure } from "../../tools/metrics/measure";

const ROOT = path.join(__dirname, "..", "..");

/** `n` lines of text ending in a newline; `body` fills the lines between the first and the last. */
const lines = (n: number, first = "// first", last = "// last") =>
  [first, ...Array.from({ length: n - 2 }, (_, i) => `  const v${i} = ${i};`), last].join("\n") + "\n";

/** A function of exactly `n` lines (header and closing brace included), under `header`. */
const fn = (n: number, header: string, close = "}") => lines(n, header, close);

const FIXTURE: Record<string, string> = {
  "package.json": JSON.stringify({
    name: "fixture",
    exports: { ".": { types: "./bin/components/index.d.ts", default: "./bin/components/index.js" } },
  }),
  "tsconfig.json": JSON.stringify({ compilerOptions: { outDir: "bin", rootDir: ".", types: [] } }),
  "components/index.ts": [
    'export { f, Shape } from "./api";',
    'export * from "./more";',
    "/** @internal */",
    'export * from "./api";',
    "",
  ].join("\n"),
  "components/api.ts": [
    "export function f(x: any): string {",
    "  const local: any = x;",
    "  return String(local);",
    "}",
    "export interface Shape {",
    "  readonly a: number;",
    "}",
    "/** @internal */",
    "export function hidden(z: any): any {",
    "  return z;",
    "}",
    "export function onlyThroughTheInternalStar(w: any): void {",
    "  void w;",
    "}",
    "",
  ].join("\n"),
  "components/more.ts": "export const g = (y: number): number => y;\n",
  "policy/rules/p.ts": [
    "export function p(props: any): any {",
    "  return props;",
    "}",
    "export const r = (x: any) => x;",
    "function q(x: any) {",
    "  return x;",
    "}",
    "export const s = q;",
    "",
  ].join("\n"),
  "program/big.ts": lines(601),
  "tools/exact.ts": lines(600),
  "tools/no-final-newline.ts": lines(600).trimEnd(),
  "bench/long.ts": fn(61, "export function long(): void {") + fn(60, "export function fits(): void {"),
  "tests/long.spec.ts": fn(61, 'describe("suite", () => {', "});"),
  "tests/golden/generated.ts": lines(800),
  "components/node_modules/dep/index.ts": lines(800),
};

describe("tools/metrics: every count on a tree where it is known", () => {
  let tmp = "";
  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "metrics-"));
    for (const [file, text] of Object.entries(FIXTURE)) {
      fs.mkdirSync(path.dirname(path.join(tmp, file)), { recursive: true });
      fs.writeFileSync(path.join(tmp, file), text);
    }
  });
  after(() => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("lines per layer, the longest file, files over 600 lines (goldens and dependencies left out)", () => {
    const m = measure(tmp);
    assert.deepEqual(m.layers.program, { files: 1, lines: 601 });
    assert.deepEqual(m.layers.tools, { files: 2, lines: 1200 });
    assert.deepEqual(m.layers.tests, { files: 1, lines: 61 });
    assert.deepEqual(m.layers.bench, { files: 1, lines: 121 });
    assert.equal(m.total.files, 9);
    assert.deepEqual(m.longestFile, { path: "program/big.ts", lines: 601 });
    assert.deepEqual(m.filesOverBudget, [{ path: "program/big.ts", lines: 601 }]);
  });

  it("functions over 60 lines: the 61-line one, not the 60-line one nor a spec file's suite", () => {
    assert.deepEqual(measure(tmp).functionsOverBudget, [{ at: "bench/long.ts:1 long", lines: 61 }]);
  });

  it("the barrel's exports: 3, the internal `export *` adds none", () => {
    assert.equal(measure(tmp).barrelExports, 3);
  });

  it("any in exported signatures: the entry point's f(x: any), not its body nor an internal export", () => {
    assert.deepEqual(measure(tmp).publicAny, { count: 1, in: ["components/index.ts:f"] });
  });

  it("any in policy exports: p's parameter and return type and r's parameter; q is not exported by name", () => {
    assert.deepEqual(measure(tmp).policyAny, { count: 3, in: ["policy/rules/p.ts:p", "policy/rules/p.ts:r"] });
  });

  it("the command prints the table or --json, and refuses a root that is not a checkout", () => {
    const out: string[] = [];
    const err: string[] = [];
    assert.equal(
      main(
        ["--root", tmp, "--json"],
        (s) => out.push(s),
        (s) => err.push(s),
      ),
      0,
    );
    assert.equal(JSON.parse(out.join("\n")).barrelExports, 3);
    assert.equal(
      main(
        ["--root", tmp],
        (s) => out.push(s),
        (s) => err.push(s),
      ),
      0,
    );
    assert.match(out[1], /^ {2}files over 600 lines +1$/m);
    assert.match(out[1], /^ {2}functions over 60 lines +1 \(outside \*\.spec\.ts\)$/m);
    assert.equal(
      main(
        ["--root", path.join(tmp, "components")],
        () => undefined,
        (s) => err.push(s),
      ),
      2,
    );
    assert.match(err[0], /has no package\.json: --root must name a checkout/);
    assert.equal(
      main(
        ["--bogus"],
        () => undefined,
        (s) => err.push(s),
      ),
      2,
    );
    assert.match(err[1], /usage: npm run metrics/);
  });
});

describe("tools/metrics counts lines and functions as eslint does", () => {
  const RULES: Linter.RulesRecord = {
    "max-lines": ["error", { max: 0, skipBlankLines: false, skipComments: false }],
    "max-lines-per-function": ["error", { max: 0, skipBlankLines: false, skipComments: false, IIFEs: true }],
  };
  /**
   * What eslint reports: the file's line count and the functions' lengths, sorted (eslint places a report at the
   * function's head, `=>` for an arrow, so the lines it names are not where a span starts).
   */
  const eslintCounts = (text: string) => {
    const messages = new Linter({ configType: "flat" }).verify(
      text,
      [{ files: ["**/*.ts"], languageOptions: { parser: tseslint.parser }, rules: RULES }],
      "x.ts",
    );
    const count = (m: Linter.LintMessage) => Number(/\((\d+)\)/.exec(m.message)![1]);
    return {
      file: messages.filter((m) => m.ruleId === "max-lines").map(count)[0] ?? 0,
      functions: messages
        .filter((m) => m.ruleId === "max-lines-per-function")
        .map(count)
        .sort((a, b) => a - b),
    };
  };
  const SHAPES = [
    "/** doc */\nexport async function a(\n  x: number,\n): Promise<number> {\n  return x;\n}\n",
    "class C {\n  constructor(private readonly x: number) {\n    void x;\n  }\n  static async m(): Promise<void> {\n  }\n" +
      "  get g(): number {\n    return 1;\n  }\n  set g(v: number) {\n    void v;\n  }\n  p = (y: number) =>\n    y;\n" +
      "  abstractLike(): void;\n  abstractLike(): void {}\n}\n",
    "const o = {\n  m() {\n    return 1;\n  },\n  get n() {\n    return 2;\n  },\n  f: function () {\n    return 3;\n  },\n};\n",
    "export const h = async <T,>(\n  t: T,\n) => {\n  return (() => {\n    return t;\n  })();\n};\nvoid o;\n",
    "declare function d(x: number): number;\nfunction over(x: string): string;\nfunction over(x: unknown) {\n  return x;\n}\r\n" +
      "const crlf = () => {\r\n  return 1;\r\n};\r\n",
    lines(301),
    "const last = 1;",
  ];

  for (const [i, text] of SHAPES.entries()) {
    it(`shape ${i}: the same file length and the same function spans`, () => {
      const ours = {
        file: lineCount(text),
        functions: functionSpans("x.ts", text)
          .map((s) => s.lines)
          .sort((a, b) => a - b),
      };
      assert.deepEqual(ours, eslintCounts(text));
    });
  }

  it("the budgets are eslint.config.mjs's, and spec files are outside the per-function one there too", async () => {
    const config: { files?: string[]; rules?: Record<string, unknown> }[] = (
      await import(path.join(ROOT, "eslint.config.mjs"))
    ).default;
    /** The setting of `name` in the block for exactly these `files` globs. */
    const setting = (name: string, files: string) =>
      config.find((c) => c.files?.join(" ") === files && c.rules?.[name] !== undefined)?.rules?.[name];
    assert.deepEqual(setting("max-lines", "**/*.ts"), [
      "warn",
      { max: BUDGETS.fileLines, skipBlankLines: false, skipComments: false },
    ]);
    assert.deepEqual(setting("max-lines-per-function", "**/*.ts"), [
      "error",
      { max: BUDGETS.functionLines, skipBlankLines: false, skipComments: false, IIFEs: true },
    ]);
    assert.equal(setting("max-lines-per-function", "tests/**/*.spec.ts"), "off");
  });
});
