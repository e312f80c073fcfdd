/**
 * `--policy-config FILE`: the pack config JSON (`pulumi preview --policy-pack-config` shape), checked
 * against the pack itself: every key is `all` or a policy of the pack, every level
 * is one of Pulumi's four, every setting is a property of that policy's `configSchema` with the
 * schema's type. A typo must never switch a gate off silently.
 */
import type { Policies, PolicyConfigSchema } from "@pulumi/policy";
import type { Problem } from "../../../components/_shared/problems";
import { didYouMean, oneOf } from "../../../components/_shared/suggest";
import type { PolicyPackConfigJson } from "../../../policy/policies";
import { clip, readUserFile, UsageError } from "../../_shared/input";

/** Pulumi's enforcement levels (`@pulumi/policy` `EnforcementLevel`). */
export const LEVELS: readonly string[] = ["advisory", "mandatory", "remediate", "disabled"];

const show = (v: unknown) => clip(JSON.stringify(v) ?? String(v));

function levelProblem(at: string, v: unknown): Problem[] {
  if (typeof v === "string" && LEVELS.includes(v)) return [];
  return [
    {
      propertyPath: at,
      reason: `must be ${oneOf(LEVELS)}; got ${show(v)}${typeof v === "string" ? didYouMean(v, LEVELS) : ""}`,
    },
  ];
}

/** Whether `v` has the JSON-schema `type` (the subset the pack's `schemaFor` emits). */
function hasType(v: unknown, type: unknown): boolean {
  switch (type) {
    case "integer":
      return typeof v === "number" && Number.isInteger(v);
    case "number":
      return typeof v === "number" && Number.isFinite(v);
    case "boolean":
    case "string":
      return typeof v === type;
    case "array":
      return Array.isArray(v);
    case "object":
      return typeof v === "object" && v !== null && !Array.isArray(v);
    default:
      return true;
  }
}

function settingProblems(name: string, o: Record<string, unknown>, schema: PolicyConfigSchema | undefined): Problem[] {
  const props = schema?.properties ?? {};
  const known = Object.keys(props);
  const out: Problem[] = [];
  for (const [k, v] of Object.entries(o)) {
    const at = `${name}.${clip(k, 60)}`;
    if (k === "enforcementLevel") out.push(...levelProblem(at, v));
    else if (!(k in props))
      out.push({
        propertyPath: at,
        reason: `not a setting of ${name}${didYouMean(k, known) || (known.length ? `; its settings: ${known.join(", ")}` : "; it has no settings, only enforcementLevel")}`,
      });
    else if (!hasType(v, (props[k] as { type?: unknown }).type))
      out.push({
        propertyPath: at,
        reason: `must be of type ${String((props[k] as { type?: unknown }).type)}; got ${show(v)}`,
      });
  }
  return out;
}

/** Every problem of a parsed pack config against `policies`. */
export function policyConfigProblems(config: unknown, policies: Policies): Problem[] {
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    return [
      { propertyPath: "(file)", reason: "must be a JSON object of policy name to enforcement level or settings" },
    ];
  }
  const byName = new Map(policies.map((p) => [p.name, p] as const));
  const names = [...byName.keys()];
  const out: Problem[] = [];
  for (const [name, v] of Object.entries(config as Record<string, unknown>)) {
    const policy = byName.get(name);
    if (name === "all") out.push(...levelProblem("all", v));
    else if (!policy)
      out.push({
        propertyPath: clip(name, 60),
        reason: `not a policy of the pack${didYouMean(name, names) || "; see policy/README.md for the names"}`,
      });
    else if (typeof v === "string") out.push(...levelProblem(name, v));
    else if (typeof v === "object" && v !== null && !Array.isArray(v))
      out.push(...settingProblems(name, v as Record<string, unknown>, policy.configSchema));
    else
      out.push({
        propertyPath: name,
        reason: `must be an enforcement level (${oneOf(LEVELS)}) or an object of settings; got ${show(v)}`,
      });
  }
  return out;
}

/** A `--policy-config` file's problems, reported as one usage error. */
export class PolicyConfigError extends UsageError {
  constructor(
    file: string,
    readonly problems: readonly Problem[],
  ) {
    super(
      [
        `--policy-config ${file}: ${problems.length} problem${problems.length === 1 ? "" : "s"}`,
        ...problems.map((p) => `  - ${p.propertyPath}: ${p.reason}`),
      ].join("\n"),
    );
  }
}

/** Reads and checks a policy pack config file against `policies`; throws `UsageError`. */
export function readPolicyConfig(file: string, policies: Policies): PolicyPackConfigJson {
  const text = readUserFile(file, "--policy-config file");
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`--policy-config ${file} is not valid JSON: ${clip((e as Error).message)}`);
  }
  const problems = policyConfigProblems(v, policies);
  if (problems.length > 0) throw new PolicyConfigError(file, problems);
  return v as PolicyPackConfigJson;
}
