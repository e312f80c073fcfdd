/**
 * Checks Helm values the project sets against a pinned chart's value keys (facts/<chart>.json).
 * A key is known when the chart's values.yaml has it, or when it sits under a free-form default: a
 * null, empty map or list default, or a Kubernetes label/selector map (nodeSelector, labels, ...).
 */
export type ValueKind = "map" | "emptyMap" | "list" | "scalar" | "null";

/** Maps whose keys are user data in Kubernetes terms, whatever the chart's example default holds. */
const FREE_FORM_KEYS = new Set(["nodeSelector", "labels", "annotations", "additionalLabels", "podLabels", "matchLabels"]);

const seg = (k: string) => (k.includes(".") ? JSON.stringify(k) : k);

/** Paths of `values` (as `chart-values.ts` writes them) the chart does not define; empty when all exist. */
export function unknownValueKeys(values: unknown, keys: Readonly<Record<string, ValueKind>>, subcharts: Readonly<Record<string, Readonly<Record<string, ValueKind>>>> = {}, prefix = ""): string[] {
  if (!values || typeof values !== "object" || Array.isArray(values)) return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(values as Record<string, unknown>)) {
    if (!prefix && subcharts[k]) {
      out.push(...unknownValueKeys(v, subcharts[k]!).map((p) => `${k}.${p}`));
      continue;
    }
    const p = prefix ? `${prefix}.${seg(k)}` : seg(k);
    const kind = keys[p];
    if (kind === undefined) out.push(p);
    else if (kind === "map" && !FREE_FORM_KEYS.has(k)) out.push(...unknownValueKeys(v, keys, {}, p));
  }
  return out;
}
