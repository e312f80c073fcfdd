/**
 * Stack config without the Pulumi CLI: project defaults from `Pulumi.yaml`'s `config:` block, the
 * stack file `stacks/Pulumi.<stack>.yaml` (or `--file`), then `--set key=value` overrides, merged
 * into the flat `ns:key -> string` map the Pulumi runtime reads. `secure:` values never leave this
 * module: they become `"[secret]"` and their keys are marked secret. The one loader `render` and
 * `verify` share. Pure apart from reading files.
 * The YAML is read as Pulumi's own loader reads it (one document, merge keys `<<: *x`; input.ts).
 */
import * as fs from "fs";
import * as path from "path";
import type { Problem } from "../../components/_shared/problems";
import { didYouMean } from "../../components/_shared/suggest";
import { clip, parseYamlText, readUserFile, UsageError } from "./input";

export { UsageError };

/** What every secret value becomes on disk: a `secure:` stack value here, any secret output in the render's files. */
export const SECRET = "[secret]";
/** Largest list index `--set key[N]=...` may name. */
export const MAX_SET_INDEX = 1000;
/** Stack names: Pulumi's rule (letters, digits, `-`, `_`, `.`; not `.` or `..`), at most 100 characters. */
export const STACK_NAME = /^[A-Za-z0-9_.-]{1,100}$/;
/** Top-level keys of a Pulumi stack file (Pulumi.<stack>.yaml). */
export const STACK_FILE_KEYS: readonly string[] = [
  "config",
  "secretsprovider",
  "encryptedkey",
  "encryptionsalt",
  "environment",
];

/** Checks a stack name (`what` says where it came from); returns it. */
export function checkStackName(name: string, what: string): string {
  if (!STACK_NAME.test(name) || name === "." || name === "..") {
    throw new UsageError(
      `${what} ${JSON.stringify(clip(name))} is not a valid stack name: use letters, digits, "-", "_" and "." (not "." or ".."), at most 100 characters`,
    );
  }
  return name;
}

/** The project file's facts the render needs. */
export interface Project {
  readonly name: string;
  readonly stackConfigDir: string;
  /** Full keys (`ns:key`) to default values. */
  readonly defaults: Readonly<Record<string, unknown>>;
}

/** A stack's merged config, as the Pulumi runtime would receive it. */
export interface StackConfigMap {
  /** Full key to value: strings stay strings, everything else is JSON (what the CLI passes). */
  readonly config: Readonly<Record<string, string>>;
  /** Full keys whose values are secret. */
  readonly secretKeys: readonly string[];
  /** The values before stringifying (for messages and tests). */
  readonly values: Readonly<Record<string, unknown>>;
}

function readYaml(file: string, what: string): unknown {
  return parseYamlText(readUserFile(file, what), `${what} ${file}`);
}

function fullKey(project: string, key: string): string {
  return key.includes(":") ? key : `${project}:${key}`;
}

/** Reads `Pulumi.yaml`: name, stack config dir, and the default of every declared config key. */
export function loadProject(root: string): Project {
  const doc = readYaml(path.join(root, "Pulumi.yaml"), "project file") as Record<string, unknown> | null;
  const name = String(doc?.name ?? "");
  const defaults: Record<string, unknown> = {};
  for (const [key, decl] of Object.entries((doc?.config ?? {}) as Record<string, unknown>)) {
    const d = decl as Record<string, unknown> | null;
    const isDecl = d !== null && typeof d === "object" && !Array.isArray(d);
    const value = isDecl ? ("value" in d ? d.value : d.default) : decl;
    if (value !== undefined) defaults[fullKey(name, key)] = value;
  }
  return { name, stackConfigDir: String(doc?.stackConfigDir ?? "."), defaults };
}

/** Stack names that have a file in the project's stack config dir. */
export function stackNames(root: string, project: Project): string[] {
  const dir = path.join(root, project.stackConfigDir);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .map((f) => /^Pulumi\.(.+)\.ya?ml$/.exec(f)?.[1])
    .filter((s): s is string => !!s)
    .sort();
}

/** Where the stack file of `stack` is (whether or not it exists); a usage error for a malformed stack name. */
export function stackFilePath(root: string, project: Project, stack: string): string {
  return path.join(root, project.stackConfigDir, `Pulumi.${checkStackName(stack, "stack")}.yaml`);
}

