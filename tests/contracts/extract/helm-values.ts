/**
 * Extracts the value keys a Helm chart reads, from a checkout holding the chart's source:
 *
 *   npx tsx tests/contracts/extract/helm-values.ts <checkout> --chart <dir> [--sub <alias>=<dir> ...] \
 *     [--default <key path> ...] --repository <owner/name> --ref <tag> [--commit <sha>] > tests/contracts/facts/chart-<name>.json
 *
 * A key is known when the chart's values.yaml has it or a template reads it (`.Values.a.b`; every prefix of a
 * read path is known too). A key is free-form -- any keys below it pass through -- when a template renders it
 * whole (`toYaml .Values.x`, `.Values.x | toYaml`, or `with .Values.x` ... `toYaml .`), or its default is an
 * empty map. Subcharts vendored as folders (`--sub`) are read the same way under their alias; dependencies
 * fetched from a repository are listed as opaque with the chart and version they name: a dependency with its
 * own facts/chart-<chart>.json (extracted from its own checkout) is checked through it
 * (tests/contracts/helm-contract.ts `withSubcharts`), any other is not checked. Each `--default <key path>` also
 * records the chart's default value there (values.yaml), for a test that relies on a default.
 */
import YAML from "yaml";
import { checkoutArgs, withNotes, filesUnder, printFacts, readText, today } from "./_checkout";
import { at, isRecord } from "../json";

export interface ChartFacts {
  readonly chart: string;
  readonly version: string;
  /** Every key path the chart knows, dot-joined. */
  readonly keys: readonly string[];
  /** Key paths below which any key is accepted. */
  readonly freeForm: readonly string[];
  /** Key paths of dependencies not vendored in the checkout (top-level in a fact file). */
  readonly opaque: readonly string[];
  /** The chart and version constraint of each opaque dependency, by alias (Chart.yaml `dependencies`). */
  readonly dependencies?: Readonly<Record<string, ChartDependency>>;
  /** Default values at the key paths named with `--default`. */
  readonly defaults?: Readonly<Record<string, unknown>>;
}

/** A dependency fetched from a chart repository at package time. */
export interface ChartDependency {
  readonly chart: string;
  readonly version: string;
}

function defaults(v: unknown, at: string, keys: Set<string>, free: Set<string>): void {
  if (!isRecord(v)) return;
  if (at && Object.keys(v).length === 0) free.add(at);
  for (const [k, x] of Object.entries(v)) {
    const p = at ? `${at}.${k}` : k;
    keys.add(p);
    defaults(x, p, keys, free);
  }
}

function templateReads(text: string, prefix: string, keys: Set<string>, free: Set<string>): void {
  const path = "([A-Za-z_]\\w*(?:\\.[A-Za-z_]\\w*)*)";
  const name = (p: string) => (p.startsWith("global.") || p === "global" || !prefix ? p : `${prefix}.${p}`);
  for (const m of text.matchAll(new RegExp(`\\$?\\.Values\\.${path}`, "g"))) {
    const parts = name(m[1]).split(".");
    for (let i = 1; i <= parts.length; i++) keys.add(parts.slice(0, i).join("."));
  }
  for (const re of [
    new RegExp(`toYaml\\s+\\(?\\s*\\$?\\.Values\\.${path}`, "g"),
    new RegExp(`\\$?\\.Values\\.${path}\\s*\\|\\s*toYaml`, "g"),
  ]) {
    for (const m of text.matchAll(re)) free.add(name(m[1]));
  }
  for (const m of text.matchAll(
    new RegExp(`\\{\\{-?\\s*with\\s+\\$?\\.Values\\.${path}\\s*-?\\}\\}([\\s\\S]*?)\\{\\{-?\\s*end`, "g"),
  )) {
    if (/toYaml\s+\.(\s|\||\))/.test(m[2])) free.add(name(m[1]));
  }
}

const readValues = (root: string, dir: string): Record<string, unknown> =>
  YAML.parse(readText(root, `${dir}/values.yaml`)) ?? {};

