/**
 * Runs the pack's policies over an in-memory plan, without the Pulumi CLI or a policy gRPC server:
 * the same policy objects `pulumi preview --policy-pack policy` loads, called the way the policy
 * server calls them (props behind the unknown-checking proxy, `notApplicable` thrown and caught,
 * stack resources linked by parent / dependencies / property dependencies).
 * The plan's shape and the args built from it live in `./plan-args.ts` (re-exported here).
 *
 * Used by the offline `render` tool (writes `policy.json`, exits 1 on mandatory violations) and by
 * the tests (`tests/helpers/policy-harness.ts`).
 */
import type {
  EnforcementLevel,
  Policies,
  PolicyConfigSchema,
  ReportViolation,
  ResourceValidationArgs,
  ResourceValidationPolicy,
  StackValidationArgs,
  StackValidationPolicy,
} from "@pulumi/policy";
import { allPolicies, PolicyPackConfigJson } from "./policies";
import { isUnknownValueError } from "./rules/_unknowns";
import { NotApplicable, PlanResource, resourceValidationArgs, stackValidationArgs } from "./plan-args";

export type { PolicyPackConfigJson };

/** One violation reported by a policy. */
export interface PolicyViolation {
  readonly message: string;
  /** URN of the offending resource (absent for a stack-wide violation). */
  readonly urn?: string;
}

/** The outcome of one policy over the plan. */
export interface PolicyResult {
  readonly name: string;
  readonly description: string;
  /** Effective level after config overrides. */
  readonly enforcementLevel: EnforcementLevel;
  /** No violations (always true for a disabled policy). */
  readonly passed: boolean;
  readonly violations: readonly PolicyViolation[];
  /** Resources (or 1 for the stack) the policy actually evaluated. */
  readonly checked: number;
  /**
   * Why the policy did not run: its reasons when it applied to nothing (a passing policy that checked
   * something is never "not applicable"), and every value it could not read during preview.
   */
  readonly notApplicable: readonly string[];
}

