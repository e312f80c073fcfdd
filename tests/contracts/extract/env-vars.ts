/**
 * Extracts the environment variable names an upstream project reads, from a checkout of it:
 *
 *   npx tsx tests/contracts/extract/env-vars.ts <project> <checkout> --ref <tag> [--commit <sha>] \
 *     > tests/contracts/facts/env-<project>.json
 *
 * <project> is libfabric, nixl, vllm, trtllm or ucx. What counts as "read" per project (each rule is how
 * that project's own code turns a name into a getenv call):
 * - libfabric: `fi_param_define(<prov>, "<name>", ...)` is read as FI_<PROVNAME>_<NAME> (core: FI_<NAME>),
 *   upper-cased (src/var.c); the provider's name comes from its `struct fi_provider <var> = { .name = ... }`.
 *   Names listed in a `*deprecated_env_vars[]` array are recorded as deprecated, not read.
 * - nixl, vllm, trtllm: getenv-style calls with a literal name, or with a constant defined as a literal in the
 *   scanned files (C/C++ `getenv`/`get*Env`, Python `os.getenv`/`os.environ`, Rust `env::var`), and the keys
 *   and TYPE_CHECKING annotations of vLLM's `envs.py` registry.
 * - ucx: UCX builds names at runtime as UCX_<table prefix><field name> (src/ucs/config/parser.c), so the fact
 *   holds the field names of every `ucs_config_field_t` table and every table prefix; a name is read when it
 *   splits into UCX_ + a prefix (or none) + a field name. A superset of the exact pairs, which still rejects
 *   every misspelled field.
 */
import { checkoutArgs, withNotes, filesUnder, printFacts, readText, sortedRecord, today } from "./_checkout";

const NAME = "[A-Z][A-Z0-9_]*";

interface Project {
  readonly repository: string;
  /** Files or folders scanned (relative to the checkout). */
  readonly roots: readonly string[];
  readonly extract: (root: string, files: readonly string[]) => unknown;
  readonly notes: string;
}

const SOURCE = /\.(c|cc|cpp|h|hpp|py|rs)$/;
const isTest = (f: string) => /(^|\/)(tests?|unittest|examples?)(\/|$)/.test(f);

/** name -> files that read it. */
function addRead(m: Map<string, Set<string>>, name: string, file: string): void {
  if (!m.has(name)) m.set(name, new Set());
  m.get(name)!.add(file);
}
const asRecord = (m: Map<string, Set<string>>) => sortedRecord(new Map([...m].map(([k, v]) => [k, [...v].sort()])));

/** Literal constants (`X[] = "NAME"`, `X = "NAME"`, `constexpr std::string_view X = "NAME"`) of the scanned files. */
function constants(root: string, files: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const re = new RegExp(
    `\\b([A-Za-z_][A-Za-z0-9_]*)\\s*(?:\\[\\s*\\])?\\s*(?::\\s*[A-Za-z_.\\[\\]]+\\s*)?=\\s*"(${NAME})"`,
    "g",
  );
  for (const f of files) for (const m of readText(root, f).matchAll(re)) out.set(m[1], m[2]);
  return out;
}