/** The parts of a chart's Chart.yaml the facts name. */
interface ChartYaml {
  readonly name: string;
  readonly version: unknown;
  readonly dependencies?: readonly { readonly name: string; readonly alias?: string; readonly version?: unknown }[];
}

function readChart(root: string, dir: string, prefix: string, keys: Set<string>, free: Set<string>): ChartYaml {
  const values = readValues(root, dir);
  defaults(prefix ? { [prefix]: values } : values, "", keys, free);
  for (const f of filesUnder(root, `${dir}/templates`, /\.(ya?ml|tpl|txt)$/))
    templateReads(readText(root, f), prefix, keys, free);
  return YAML.parse(readText(root, `${dir}/Chart.yaml`));
}

/** The default at each of `paths` in the chart's values.yaml; a path it does not hold is an error. */
function defaultsAt(root: string, dir: string, paths: readonly string[]): Record<string, unknown> {
  const values = readValues(root, dir);
  return Object.fromEntries(
    paths.map((p) => {
      const v = at(values, ...p.split("."));
      if (v === undefined) throw new Error(`--default ${p}: ${dir}/values.yaml has no such key`);
      return [p, v];
    }),
  );
}

/** The facts of the chart in `dir`, with vendored subcharts `subs` (alias -> dir), and the defaults at `defaultPaths`. */
export function extractChart(
  root: string,
  dir: string,
  subs: Readonly<Record<string, string>> = {},
  defaultPaths: readonly string[] = [],
): ChartFacts {
  const keys = new Set<string>();
  const free = new Set<string>();
  const chart = readChart(root, dir, "", keys, free);
  for (const [alias, sub] of Object.entries(subs)) readChart(root, sub, alias, keys, free);
  const fetched = (chart.dependencies ?? []).filter((d) => !((d.alias ?? d.name) in subs));
  const dependencies = Object.fromEntries(
    fetched
      .map((d) => [d.alias ?? d.name, { chart: d.name, version: String(d.version ?? "") }] as const)
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
  const opaque = Object.keys(dependencies);
  for (const o of opaque) keys.add(o);
  return {
    chart: chart.name,
    version: String(chart.version),
    keys: [...keys].sort(),
    freeForm: [...free].filter((f) => keys.has(f)).sort(),
    opaque,
    ...(opaque.length ? { dependencies } : {}),
    ...(defaultPaths.length ? { defaults: defaultsAt(root, dir, defaultPaths) } : {}),
  };
}

function main(): void {
  const argv = process.argv.slice(2);
  const flag = (n: string) => {
    const i = argv.indexOf(n);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const repeated = (n: string) => argv.filter((_, i) => argv[i - 1] === n);
  const subs = Object.fromEntries(repeated("--sub").map((a) => a.split("=") as [string, string]));
  const defaultPaths = repeated("--default");
  const chartDir = flag("--chart");
  const repository = flag("--repository");
  if (!chartDir || !repository) {
    process.stderr.write(
      "usage: helm-values.ts <checkout> --chart <dir> [--sub alias=dir ...] [--default <key path> ...] --repository <owner/name> --ref <tag> [--commit <sha>]\n",
    );
    process.exit(2);
  }
  const args = checkoutArgs(argv, "helm-values.ts");
  const facts = extractChart(args.root, chartDir, subs, defaultPaths);
  printFacts(
    {
      repository,
      ref: args.ref,
      commit: args.commit,
      paths: [chartDir, ...Object.values(subs)],
      extracted: today(),
      extractor: `tests/contracts/extract/helm-values.ts --chart ${chartDir}${Object.entries(subs)
        .map(([a, d]) => ` --sub ${a}=${d}`)
        .join("")}${defaultPaths.map((p) => ` --default ${p}`).join("")}`,
      notes: withNotes(
        `${facts.chart} ${facts.version}: ${facts.keys.length} keys, ${facts.freeForm.length} free-form.`,
        args,
      ),
    },
    facts,
  );
}

if (require.main === module) main();
