/**
 * A small declarative schema for the object-valued stack config keys (Pulumi.yaml can type only
 * scalars and arrays). One table per key checks every field at once — type, range, allowed values,
 * unknown keys with "did you mean" — fills defaults, and also generates the README's config
 * reference, so docs and checks cannot drift. Pure.
 */
import type { IntRange } from "../components/_shared/limits";
import { joinPath, Problem, show } from "../components/_shared/problems";
import { didYouMean, oneOf } from "../components/_shared/suggest";

/** One field of an object spec. */
export interface Field {
  readonly spec: Spec;
  /** One-line description for the config reference. */
  readonly doc: string;
  /** Must be present (no default). */
  readonly required?: boolean;
  /** Default value, filled in when the field is absent. */
  readonly default?: unknown;
  /** How the default is described when it is not a literal (e.g. "derived from the pool"). */
  readonly defaultDoc?: string;
}

/** A value's expected shape. */
export type Spec =
  | {
      readonly kind: "string";
      readonly pattern?: RegExp;
      readonly patternDoc?: string;
      readonly enum?: readonly string[];
      readonly example?: string;
      readonly numberAsString?: (n: number) => string;
    }
  | { readonly kind: "integer"; readonly min: number; readonly max: number }
  | { readonly kind: "number"; readonly minExclusive: number; readonly max: number; readonly example: number }
  | { readonly kind: "boolean" }
  | { readonly kind: "array"; readonly items: Spec; readonly minItems?: number }
  | { readonly kind: "object"; readonly fields: Readonly<Record<string, Field>> }
  | { readonly kind: "map"; readonly values: Spec; readonly keyDoc: string }
  | { readonly kind: "keywordOrList"; readonly keywords: readonly string[]; readonly items: Spec };

/** A string spec with extra rules: the shorthand the config tables are written in. */
export const str = (extra: Partial<Extract<Spec, { kind: "string" }>> = {}): Spec => ({ kind: "string", ...extra });
/** A whole number in a component's own range (its limits table), so schema and validator agree. */
export const int = (r: IntRange): Spec => ({ kind: "integer", min: r.min, max: r.max });
/** The allowed values of a closed choice (a string enum object such as `Backend`). */
export const choices = <T extends Record<string, string>>(o: T): string[] => Object.values(o);

/** Result of checking a value: the coerced value (defaults filled) and every problem found. */
export interface Checked {
  readonly value: unknown;
  readonly problems: Problem[];
}