/** The outcome of every policy over the plan. */
export interface PolicyRun {
  /** One entry per policy, in pack order. */
  readonly results: readonly PolicyResult[];
  /** Violations of policies whose effective level is mandatory (or remediate): these block a deployment. */
  readonly mandatoryViolations: number;
  /** Violations of advisory policies. */
  readonly advisoryViolations: number;
  /** True when no mandatory policy was violated. */
  readonly passed: boolean;
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/**
 * The run in one phrase, the same on the console, in plan.md's summary and its Policies heading: "28 passed", "27
 * passed, 2 advisories (release-known-issues)", "26 passed, 1 failed (1 mandatory violation: x)". Only a mandatory
 * violation is a failure; an advisory one is an advisory, never "failed".
 */
export function policyTally(run: PolicyRun): string {
  const failed = run.results.filter((r) => !r.passed && r.enforcementLevel !== "advisory");
  const advised = run.results.filter((r) => !r.passed && r.enforcementLevel === "advisory");
  const passed = run.results.length - failed.length - advised.length;
  const names = (rs: readonly PolicyResult[]) => rs.map((r) => r.name).join(", ");
  return [
    `${passed} passed`,
    ...(failed.length > 0
      ? [
          `${failed.length} failed (${plural(run.mandatoryViolations, "mandatory violation", "mandatory violations")}: ${names(failed)})`,
        ]
      : []),
    ...(advised.length > 0 ? [`${plural(run.advisoryViolations, "advisory", "advisories")} (${names(advised)})`] : []),
  ].join(", ");
}

/**
 * Effective enforcement level of `policy`, Pulumi's precedence: the policy's own config entry, else
 * `all`, else the policy's default, else `mandatory` (the pack default).
 */
export function enforcementOf(
  policy: { name: string; enforcementLevel?: EnforcementLevel },
  config?: PolicyPackConfigJson,
): EnforcementLevel {
  const c = config ?? {};
  const own = c[policy.name];
  const ownLevel = typeof own === "string" ? own : own?.enforcementLevel;
  return ownLevel ?? (c.all as EnforcementLevel | undefined) ?? policy.enforcementLevel ?? "mandatory";
}

/** Config a policy's `getConfig()` returns: its schema defaults under the caller's values. */
export function policyConfig(
  policy: { name: string; configSchema?: PolicyConfigSchema },
  config?: PolicyPackConfigJson,
): Record<string, unknown> {
  const defaults: Record<string, unknown> = {};
  for (const [k, s] of Object.entries(policy.configSchema?.properties ?? {}))
    if (s && "default" in s) defaults[k] = s.default;
  const own = (config ?? {})[policy.name];
  const values = typeof own === "object" && own !== null ? { ...own } : {};
  delete (values as Record<string, unknown>).enforcementLevel;
  return { ...defaults, ...values };
}

/** What one policy run over one resource (or the stack) produced. */
export interface SingleRun {
  readonly violations: PolicyViolation[];
  /** Set when the policy called `notApplicable(reason)`. */
  readonly notApplicable?: string;
  /** Set when the policy read a value unknown during preview (the server reports it as advisory). */
  readonly unknown?: string;
}

async function guarded(
  run: (report: ReportViolation) => Promise<void> | void,
  defaultUrn?: string,
): Promise<SingleRun> {
  const violations: PolicyViolation[] = [];
  const report: ReportViolation = (message, urn) =>
    violations.push({ message, ...((urn ?? defaultUrn) ? { urn: urn ?? defaultUrn } : {}) });
  try {
    await run(report);
  } catch (e) {
    if (e instanceof NotApplicable) return { violations, notApplicable: e.reason };
    if (isUnknownValueError(e)) return { violations, unknown: (e as Error).message };
    throw e;
  }
  return { violations };
}

/** Runs a resource policy's validations over one resource's args. */
export async function runResourcePolicy(p: ResourceValidationPolicy, args: ResourceValidationArgs): Promise<SingleRun> {
  const fns =
    p.validateResource === undefined
      ? []
      : Array.isArray(p.validateResource)
        ? p.validateResource
        : [p.validateResource];
  return guarded(async (report) => {
    for (const f of fns) await f(args, report);
  }, args.urn);
}

/** Runs a stack policy over the stack's args. */
export async function runStackPolicy(p: StackValidationPolicy, args: StackValidationArgs): Promise<SingleRun> {
  return guarded((report) => p.validateStack(args, report));
}

const isStackPolicy = (p: Policies[number]): p is StackValidationPolicy =>
  "validateStack" in p && typeof (p as StackValidationPolicy).validateStack === "function";

/**
 * Runs every policy of `policies` (default: the whole pack) over `plan`, with `config` in the
 * format of `pulumi preview --policy-pack-config` (`{ all: "mandatory", "<policy>": "advisory" |
 * { enforcementLevel?, ...props } }`; policies without an entry keep their own level, else mandatory). Returns one
 * result per policy; `passed` is false when any mandatory policy reported a violation.
 */
export async function runPolicies(
  plan: readonly PlanResource[],
  config?: PolicyPackConfigJson,
  policies: Policies = allPolicies,
): Promise<PolicyRun> {
  const results: PolicyResult[] = [];
  for (const p of policies) {
    const level = enforcementOf(p, config);
    const base = { name: p.name, description: p.description, enforcementLevel: level };
    if (level === "disabled") {
      results.push({ ...base, passed: true, violations: [], checked: 0, notApplicable: ["disabled by config"] });
      continue;
    }
    const cfg = policyConfig(p, config);
    const getConfig = () => ({ ...cfg });
    const runs = isStackPolicy(p)
      ? [await runStackPolicy(p, stackValidationArgs(plan, getConfig))]
      : await Promise.all(plan.map((r) => runResourcePolicy(p, resourceValidationArgs(r, getConfig))));
    const violations = runs.flatMap((r) => r.violations);
    const notApplicable = [...new Set(runs.flatMap((r) => (r.notApplicable ? [r.notApplicable] : [])))];
    const unknown = runs.flatMap((r) =>
      r.unknown ? [{ message: `can't run policy ${p.name} during preview: ${r.unknown}` }] : [],
    );
    const checked = runs.filter((r) => !r.notApplicable && !r.unknown).length;
    results.push({
      ...base,
      passed: violations.length === 0,
      violations,
      checked,
      notApplicable: [...(checked === 0 ? notApplicable : []), ...unknown.map((u) => u.message)],
    });
  }
  const blocking = (l: EnforcementLevel) => l === "mandatory" || l === "remediate";
  const mandatoryViolations = results
    .filter((r) => blocking(r.enforcementLevel))
    .reduce((n, r) => n + r.violations.length, 0);
  const advisoryViolations = results
    .filter((r) => r.enforcementLevel === "advisory")
    .reduce((n, r) => n + r.violations.length, 0);
  return { results, mandatoryViolations, advisoryViolations, passed: mandatoryViolations === 0 };
}
