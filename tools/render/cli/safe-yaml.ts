/**
 * YAML text parsed the way Pulumi's own loader parses a stack file (one document, merge keys `<<: *x`,
 * unique keys), with the aliases and the nesting bounded so an alias bomb or a recursive alias is a
 * usage error (exit 2), never a hang or a crash. Used for stack files and `--set` values.
 */
import YAML from "yaml";
import { clip, UsageError } from "./safe-read";

/** Deepest nesting accepted in a config file (the schema is 4 levels deep). */
export const MAX_DEPTH = 32;
/** Most aliases (`*x`) one file may use: bounds alias bombs ("billion laughs"). */
export const MAX_ALIASES = 100;

/** Rejects cycles (a recursive alias) and nesting deeper than `MAX_DEPTH`. */
function checkShape(v: unknown, label: string, depth = 0, open: Set<unknown> = new Set()): void {
  if (v === null || typeof v !== "object") return;
  if (open.has(v))
    throw new UsageError(`${label} is not understood: an alias refers to itself (a recursive &anchor / *alias)`);
  if (depth > MAX_DEPTH) throw new UsageError(`${label} is not understood: nested deeper than ${MAX_DEPTH} levels`);
  open.add(v);
  for (const x of Array.isArray(v) ? v : Object.values(v)) checkShape(x, label, depth + 1, open);
  open.delete(v);
}

/** Parses YAML text as Pulumi's loader would: merge keys on, unique keys, bounded aliases and depth. */
export function parseYamlText(text: string, label: string): unknown {
  if (text.includes("\r") && !text.includes("\n"))
    throw new UsageError(
      `${label} is not understood: it uses CR-only line endings; convert it to LF (or CRLF) line endings`,
    );
  let value: unknown;
  try {
    value = YAML.parse(text, { merge: true, maxAliasCount: MAX_ALIASES, uniqueKeys: true });
  } catch (e) {
    const msg = (e as Error).message.split("\n")[0];
    if (/alias count/i.test(msg))
      throw new UsageError(`${label} is not understood: more than ${MAX_ALIASES} alias expansions (an alias bomb?)`);
    throw new UsageError(`${label} is not valid YAML: ${clip(msg, 160)}`);
  }
  checkShape(value, label);
  return value;
}
