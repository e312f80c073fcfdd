/**
 * Extracts the value keys of a Helm chart's values.yaml (the sections named on the command line) as
 * facts: every key path with the kind of its default, so a test can prove each value the project sets
 * exists in the pinned chart. Usage:
 *   npx tsx tests/contracts/extract/chart-values.ts <checkout> <chartDir> <repository> <ref> <commit> <extracted> [section ...] [--default=<key path> ...]
 * Writes the fact file JSON to stdout. `section` limits the output to those top-level keys (all when none);
 * each `--default` also records the default value at that key path.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";

/** Kind of a default value: a key below a non-empty map is listed itself. */
export type ValueKind = "map" | "emptyMap" | "list" | "scalar" | "null";

function kindOf(v: unknown): ValueKind {
  if (v === null || v === undefined) return "null";
  if (Array.isArray(v)) return "list";
  if (typeof v === "object") return Object.keys(v as object).length ? "map" : "emptyMap";
  return "scalar";
}

/** Every key path below `value` (dot-joined; keys containing dots are quoted) with its kind. */
export function keyPaths(value: unknown, prefix = ""): Record<string, ValueKind> {
  const out: Record<string, ValueKind> = {};
  if (!value || typeof value !== "object" || Array.isArray(value)) return out;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const p = prefix ? `${prefix}.${k.includes(".") ? JSON.stringify(k) : k}` : k;
    out[p] = kindOf(v);
    Object.assign(out, keyPaths(v, p));
  }
  return out;
}

function main(argv: string[]): void {
  const [checkout, chartDir, repository, ref, commit, extracted, ...rest] = argv;
  const sections = rest.filter((a) => !a.startsWith("--default="));
  const defaultPaths = rest.filter((a) => a.startsWith("--default=")).map((a) => a.slice("--default=".length));
  if (!checkout || !chartDir || !repository || !ref || !commit || !extracted) {
    process.stderr.write("usage: chart-values.ts <checkout> <chartDir> <repository> <ref> <commit> <extracted> [section ...]\n");
    process.exit(2);
  }
  const chart = parse(readFileSync(join(checkout, chartDir, "Chart.yaml"), "utf8")) as { name: string; version: string; appVersion?: string; dependencies?: { name: string; version: string; repository?: string }[] };
  const values = parse(readFileSync(join(checkout, chartDir, "values.yaml"), "utf8")) as Record<string, unknown>;
  const picked = sections.length ? Object.fromEntries(sections.filter((s) => s in values).map((s) => [s, values[s]])) : values;
  const facts = {
    provenance: {
      repository, ref, commit, paths: [`${chartDir}/Chart.yaml`, `${chartDir}/values.yaml`], extracted,
      extractor: `tests/contracts/extract/chart-values.ts <checkout> ${chartDir} ${repository} ${ref} ${commit} ${extracted}${rest.length ? ` ${rest.join(" ")}` : ""}`,
      notes: "Key paths of the chart's default values (only the top-level sections the project sets), each with the kind of its default; a key under a null, empty map or list default is free-form.",
    },
    facts: {
      chart: chart.name,
      version: chart.version,
      ...(chart.appVersion ? { appVersion: String(chart.appVersion) } : {}),
      ...(chart.dependencies ? { dependencies: Object.fromEntries(chart.dependencies.map((d) => [d.name, d.version])) } : {}),
      ...(defaultPaths.length ? { defaults: Object.fromEntries(defaultPaths.map((p) => [p, p.split(".").reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], values)])) } : {}),
      valueKeys: keyPaths(picked),
    },
  };
  process.stdout.write(`${JSON.stringify(facts, null, 2)}\n`);
}

if (require.main === module) main(process.argv.slice(2));
