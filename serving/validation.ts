/**
 * The serving estimate against published measurements (./validation-rows.ts): each set's accuracy, the validation
 * set's error bands per regime and quantity (the bias the plan corrects each number by, and the range it draws
 * around the model's value: serving/bands.json), and docs/SERVING.md's validation table, which shows every row's
 * published value, the model's value, the number the plan shows (bias-corrected) and its range.
 *
 * A tool: `npx tsx serving/validation.ts` writes serving/bands.json and docs/SERVING.md's validation table;
 * `--check` exits 1 when either is stale (tests/serving/validation.spec.ts holds them current).
 *
 * Errors: within +-30% is |shown / published - 1| <= 0.3; the symmetric error of a point is
 * |shown - published| / ((shown + published) / 2), which weighs an over- and an under-estimate by the same ratio alike.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { KvCacheDtype, modelFacts } from "../components/catalog/models";
import { Backend } from "../components/inference/args";
import { bandFor, corrected, ErrorBand, Load, MIN_POINTS, Quantity, regimeOf, ttftRegime } from "./errors";
import { decodeStepMs, H200_MEASUREMENTS } from "./worker-speed";
import { allRows, SETS, ValidationRow, ValidationSet, worker } from "./validation-rows";

export { allRows, SETS } from "./validation-rows";
export type { ValidationRow, ValidationSet } from "./validation-rows";

const estimated = (r: ValidationRow) => r.predicted !== null && r.predicted > 0;
/** Published / predicted. */
const ratio = (r: ValidationRow) => r.published / r.predicted!;
const r3 = (n: number) => Math.round(n * 1000) / 1000;
const QUANTITIES = ["throughput", "ttft", "itl", "gain"] as const satisfies readonly Quantity[];

/** The error bands of the validation rows, per regime and quantity: lowest and highest ratio, the mean bias. */
export function errorBands(rows: readonly ValidationRow[]): ErrorBand[] {
  const valid = rows.filter((r) => r.set === "validation" && estimated(r));
  const out: ErrorBand[] = [];
  for (const quantity of QUANTITIES) {
    const ofQ = valid.filter((r) => r.quantity === quantity);
    for (const regime of [...new Set(ofQ.map((r) => r.regime))].sort()) {
      const of = ofQ.filter((r) => r.regime === regime);
      out.push({
        regime,
        quantity,
        points: of.length,
        // Rounded outward, so that every validation point stays inside its own band.
        low: Math.floor(Math.min(...of.map(ratio)) * 1000) / 1000,
        high: Math.ceil(Math.max(...of.map(ratio)) * 1000) / 1000,
        bias: r3(Math.exp(of.reduce((s, r) => s + Math.log(ratio(r)), 0) / of.length)),
        meanAbsError: r3(of.reduce((s, r) => s + Math.abs(r.predicted! / r.published - 1), 0) / of.length),
      });
    }
  }
  return out;
}

/** A row as the plan would show it: the model's value corrected by its regime's band, and the band's range. */
export interface ShownRow extends ValidationRow {
  /** The bias-corrected prediction (the model's where the regime has no band); null without an estimate. */
  readonly shown: number | null;
  readonly range: readonly [number, number] | null;
}

/** Every row with what the plan would show for it, by the bands of `bands`. */
export function shownRows(rows: readonly ValidationRow[], bands: readonly ErrorBand[]): ShownRow[] {
  return rows.map((r) => {
    if (!estimated(r) || r.set === "calibration") return { ...r, shown: r.predicted, range: null };
    const b = bandFor(r.regime, r.quantity, bands);
    const range = b ? ([r.predicted! * b.low, r.predicted! * b.high] as const) : null;
    return { ...r, shown: corrected(r.predicted!, b), range };
  });
}

