/**
 * The one key walker: a stack value against a component's key table (components/_shared/keys.ts). It reports what
 * the table knows: unknown, renamed and program-set keys, and every value of the wrong kind (a quoted 'false' for a
 * boolean, a list for a string, a number outside its bounds), each at its key with the value, its type and what is
 * allowed, before any component validator runs. It returns the value with `null` entries and refused values dropped
 * (a number at a string key passed on as its text: `walkKeys`), so a validator never sees a value of the wrong type. Keys are read with `Object.keys` and looked up as own keys of
 * the table, and `__proto__`, `constructor` and `prototype` are refused in every table and map (the stack file reader
 * keeps them as own keys: tools/_shared/stackfile.ts), never silently dropped or assigned. Pure.
 */
import { AnyKeyShape, AnyValueKind, describeKind, isValueKind } from "../components/_shared/keys";
import { brief, joinPath, Problem } from "../components/_shared/problems";
import { didYouMean } from "../components/_shared/suggest";

/** Old stack keys and the key each moved to, by full path (`cluster.gpuNodes.count`). */
export type Renames = Readonly<Record<string, string>>;

/** What `typeof` says, in words, with lists and `null` told apart. */
export const typeName = (v: unknown): string =>
  v === null ? "null" : Array.isArray(v) ? "a list" : typeof v === "object" ? "an object" : `a ${typeof v}`;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
/** An own entry of a lookup table: never one inherited from `Object.prototype` (`constructor`, `toString`). */
export const ownEntry = <T>(o: Readonly<Record<string, T>>, k: string): T | undefined =>
  Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined;

/** Keys that name JavaScript's prototype machinery: never a name in a stack file, in any table or map. */
export const PROTOTYPE_KEYS: readonly string[] = ["__proto__", "constructor", "prototype"];
export const PROTOTYPE_KEY_REASON = "is not allowed as a key (a JavaScript prototype name); remove it";

/** Why `key` is unknown: YAML's missing space after a colon, a dotted key, a near miss, or the keys there are. */
function unknownKeyReason(key: string, value: unknown, known: readonly string[]): string {
  if (PROTOTYPE_KEYS.includes(key)) return PROTOTYPE_KEY_REASON;
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
        ownEntry(renames, joinPath(path, k)) ? renamed(joinPath(path, k), value[k], renames) : [],
      )
    : [];
  if (inner.length > 0 && Object.keys(value as object).length === inner.length) return inner;
  return [...inner, { propertyPath: path, reason: `was renamed: write ${ownEntry(renames, path)} (docs/CONFIG.md)` }];
}

/** A hint for the usual way a value ends up the wrong type: YAML quoting, a one-item list, a missing list. */
function kindHint(v: unknown, k: AnyValueKind): string {
  if (typeof v === "string" && k.kind === "boolean" && /^(true|false)$/i.test(v.trim()))
    return `; write ${v.trim().toLowerCase()} without quotes`;
  if (typeof v === "string" && (k.kind === "integer" || k.kind === "number") && Number.isFinite(Number(v)) && v.trim())
    return `; write ${v.trim()} without quotes`;
  if (typeof v === "number" && k.kind === "string")
    return "; quote it: YAML reads unquoted digits as a number (and 1.30 as 1.3)";
  if (Array.isArray(v) && v.length === 1 && k.kind === "string" && typeof v[0] === "string")
    return `; did you mean ${brief(v[0])}?`;
  if (k.kind === "list" && !Array.isArray(v) && v !== null && typeof v !== "object")
    return `; did you mean [${brief(v)}]?`;
  return "";
}

const wrong = (path: string, v: unknown, k: AnyValueKind): Problem[] => [
  { propertyPath: path, reason: `must be ${describeKind(k)}; got ${brief(v)} (${typeName(v)})${kindHint(v, k)}` },
];