/** `show(v)` cut to about 80 characters: messages never echo a 10k-character value. */
export function brief(v: unknown): string {
  const s = show(v);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/**
 * Why a string is unusable as a config value, if it is: surrounding whitespace, which a YAML block scalar
 * (`model: |`) adds as a trailing newline, or a quoted value carries, and which no id or name accepts.
 */
export function stringDefect(value: string): string | undefined {
  return value !== value.trim() ? "must not start or end with whitespace" : undefined;
}

const typeName = (v: unknown): string =>
  v === null ? "null" : Array.isArray(v) ? "a list" : typeof v === "object" ? "an object" : `a ${typeof v}`;

/** A failed check: no value, one problem at `path`. */
const fail = (path: string, reason: string): Checked => ({
  value: undefined,
  problems: [{ propertyPath: path, reason }],
});

function checkString(path: string, v: unknown, s: Extract<Spec, { kind: "string" }>): Checked {
  let value = v;
  if (typeof v === "number" && s.numberAsString) value = s.numberAsString(v);
  if (typeof value !== "string") {
    const allowed = s.enum ? oneOf(s.enum) : `a string${s.example ? ` such as ${show(s.example)}` : ""}`;
    return fail(path, `must be ${allowed}; got ${brief(v)} (${typeName(v)})`);
  }
  const defect = stringDefect(value);
  if (defect) return fail(path, `${defect}; got ${brief(value)}`);
  if (s.enum && !s.enum.includes(value))
    return fail(path, `must be ${oneOf(s.enum)}; got ${brief(value)}${didYouMean(value, s.enum)}`);
  if (s.pattern && !s.pattern.test(value))
    return fail(path, `must be ${s.patternDoc ?? `a string matching ${s.pattern}`}; got ${brief(value)}`);
  return { value, problems: [] };
}

function checkNumber(path: string, v: unknown, s: Extract<Spec, { kind: "integer" | "number" }>): Checked {
  const got = `got ${brief(v)}${typeof v === "number" ? "" : ` (${typeName(v)})`}`;
  if (s.kind === "integer") {
    const ok = typeof v === "number" && Number.isInteger(v) && v >= s.min && v <= s.max;
    return ok ? { value: v, problems: [] } : fail(path, `must be a whole number ${s.min}..${s.max}; ${got}`);
  }
  const ok = typeof v === "number" && v > s.minExclusive && v <= s.max;
  return ok
    ? { value: v, problems: [] }
    : fail(path, `must be a number in (${s.minExclusive}, ${s.max}], e.g. ${s.example}; ${got}`);
}

function checkObject(path: string, v: unknown, fields: Readonly<Record<string, Field>>): Checked {
  if (v === null || typeof v !== "object" || Array.isArray(v))
    return fail(
      path,
      `must be an object with keys ${Object.keys(fields).join(", ")}; got ${brief(v)} (${typeName(v)})`,
    );
  const o = v as Record<string, unknown>;
  const problems: Problem[] = [];
  const known = Object.keys(fields);
  for (const k of Object.keys(o).filter((k) => !known.includes(k))) {
    const key = k.length > 80 ? `${k.slice(0, 77)}...` : k;
    const hint = missingColonSpace(k, o[k], known) ?? (didYouMean(k, known) || `; known keys: ${known.join(", ")}`);
    problems.push({ propertyPath: joinPath(path, key), reason: `unknown key${hint}` });
  }
  const out: Record<string, unknown> = {};
  for (const [k, f] of Object.entries(fields)) {
    const p = joinPath(path, k);
    if (o[k] === undefined || o[k] === null) {
      if (f.required) problems.push({ propertyPath: p, reason: `is required: ${f.doc}` });
      else if (f.default !== undefined) out[k] = structuredClone(f.default);
      else if (f.spec.kind === "object") {
        // An absent optional object with defaults inside still gets its defaults.
        const inner = checkObject(p, {}, f.spec.fields);
        if (inner.problems.length === 0 && Object.keys(inner.value as object).length > 0) out[k] = inner.value;
      }
      continue;
    }
    const r = check(p, o[k], f.spec);
    problems.push(...r.problems);
    if (r.value !== undefined) out[k] = r.value;
  }
  return { value: out, problems };
}

/**
 * `{isl:4000}` parses as the key "isl:4000" with no value: YAML's flow mappings need a space after the colon. The
 * hint, when the part before the colon is a known key and the key carries no value of its own.
 */
function missingColonSpace(k: string, v: unknown, known: readonly string[]): string | undefined {
  const m = /^([^:\s]+):(\S.*)$/.exec(k);
  if (!m || !known.includes(m[1]) || (v !== null && v !== undefined)) return undefined;
  return `; did you mean \`${m[1]}: ${m[2]}\` (YAML needs a space after the colon)?`;
}

/** `must be a list ...` for a value that is not one: the items' allowed values, and `[value]` when that would do. */
function notAList(path: string, v: unknown, spec: Extract<Spec, { kind: "array" }>): Checked {
  const items = spec.items.kind === "string" && spec.items.enum ? ` (each item ${oneOf(spec.items.enum)})` : "";
  const scalar = typeof v === "string" || typeof v === "number";
  const wrapped = scalar && check(path, v, spec.items).problems.length === 0;
  const fix = wrapped ? `; did you mean the list [${JSON.stringify(v)}] (\`--set '${path}=[${String(v)}]'\`)?` : "";
  return fail(path, `must be a list${items}; got ${brief(v)} (${typeName(v)})${fix}`);
}

function checkArray(path: string, v: unknown, spec: Extract<Spec, { kind: "array" }>): Checked {
  if (!Array.isArray(v)) return notAList(path, v, spec);
  if (v.length < (spec.minItems ?? 0)) return fail(path, `must list at least ${spec.minItems} item(s)`);
  const parts = v.map((x, i) => check(joinPath(path, i), x, spec.items));
  const problems = parts.flatMap((p) => p.problems);
  return { value: problems.length === 0 ? parts.map((p) => p.value) : undefined, problems };
}

function checkMap(path: string, v: unknown, spec: Extract<Spec, { kind: "map" }>): Checked {
  if (v === null || typeof v !== "object" || Array.isArray(v))
    return fail(path, `must be a map of ${spec.keyDoc} to values; got ${brief(v)} (${typeName(v)})`);
  const parts = Object.entries(v as Record<string, unknown>).map(
    ([k, x]) => [k, check(joinPath(path, k), x, spec.values)] as const,
  );
  const problems = parts.flatMap(([, c]) => c.problems);
  return {
    value: problems.length === 0 ? Object.fromEntries(parts.map(([k, c]) => [k, c.value])) : undefined,
    problems,
  };
}

/** A keyword (`"fat"`) or a list of tokens; the catalog checks the tokens, here only that each is a usable string. */
function checkKeywordOrList(path: string, v: unknown, spec: Extract<Spec, { kind: "keywordOrList" }>): Checked {
  if (typeof v === "string") return checkString(path, v, { kind: "string" });
  if (Array.isArray(v)) return checkArray(path, v, { kind: "array", items: spec.items });
  return fail(path, `must be ${oneOf(spec.keywords)} or a list; got ${brief(v)} (${typeName(v)})`);
}

/** Checks `v` at `path` against `spec`. */
export function check(path: string, v: unknown, spec: Spec): Checked {
  switch (spec.kind) {
    case "string":
      return checkString(path, v, spec);
    case "integer":
    case "number":
      return checkNumber(path, v, spec);
    case "boolean":
      return typeof v === "boolean"
        ? { value: v, problems: [] }
        : fail(path, `must be true or false; got ${brief(v)} (${typeName(v)})`);
    case "array":
      return checkArray(path, v, spec);
    case "object":
      return checkObject(path, v, spec.fields);
    case "map":
      return checkMap(path, v, spec);
    case "keywordOrList":
      return checkKeywordOrList(path, v, spec);
  }
}

/** Human description of a spec's type for the config reference. */
export function describeType(spec: Spec): string {
  switch (spec.kind) {
    case "string":
      return spec.enum ? spec.enum.map((e) => `\`${e}\``).join(" \\| ") : "string";
    case "integer":
      return `integer ${spec.min}..${spec.max}`;
    case "number":
      return `number (${spec.minExclusive}, ${spec.max}]`;
    case "boolean":
      return "boolean";
    case "array":
      return `list of ${describeType(spec.items)}`;
    case "object":
      return "object";
    case "map":
      return `map of ${spec.keyDoc} to ${describeType(spec.values)}`;
    case "keywordOrList":
      return `${spec.keywords.map((k) => `\`${k}\``).join(" \\| ")} \\| list of ${describeType(spec.items)}`;
  }
}

/** One row of the config reference: every leaf and object under `path`. */
export interface ReferenceRow {
  readonly key: string;
  readonly type: string;
  readonly default: string;
  readonly doc: string;
}

/** Flattens an object spec into reference rows (`prefix.key`). */
export function referenceRows(prefix: string, fields: Readonly<Record<string, Field>>): ReferenceRow[] {
  const rows: ReferenceRow[] = [];
  for (const [k, f] of Object.entries(fields)) {
    const key = `${prefix}.${k}`;
    const def = f.required
      ? "required"
      : (f.defaultDoc ?? (f.default !== undefined ? `\`${JSON.stringify(f.default)}\`` : "-"));
    rows.push({ key, type: describeType(f.spec), default: def, doc: f.doc });
    if (f.spec.kind === "object") rows.push(...referenceRows(key, f.spec.fields));
  }
  return rows;
}
