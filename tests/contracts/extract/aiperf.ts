/**
 * Extracts what `npm run measure` relies on in AIPerf (ai-dynamo/aiperf) from a checkout at the commit we pin:
 *   npx tsx tests/contracts/extract/aiperf.ts <checkout> --ref <ref> [--commit <sha>] [--notes <text>]
 * - `pyproject.toml`: the package version;
 * - `aiperf/common/config/*.py`: every CLI flag (`CLIParameter(name=(...))`);
 * - `aiperf/common/config/config_defaults.py`: the export file names;
 * - `aiperf/common/models/export_models.py`: the summary JSON's top-level fields and each metric's stat keys;
 * - `aiperf/metrics/types/*.py` + `aiperf/common/enums/metric_enums.py`: each metric's tag and the unit the export
 *   writes it in (its display unit, else its unit: `convert_all_metrics_to_display_units` in the JSON exporter);
 * - `aiperf/controller/kubernetes_service_manager.py`: whether AIPerf's own Kubernetes mode runs;
 * - `Dockerfile`: the stage that installs AIPerf and its entrypoint.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { checkoutArgs, printFacts } from "./_checkout";

const read = (root: string, p: string) => readFileSync(join(root, p), "utf8");

/** Every `--flag` named in a `CLIParameter(name=(...))` of the config modules. */
function cliFlags(root: string): string[] {
  const dir = "aiperf/common/config";
  const out = new Set<string>();
  for (const f of readdirSync(join(root, dir)).filter((n) => n.endsWith(".py"))) {
    for (const m of read(root, `${dir}/${f}`).matchAll(/name=\(([^)]*)\)/g))
      for (const s of m[1]!.matchAll(/"(--[a-z0-9-]+)"/g)) out.add(s[1]!);
  }
  return [...out].sort();
}

/** `NAME = Path("file")` constants of OutputDefaults. */
function exportFiles(root: string): Record<string, string> {
  const src = read(root, "aiperf/common/config/config_defaults.py");
  const pick = (name: string) => {
    const m = new RegExp(`${name} = Path\\("([^"]+)"\\)`).exec(src);
    if (!m) throw new Error(`${name} not found in config_defaults.py`);
    return m[1]!;
  };
  return { summaryJson: pick("PROFILE_EXPORT_AIPERF_JSON_FILE"), summaryCsv: pick("PROFILE_EXPORT_AIPERF_CSV_FILE") };
}

/** The field names of a pydantic class body: `name: Type = ...` lines at class indentation. */
function classFields(src: string, cls: string): string[] {
  const start = src.indexOf(`class ${cls}(`);
  if (start < 0) throw new Error(`class ${cls} not found`);
  const body = src.slice(start).split("\n").slice(1);
  const out: string[] = [];
  for (const line of body) {
    if (/^\S/.test(line)) break;
    const m = /^ {4}([a-z_0-9]+): /.exec(line);
    if (m && m[1] !== "model_config") out.push(m[1]!);
  }
  return out;
}

/** Unit tags of metric_enums.py: `NAME = MetricTimeUnitInfo(tag="ms"...)`, `_unit("requests")`, and the over-time units. */
function unitTags(src: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of src.matchAll(/ {4}([A-Z_]+) = MetricTimeUnitInfo\(\s*tag="([^"]+)"/g))
    out[`MetricTimeUnit.${m[1]}`] = m[2]!;
  for (const m of src.matchAll(/ {4}([A-Z_]+) = _unit\("([^"]+)"\)/g)) out[`GenericMetricUnit.${m[1]}`] = m[2]!;
  for (const m of src.matchAll(/ {4}([A-Z_]+) = MetricOverTimeUnitInfo\(([^)]*)\)/g)) {
    const arg = (k: string) => new RegExp(`${k}=([A-Za-z]+\\.[A-Z_]+)`).exec(m[2]!)?.[1];
    const parts = [arg("primary_unit"), arg("time_unit"), arg("third_unit")].filter((x): x is string => !!x);
    out[`MetricOverTimeUnit.${m[1]}`] = parts.map((p) => out[p] ?? p).join("/");
  }
  return out;
}