/** The kind of `either` that matches the value's own type (a list for a list), to report inside it. */
function sameType(v: unknown, alternatives: readonly AnyValueKind[]): AnyValueKind | undefined {
  const t = Array.isArray(v) ? "list" : isObject(v) ? "map" : typeof v === "number" ? "number" : typeof v;
  return alternatives.find((k) => k.kind === t || (t === "number" && k.kind === "integer"));
}

/** Every problem of `v` (not null) against `kind`, at `path`: type, bounds, surrounding whitespace, items. */
export function checkValue(path: string, v: unknown, kind: AnyValueKind): Problem[] {
  switch (kind.kind) {
    case "boolean":
      return typeof v === "boolean" ? [] : wrong(path, v, kind);
    case "string":
      if (typeof v !== "string") return wrong(path, v, kind);
      // A YAML block scalar (`model: |`) adds a trailing newline and a padded quote keeps its spaces; no id, name or
      // version accepts them.
      return v === v.trim()
        ? []
        : [{ propertyPath: path, reason: `must not start or end with whitespace; got ${brief(v)}` }];
    case "integer":
      return typeof v === "number" && Number.isInteger(v) && v >= kind.range.min && v <= kind.range.max
        ? []
        : wrong(path, v, kind);
    case "number":
      return typeof v === "number" && Number.isFinite(v) && v > kind.range.minExclusive && v <= kind.range.max
        ? []
        : wrong(path, v, kind);
    case "list":
      return checkList(path, v, kind);
    case "map":
      if (!isObject(v)) return wrong(path, v, kind);
      return Object.keys(v).flatMap((k) =>
        PROTOTYPE_KEYS.includes(k)
          ? [{ propertyPath: joinPath(path, k), reason: PROTOTYPE_KEY_REASON }]
          : v[k] === null
            ? [{ propertyPath: joinPath(path, k), reason: `must be ${describeKind(kind.of)}; got null` }]
            : checkValue(joinPath(path, k), v[k], kind.of),
      );
    case "either": {
      if (kind.of.some((k) => checkValue(path, v, k).length === 0)) return [];
      const same = sameType(v, kind.of);
      return same ? checkValue(path, v, same) : wrong(path, v, kind);
    }
  }
}

function checkList(path: string, v: unknown, kind: AnyValueKind & { kind: "list" }): Problem[] {
  if (!Array.isArray(v)) return wrong(path, v, kind);
  const max = kind.maxItems;
  if (max && v.length > max.count)
    return [{ propertyPath: path, reason: `holds ${v.length} entries; at most ${max.count} (${max.why})` }];
  return v.flatMap((x, i) =>
    x === null
      ? [{ propertyPath: joinPath(path, i), reason: `must be ${describeKind(kind.of)}; got null` }]
      : checkValue(joinPath(path, i), x, kind.of),
  );
}

