/**
 * Extracts the structural schema of `resource.k8s.io/v1` ResourceClaimTemplate (what the graph writes) from kubernetes/api's
 * Go types, `resource/v1/types.go`, at the tag of one Kubernetes minor (`v0.<minor>.<patch>` = Kubernetes
 * 1.<minor>.<patch>): every field by its JSON name, its type, the required fields, the enums, the list limits. The
 * OpenAPI the API server serves is generated from the same types by the same rules: a field is required when it is
 * marked `+required`, or has neither `omitempty` nor `+optional`; a `string` type with typed constants is an enum.
 *
 *   npx tsx tests/contracts/extract/k8s-resource-v1.ts <kubernetes/api checkout> --ref v0.34.10 [--commit <sha>] \
 *     > tests/contracts/facts/k8s-resource-v1-1.34.json
 *
 * The facts hold the projection tests/contracts/crd-validate.ts reads (FieldNode), so a rendered claim template is
 * validated the way a CRD instance is: unknown fields, wrong types, values outside an enum, missing required fields.
 */
import { checkoutArgs, matcher, printFacts, readText, today, withNotes } from "./_checkout";
import type { FieldNode } from "./dgd-crd";

const PATH = "resource/v1/types.go";
const must = matcher("k8s-resource-v1");

/** One field of a Go struct, as its JSON. */
interface GoField {
  readonly json: string;
  readonly type: string;
  readonly inline: boolean;
  readonly required: boolean;
}

/** Every struct of the file: its fields (comments read for `+optional` / `+required`). */
export function structs(text: string): Map<string, GoField[]> {
  const out = new Map<string, GoField[]>();
  for (const m of text.matchAll(/^type (\w+) struct \{\n([\s\S]*?)^\}/gm)) {
    const fields: GoField[] = [];
    let comments: string[] = [];
    for (const line of m[2].split("\n")) {
      const t = line.trim();
      if (t.startsWith("//")) {
        comments.push(t);
        continue;
      }
      const f = /^(?:(\w+)\s+)?([\w.*[\]]+)\s+`json:"([^"]*)"/.exec(t);
      if (f) {
        const [name, ...opts] = f[3].split(",");
        const marked = (k: string) => comments.some((c) => c === `// +${k}` || c.startsWith(`// +${k} `));
        fields.push({
          json: name,
          type: f[2],
          inline: opts.includes("inline"),
          required:
            marked("required") || (!opts.includes("omitempty") && !marked("optional") && !opts.includes("inline")),
        });
      }
      if (t === "" || f) comments = [];
    }
    out.set(m[1], fields);
  }
  return out;
}

/** String types with typed constants (`X = T("a")` or `X T = "a"`): their values. */
export function enums(text: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const m of text.matchAll(/^type (\w+) string$/gm)) {
    const name = m[1];
    const values = [
      ...[...text.matchAll(new RegExp(`=\\s*${name}\\("([^"]+)"\\)`, "g"))].map((x) => x[1]),
      ...[...text.matchAll(new RegExp(`\\w+\\s+${name}\\s*=\\s*"([^"]+)"`, "g"))].map((x) => x[1]),
    ];
    out[name] = [...new Set(values)];
  }
  return out;
}

/** The schema node of a Go type (the file's own structs and string types; apimachinery's by what they serialize to). */
function node(type: string, all: Map<string, GoField[]>, en: Record<string, string[]>, seen: string[]): FieldNode {
  if (type.startsWith("*")) return node(type.slice(1), all, en, seen);
  if (type.startsWith("[]")) return { t: "array", i: node(type.slice(2), all, en, seen) };
  const map = /^map\[\w+\](.+)$/.exec(type);
  if (map) return { t: "object", a: node(map[1], all, en, seen) };
  if (type === "string") return { t: "string" };
  if (/^u?int(32|64)?$/.test(type)) return { t: "integer" };
  if (type === "bool") return { t: "boolean" };
  if (type === "resource.Quantity") return { t: "int-or-string" };
  if (type === "metav1.Time") return { t: "string" };
  if (type === "metav1.ObjectMeta" || type === "runtime.RawExtension") return { t: "object", u: true };
  if (en[type]) return en[type].length > 0 ? { t: "string", e: en[type] } : { t: "string" };
  const fields = all.get(type);
  if (!fields || seen.includes(type)) return { u: true };
  const props: Record<string, FieldNode> = {};
  const required: string[] = [];
  for (const f of fields) {
    if (f.inline) {
      const inner = node(f.type, all, en, [...seen, type]);
      Object.assign(props, inner.p ?? {});
      required.push(...(inner.q ?? []));
      continue;
    }
    props[f.json] = node(f.type, all, en, [...seen, type]);
    if (f.required) required.push(f.json);
  }
  return { t: "object", p: props, ...(required.length > 0 ? { q: required } : {}) };
}

/** The facts of one kubernetes/api tag: the kinds the project writes or reads, enums and list limits. */
export function extract(text: string) {
  const all = structs(text);
  const en = enums(text);
  const kind = (name: string) => {
    const n = node(name, all, en, []);
    // TypeMeta is inline: apiVersion and kind are the object's own.
    return { ...n, p: { apiVersion: { t: "string" }, kind: { t: "string" }, ...n.p } } as FieldNode;
  };
  const limit = (name: string) => Number(must(new RegExp(`\\b${name}\\s*=\\s*(\\d+)`), text, name)[1]);
  return {
    group: "resource.k8s.io",
    version: "v1",
    kinds: { ResourceClaimTemplate: kind("ResourceClaimTemplate") },
    enums: { DeviceAllocationMode: en.DeviceAllocationMode ?? [] },
    limits: {
      deviceRequests: limit("AllocationResultsMaxSize"),
      deviceConstraints: limit("DeviceConstraintsMaxSize"),
    },
  };
}

if (require.main === module) {
  const usage = "npx tsx tests/contracts/extract/k8s-resource-v1.ts";
  const args = checkoutArgs(process.argv.slice(2), usage);
  const minor = must(/^v0\.(\d+)\./, args.ref, "a kubernetes/api tag v0.<minor>.<patch>")[1];
  const facts = { kubernetes: `1.${minor}`, ...extract(readText(args.root, PATH)) };
  printFacts(
    {
      repository: "kubernetes/api",
      ref: args.ref,
      commit: args.commit,
      paths: [PATH],
      extracted: today(),
      extractor: "tests/contracts/extract/k8s-resource-v1.ts",
      notes: withNotes(
        `kubernetes/api ${args.ref} is the published k8s.io/api of Kubernetes 1.${minor}.${args.ref.split(".")[2]}; resource/v1 (DRA) is GA from 1.34.`,
        args,
      ),
    },
    facts,
  );
}