/** The stack file for `stack`, or a usage error listing the stacks that exist. */
export function stackFile(root: string, project: Project, stack: string): string {
  const file = stackFilePath(root, project, stack);
  if (fs.existsSync(file)) return file;
  const known = stackNames(root, project);
  throw new UsageError(
    `no stack ${JSON.stringify(stack)}: ${file} does not exist${didYouMean(stack, known) || `; stacks: ${known.join(", ") || "(none)"}`}`,
  );
}

/**
 * `o[k] = v` as an own data property: assigning `__proto__` would call the prototype setter and drop the key, so a
 * stack's `__proto__:` would vanish before the key check instead of being reported as an unknown key.
 */
function setOwn(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

/** Replaces `{ secure: ... }` values with `"[secret]"`; says whether any was found. */
function unsecure(v: unknown): { value: unknown; secret: boolean } {
  if (v && typeof v === "object" && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    if (Object.keys(o).length === 1 && "secure" in o) return { value: SECRET, secret: true };
    let secret = false;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(o)) {
      const r = unsecure(x);
      setOwn(out, k, r.value);
      secret ||= r.secret;
    }
    return { value: out, secret };
  }
  if (Array.isArray(v)) {
    const parts = v.map(unsecure);
    return { value: parts.map((p) => p.value), secret: parts.some((p) => p.secret) };
  }
  return { value: v, secret: false };
}

/**
 * One `--set key=value`: the key path inside the project namespace (or `ns:key`), the value as YAML reads it, and the
 * text as written (a string key takes the text: `stackConfig`'s `typed`).
 */
export interface Override {
  readonly key: string;
  readonly value: unknown;
  readonly text: string;
}

/**
 * Parses `inference.prefill.replicas=4`: the value as YAML reads it (4 is a number, `[a, b]` a list) and the text; the
 * key's kind settles which one the key gets (`stackConfig`'s `typed`).
 */
export function parseOverride(text: string): Override {
  const eq = text.indexOf("=");
  if (eq <= 0)
    throw new UsageError(
      `--set expects key=value (e.g. inference.prefill.replicas=4); got ${JSON.stringify(clip(text))}`,
    );
  const key = text.slice(0, eq).trim();
  const raw = text.slice(eq + 1);
  if (!/^([A-Za-z0-9_-]+:)?[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+|\[\d+\])*$/.test(key)) {
    throw new UsageError(
      `--set key ${JSON.stringify(clip(key))} is not a config path such as inference.prefill.replicas or aws:region`,
    );
  }
  for (const m of key.matchAll(/\[(\d+)\]/g)) {
    if (Number(m[1]) > MAX_SET_INDEX)
      throw new UsageError(`--set ${clip(key)}: list index ${clip(m[1], 20)} is larger than ${MAX_SET_INDEX}`);
  }
  let value: unknown;
  try {
    value = raw === "" ? "" : parseYamlText(raw, `--set ${clip(key)} value`);
  } catch (e) {
    if (e instanceof UsageError && !/is not valid YAML/.test(e.message)) throw e;
    value = raw;
  }
  return { key, value, text: raw };
}

/** A step of a config path: a key, or a list index. */
export type Seg = string | number;

