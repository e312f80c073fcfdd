/**
 * Checks a rendered Kubernetes object against the Kubernetes API's own types, as @kubernetes/client-node generates them
 * from the API's OpenAPI document (each model class's `getAttributeTypeMap()`: every field's JSON name and type): a
 * field the API does not have (a typo, a field at the wrong level), or a value of the wrong JSON type, is a problem
 * named by its path. What the API server would drop silently (an unknown field under a lenient decoder) or refuse
 * (a string where an integer goes) is caught here, offline. Required fields and value ranges are not checked.
 */
import * as k8s from "@kubernetes/client-node";

/** apiVersion/kind -> the client's model class of the objects the project renders. */
const MODELS: Readonly<Record<string, string>> = {
  "v1/Namespace": "V1Namespace",
  "v1/ConfigMap": "V1ConfigMap",
  "v1/Secret": "V1Secret",
  "v1/Service": "V1Service",
  "v1/PersistentVolumeClaim": "V1PersistentVolumeClaim",
  "apps/v1/DaemonSet": "V1DaemonSet",
  "batch/v1/Job": "V1Job",
  "networking.k8s.io/v1/NetworkPolicy": "V1NetworkPolicy",
  "storage.k8s.io/v1/StorageClass": "V1StorageClass",
};

interface Attribute {
  readonly baseName: string;
  readonly type: string;
}
type Model = { getAttributeTypeMap(): Attribute[] };

function model(type: string): Model | undefined {
  const m = (k8s as unknown as Record<string, unknown>)[type] as Partial<Model> | undefined;
  return typeof m?.getAttributeTypeMap === "function" ? (m as Model) : undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Every problem of `value` read as the client type `type`, each named by its path. */
function walk(value: unknown, type: string, at: string): string[] {
  if (value === undefined || type === "any") return [];
  const bad = (what: string) => [`${at}: ${what}, got ${JSON.stringify(value)?.slice(0, 80)}`];
  const array = /^Array<(.+)>$/.exec(type);
  if (array) return Array.isArray(value) ? value.flatMap((v, i) => walk(v, array[1], `${at}[${i}]`)) : bad("a list");
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map)
    return isObject(value) ? Object.entries(value).flatMap(([k, v]) => walk(v, map[1], `${at}.${k}`)) : bad("a map");
  switch (type) {
    case "string":
    case "Date":
      return typeof value === "string" ? [] : bad("a string");
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? [] : bad("a number");
    case "boolean":
      return typeof value === "boolean" ? [] : bad("true or false");
    case "IntOrString":
      return typeof value === "string" || Number.isInteger(value) ? [] : bad("an integer or a string");
  }
  const m = model(type);
  if (!m) return [`${at}: the client has no type ${type}`];
  if (!isObject(value)) return bad(`an object (${type})`);
  const fields = new Map(m.getAttributeTypeMap().map((a) => [a.baseName, a.type]));
  return Object.entries(value).flatMap(([k, v]) => {
    const t = fields.get(k);
    return t === undefined ? [`${at}.${k}: not a field of ${type}`] : walk(v, t, `${at}.${k}`);
  });
}

/** The problems of one rendered object (its kind must be one the project renders). */
export function shapeProblems(obj: { apiVersion: string; kind: string; metadata?: { name?: string } }): string[] {
  const type = MODELS[`${obj.apiVersion}/${obj.kind}`];
  const name = `${obj.kind} ${obj.metadata?.name ?? "?"}`;
  if (!type) return [`${name}: ${obj.apiVersion}/${obj.kind} is not a kind this check knows`];
  return walk(JSON.parse(JSON.stringify(obj)), type, name);
}
