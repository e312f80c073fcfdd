/**
 * Checks Helm values against the keys a chart reads (facts/chart-<chart>.json): a key the chart never reads
 * is silently ignored by Helm, so a typo or a key from another chart version deploys the chart's default.
 * A dependency the chart fetches from a repository (kube-prometheus-stack's grafana, ...) is checked through
 * its own facts file when there is one (`withSubcharts`), since Helm hands `<alias>.*` values to it.
 */
import * as fs from "fs";
import * as path from "path";
import type { ChartFacts } from "./extract/helm-values";
import { FactFile, loadFacts } from "./facts";
import { isRecord } from "./json";

/** facts/chart-<chart>.json, or undefined when there is none. */
export const chartFactFile = (chart: string): FactFile<ChartFacts> | undefined =>
  fs.existsSync(path.join(__dirname, "facts", `chart-${chart}.json`))
    ? loadFacts<ChartFacts>(`chart-${chart}`)
    : undefined;

/**
 * Whether `version` satisfies a Chart.yaml dependency version that is exact or has `*`/`x` wildcard parts
 * (a last one matches the rest: `0.12.*` takes 0.12.3). A range (`>=1.0`, `~1.2`) is never satisfied, so
 * such a dependency stays opaque with a problem that names it.
 */
export function versionSatisfies(constraint: string, version: string): boolean {
  const want = constraint.replace(/^v/, "").split(".");
  const have = version.replace(/^v/, "").split(".");
  for (const [i, w] of want.entries()) {
    if (w === "*" || w === "x") {
      if (i === want.length - 1) return true;
      continue;
    }
    if (w !== have[i]) return false;
  }
  return want.length === have.length;
}

/** A key path of subchart `alias` as the parent's values name it (`global` is shared, not nested). */
const under = (alias: string, k: string) => (k === "global" || k.startsWith("global.") ? k : `${alias}.${k}`);

/**
 * `f` with each fetched dependency that has a facts file merged in under its alias, recursively: its keys and
 * free-form keys join the parent's, and it is no longer opaque. A dependency without facts stays opaque;
 * one whose facts are of another version than the parent depends on is a problem (and stays opaque).
 * Defaults stay the parent's own.
 */
export function withSubcharts(
  f: ChartFacts,
  load: (chart: string) => ChartFacts | undefined = (c) => chartFactFile(c)?.facts,
): { facts: ChartFacts; problems: string[] } {
  const keys = new Set(f.keys);
  const free = new Set(f.freeForm);
  const opaque = new Set(f.opaque);
  const problems: string[] = [];
  for (const [alias, dep] of Object.entries(f.dependencies ?? {})) {
    const found = load(dep.chart);
    if (!found) continue;
    if (!versionSatisfies(dep.version, found.version)) {
      problems.push(
        `${alias}: ${f.chart} ${f.version} depends on ${dep.chart} ${dep.version}, facts/chart-${dep.chart}.json is of ${found.version}; re-extract it`,
      );
      continue;
    }
    const sub = withSubcharts(found, load);
    problems.push(...sub.problems.map((p) => `${alias}.${p}`));
    sub.facts.keys.forEach((k) => keys.add(under(alias, k)));
    sub.facts.freeForm.forEach((k) => free.add(under(alias, k)));
    opaque.delete(alias);
    sub.facts.opaque.forEach((k) => opaque.add(under(alias, k)));
  }
  const dependencies = Object.fromEntries(Object.entries(f.dependencies ?? {}).filter(([a]) => opaque.has(a)));
  return {
    facts: { ...f, keys: [...keys].sort(), freeForm: [...free].sort(), opaque: [...opaque].sort(), dependencies },
    problems,
  };
}

/** The closest known key with the same parent, for "did you mean". */
function nearest(path: string, keys: readonly string[]): string | undefined {
  const parent = path.includes(".") ? path.slice(0, path.lastIndexOf(".") + 1) : "";
  const leaf = path.slice(parent.length).toLowerCase();
  const siblings = keys.filter((k) => k.startsWith(parent) && !k.slice(parent.length).includes("."));
  return (
    siblings.find((k) => k.slice(parent.length).toLowerCase() === leaf) ??
    siblings.find((k) => {
      const s = k.slice(parent.length).toLowerCase();
      return s.includes(leaf) || leaf.includes(s);
    })
  );
}

/** Problems of `values` (set for chart `f`, subcharts merged: `withSubcharts`), one per key the chart does not read. */
export function unknownValueKeys(f: ChartFacts, values: unknown, at = ""): string[] {
  if (!isRecord(values)) return [];
  const keys = new Set(f.keys);
  return Object.entries(values).flatMap(([k, v]) => {
    const p = at ? `${at}.${k}` : k;
    if (f.opaque.includes(p)) return [];
    if (!keys.has(p)) {
      const near = nearest(p, f.keys);
      return [`${p}: ${f.chart} ${f.version} reads no such key${near ? `; did you mean ${near}?` : ""}`];
    }
    if (f.freeForm.includes(p) || !isRecord(v)) return [];
    const hasChildren = f.keys.some((x) => x.startsWith(`${p}.`));
    return hasChildren
      ? unknownValueKeys(f, v, p)
      : [`${p}: ${f.chart} ${f.version} reads it as one value, not a map of keys`];
  });
}