/** A set's accuracy, of the model's values and of the shown (bias-corrected) ones. */
export function summary(rows: readonly ShownRow[]) {
  const est = rows.filter((r) => r.shown !== null && r.shown > 0);
  const rel = (v: number, p: number) => Math.abs(v / p - 1);
  const sym = (v: number, p: number) => Math.abs(v - p) / ((v + p) / 2);
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  return {
    points: rows.length,
    noEstimate: rows.length - est.length,
    within30Model: est.filter((r) => rel(r.predicted!, r.published) <= 0.3).length,
    within30: est.filter((r) => rel(r.shown!, r.published) <= 0.3).length,
    meanError: mean(est.map((r) => rel(r.shown!, r.published))),
    meanSymmetricError: mean(est.map((r) => sym(r.shown!, r.published))),
    meanSymmetricErrorModel: mean(est.map((r) => sym(r.predicted!, r.published))),
    withRange: est.filter((r) => r.range !== null).length,
    publishedInRange: est.filter(
      (r) => r.range !== null && r.published >= r.range[0] - 1e-9 && r.published <= r.range[1] + 1e-9,
    ).length,
  };
}

/** Every row's setup, published value, model value, shown value and range, by the current validation bands. */
export function validationResults(raw: readonly ValidationRow[] = allRows()): Results {
  const bands = errorBands(raw);
  return { raw, rows: shownRows(raw, bands), bands };
}

/** The rows as the model gives them, as the plan would show them, and the validation bands. */
export interface Results {
  readonly raw: readonly ValidationRow[];
  readonly rows: ShownRow[];
  readonly bands: ErrorBand[];
}

const fmt = (n: number) => n.toFixed(Math.abs(n) >= 100 ? 0 : Math.abs(n) >= 10 ? 1 : 2);
const pct = (n: number) => `${(n * 100).toFixed(0)}%`;

/** The error of a row's shown value, relative to the published number; "no estimate" with the reason. */
export function errorOf(r: ShownRow): string {
  if (r.shown === null || r.shown <= 0) return `no estimate: ${r.why ?? "saturated"}`;
  return `${((r.shown / r.published - 1) * 100).toFixed(0)}%`;
}

/** The summary table of the sets. */
function summaryTable(rows: readonly ShownRow[]): string[] {
  const line = (set: ValidationSet) => {
    const s = summary(rows.filter((r) => r.set === set));
    return `| ${set} | ${s.points} | ${s.noEstimate} | ${s.within30Model} | ${s.within30} | ${pct(s.meanError)} | ${pct(s.meanSymmetricError)} | ${s.publishedInRange} of ${s.withRange} |`;
  };
  return [
    "| set | points | no estimate | within +-30% (model) | within +-30% (shown) | mean error | mean symmetric error | published inside the shown range |",
    "|---|---|---|---|---|---|---|---|",
    ...SETS.map(line),
  ];
}

/** The targets on a set: within +-30% on at least 85% of its points, mean symmetric error at most 20%. */
export const TARGETS = { within30Share: 0.85, meanSymmetricError: 0.2 } as const;

/** One sentence per set that has targets: how it stands against them. */
function targetsLines(rows: readonly ShownRow[]): string[] {
  return (["validation", "held-out"] as const).map((set) => {
    const s = summary(rows.filter((r) => r.set === set));
    const outside = rows.filter(
      (r) =>
        r.set === set && r.range && r.shown !== null && (r.shown < r.range[0] - 1e-9 || r.shown > r.range[1] + 1e-9),
    ).length;
    const met =
      s.noEstimate === 0 &&
      outside === 0 &&
      s.within30 >= TARGETS.within30Share * s.points &&
      s.meanSymmetricError <= TARGETS.meanSymmetricError;
    return `- **${set}**: within +-30% at ${s.within30} of ${s.points} points (${pct(s.within30 / s.points)}; target >= ${pct(TARGETS.within30Share)}), mean symmetric error ${pct(s.meanSymmetricError)} (target <= ${pct(TARGETS.meanSymmetricError)}), ${s.noEstimate} without an estimate, ${outside} shown numbers outside their own range; published inside the shown range at ${s.publishedInRange} of ${s.withRange} points with a range: ${met ? "targets met" : "TARGETS MISSED"}.`;
  });
}

