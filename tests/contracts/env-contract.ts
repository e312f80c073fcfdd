/**
 * Which environment variables the pinned upstream projects read, from facts/env-*.json: the data behind the
 * env-var contract test and the `no-noop-nixl-env` policy. A name under a checked prefix (FI_, NIXL_, VLLM_,
 * TRTLLM_, UCX_) that its project does not read at the pinned version does nothing when set.
 */
import { FactFile, loadFacts } from "./facts";
import { editDistance } from "../../components/_shared/suggest";

/** env-<project>.json for projects that list the names they read. */
interface NamedEnvFacts {
  readonly prefix: string;
  readonly names: Readonly<Record<string, readonly string[]>>;
  readonly deprecated?: readonly string[];
}
/** env-ucx.json: UCX composes UCX_<table prefix><field>. */
interface UcxEnvFacts {
  readonly prefix: string;
  readonly fields: readonly string[];
  readonly tablePrefixes: readonly string[];
}

/** The projects whose names are checked, by prefix (longest first is not needed: the prefixes are disjoint). */
export const ENV_PROJECTS = ["libfabric", "nixl", "vllm", "trtllm", "ucx"] as const;
export type EnvProject = (typeof ENV_PROJECTS)[number];

/** The verdict on one name. */
export type EnvVerdict =
  | { readonly checked: false }
  | { readonly checked: true; readonly read: true; readonly project: EnvProject }
  | {
      readonly checked: true;
      readonly read: false;
      readonly project: EnvProject;
      readonly reason: string;
      readonly suggestion?: string;
    };

interface Loaded {
  readonly project: EnvProject;
  readonly file: FactFile<NamedEnvFacts | UcxEnvFacts>;
  readonly names: ReadonlySet<string>;
}

let cache: Loaded[] | undefined;
function loaded(): Loaded[] {
  cache ??= ENV_PROJECTS.map((project) => {
    const file = loadFacts<NamedEnvFacts | UcxEnvFacts>(`env-${project}`);
    const names = "names" in file.facts ? new Set(Object.keys(file.facts.names)) : new Set<string>();
    return { project, file, names };
  });
  return cache;
}

/** Whether UCX reads `name`: UCX_ + a table prefix (or none) + a config field. */
function ucxReads(f: UcxEnvFacts, name: string): boolean {
  const rest = name.slice(f.prefix.length);
  const fields = new Set(f.fields);
  return fields.has(rest) || f.tablePrefixes.some((p) => rest.startsWith(p) && fields.has(rest.slice(p.length)));
}

/** The closest read name: one that extends `name`, else the nearest within 3 edits. */
function suggestion(name: string, names: ReadonlySet<string>): string | undefined {
  const all = [...names].sort();
  const longer = all.filter((n) => n.startsWith(`${name}_`)).sort((a, b) => a.length - b.length)[0];
  if (longer) return longer;
  const near = all
    .map((n) => [n, editDistance(name, n)] as const)
    .filter(([, d]) => d <= 3)
    .sort((a, b) => a[1] - b[1]);
  return near[0]?.[0];
}

/** Checks one name against the fact file of the project that owns its prefix. */
export function envVerdict(name: string): EnvVerdict {
  const hit = loaded().find((l) => name.startsWith(l.file.facts.prefix));
  if (!hit) return { checked: false };
  const f = hit.file.facts;
  const read = "fields" in f ? ucxReads(f, name) : hit.names.has(name);
  if (read) return { checked: true, read: true, project: hit.project };
  const p = hit.file.provenance;
  const deprecated = "deprecated" in f && f.deprecated?.includes(name) ? " (deprecated there)" : "";
  const near = "fields" in f ? undefined : suggestion(name, hit.names);
  const reason = `${p.repository} ${p.ref} (${p.commit.slice(0, 9)}) does not read ${name}${deprecated}`;
  return { checked: true, read: false, project: hit.project, reason, ...(near ? { suggestion: near } : {}) };
}

/** The prefixes checked, for messages. */
export function checkedPrefixes(): string[] {
  return loaded().map((l) => l.file.facts.prefix);
}
