/**
 * Stack config without the Pulumi CLI: project defaults from `Pulumi.yaml`'s `config:` block, the
 * stack file `stacks/Pulumi.<stack>.yaml` (or `--file`), then `--set key=value` overrides, merged
 * into the flat `ns:key -> string` map the Pulumi runtime reads. `secure:` values never leave this
 * module: they become `"[secret]"` and their keys are marked secret. Pure apart from reading files.
 */
import * as fs from "fs";
import * as path from "path";
import YAML from "yaml";
import { didYouMean } from "../../components/_shared/suggest";
import { SECRET } from "./redact";

/** Bad command line or unreadable stack file: exit code 2, message names the key or file. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
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
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    throw new UsageError(`cannot read ${what} ${file}`);
  }
  try {
    return YAML.parse(text);
  } catch (e) {
    throw new UsageError(`${what} ${file} is not valid YAML: ${(e as Error).message.split("\n")[0]}`);
  }
}

function fullKey(project: string, key: string): string {
  return key.includes(":") ? key : `${project}:${key}`;
}

/** Reads `Pulumi.yaml`: name, stack config dir, and the default of every declared config key. */
export function loadProject(root: string): Project {
  const doc = readYaml(path.join(root, "Pulumi.yaml"), "project file") as Record<string, any>;
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
  return fs.readdirSync(dir).map((f) => /^Pulumi\.(.+)\.ya?ml$/.exec(f)?.[1]).filter((s): s is string => !!s).sort();
}

/** The stack file for `stack`, or a usage error listing the stacks that exist. */
export function stackFile(root: string, project: Project, stack: string): string {
  if (!/^[A-Za-z0-9_.-]+$/.test(stack)) throw new UsageError(`invalid stack name ${JSON.stringify(stack)}: use letters, digits, "-", "_" and "."`);
  const file = path.join(root, project.stackConfigDir, `Pulumi.${stack}.yaml`);
  if (fs.existsSync(file)) return file;
  const known = stackNames(root, project);
  throw new UsageError(`no stack ${JSON.stringify(stack)}: ${file} does not exist${didYouMean(stack, known) || `; stacks: ${known.join(", ") || "(none)"}`}`);
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
      out[k] = r.value;
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

/** One `--set key=value`: the key path inside the project namespace (or `ns:key`), the YAML-typed value. */
export interface Override {
  readonly key: string;
  readonly value: unknown;
}

/** Parses `inference.prefill.replicas=4` (value typed as YAML: 4 is a number, `[a, b]` a list). */
export function parseOverride(text: string): Override {
  const eq = text.indexOf("=");
  if (eq <= 0) throw new UsageError(`--set expects key=value (e.g. inference.prefill.replicas=4); got ${JSON.stringify(text)}`);
  const key = text.slice(0, eq).trim();
  const raw = text.slice(eq + 1);
  if (!/^([A-Za-z0-9_-]+:)?[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+|\[\d+\])*$/.test(key)) {
    throw new UsageError(`--set key ${JSON.stringify(key)} is not a config path such as inference.prefill.replicas or aws:region`);
  }
  let value: unknown;
  try {
    value = raw === "" ? "" : YAML.parse(raw);
  } catch {
    value = raw;
  }
  return { key, value };
}

type Seg = string | number;

function segments(pathText: string): Seg[] {
  return pathText.split(/\.|(?=\[)/).map((s) => (s.startsWith("[") ? Number(s.slice(1, -1)) : s));
}

function setIn(target: unknown, segs: readonly Seg[], value: unknown, shown: string): unknown {
  if (segs.length === 0) return value;
  const [head, ...rest] = segs;
  if (typeof head === "number") {
    const arr = Array.isArray(target) ? [...target] : target === undefined ? [] : undefined;
    if (!arr) throw new UsageError(`--set ${shown}: ${JSON.stringify(target)} is not a list, so [${head}] cannot be set`);
    arr[head] = setIn(arr[head], rest, value, shown);
    return arr;
  }
  const obj = target === undefined ? {} : target && typeof target === "object" && !Array.isArray(target) ? { ...(target as object) } : undefined;
  if (!obj) throw new UsageError(`--set ${shown}: the value above "${head}" is ${JSON.stringify(target)}, not an object`);
  (obj as Record<string, unknown>)[head] = setIn((obj as Record<string, unknown>)[head], rest, value, shown);
  return obj;
}

/** Merges project defaults, the stack file's `config:` and the overrides into the runtime's config map. */
export function stackConfig(project: Project, file: string, overrides: readonly Override[] = []): StackConfigMap {
  const doc = readYaml(file, "stack file") as Record<string, unknown> | null;
  const cfg = doc?.config ?? {};
  if (typeof cfg !== "object" || Array.isArray(cfg)) throw new UsageError(`stack file ${file}: "config" must be a map of keys to values`);
  const values: Record<string, unknown> = { ...project.defaults };
  const secret = new Set<string>();
  for (const [k, v] of Object.entries(cfg as Record<string, unknown>)) {
    const key = fullKey(project.name, k);
    const r = unsecure(v);
    values[key] = r.value;
    if (r.secret) secret.add(key);
  }
  for (const o of overrides) {
    const colon = o.key.indexOf(":");
    const [top, ...rest] = segments(colon >= 0 ? o.key.slice(colon + 1) : o.key);
    const key = colon >= 0 ? `${o.key.slice(0, colon)}:${top}` : fullKey(project.name, String(top));
    values[key] = setIn(values[key], rest, o.value, o.key);
    if (rest.length === 0) secret.delete(key);
  }
  const config = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]));
  return { config, secretKeys: [...secret].sort(), values };
}