/**
 * Walks `value` at `path` against `table`: every key and value problem, and the value without nulls or refusals. One
 * refusal is passed on as text: a YAML number at a string key (`kubernetesVersion: 1.33`) goes on as `String(n)`
 * ("1.33"; 1.30 is "1.3", as the refusal says), so checks of other keys that depend on it (`deviceAllocation: dra`
 * below 1.34) report in the same run instead of after the user quotes it; the caller leaves out the validators'
 * problems at the refused key itself (program/config.ts `sectionWalker`), and nothing renders while the refusal stands.
 */
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
  const out: Record<string, unknown> = {}; // only table keys land here, never a prototype key
  // The keys a user may write: those the program sets itself ("wired") are refused when written, so never offered.
  const known = Object.keys(table).filter((k) => !("wired" in (ownEntry(table, k) as object)));
  for (const key of Object.keys(value)) {
    const at = joinPath(path, key.length > 80 ? `${key.slice(0, 77)}...` : key);
    const v = value[key];
    const entry = ownEntry(table, key);
    if (entry === undefined || PROTOTYPE_KEYS.includes(key)) {
      problems.push(
        ...(ownEntry(renames, at)
          ? renamed(at, v, renames)
          : [{ propertyPath: at, reason: unknownKeyReason(key, v, known) }]),
      );
    } else if (v === null || v === undefined) {
      continue; // YAML's `key:` with nothing after it: the argument's default
    } else if ("wired" in entry) {
      problems.push({ propertyPath: at, reason: `is set by the program from ${entry.wired}; remove it` });
    } else if (isValueKind(entry)) {
      const bad = checkValue(at, v, entry);
      problems.push(...bad);
      if (bad.length === 0) out[key] = v;
      else if (entry.kind === "string" && typeof v === "number" && Number.isFinite(v)) out[key] = String(v);
    } else {
      const sub =
        "each" in entry
          ? walkEach(at, v, entry.each as AnyKeyShape, renames)
          : walkKeys(at, v, entry as AnyKeyShape, renames);
      problems.push(...sub.problems);
      if (sub.value !== undefined) out[key] = sub.value;
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
  const out: Record<string, unknown> = {}; // never a prototype key
  const problems: Problem[] = [];
  for (const key of Object.keys(value)) {
    if (PROTOTYPE_KEYS.includes(key)) {
      problems.push({ propertyPath: joinPath(path, key), reason: PROTOTYPE_KEY_REASON });
      continue;
    }
    const sub = walkKeys(joinPath(path, key), value[key], table, renames);
    problems.push(...sub.problems);
    out[key] = sub.value;
  }
  return { value: out, problems };
}

/** Whether `p` is at `refused` or inside it (`a.b` is inside `a`, so is `a[0]`). */
export function isAtOrUnder(p: string, refused: string): boolean {
  return p === refused || p.startsWith(`${refused}.`) || p.startsWith(`${refused}[`);
}

/**
 * The value kind at `segs` below `table` (names for keys, numbers for list indexes), or undefined where the table
 * does not say (an unknown key, a wired argument, a nested table itself rather than one of its values).
 */
export function kindAt(table: AnyKeyShape, segs: readonly (string | number)[]): AnyValueKind | undefined {
  const [head, ...rest] = segs;
  if (typeof head !== "string") return undefined;
  const entry = ownEntry(table, head);
  if (entry === undefined || "wired" in entry) return undefined;
  if (isValueKind(entry)) return rest.length === 0 ? entry : kindInside(entry, rest);
  if ("each" in entry) {
    const [name, ...below] = rest;
    return typeof name === "string" ? kindAt(entry.each as AnyKeyShape, below) : undefined;
  }
  return kindAt(entry as AnyKeyShape, rest);
}

/** The kind of a list's item (`[0]`) or a map's value (`.name`) below a value kind, down `segs`. */
function kindInside(kind: AnyValueKind, segs: readonly (string | number)[]): AnyValueKind | undefined {
  if (segs.length === 0) return kind;
  const [head, ...rest] = segs;
  if (kind.kind === "list" && typeof head === "number") return kindInside(kind.of, rest);
  if (kind.kind === "map" && typeof head === "string") return kindInside(kind.of, rest);
  return undefined;
}

/** Whether `kind` accepts a value of JavaScript type `t` ("string", "number", "boolean"), alternatives included. */
function takes(kind: AnyValueKind, t: string): boolean {
  if (kind.kind === "either") return kind.of.some((k) => takes(k, t));
  return t === "number" ? kind.kind === "integer" || kind.kind === "number" : kind.kind === t;
}

/**
 * A `--set` value typed by its key's kind: `text` where YAML read a scalar as a number or a boolean but the key takes
 * a string and not that type (`--set cluster.kubernetesVersion=1.33` is "1.33", never the number 1.33, and `1.30`
 * stays "1.30"). Everything else stays as YAML read it: a number for a number key, `null` (the default), a list or a
 * map (refused by `checkValue` at a string key), a quoted string, and any value of a key the tables do not know.
 */
export function typedByKind(kind: AnyValueKind | undefined, value: unknown, text: string): unknown {
  const t = typeof value;
  return kind && (t === "number" || t === "boolean") && takes(kind, "string") && !takes(kind, t) ? text : value;
}