/** The regimes the plan can be in, and the columns of the regimes table (TTFT by load). */
const REGIMES = [
  regimeOf({ moe: false, tp: 1 }),
  regimeOf({ moe: false, tp: 8 }),
  regimeOf({ moe: true, tp: 1 }),
  regimeOf({ moe: true, tp: 8 }),
];
const LOADS: readonly Load[] = ["1 in flight", "closed loop", "open loop"];
const COLUMNS: readonly { readonly label: string; readonly quantity: Quantity; readonly load?: Load }[] = [
  { label: "throughput", quantity: "throughput" },
  ...LOADS.map((load) => ({ label: `TTFT, ${load}`, quantity: "ttft" as const, load })),
  { label: "ITL", quantity: "itl" },
  { label: "gain", quantity: "gain" },
];

/** Which regime and quantity the plan can show with a range, and from how many validation (and held-out) points. */
function regimesTable(rows: readonly ShownRow[], bands: readonly ErrorBand[]): string[] {
  const cell = (regime: string, c: (typeof COLUMNS)[number]) => {
    const key = c.load ? ttftRegime(regime, c.load) : regime;
    const n = (set: ValidationSet) =>
      rows.filter((r) => r.set === set && r.quantity === c.quantity && r.regime === key).length;
    const b = bandFor(key, c.quantity, bands);
    const held = n("held-out") ? `; ${n("held-out")} held out` : "";
    return b
      ? `x${b.bias} (${b.low}-${b.high}), ${b.points} points${held}`
      : `not validated (${n("validation")} points${held})`;
  };
  return [
    `| regime | ${COLUMNS.map((c) => c.label).join(" | ")} |`,
    `|---|${COLUMNS.map(() => "---").join("|")}|`,
    ...REGIMES.map((regime) => `| ${regime} | ${COLUMNS.map((c) => cell(regime, c)).join(" | ")} |`),
  ];
}

/** The validation section of docs/SERVING.md: the summaries, the bands, then every row by set. */
export function validationTable(results: Results = validationResults()): string {
  const { rows, bands } = results;
  const span = (r: ShownRow) => (r.range ? `${fmt(r.range[0])} - ${fmt(r.range[1])}` : "not validated");
  const line = (r: ShownRow) =>
    `| ${r.set} | ${r.source} | ${r.setup} | ${r.label} | ${r.regime} | ${fmt(r.published)} | ${estimated(r) ? fmt(r.predicted!) : "-"} | ${r.shown !== null && r.shown > 0 ? fmt(r.shown) : "-"} | ${r.set === "calibration" ? "-" : span(r)} | ${errorOf(r)} |`;
  return [
    ...summaryTable(rows),
    "",
    "Against the targets (each set on its own; the held-out set shaped nothing):",
    "",
    ...targetsLines(rows),
    "",
    `What the plan can show with a range, by regime (the bias, the range of published / predicted, the validation points; fewer than ${MIN_POINTS}: "not validated", the model's own number and no range, never another regime's band):`,
    "",
    ...regimesTable(rows, bands),
    "",
    "Error bands of the validation set (published / predicted): the plan shows the model's value x bias, within the",
    'model\'s value x [low, high]; a regime and quantity with fewer than 3 points has no band ("not validated").',
    "",
    "| regime | quantity | points | bias | low - high | mean error (model) |",
    "|---|---|---|---|---|---|",
    ...bands.map(
      (b) =>
        `| ${b.regime} | ${b.quantity} | ${b.points} | ${b.bias} | ${b.low} - ${b.high} | ${pct(b.meanAbsError)} |`,
    ),
    "",
    "| set | source | setup | quantity | regime | published | model | shown | range | error (shown) |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...rows.map(line),
  ].join("\n");
}

