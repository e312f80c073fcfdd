/**
 * Reading the user's own files (the stack file, `--policy-config`, verify's kubeconfig) and `--set` values, with
 * the mistakes a user makes reported as `UsageError`s (exit 2) that name the file: a missing, unreadable or
 * directory path, and YAML that does not parse (the parser's message, with its line), repeats a key, or expands
 * more aliases than a config needs.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import * as fs from "fs";
import YAML from "yaml";

/** Bad command line or unreadable input file: exit code 2, message names the key or file. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** `s` cut to `n` characters with an ellipsis: messages never echo a huge value. */
export function clip(s: string, n = 80): string {
  return s.length > n ? `${s.slice(0, n)}...` : s;
}

const WHY: Readonly<Record<string, string>> = {
  ENOENT: "no such file",
  EACCES: "permission denied",
  EISDIR: "it is a directory, not a file",
};

/** The text of `file` (`what` names it in the message), or a usage error saying why it cannot be read. */
export function readUserFile(file: string, what: string): string {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${what} ${file}: ${(code && WHY[code]) ?? code ?? String(e)}`);
  }
}

/** Most aliases (`*x`) one file may expand: a config needs a handful; this bounds an alias bomb. */
export const MAX_ALIASES = 100;

/** Parses YAML text as Pulumi's loader would: one document, merge keys on, unique keys, bounded aliases. */
export function parseYamlText(text: string, label: string): unknown {
  let value: unknown;
  try {
    value = YAML.parse(text, { merge: true, maxAliasCount: MAX_ALIASES, uniqueKeys: true });
  } catch (e) {
    const msg = (e as Error).message.split("\n")[0];
    if (/alias count/i.test(msg))
      throw new UsageError(`${label} is not understood: more than ${MAX_ALIASES} alias expansions (an alias bomb?)`);
    // The parser's first line ends "at line N, column M:" before a code frame; name the key of line N instead (its
    // key only: the value may be a token written in plain text).
    const line = (e as { linePos?: readonly { line: number }[] }).linePos?.[0]?.line;
    const key =
      line === undefined ? undefined : /^\s*(?:-\s+)?(.+?):(?:\s|$)/.exec(text.split(/\r?\n/)[line - 1] ?? "");
    const where = key ? `${clip(msg, 160)} key ${JSON.stringify(clip(key[1]))}` : clip(msg.replace(/:$/, ""), 160);
    throw new UsageError(`${label} is not valid YAML: ${where}`);
  }
  try {
    JSON.stringify(value);
  } catch {
    // `&a [*a]` parses to a cycle, which the runtime's JSON config cannot carry.
    throw new UsageError(`${label} is not understood: an alias refers to itself (a recursive &anchor / *alias)`);
  }
  return value;
}

/**
 * A command line of one `<stack>` and its flags (verify, measure), parsed strictly: an unknown flag, a missing value
 * or anything but one positional is a `UsageError` naming it; `--help` returns before the positional is checked.
 */
export function parseStackCommand<T extends StackOptions>(
  argv: readonly string[],
  options: T,
): { readonly help: true } | { readonly help: false; readonly stack: string; readonly values: ParsedValues<T> } {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const { values, positionals } = parsed;
  if ((values as Record<string, unknown>).help) return { help: true };
  if (positionals.length !== 1)
    throw new UsageError(
      `expected exactly one <stack>; got ${positionals.length ? clip(positionals.join(" ")) : "none"}`,
    );
  return { help: false, stack: positionals[0], values: values as ParsedValues<T> };
}

/** The options object `parseArgs` takes. */
type StackOptions = NonNullable<ParseArgsConfig["options"]>;

/** The flag values `parseArgs` returns for `options` (strict, positionals allowed). */
type ParsedValues<T extends StackOptions> = ReturnType<
  typeof parseArgs<{ options: T; allowPositionals: true; strict: true }>
>["values"];
