/**
 * Which environment variables the pinned upstream projects read, for the `no-noop-nixl-env` policy (and the
 * env-var contract test, which checks the project's own settings with it). A name under a checked prefix (FI_,
 * NIXL_, VLLM_, TRTLLM_, UCX_) that its project does not read at the pinned version does nothing when set.
 *
 * The facts are data beside the other upstream facts, tests/contracts/facts/env-<project>.json (extracted with
 * their provenance; tests/contracts/README.md), read here with `fs`: the policy pack runs in place from the
 * checkout, so one copy of the facts serves both and no derived table can drift from them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { editDistance } from "../../components/_shared/suggest";
import { packageRoot } from "../../components/_shared/package-root";

/** The folder of the extracted upstream facts (the root found by its files: the render may run bundled). */
const FACTS_DIR = join(packageRoot(__dirname), "tests", "contracts", "facts");

/** The projects whose names are checked (their prefixes are disjoint). */
export const ENV_PROJECTS = ["libfabric", "nixl", "vllm", "trtllm", "ucx"] as const;
export type EnvProject = (typeof ENV_PROJECTS)[number];

/** The part of a fact file's provenance a verdict cites. */
interface Source {
  readonly repository: string;
  readonly ref: string;
  readonly commit: string;
}

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
  readonly source: Source;
  readonly facts: NamedEnvFacts | UcxEnvFacts;
  readonly names: ReadonlySet<string>;
}

/** The path of a project's fact file (the contract test checks its whole provenance block). */
export function envFactsPath(project: EnvProject): string {
  return join(FACTS_DIR, `env-${project}.json`);
}

/** One fact file; throws naming it when the fields a verdict reads are missing (a broken extraction). */
function load(project: EnvProject): Loaded {
  const file = envFactsPath(project);
  const parsed = JSON.parse(readFileSync(file, "utf8")) as {
    provenance?: Partial<Source>;
    facts?: Partial<NamedEnvFacts & UcxEnvFacts>;
  };
  const { provenance: p, facts: f } = parsed;
  if (typeof p?.repository !== "string" || typeof p.ref !== "string" || typeof p.commit !== "string")
    throw new Error(`${file}: provenance needs repository, ref and commit`);
  if (typeof f?.prefix !== "string" || !(f.names !== undefined || (f.fields && f.tablePrefixes)))
    throw new Error(`${file}: facts need a prefix and either names or fields and tablePrefixes`);
  const facts = f as NamedEnvFacts | UcxEnvFacts;
  const names = "names" in facts ? new Set(Object.keys(facts.names)) : new Set<string>();
  return { project, source: { repository: p.repository, ref: p.ref, commit: p.commit }, facts, names };
}

let cache: Loaded[] | undefined;
function loaded(): Loaded[] {
  cache ??= ENV_PROJECTS.map(load);
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
  const hit = loaded().find((l) => name.startsWith(l.facts.prefix));
  if (!hit) return { checked: false };
  const f = hit.facts;
  const read = "fields" in f ? ucxReads(f, name) : hit.names.has(name);
  if (read) return { checked: true, read: true, project: hit.project };
  const p = hit.source;
  const deprecated = "deprecated" in f && f.deprecated?.includes(name) ? " (deprecated there)" : "";
  const near = "fields" in f ? undefined : suggestion(name, hit.names);
  const reason = `${p.repository} ${p.ref} (${p.commit.slice(0, 9)}) does not read ${name}${deprecated}`;
  return { checked: true, read: false, project: hit.project, reason, ...(near ? { suggestion: near } : {}) };
}