/** `tag -> unit written to the export` for the metrics the report reads. */
function metricUnits(root: string, tags: readonly string[]): Record<string, string> {
  const units = unitTags(read(root, "aiperf/common/enums/metric_enums.py"));
  const dir = "aiperf/metrics/types";
  const out: Record<string, string> = {};
  for (const f of readdirSync(join(root, dir)).filter((n) => n.endsWith(".py"))) {
    const src = read(root, `${dir}/${f}`);
    for (const block of src.split(/\nclass /).slice(1)) {
      const tag = /\n {4}tag = "([a-z_0-9]+)"/.exec(block)?.[1];
      if (!tag || !tags.includes(tag)) continue;
      const unit =
        /\n {4}display_unit = ([A-Za-z]+\.[A-Z_]+)/.exec(block)?.[1] ??
        /\n {4}unit = ([A-Za-z]+\.[A-Z_]+)/.exec(block)?.[1];
      if (!unit || !units[unit]) throw new Error(`metric ${tag}: unit ${unit} not resolved`);
      out[tag] = units[unit];
    }
  }
  for (const t of tags) if (!out[t]) throw new Error(`metric ${t} not found under ${dir}`);
  return out;
}

/** The tags `tools/measure/aiperf-export.ts` reads. */
export const READ_TAGS = [
  "time_to_first_token",
  "inter_token_latency",
  "request_latency",
  "request_throughput",
  "output_token_throughput",
  "goodput",
  "request_count",
  "error_request_count",
  "benchmark_duration",
] as const;

export function extract(root: string): Record<string, unknown> {
  const pyproject = read(root, "pyproject.toml");
  const exportModels = read(root, "aiperf/common/models/export_models.py");
  const k8s = read(root, "aiperf/controller/kubernetes_service_manager.py");
  const docker = read(root, "Dockerfile");
  return {
    version: /\nversion = "([^"]+)"/.exec(pyproject)?.[1],
    cliFlags: cliFlags(root),
    exportFiles: exportFiles(root),
    summaryFields: classFields(exportModels, "JsonExportData"),
    statKeys: classFields(exportModels, "JsonMetricResult"),
    metricUnits: metricUnits(root, READ_TAGS),
    kubernetesServiceManagerImplemented: !/raise NotImplementedError/.test(k8s),
    dockerfile: {
      installStage: /\nFROM \S+ AS (final)\b/.exec(docker)?.[1],
      base: /^FROM (\S+) AS base/m.exec(docker)?.[1],
      // The final stage's own ENTRYPOINT (the local-dev stage above it has another).
      entrypoint: JSON.parse(
        /\nENTRYPOINT (\[[^\]]*\])/.exec(docker.slice(docker.search(/\nFROM \S+ AS final\b/)))?.[1] ?? "null",
      ),
    },
  };
}

/** What the extractor reads, for the provenance block. */
const PATHS = [
  "pyproject.toml",
  "aiperf/common/config/",
  "aiperf/common/config/config_defaults.py",
  "aiperf/common/models/export_models.py",
  "aiperf/metrics/types/",
  "aiperf/common/enums/metric_enums.py",
  "aiperf/controller/kubernetes_service_manager.py",
  "Dockerfile",
];

if (require.main === module) {
  const a = checkoutArgs(process.argv.slice(2), "npx tsx tests/contracts/extract/aiperf.ts");
  printFacts(
    {
      repository: "ai-dynamo/aiperf",
      ref: a.ref,
      commit: a.commit,
      paths: PATHS,
      extracted: new Date().toISOString().slice(0, 10),
      extractor: `tests/contracts/extract/aiperf.ts <checkout> --ref ${a.ref} --commit ${a.commit}`,
      ...(a.notes ? { notes: a.notes } : {}),
    },
    extract(a.root),
  );
}