/** Generic getenv-style reads, for C/C++, Python and Rust. */
function genericReads(root: string, files: readonly string[]): Map<string, Set<string>> {
  const consts = constants(root, files);
  const reads = new Map<string, Set<string>>();
  const literal = [
    new RegExp(`\\b\\w*(?:getenv|Env)\\s*\\(\\s*"(${NAME})"`, "gi"), // C/C++ getenv("X"), getBoolEnv("X")
    new RegExp(`os\\.(?:getenv|environ\\.get|environ\\.setdefault)\\(\\s*["'](${NAME})["']`, "g"), // Python
    new RegExp(`os\\.environ\\[\\s*["'](${NAME})["']\\s*\\]`, "g"),
    new RegExp(`["'](${NAME})["']\\s+(?:not\\s+)?in\\s+os\\.environ`, "g"),
    new RegExp(`\\benv(?:::|\\.)var(?:_os)?\\(\\s*"(${NAME})"`, "g"), // Rust env::var("X")
    new RegExp(`\\b(?:option_)?env!\\(\\s*"(${NAME})"`, "g"),
  ];
  const viaConst = /\b\w*(?:getenv|Env)\s*\(\s*([A-Za-z_][A-Za-z0-9_]*)(?:\.data\(\)|\.c_str\(\))?\s*[,)]/gi;
  for (const f of files) {
    const text = readText(root, f);
    for (const re of literal) for (const m of text.matchAll(re)) addRead(reads, m[1], f);
    for (const m of text.matchAll(viaConst)) {
      const v = consts.get(m[1]);
      if (v) addRead(reads, v, f);
    }
  }
  return reads;
}

/** vLLM's registry: `"NAME": lambda ...` keys and `NAME: type = default` under `if TYPE_CHECKING:`. */
function vllmRegistry(root: string, files: readonly string[], reads: Map<string, Set<string>>): void {
  for (const f of files) {
    const text = readText(root, f);
    for (const m of text.matchAll(
      new RegExp(`^\\s*["'](${NAME})["']\\s*:\\s*(?:\\n\\s*)?(?:lambda|get_|env_|_get)`, "gm"),
    ))
      addRead(reads, m[1], f);
    const block = /^if TYPE_CHECKING:\n((?:[ \t]+.*\n|\n)*)/m.exec(text);
    if (block) for (const m of block[1].matchAll(new RegExp(`^[ \\t]+(${NAME})\\s*:`, "gm"))) addRead(reads, m[1], f);
  }
}

