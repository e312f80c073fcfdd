/**
 * The size half of the metrics: which TypeScript files belong to which layer, and their lines and functions
 * counted the way eslint's `max-lines` and `max-lines-per-function` count them (physical lines, blank lines and
 * comments included), so the numbers match the budgets of eslint.config.mjs on any checkout, even one that
 * predates the eslint config. Pure: text in, numbers out; only `layerFiles` reads the disk.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";

/** The top-level folders measured, in docs/ARCHITECTURE.md's layer order; the root `index.ts` is the program's. */
export const LAYERS = ["components", "program", "tools", "policy", "tests", "bench"] as const;
export type Layer = (typeof LAYERS)[number];

/** Folders never measured: dependencies and build output anywhere, and the generated goldens (eslint ignores them too). */
const SKIPPED_DIRS = new Set(["node_modules", "bin", "out", ".bench", ".git"]);
const GENERATED = ["tests/golden/"];

/** One measured file; `path` is relative to the root, with `/` separators. */
export interface LayerFile {
  readonly path: string;
  readonly layer: Layer;
  readonly text: string;
}

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return SKIPPED_DIRS.has(e.name) ? [] : walk(p);
    return e.isFile() && e.name.endsWith(".ts") ? [p] : [];
  });
}

/** Every `.ts` file of every layer under `root`, sorted by path. */
export function layerFiles(root: string): LayerFile[] {
  const rel = (p: string) => path.relative(root, p).split(path.sep).join("/");
  const roots = LAYERS.flatMap((layer) =>
    fs.existsSync(path.join(root, layer)) ? walk(path.join(root, layer)).map((p) => ({ p, layer })) : [],
  );
  const entry = path.join(root, "index.ts");
  if (fs.existsSync(entry)) roots.push({ p: entry, layer: "program" });
  return roots
    .map(({ p, layer }) => ({ path: rel(p), layer, text: fs.readFileSync(p, "utf8") }))
    .filter((f) => !GENERATED.some((g) => f.path.startsWith(g)))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** eslint's line breaks (`\r\n`, `\r`, `\n`, U+2028, U+2029); TypeScript's line map uses the same set. */
const LINE_BREAK = /\r\n|[\r\n\u2028\u2029]/;

/** Lines as eslint's `max-lines` counts them: a file's final line break does not start another line. */
export function lineCount(text: string): number {
  const lines = text.split(LINE_BREAK);
  return lines.length > 1 && lines[lines.length - 1] === "" ? lines.length - 1 : lines.length;
}

/** One function's line span. */
export interface FunctionSpan {
  readonly name: string;
  /** 1-based line where eslint reports it. */
  readonly line: number;
  readonly lines: number;
}

/** A readable name for a function node: its own, or the variable, property or class member it is assigned to. */
function nameOf(node: ts.Node, sf: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const own = (node as ts.FunctionLikeDeclaration).name;
  if (own) return own.getText(sf);
  const p = node.parent;
  if ((ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && p.name)
    return p.name.getText(sf);
  return "<anonymous>";
}

/**
 * Every function with a body, spanning what eslint's `max-lines-per-function` measures: a method, accessor or
 * constructor from its name (with its modifiers) to its closing brace, any other function from its first token
 * (`function`, `async`, a parameter list) to its end. Leading comments are outside the span, as in eslint.
 */
export function functionSpans(fileName: string, text: string): FunctionSpan[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: FunctionSpan[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.end).line;
      out.push({ name: nameOf(node, sf), line: start + 1, lines: end - start + 1 });
    }
    node.forEachChild(visit);
  };
  visit(sf);
  return out;
}
