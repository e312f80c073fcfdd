/**
 * Checks Helm values against the keys a chart reads (facts/chart-<chart>.json): a key the chart never reads
 * is silently ignored by Helm, so a typo or a key from another chart version deploys the chart's default.
 */
import type { ChartFacts } from "./extract/helm-values";

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** The closest known key with the same parent, for "did you mean". */
function nearest(path: string, keys: readonly string[]): string | undefined {
  const parent = path.includes(".") ? path.slice(0, path.lastIndexOf(".") + 1) : "";
  const leaf = path.slice(parent.length).toLowerCase();
  const siblings = keys.filter((k) => k.startsWith(parent) && !k.slice(parent.length).includes("."));
  return siblings.find((k) => k.slice(parent.length).toLowerCase() === leaf)
    ?? siblings.find((k) => { const s = k.slice(parent.length).toLowerCase(); return s.includes(leaf) || leaf.includes(s); });
}

/** Problems of `values` (set for chart `f`), one per key the chart does not read. */
export function unknownValueKeys(f: ChartFacts, values: unknown, at = ""): string[] {
  if (!isMap(values)) return [];
  const keys = new Set(f.keys);
  return Object.entries(values).flatMap(([k, v]) => {
    const p = at ? `${at}.${k}` : k;
    if (!at && f.opaque.includes(k)) return [];
    if (!keys.has(p)) {
      const near = nearest(p, f.keys);
      return [`${p}: ${f.chart} ${f.version} reads no such key${near ? `; did you mean ${near}?` : ""}`];
    }
    if (f.freeForm.includes(p) || !isMap(v)) return [];
    const hasChildren = f.keys.some((x) => x.startsWith(`${p}.`));
    return hasChildren ? unknownValueKeys(f, v, p) : [`${p}: ${f.chart} ${f.version} reads it as one value, not a map of keys`];
  });
}