function libfabric(root: string, files: readonly string[]) {
  const provNames = new Map<string, string>();
  const texts = files.map((f) => [f, readText(root, f)] as const);
  for (const [, t] of texts) {
    for (const m of t.matchAll(/struct\s+fi_provider\s+(\w+)\s*=\s*\{[^}]*?\.name\s*=\s*"([a-z0-9_]+)"/gs))
      provNames.set(`&${m[1]}`, m[2]);
  }
  const reads = new Map<string, Set<string>>();
  const deprecated = new Set<string>();
  const unresolved = new Set<string>();
  for (const [f, t] of texts) {
    for (const m of t.matchAll(/fi_param_define\(\s*([^,]+?)\s*,\s*"([a-zA-Z0-9_]+)"/g)) {
      const prov = m[1] === "NULL" ? "" : provNames.get(m[1]);
      if (prov === undefined) {
        unresolved.add(`${f}: ${m[1]}`);
        continue;
      }
      addRead(reads, `FI_${prov ? `${prov}_` : ""}${m[2]}`.toUpperCase(), f);
    }
    for (const m of t.matchAll(/getenv\(\s*"(FI_[A-Z0-9_]+)"/g)) addRead(reads, m[1], f);
    for (const m of t.matchAll(/\w*deprecated_env_vars\[\]\s*=\s*\{([^}]*)\}/g))
      for (const n of m[1].matchAll(/"([A-Z0-9_]+)"/g)) deprecated.add(n[1]);
  }
  for (const u of unresolved) process.stderr.write(`skipped fi_param_define with unresolved provider ${u}\n`);
  for (const d of deprecated) reads.delete(d);
  return { prefix: "FI_", names: asRecord(reads), deprecated: [...deprecated].sort() };
}

function ucx(root: string, files: readonly string[]) {
  const fields = new Set<string>();
  const prefixes = new Set<string>();
  for (const f of files) {
    const t = readText(root, f);
    for (const table of t.matchAll(/ucs_config_field_t\s+\w+\s*\[\]\s*=\s*\{([\s\S]*?)\n\s*\{\s*NULL\s*\}/g)) {
      for (const m of table[1].matchAll(/\{\s*"~?([A-Z][A-Z0-9_]*)"\s*,/g)) fields.add(m[1]);
    }
    for (const m of t.matchAll(/"([A-Z][A-Z0-9_]*_)"/g)) prefixes.add(m[1]);
  }
  prefixes.delete("UCX_"); // the env prefix itself, not a table prefix
  return { prefix: "UCX_", fields: [...fields].sort(), tablePrefixes: [...prefixes].sort() };
}

function generic(prefix: string, vllm = false) {
  return (root: string, files: readonly string[]) => {
    const reads = genericReads(root, files);
    if (vllm) vllmRegistry(root, files, reads);
    return { prefix, names: asRecord(new Map([...reads].filter(([k]) => k.startsWith(prefix)))) };
  };
}

const PROJECTS: Record<string, Project> = {
  libfabric: {
    repository: "ofiwg/libfabric",
    roots: ["src", "prov/efa/src", "prov/shm/src", "prov/util/src"],
    extract: libfabric,
    notes: "EFA provider, its shm peer provider, util and core (FI_PROVIDER, FI_HMEM_*, FI_LOG_*).",
  },
  nixl: {
    repository: "ai-dynamo/nixl",
    roots: ["src"],
    extract: generic("NIXL_"),
    notes: "NIXL core, plugins (LIBFABRIC, UCX, ...), Python and Rust bindings.",
  },
  vllm: {
    repository: "vllm-project/vllm",
    roots: ["vllm/envs.py"],
    extract: generic("VLLM_", true),
    notes: "vLLM's environment registry vllm/envs.py.",
  },
  trtllm: {
    repository: "NVIDIA/TensorRT-LLM",
    roots: [
      "cpp/tensorrt_llm/common/envUtils.cpp",
      "cpp/tensorrt_llm/executor/cache_transmission",
      "cpp/tensorrt_llm/batch_manager",
      "tensorrt_llm/_torch/disaggregation",
      "tensorrt_llm/_torch/pyexecutor/kv_cache_transceiver.py",
    ],
    extract: generic("TRTLLM_"),
    notes: "TRT-LLM's env helpers and its KV-cache transceiver (NIXL/UCX/MPI) paths.",
  },
  ucx: {
    repository: "openucx/ucx",
    roots: ["src/ucs", "src/uct", "src/ucp"],
    extract: ucx,
    notes: "UCX config tables (ucs/uct/ucp).",
  },
};

/** The facts of `project` from the checkout at `root` (what the CLI prints under "facts"). */
export function extractEnv(project: string, root: string): unknown {
  const p = PROJECTS[project];
  if (!p) throw new Error(`unknown project ${JSON.stringify(project)}; one of ${Object.keys(PROJECTS).join(", ")}`);
  return p.extract(
    root,
    p.roots.flatMap((r) => filesUnder(root, r, SOURCE)).filter((f) => !isTest(f)),
  );
}

function main(): void {
  const [project, ...rest] = process.argv.slice(2);
  const p = PROJECTS[project];
  if (!p) {
    process.stderr.write(`unknown project ${JSON.stringify(project)}; one of ${Object.keys(PROJECTS).join(", ")}\n`);
    process.exit(2);
  }
  const args = checkoutArgs(rest, `env-vars.ts ${project}`);
  const files = p.roots.flatMap((r) => filesUnder(args.root, r, SOURCE)).filter((f) => !isTest(f));
  if (files.length === 0) {
    process.stderr.write(`no source files under ${p.roots.join(", ")} in ${args.root}\n`);
    process.exit(1);
  }
  printFacts(
    {
      repository: p.repository,
      ref: args.ref,
      commit: args.commit,
      paths: [...p.roots],
      extracted: today(),
      extractor: `tests/contracts/extract/env-vars.ts ${project}`,
      notes: withNotes(p.notes, args),
    },
    p.extract(args.root, files),
  );
}

if (require.main === module) main();
