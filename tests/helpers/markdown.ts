/**
 * Just enough Markdown for the docs tests: GitHub's heading anchors, the links of a file outside code,
 * and the rows of a pipe table. Pure; no Markdown library (the docs use a small, regular subset).
 */

/** Lines outside fenced code blocks, with their 1-based line numbers. */
export function proseLines(md: string): { readonly line: number; readonly text: string }[] {
  const out: { line: number; text: string }[] = [];
  let fence: string | undefined;
  md.split("\n").forEach((text, i) => {
    const open = /^\s*(`{3,}|~{3,})/.exec(text);
    if (open) {
      if (!fence) fence = open[1][0];
      else if (open[1][0] === fence) fence = undefined;
      return;
    }
    if (!fence) out.push({ line: i + 1, text });
  });
  return out;
}

/**
 * GitHub's anchor for a heading (github-slugger): the rendered text lower-cased, every character that
 * is not a letter, mark, number, connector (`_`), hyphen or space dropped, spaces turned into hyphens.
 */
export function githubSlug(heading: string): string {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/`([^`]*)`/g, "$1")
    .replace(/(\*\*|__)(.+?)\1/g, "$2")
    .replace(/(^|\W)[*_](.+?)[*_](?=\W|$)/g, "$1$2")
    .replace(/<[^>]+>/g, "");
  return rendered
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
    .replace(/ /g, "-");
}

/** Every anchor a file defines: its headings (a repeated slug gets -1, -2, ...) and explicit `<a id|name>`. */
export function anchorsOf(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const { text } of proseLines(md)) {
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (h) {
      const base = githubSlug(h[1]);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      out.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const a of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(a[1]);
  }
  return out;
}

/** A link of a Markdown file: its target as written and the line it is on. */
export interface MdLink {
  readonly line: number;
  readonly target: string;
}

/** Inline links and images (`[t](x)`, `![t](x)`) and reference definitions (`[t]: x`), outside code. */
export function linksOf(md: string): MdLink[] {
  const out: MdLink[] = [];
  for (const { line, text } of proseLines(md)) {
    const prose = text.replace(/(`+)[\s\S]*?\1/g, "");
    for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ line, target: m[1] });
    const def = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(prose);
    if (def) out.push({ line, target: def[1] });
  }
  return out;
}

/** The body rows of the first pipe table after `## <section>`, as trimmed cells. */
export function sectionTable(md: string, section: string): string[][] {
  const lines = md.split("\n");
  const start = lines.findIndex((l) => l.trim() === `## ${section}`);
  if (start < 0) return [];
  const rows: string[][] = [];
  for (const l of lines.slice(start + 1)) {
    if (/^#{1,2}\s/.test(l)) break;
    if (!l.startsWith("|")) {
      if (rows.length > 0) break;
      continue;
    }
    rows.push(
      l
        .replace(/^\||\|$/g, "")
        .split(/(?<!\\)\|/)
        .map((c) => c.trim()),
    );
  }
  return rows.slice(2);
}
