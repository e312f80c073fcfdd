/**
 * The npm scripts of package.json, and those that run checks at once through concurrently read as data: its options
 * and each named check's command. tests/unit/ci-checks.spec.ts holds what CI runs with them and
 * tests/unit/npm-test-output.spec.ts what `npm test` prints.
 */
import * as fs from "fs";
import * as path from "path";

export const ROOT = path.resolve(__dirname, "..", "..");

export const scripts = (
  JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }
).scripts;

/** A `concurrently` script: its options (the words before the first command) and its checks, name -> command. */
export interface Parallel {
  readonly options: readonly string[];
  readonly checks: ReadonlyMap<string, string>;
  /** Whether the script ends with `--`, so that `npm run <script> -- <args>` passes them through. */
  readonly passthrough: boolean;
}

/** The script as concurrently reads it, or undefined when it is not a concurrently script. */
export function parallelOf(script: string): Parallel | undefined {
  const words = [...(scripts[script] ?? "").matchAll(/"([^"]*)"|(\S+)/g)].map((m) => ({
    quoted: m[1] !== undefined,
    text: m[1] ?? m[2]!,
  }));
  if (words[0]?.text !== "concurrently") return undefined;
  const first = words.findIndex((w) => w.quoted);
  const options = words.slice(1, first).map((w) => w.text);
  const commands = words.filter((w) => w.quoted).map((w) => w.text);
  const names = options[options.indexOf("--names") + 1]?.split(",") ?? [];
  if (names.length !== commands.length) throw new Error(`${script}: --names does not name each command`);
  return {
    options,
    checks: new Map(names.map((n, i) => [n, commands[i]!])),
    passthrough: words.at(-1)?.text === "--" && !words.at(-1)!.quoted,
  };
}

/** The command lines a script runs: each check of a concurrently script, or the script itself. */
export const commandsOf = (script: string): string[] => {
  const p = parallelOf(script);
  return p ? [...p.checks.values()] : scripts[script] !== undefined ? [scripts[script]!] : [];
};
