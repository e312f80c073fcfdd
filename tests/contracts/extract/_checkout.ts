/**
 * Shared helpers of the extractors: walk a checkout, read its files, and print a fact file with the
 * provenance block tests/contracts/facts.ts checks. The commit is read from the checkout's git when it
 * has one; `--commit <40 hex>` names it for a copy without .git (a tree exported with `git archive`).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/** Command-line of an extractor: the checkout, and the ref/commit it holds. */
export interface CheckoutArgs {
  readonly root: string;
  readonly ref: string;
  readonly commit: string;
  /** `--notes <text>`: how the facts were read when that is not plain (appended to provenance.notes). */
  readonly notes?: string;
}

/** Parses `<checkout> --ref <tag> [--commit <sha>] [--notes <text>]`; exits with a usage line when malformed. */
export function checkoutArgs(argv: readonly string[], usage: string): CheckoutArgs {
  const root = argv[0];
  const flag = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const fail = (why: string): never => {
    process.stderr.write(`${why}\nusage: ${usage} <checkout> --ref <tag> [--commit <40-hex sha>] [--notes <text>]\n`);
    process.exit(2);
  };
  if (!root || !existsSync(root)) fail(`checkout ${JSON.stringify(root)} does not exist`);
  const ref = flag("--ref") ?? fail("--ref is required (the tag or branch the checkout holds)");
  let commit = flag("--commit");
  if (!commit) {
    try {
      commit = execFileSync("git", ["-C", root, "rev-parse", "HEAD"], { encoding: "utf8" }).trim();
    } catch {
      fail(`${root} is not a git checkout; pass --commit <sha>`);
    }
  }
  if (!/^[0-9a-f]{40}$/.test(commit!)) fail(`commit ${JSON.stringify(commit)} is not 40 hex digits`);
  const notes = flag("--notes");
  return { root, ref, commit: commit!, ...(notes ? { notes } : {}) };
}

/** Every file under `dir` (relative to `root`) whose name matches `pattern`, sorted. */
export function filesUnder(root: string, dir: string, pattern: RegExp): string[] {
  const start = join(root, dir);
  if (!existsSync(start)) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d).sort()) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (pattern.test(e)) out.push(relative(root, p));
    }
  };
  if (statSync(start).isFile()) return pattern.test(start) ? [relative(root, start)] : [];
  walk(start);
  return out;
}

/**
 * A matcher for one extractor: `re`'s match in `text`, or an error naming the extractor, what it sought and the
 * pattern, so an upstream file that moved on fails the extraction instead of writing an empty fact.
 */
export function matcher(extractor: string): (re: RegExp, text: string, what: string) => RegExpExecArray {
  return (re, text, what) => {
    const m = re.exec(text);
    if (!m) throw new Error(`${extractor} extractor: ${what} not found (pattern ${re})`);
    return m;
  };
}

export const readText = (root: string, rel: string): string => readFileSync(join(root, rel), "utf8");

/** Today's date as YYYY-MM-DD (UTC). */
export const today = (): string => new Date().toISOString().slice(0, 10);

/** The provenance notes: what the extractor says, then `--notes`. */
export const withNotes = (own: string, args: CheckoutArgs): string => (args.notes ? `${own} ${args.notes}` : own);

/** JSON with 2-space indent, except that a value whose one-line form fits in `width` stays on one line. */
export function factJson(v: unknown, indent = "", width = 100): string {
  const flat = JSON.stringify(v);
  if (flat === undefined || v === null || typeof v !== "object" || flat.length + indent.length <= width)
    return flat ?? "null";
  const inner = `${indent}  `;
  if (Array.isArray(v)) return `[\n${v.map((x) => `${inner}${factJson(x, inner, width)}`).join(",\n")}\n${indent}]`;
  const entries = Object.entries(v as Record<string, unknown>).map(
    ([k, x]) => `${inner}${JSON.stringify(k)}: ${factJson(x, inner, width)}`,
  );
  return `{\n${entries.join(",\n")}\n${indent}}`;
}

/** Writes the fact file (provenance + facts) to stdout as stable JSON (factJson). */
export function printFacts(provenance: Record<string, unknown>, facts: unknown): void {
  process.stdout.write(`${factJson({ provenance, facts })}\n`);
}

/** A map with sorted keys (stable diffs). */
export function sortedRecord<V>(m: Map<string, V> | Record<string, V>): Record<string, V> {
  const entries = m instanceof Map ? [...m.entries()] : Object.entries(m);
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The provenance block of an extractor that read ai-dynamo/dynamo at `a`'s checkout: the same keys in one order. */
export function dynamoProvenance(a: CheckoutArgs, paths: Record<string, string>, extractor: string) {
  return {
    repository: "ai-dynamo/dynamo",
    ref: a.ref,
    commit: a.commit,
    paths: Object.values(paths),
    extracted: today(),
    extractor: `tests/contracts/extract/${extractor}`,
    notes: a.notes ?? "",
  };
}
