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
import type { PlanDgd } from "./_dgd";
import { KnownType, ResourceType, typed, TypedResource } from "./_resources";

/** What a rule module declares for one resource policy over the resource types `K`. */
export interface ResourceRule<C extends object, K extends KnownType> {
  /** Kebab-case policy name. */
  readonly name: string;
  /** One sentence. */
  readonly description: string;
  /** Default enforcement (the pack default is mandatory). */
  readonly enforcementLevel?: EnforcementLevel;
  /** Type strings the policy applies to. */
  readonly types: readonly K[];
  /** Config defaults; each becomes a schema property with this default. */
  readonly defaults: C;
  /** JSON-schema types of the config properties (inferred from the defaults when omitted). */
  readonly schema?: PolicyConfigSchema;
  /**
   * The check, called only for resources of `types`, with the resource's type and (proxied) props typed
   * by that type (narrow on `r.type` when the policy covers several), and config (defaults filled in).
   */
  readonly check: (r: TypedResource<K>, args: ResourceValidationArgs, report: ReportViolation, config: C) => void;
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
export function resourcePolicy<C extends object, K extends KnownType>(
  rule: ResourceRule<C, K>,
): ResourceValidationPolicy {
  return {
    name: rule.name,
    description: rule.description,
    ...(rule.enforcementLevel ? { enforcementLevel: rule.enforcementLevel } : {}),
    configSchema: rule.schema ?? schemaFor(rule.defaults),
    validateResource: (args, report) => {
      const r = typed(args, rule.types);
      if (!r)
        return args.notApplicable(
          `Policy only applies to resources of type ${rule.types.map((t) => `'${t}'`).join(", ")}`,
        );
      const config = { ...rule.defaults, ...(args.getConfig<Partial<C>>() ?? {}) } as C;
      rule.check(r, args, report, config);
    },
  };
}

/** What a rule module declares for a policy over DynamoGraphDeployments: its check gets the graph's props. */
export interface DgdRule<C extends object> extends Omit<ResourceRule<C, typeof ResourceType.Dgd>, "types" | "check"> {
  /** The check, with the graph's (proxied) props and config (defaults filled in). */
  readonly check: (props: PlanDgd, args: ResourceValidationArgs, report: ReportViolation, config: C) => void;
}

/** A resource policy over DynamoGraphDeployments. */
export function dgdPolicy<C extends object>(rule: DgdRule<C>): ResourceValidationPolicy {
  return resourcePolicy({ ...rule, types: [ResourceType.Dgd], check: (r, ...rest) => rule.check(r.props, ...rest) });
}
