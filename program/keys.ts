/**
 * The one key walker: a stack value against a component's key table (components/_shared/keys.ts). It reports what
 * only the table knows (unknown, renamed and program-set keys, objects and lists in the wrong place) and returns the
 * value with `null` entries dropped. Keys are read with `Object.keys` and looked up as own keys of the table, so
 * `__proto__`, `constructor` and `prototype` are unknown keys like any other, never silently dropped (the stack file
 * reader keeps them as own keys: tools/_shared/stackfile.ts). Values are the component validators' to check. Pure.
 */
import type { AnyKeyShape } from "../components/_shared/keys";
import { brief, joinPath, Problem } from "../components/_shared/problems";
import { didYouMean } from "../components/_shared/suggest";

/** Old stack keys and the key each moved to, by full path (`cluster.gpuNodes.count`). */
export type Renames = Readonly<Record<string, string>>;

const typeName = (v: unknown): string =>
  v === null ? "null" : Array.isArray(v) ? "a list" : typeof v === "object" ? "an object" : `a ${typeof v}`;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Why `key` is unknown: YAML's missing space after a colon, a dotted key, a near miss, or the keys there are. */
function unknownKeyReason(key: string, value: unknown, known: readonly string[]): string {
  const colon = /^([^:\s]+):(\S.*)$/.exec(key);
  if (colon && known.includes(colon[1]) && (value === null || value === undefined))
    return `unknown key; did you mean \`${colon[1]}: ${colon[2]}\` (YAML needs a space after the colon)?`;
  const [head, ...rest] = key.split(".");
  if (rest.length > 0 && known.includes(head))
    return `unknown key; a dotted key is one literal key, not a path: nest it as ${head}: { ${rest.join(".")}: ... }`;
  return `unknown key${didYouMean(key, known) || `; the keys here are ${known.join(", ")}`}`;
}

/** The renamed keys under `path` (the value's own leaves first, so `gpuNodes: {count}` names `...nodes`). */
function renamed(path: string, value: unknown, renames: Renames): Problem[] {
  const inner = isObject(value)
    ? Object.keys(value).flatMap((k) =>
        renames[joinPath(path, k)] ? renamed(joinPath(path, k), value[k], renames) : [],
      )
    : [];
  if (inner.length > 0 && Object.keys(value as object).length === inner.length) return inner;
  return [...inner, { propertyPath: path, reason: `was renamed: write ${renames[path]} (docs/CONFIG.md)` }];
}

/**
 * Strings with surrounding whitespace anywhere in a value: a YAML block scalar (`model: |`) adds a trailing newline
 * and a padded quote keeps its spaces, and no id, name or version accepts them.
 */
function padded(path: string, v: unknown): Problem[] {
  if (typeof v === "string")
    return v === v.trim()
      ? []
      : [{ propertyPath: path, reason: `must not start or end with whitespace; got ${brief(v)}` }];
  if (Array.isArray(v)) return v.flatMap((x, i) => padded(joinPath(path, i), x));
  return isObject(v) ? Object.keys(v).flatMap((k) => padded(joinPath(path, k), v[k])) : [];
}

/** Walks `value` at `path` against `table`: every key problem, and the value without nulls. */
export function walkKeys(
  path: string,
  value: unknown,
  table: AnyKeyShape,
  renames: Renames = {},
): { value: unknown; problems: Problem[] } {
  if (!isObject(value))
    return {
      value: undefined,
      problems: [
        {
          propertyPath: path,
          reason: `must be an object of ${Object.keys(table).join(", ")}; got ${brief(value)} (${typeName(value)})`,
        },
      ],
    };
  const problems: Problem[] = [];
  const out: Record<string, unknown> = {}; // only table keys land here, never `__proto__`
  const known = Object.keys(table);
  for (const key of Object.keys(value)) {
    const at = joinPath(path, key.length > 80 ? `${key.slice(0, 77)}...` : key);
    const v = value[key];
    const entry = Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined;
    if (entry === undefined) {
      problems.push(
        ...(renames[at] ? renamed(at, v, renames) : [{ propertyPath: at, reason: unknownKeyReason(key, v, known) }]),
      );
    } else if (v === null || v === undefined) {
      continue; // YAML's `key:` with nothing after it: the argument's default
    } else if (typeof entry === "object" && "wired" in entry) {
      problems.push({ propertyPath: at, reason: `is set by the program from ${entry.wired}; remove it` });
    } else if (entry === "list" && !Array.isArray(v)) {
      problems.push({
        propertyPath: at,
        reason: `must be a list; got ${brief(v)} (${typeName(v)}); did you mean [${brief(v)}]?`,
      });
    } else if (typeof entry === "object") {
      const sub =
        "each" in entry
          ? walkEach(at, v, entry.each as AnyKeyShape, renames)
          : walkKeys(at, v, entry as AnyKeyShape, renames);
      problems.push(...sub.problems);
      out[key] = sub.value;
    } else {
      problems.push(...padded(at, v));
      out[key] = v;
    }
  }
  return { value: out, problems };
}

/** A map whose every entry has `table` (`gpuPools: { gpu: {...} }`). */
function walkEach(path: string, value: unknown, table: AnyKeyShape, renames: Renames) {
  if (!isObject(value))
    return {
      value: undefined,
      problems: [
        { propertyPath: path, reason: `must be a map of names to objects; got ${brief(value)} (${typeName(value)})` },
      ],
    };
  const out: Record<string, unknown> = {}; // only table keys land here, never `__proto__`
  const problems: Problem[] = [];
  for (const key of Object.keys(value)) {
    const sub = walkKeys(joinPath(path, key), value[key], table, renames);
    problems.push(...sub.problems);
    out[key] = sub.value;
  }
  return { value: out, problems };
}
