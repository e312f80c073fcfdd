/**
 * The docs' stated numbers, generated: every `<!-- fact:NAME -->...<!-- /fact -->` span of the project's Markdown is
 * rewritten with `VALUES[NAME]` (./values.ts), so a build time, an image size, a cost or a tool version is written
 * once, in code, and the docs follow. The spans are inline HTML comments: invisible on GitHub, valid in a table cell.
 * Usage: npx tsx tools/doc-facts/doc-facts.ts [--check]   (rewrites the files; --check exits 1 naming each stale one)
 * It renders the shipped stacks offline for their plans (a few seconds).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Plan } from "../render/plan/plan";
import { VALUES, type ValueSources } from "./values";

const ROOT = path.join(__dirname, "..", "..");

/** A fact span: its name (lower-case first: `NAME` in prose about spans is not one) and the text it holds. */
export const SPAN = /<!-- fact:([a-z][\w.-]*) -->([\s\S]*?)<!-- \/fact -->/g;

/** The Markdown files that may hold spans: the README and every doc outside tests/ and node_modules/. */
export function markdownFiles(root = ROOT): string[] {
  const dirs = ["docs", "policy", "dockerfiles", "tools"];
  const under = (d: string): string[] =>
    fs.existsSync(path.join(root, d))
      ? fs.readdirSync(path.join(root, d), { withFileTypes: true }).flatMap((e) => {
          const rel = path.join(d, e.name);
          return e.isDirectory() ? under(rel) : e.name.endsWith(".md") ? [rel] : [];
        })
      : [];
  return ["README.md", ...dirs.flatMap(under)].sort();
}

/** The names a text's spans use. */
export const namesIn = (text: string): string[] => [...text.matchAll(SPAN)].map((m) => m[1]!);

/** `text` with every span's content replaced by its value; throws naming an unknown name. */
export function fill(text: string, values: Readonly<Record<string, string>>, file = "text"): string {
  return text.replace(SPAN, (_all, name: string) => {
    const v = values[name];
    if (v === undefined) throw new Error(`${file}: <!-- fact:${name} --> names no value of tools/doc-facts/values.ts`);
    return `<!-- fact:${name} -->${v}<!-- /fact -->`;
  });
}

/** The plans of the shipped stacks (with `--set` overrides when asked), each rendered once, offline, into a temporary directory. */
export function renderedPlans(): ValueSources {
  const cache = new Map<string, Promise<Plan>>();
  const render = async (stack: string, sets: readonly string[]): Promise<Plan> => {
    const { defaultDeps, runCli } = await import("../render/cli/cli");
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "doc-facts-"));
    try {
      const quiet = { ...defaultDeps(), stdout: () => undefined, stderr: () => undefined };
      const code = await runCli([stack, "--out", tmp, ...sets.flatMap((s) => ["--set", s])], quiet);
      if (code !== 0) throw new Error(`render ${stack} ${sets.join(" ")} exited ${code}`);
      return JSON.parse(fs.readFileSync(path.join(tmp, stack, "plan.json"), "utf8")) as Plan;
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  };
  return {
    plan: (stack, sets = []) => {
      const key = [stack, ...sets].join(" ");
      if (!cache.has(key)) cache.set(key, render(stack, sets));
      return cache.get(key)!;
    },
  };
}

/** The values the given texts name, computed (each once). */
export async function valuesFor(texts: readonly string[], sources: ValueSources): Promise<Record<string, string>> {
  const names = [...new Set(texts.flatMap(namesIn))].sort();
  const out: Record<string, string> = {};
  for (const n of names) {
    const f = VALUES[n];
    if (f) out[n] = await f(sources);
  }
  return out;
}

/** Each file whose spans are stale, with its regenerated text. */
export async function staleFiles(root = ROOT, sources = renderedPlans()): Promise<Map<string, string>> {
  const files = markdownFiles(root).map((f) => [f, fs.readFileSync(path.join(root, f), "utf8")] as const);
  const values = await valuesFor(
    files.map(([, t]) => t),
    sources,
  );
  const stale = new Map<string, string>();
  for (const [f, text] of files) {
    const next = fill(text, values, f);
    if (next !== text) stale.set(f, next);
  }
  return stale;
}

async function main(check: boolean): Promise<number> {
  const stale = await staleFiles();
  if (check) {
    for (const f of stale.keys()) process.stderr.write(`${f}: stale (npx tsx tools/doc-facts/doc-facts.ts)\n`);
    return stale.size > 0 ? 1 : 0;
  }
  for (const [f, text] of stale) fs.writeFileSync(path.join(ROOT, f), text);
  process.stdout.write(`doc-facts: ${stale.size} file(s) rewritten\n`);
  return 0;
}

if (require.main === module)
  main(process.argv.includes("--check")).then(
    (code) => process.exit(code),
    (e: Error) => {
      process.stderr.write(`doc-facts: ${e.message}\n`);
      process.exit(2);
    },
  );
