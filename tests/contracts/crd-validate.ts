/**
 * Structural validation of an object against a CRD field tree (facts/dgd-crd.json), the way the API server
 * treats a custom resource: a field the schema does not name is pruned (silently dropped) unless a map or
 * x-kubernetes-preserve-unknown-fields keeps it; a wrong type, a value outside an enum, or a missing required
 * field is rejected. Patterns, formats and CEL rules are not checked.
 */
import type { FieldNode } from "./extract/dgd-crd";
import { isRecord } from "./json";

const show = (v: unknown) => JSON.stringify(v);

function typeProblem(t: FieldNode["t"], v: unknown): string | undefined {
  const ok =
    t === undefined
      ? true
      : t === "object"
        ? v !== null && typeof v === "object" && !Array.isArray(v)
        : t === "array"
          ? Array.isArray(v)
          : t === "string"
            ? typeof v === "string"
            : t === "integer"
              ? Number.isInteger(v)
              : t === "number"
                ? typeof v === "number"
                : t === "boolean"
                  ? typeof v === "boolean"
                  : Number.isInteger(v) || typeof v === "string"; // int-or-string
  return ok
    ? undefined
    : `expected ${t}, got ${Array.isArray(v) ? "array" : v === null ? "null" : typeof v} ${show(v)}`;
}

/** Problems of `value` at `path` against `node`; empty when the API server would store it unchanged. */
export function structuralProblems(node: FieldNode, value: unknown, path: string): string[] {
  const wrong = typeProblem(node.t, value);
  if (wrong) return [`${path}: ${wrong}`];
  const out: string[] = [];
  if (node.e && !node.e.includes(value as string)) out.push(`${path}: ${show(value)} is not one of ${show(node.e)}`);
  if (Array.isArray(value)) {
    if (node.i) value.forEach((x, k) => out.push(...structuralProblems(node.i!, x, `${path}[${k}]`)));
    return out;
  }
  if (value === null || typeof value !== "object") return out;
  const obj = value as Record<string, unknown>;
  for (const r of node.q ?? []) if (!(r in obj)) out.push(`${path}: required field ${r} is missing`);
  for (const [k, v] of Object.entries(obj)) {
    const at = path ? `${path}.${k}` : k;
    const known = node.p?.[k];
    if (known) out.push(...structuralProblems(known, v, at));
    else if (node.a) {
      if (node.a !== true) out.push(...structuralProblems(node.a, v, at));
    } else if (node.u || (node.r && ["apiVersion", "kind", "metadata"].includes(k))) continue;
    else
      out.push(
        `${at}: unknown field; the API server prunes it (known: ${Object.keys(node.p ?? {}).join(", ") || "none"})`,
      );
  }
  return out;
}

/** Problems of a whole custom resource: apiVersion/kind as given, metadata is ObjectMeta (not in the schema). */
export function crdProblems(
  facts: { group: string; kind: string; version: string; schema: FieldNode },
  obj: unknown,
): string[] {
  const out: string[] = [];
  const { metadata: _m, ...rest } = isRecord(obj) ? obj : {};
  if (rest.apiVersion !== `${facts.group}/${facts.version}`)
    out.push(`apiVersion: ${show(rest.apiVersion)} is not ${facts.group}/${facts.version}`);
  if (rest.kind !== facts.kind) out.push(`kind: ${show(rest.kind)} is not ${facts.kind}`);
  return [
    ...out,
    ...structuralProblems(
      { ...facts.schema, p: { ...facts.schema.p, metadata: { t: "object", u: true } } },
      { metadata: {}, ...rest },
      "",
    ),
  ];
}
