/**
 * Extracts Dynamo's ledger of breaking changes (docs/fern/pages/reference/general/releases/deprecations.mdx, mirrored
 * verbatim from the GitHub release notes; each release's count published in docs/fern/components/releases.data.ts
 * `RELEASE_STATS`): every Behavioral, Removed and Deprecated entry of every release section, with its badge, bold
 * title and PR numbers. Carryover reminders ("The following warnings from vX still apply") restate an earlier
 * release's entries and are not counted (the page's own counting rule), so they are skipped.
 *
 * The project's decision on each entry (whether it touches what this package renders or runs, what was decided, and
 * the test that holds it) is kept beside the extracted fields: `--merge <existing fact file>` carries the decisions
 * over by entry id, so a re-extraction keeps them and a new entry arrives without one (which the spec refuses).
 * Usage: npx tsx tests/contracts/extract/dynamo-release-ledger.ts <ai-dynamo/dynamo checkout> --ref <ref>
 *        [--commit <sha>] [--merge tests/contracts/facts/dynamo-release-ledger.json] [--notes <text>]
 */
import { existsSync, readFileSync } from "node:fs";
import { checkoutArgs, dynamoProvenance, matcher, printFacts, readText } from "./_checkout";

export const PATHS = {
  ledger: "docs/fern/pages/reference/general/releases/deprecations.mdx",
  stats: "docs/fern/components/releases.data.ts",
} as const;

const must = matcher("dynamo-release-ledger");

/** One entry as the page states it. */
export interface LedgerEntry {
  readonly id: string;
  readonly version: string;
  readonly badge: "Behavioral" | "Removed" | "Deprecated";
  readonly title: string;
  readonly prs: readonly number[];
}

/** The project's decision on an entry (merged, never extracted). */
export interface LedgerDecision {
  readonly touches: readonly string[] | null;
  readonly decision: string | null;
  readonly test?: string;
}

/** A section's release: `## v1.5.0 — ...`, an Accordion titled `v1.2.0 — ...`, or `## Unreleased`. */
const SECTION = /^(?:## (v\d+\.\d+\.\d+|Unreleased)\b|<Accordion title=\{`(v\d+\.\d+\.\d+) )/gm;
const BADGE = /<span className="dynref-badge dynref-badge--\w+">(Behavioral|Removed|Deprecated)<\/span>/g;

/** A stable id from the release and the first words of the title. */
export function entryId(version: string, title: string): string {
  const words = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim()
    .split(" ")
    .slice(0, 9);
  return `${version}:${words.join("-")}`;
}

/** Every entry of the page, release by release, in page order. */
export function entries(mdx: string): LedgerEntry[] {
  const sections = [...mdx.matchAll(SECTION)].map((m) => ({ at: m.index!, version: (m[1] ?? m[2]).replace(/^v/, "") }));
  const out: LedgerEntry[] = [];
  sections.forEach((s, i) => {
    const body = mdx.slice(s.at, sections[i + 1]?.at ?? mdx.length);
    const badges = [...body.matchAll(BADGE)];
    badges.forEach((b, j) => {
      const text = body.slice(b.index! + b[0].length, badges[j + 1]?.index ?? body.length).split("> **Migrate:**")[0];
      if (/^\s*The following warnings from v/.test(text)) return; // a carryover reminder
      const title = /^\s*\*\*([\s\S]+?)\*\*/.exec(text);
      if (!title) return; // a table of renames with no title of its own (v1.0.0 only)
      const clean = title[1].replace(/\s+/g, " ").replace(/:$/, "").trim();
      out.push({
        id: entryId(s.version, clean),
        version: s.version,
        badge: b[1] as LedgerEntry["badge"],
        title: clean,
        prs: [...new Set([...text.matchAll(/\[#(\d+)\]/g)].map((m) => Number(m[1])))],
      });
    });
  });
  const ids = out.map((e) => e.id);
  const dup = ids.find((x, i) => ids.indexOf(x) !== i);
  if (dup) throw new Error(`dynamo-release-ledger extractor: two entries share the id ${dup}`);
  return out;
}

/** `RELEASE_STATS[v].breaking` of releases.data.ts: the number of entries each release's section holds. */
export function publishedCounts(stats: string): Record<string, number> {
  const block = must(/export const RELEASE_STATS[^=]*=\s*\{([\s\S]*?)\n\};/, stats, "RELEASE_STATS")[1];
  return Object.fromEntries(
    [...block.matchAll(/"v(\d+\.\d+\.\d+)":\s*\{[^}]*\bbreaking:\s*(\d+)/g)].map((m) => [m[1], Number(m[2])]),
  );
}

/** The facts: the entries (with any decisions of `merged`) and the published counts. */
export function extract(root: string, merged?: Record<string, LedgerDecision>) {
  const list = entries(readText(root, PATHS.ledger)).map((e) => {
    const d = merged?.[e.id];
    return { ...e, touches: d?.touches ?? null, decision: d?.decision ?? null, ...(d?.test ? { test: d.test } : {}) };
  });
  return { publishedCounts: publishedCounts(readText(root, PATHS.stats)), entries: list };
}

if (require.main === module) {
  const argv = process.argv.slice(2);
  const mi = argv.indexOf("--merge");
  const mergeFile = mi >= 0 ? argv[mi + 1] : undefined;
  const rest = mi >= 0 ? [...argv.slice(0, mi), ...argv.slice(mi + 2)] : argv;
  const a = checkoutArgs(rest, "dynamo-release-ledger.ts");
  const previous =
    mergeFile && existsSync(mergeFile)
      ? (JSON.parse(readFileSync(mergeFile, "utf8")) as { facts: { entries: (LedgerEntry & LedgerDecision)[] } })
      : undefined;
  const merged = previous
    ? Object.fromEntries(previous.facts.entries.map((e) => [e.id, e as LedgerDecision]))
    : undefined;
  const previousFacts = previous?.facts as Record<string, unknown> | undefined;
  printFacts(
    dynamoProvenance(a, PATHS, "dynamo-release-ledger.ts"),
    // The range, what could not be read, and the rows read in release notes where the page could not be read are the
    // project's statement; they are carried over like the decisions.
    {
      ...(previousFacts?.range ? { range: previousFacts.range } : {}),
      ...extract(a.root, merged),
      ...(previousFacts?.releaseNoteEntries ? { releaseNoteEntries: previousFacts.releaseNoteEntries } : {}),
    },
  );
}