const ROOT = path.join(__dirname, "..");
/** The files the tool writes. */
export const SERVING_MD = path.join(ROOT, "docs", "SERVING.md");
export const BANDS_JSON = path.join(ROOT, "serving", "bands.json");
const START =
  "<!-- serving-validation:start (generated by serving/validation.ts; npx tsx serving/validation.ts to refresh) -->";
const END = "<!-- serving-validation:end -->";

/** serving/bands.json as the validation rows make it. */
export function bandsJson(rows: readonly ValidationRow[] = allRows()): string {
  return `${JSON.stringify({ generatedBy: "serving/validation.ts", bands: errorBands(rows) }, null, 1)}\n`;
}

/** A number docs/SERVING.md states in its prose: `<!-- serving:NAME -->...<!-- /serving -->`, filled by this tool. */
export const SPAN = /<!-- serving:([a-z][\w.-]*) -->([^]*?)<!-- \/serving -->/g;

const ms2 = (n: number) => n.toFixed(1);

/** The prose's numbers, computed: the Llama-3.1-8B decode step on an H200 at batch 1, model and measured. */
export function spanValues(): Readonly<Record<string, string>> {
  const m8 = modelFacts("meta-llama/Llama-3.1-8B-Instruct")!;
  const w = { ...worker(m8, "p5en.48xlarge", 1, 131073, KvCacheDtype.Auto, Backend.Vllm), kvCapacityTokens: 1e9 };
  const measured = (c: number) =>
    H200_MEASUREMENTS.decodeStep.find(([wt, kv, b, ctx]) => wt === "bf16" && kv === "bf16" && b === 1 && ctx === c)![4];
  return {
    "decode-8b-1k": `${ms2(decodeStepMs(w, 1, 1024))} ms`,
    "decode-8b-64k": `${ms2(decodeStepMs(w, 1, 65536))} ms`,
    "decode-8b-64k-measured": `${ms2(measured(65536))}`,
    "decode-8b-128k": `${ms2(decodeStepMs(w, 1, 131072))} ms`,
    "decode-8b-128k-measured": `${ms2(measured(131072))}`,
  };
}

/** `text` with every span's content replaced by its value; throws naming an unknown name. */
export function fillSpans(text: string, values: Readonly<Record<string, string>> = spanValues()): string {
  return text.replace(SPAN, (_all, name: string) => {
    const v = values[name];
    if (v === undefined) throw new Error(`docs/SERVING.md: <!-- serving:${name} --> names no value of spanValues`);
    return `<!-- serving:${name} -->${v}<!-- /serving -->`;
  });
}

/**
 * `doc` (docs/SERVING.md) with its validation section and its prose's numbers regenerated; throws when the markers
 * are missing.
 */
export function servingMdWith(doc: string, results: Results = validationResults()): string {
  const i = doc.indexOf(START);
  const j = doc.indexOf(END);
  if (i < 0 || j < i) throw new Error(`docs/SERVING.md lacks the markers ${START} ... ${END}`);
  return fillSpans(`${doc.slice(0, i + START.length)}\n${validationTable(results)}\n${doc.slice(j)}`);
}

if (require.main === module) {
  const results = validationResults();
  const fresh: [string, string][] = [
    [BANDS_JSON, bandsJson(results.raw)],
    [SERVING_MD, servingMdWith(fs.readFileSync(SERVING_MD, "utf8"), results)],
  ];
  if (process.argv.includes("--check")) {
    const stale = fresh.filter(([f, text]) => !fs.existsSync(f) || fs.readFileSync(f, "utf8") !== text);
    for (const [f] of stale)
      process.stderr.write(`${path.relative(ROOT, f)} is stale: run npx tsx serving/validation.ts\n`);
    process.exit(stale.length ? 1 : 0);
  }
  for (const [f, text] of fresh) fs.writeFileSync(f, text);
}
