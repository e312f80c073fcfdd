/**
 * Small builders shared by the rule modules: a resource policy over a set of type strings, and the
 * DGD-specific variant. Keeps every rule file to its checks.
 */
import type {
  ReportViolation,
  ResourceValidationArgs,
  ResourceValidationPolicy,
  PolicyConfigSchema,
  EnforcementLevel,
} from "@pulumi/policy";
import { ResourceType } from "./_predicates";

/** What a rule module declares for one resource policy. */
export interface ResourceRule<C extends object> {
  /** Kebab-case policy name. */
  readonly name: string;
  /** One sentence. */
  readonly description: string;
  /** Default enforcement (the pack default is mandatory). */
  readonly enforcementLevel?: EnforcementLevel;
  /** Type strings the policy applies to. */
  readonly types: readonly string[];
  /** Config defaults; each becomes a schema property with this default. */
  readonly defaults: C;
  /** JSON-schema types of the config properties (inferred from the defaults when omitted). */
  readonly schema?: PolicyConfigSchema;
  /** The check, called only for resources of `types`, with config (defaults filled in). */
  readonly check: (props: any, args: ResourceValidationArgs, report: ReportViolation, config: C) => void;
}

/** A JSON schema for plain default values (string, number, boolean, string arrays, objects). */
export function schemaFor(defaults: object): PolicyConfigSchema {
  const properties: PolicyConfigSchema["properties"] = {};
  for (const [k, v] of Object.entries(defaults)) {
    if (Array.isArray(v)) properties[k] = { type: "array", items: { type: "string" }, default: v };
    else if (typeof v === "number") properties[k] = { type: Number.isInteger(v) ? "integer" : "number", default: v };
    else if (typeof v === "boolean") properties[k] = { type: "boolean", default: v };
    else if (typeof v === "string") properties[k] = { type: "string", default: v };
    else properties[k] = { type: "object", default: v };
  }
  return { properties };
}

/** Builds a `ResourceValidationPolicy` that applies to `rule.types` (matched by type string) only. */
export function resourcePolicy<C extends object>(rule: ResourceRule<C>): ResourceValidationPolicy {
  return {
    name: rule.name,
    description: rule.description,
    ...(rule.enforcementLevel ? { enforcementLevel: rule.enforcementLevel } : {}),
    configSchema: rule.schema ?? schemaFor(rule.defaults),
    validateResource: (args, report) => {
      if (!rule.types.includes(args.type))
        args.notApplicable(`Policy only applies to resources of type ${rule.types.map((t) => `'${t}'`).join(", ")}`);
      const config = { ...rule.defaults, ...(args.getConfig<Partial<C>>() ?? {}) } as C;
      rule.check(args.props, args, report, config);
    },
  };
}

/** A resource policy over DynamoGraphDeployments. */
export function dgdPolicy<C extends object>(rule: Omit<ResourceRule<C>, "types">): ResourceValidationPolicy {
  return resourcePolicy({ ...rule, types: [ResourceType.Dgd] });
}
