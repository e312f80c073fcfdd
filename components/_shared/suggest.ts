/**
 * "Did you mean ...?" for closed choices: instance types, arch tokens, enum values. Pure.
 */
import { Problem, show } from "./problems";

/**
 * Edit distance with adjacent transpositions (optimal string alignment): insert, delete, substitute and swapping two
 * neighbours all cost 1, so "modle" is one edit from "model", as a typist would count it.
 */
export function editDistance(a: string, b: string): number {
  let [before, prev] = [[] as number[], Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j], before[j - 2] + 1);
    }
    [before, prev] = [prev, row];
  }
  return prev[b.length];
}

/**
 * The known names nearest to `input` (case-insensitive): only those at the smallest edit distance
 * found, and only when that distance is small for the input's length (1 edit per 4 characters, at
 * least 1), so unrelated names are never offered. At most `max`, sorted by name.
 */
export function closest(input: string, known: readonly string[], max = 3): string[] {
  const needle = input.toLowerCase();
  const limit = Math.max(1, Math.floor((needle.length - 1) / 4));
  const scored = known
    .map((name) => ({ name, d: editDistance(needle, name.toLowerCase()) }))
    .filter((c) => c.d <= limit);
  const best = Math.min(...scored.map((c) => c.d));
  return scored
    .filter((c) => c.d === best)
    .map((c) => c.name)
    .sort()
    .slice(0, max);
}

/** `; did you mean "x"?` (or `"x" or "y"`), or "" when nothing is close. */
export function didYouMean(input: string, known: readonly string[]): string {
  const near = closest(input, known);
  if (near.length === 0) return "";
  return `; did you mean ${near.map((n) => JSON.stringify(n)).join(" or ")}?`;
}

/** `one of "a", "b", "c"` for an error message. */
export function oneOf(known: readonly string[]): string {
  return `one of ${known.map((k) => JSON.stringify(k)).join(", ")}`;
}

/** The problem with an optional closed-choice value (`undefined` = not given, fine), with "did you mean". */
export function checkChoice(path: string, value: unknown, allowed: readonly string[]): Problem[] {
  if (value === undefined || (typeof value === "string" && allowed.includes(value))) return [];
  const dym = typeof value === "string" ? didYouMean(value, allowed) : "";
  return [{ propertyPath: path, reason: `must be ${oneOf(allowed)}; got ${show(value)}${dym}` }];
}