function segments(pathText: string): Seg[] {
  return pathText.split(/\.|(?=\[)/).map((s) => (s.startsWith("[") ? Number(s.slice(1, -1)) : s));
}

function setIn(target: unknown, segs: readonly Seg[], value: unknown, shown: string): unknown {
  if (segs.length === 0) return value;
  const [head, ...rest] = segs;
  if (typeof head === "number") {
    const arr = Array.isArray(target) ? [...target] : target === undefined ? [] : undefined;
    if (!arr)
      throw new UsageError(`--set ${shown}: ${JSON.stringify(target)} is not a list, so [${head}] cannot be set`);
    arr[head] = setIn(arr[head], rest, value, shown);
    return arr;
  }
  const obj =
    target === undefined
      ? {}
      : target && typeof target === "object" && !Array.isArray(target)
        ? { ...(target as object) }
        : undefined;
  if (!obj)
    throw new UsageError(`--set ${shown}: the value above "${head}" is ${JSON.stringify(target)}, not an object`);
  setOwn(
    obj as Record<string, unknown>,
    head,
    setIn(Object.hasOwn(obj, head) ? (obj as Record<string, unknown>)[head] : undefined, rest, value, shown),
  );
  return obj;
}

/** The stack file's `config:` map; a file that is not a stack file is a usage error saying why. */
function stackFileConfig(doc: unknown, label: string): Record<string, unknown> {
  const what =
    doc === null || doc === undefined
      ? "it is empty"
      : Array.isArray(doc)
        ? "its top level is a list"
        : typeof doc !== "object"
          ? `its top level is a ${typeof doc}`
          : undefined;
  if (what)
    throw new UsageError(
      `${label} is not understood as a Pulumi stack file: ${what}; a stack file is a map with a "config:" key`,
    );
  const top = doc as Record<string, unknown>;
  const unknown = Object.keys(top).filter((k) => !STACK_FILE_KEYS.includes(k));
  if (!("config" in top)) {
    const hint = unknown.some((k) => k.includes(":"))
      ? '; indent the keys under "config:"'
      : didYouMean(unknown[0] ?? "", ["config"]);
    throw new UsageError(
      `${label} is not understood as a Pulumi stack file: it has no "config:" key (top-level keys: ${clip(Object.keys(top).join(", ")) || "none"})${hint}`,
    );
  }
  if (unknown.length > 0)
    throw new UsageError(
      `${label}: unknown top-level key ${JSON.stringify(clip(unknown[0]))}${didYouMean(unknown[0], STACK_FILE_KEYS) || `; a stack file has ${STACK_FILE_KEYS.join(", ")}`}`,
    );
  const cfg = top.config ?? {};
  if (typeof cfg !== "object" || Array.isArray(cfg))
    throw new UsageError(
      `${label}: "config" must be a map of keys to values; got ${Array.isArray(cfg) ? "a list" : clip(JSON.stringify(cfg))}`,
    );
  return cfg as Record<string, unknown>;
}

/**
 * The value of an override of a key in the project namespace, given its path there (`["cluster", "kubernetesVersion"]`),
 * YAML's value and the text as written: the program types it by the key's kind (program/config.ts `typedOverride`).
 */
export type TypeOverride = (path: readonly Seg[], value: unknown, text: string) => unknown;

/**
 * Merges project defaults, the stack file's `config:` and the overrides into the runtime's config map; `typed` gives
 * each override of the project namespace its value (YAML's, where absent).
 */
export function stackConfig(
  project: Project,
  file: string,
  overrides: readonly Override[] = [],
  typed: TypeOverride = (_, v) => v,
): StackConfigMap {
  const cfg = stackFileConfig(readYaml(file, "stack file"), `stack file ${file}`);
  const values: Record<string, unknown> = { ...project.defaults };
  const secret = new Set<string>();
  for (const [k, v] of Object.entries(cfg)) {
    const key = fullKey(project.name, k);
    const r = unsecure(v);
    values[key] = r.value;
    if (r.secret) secret.add(key);
  }
  for (const o of overrides) {
    const colon = o.key.indexOf(":");
    const segs = segments(colon >= 0 ? o.key.slice(colon + 1) : o.key);
    const [top, ...rest] = segs;
    const key = colon >= 0 ? `${o.key.slice(0, colon)}:${top}` : fullKey(project.name, String(top));
    const value = key.startsWith(`${project.name}:`) ? typed(segs, o.value, o.text) : o.value;
    values[key] = setIn(values[key], rest, value, o.key);
    if (rest.length === 0) secret.delete(key);
  }
  const config = Object.fromEntries(
    Object.entries(values).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
  );
  return { config, secretKeys: [...secret].sort(), values };
}

/** The user's path of a full config key: `inference.x` in the project namespace, else `ns:key`. */
export function userPath(project: string, key: string): string {
  return key.startsWith(`${project}:`) ? key.slice(project.length + 1) : key;
}

/**
 * Numbers JSON cannot carry (`.inf`, `-.inf`, `.nan`, `1e309`): the runtime would see `null`, i.e. the
 * default, so each is a problem at its key instead.
 */
export function nonFiniteProblems(project: string, values: Readonly<Record<string, unknown>>): Problem[] {
  const out: Problem[] = [];
  const walk = (v: unknown, at: string): void => {
    if (typeof v === "number" && !Number.isFinite(v))
      out.push({
        propertyPath: at,
        reason: `must be a finite number; got ${String(v)} (YAML .inf/.nan, or a literal too large for a double)`,
      });
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${at}[${i}]`));
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, `${at}.${k}`);
  };
  for (const [k, v] of Object.entries(values)) walk(v, userPath(project, k));
  return out;
}
