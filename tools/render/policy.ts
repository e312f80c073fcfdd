/**
 * Runs CrossGuard policies (`@pulumi/policy` resource and stack validation policies) over the
 * captured, in-memory plan — the same policy objects a `pulumi preview --policy-pack` runs, not a
 * second implementation. Policies see inputs with secrets in the clear (as the engine's policy
 * analyzer does) and props wrapped in the SDK's unknown-checking proxy. @pulumi/policy ships no
 * harness (pulumi/pulumi-policy#445); this one follows the SDK's `PolicyPack` server: violations are
 * collected per policy, `notApplicable` ends a check without a violation.
 */
import type {
  EnforcementLevel, Policy, PolicyResource, ResourceValidationArgs, ResourceValidationPolicy, StackValidationArgs, StackValidationPolicy,
} from "@pulumi/policy";
import type { CapturedResource } from "./capture";
import { providerUrn } from "./graph";

// Internal, untyped: the proxy the policy server wraps props in (throws on unknown values).
// eslint-disable-next-line @typescript-eslint/no-var-requires
const { unknownCheckingProxy } = require("@pulumi/policy/proxy");

/** One violation. */
export interface Violation {
  readonly message: string;
  /** URN of the offending resource (absent for stack-wide violations without one). */
  readonly urn?: string;
  /** Its logical name. */
  readonly resource?: string;
}

/** One policy's outcome. */
export interface PolicyOutcome {
  readonly name: string;
  readonly description: string;
  readonly enforcementLevel: EnforcementLevel;
  /** `pass`: ran and found nothing; `fail`: violations; `not-applicable`: no resource it checks; `disabled`. */
  readonly status: "pass" | "fail" | "not-applicable" | "disabled";
  readonly violations: readonly Violation[];
}

/** The report written to `policy.json`. */
export interface PolicyReport {
  readonly pack: string;
  readonly policies: readonly PolicyOutcome[];
  readonly mandatoryViolations: number;
  readonly advisoryViolations: number;
}

/** A policy pack as plain data: what `new PolicyPack(name, { policies, enforcementLevel })` is given. */
export interface PolicySet {
  readonly name: string;
  readonly policies: readonly Policy[];
  /** Pack-wide default enforcement. @default "advisory" (the PolicyPack default) */
  readonly enforcementLevel?: EnforcementLevel;
  /** Per-policy overrides (enforcement level and config), as in the pack's config. */
  readonly config?: Readonly<Record<string, EnforcementLevel | { readonly enforcementLevel?: EnforcementLevel; readonly [k: string]: unknown }>>;
}

class NotApplicable extends Error {}

type AnyClass = { new (...rest: any[]): unknown; __pulumiType?: string };

const typeOf = (cls: AnyClass): string | undefined => (cls as { __pulumiType?: string }).__pulumiType;

function defaultsOf(p: Policy): Record<string, unknown> {
  const props = (p.configSchema?.properties ?? {}) as Record<string, { default?: unknown }>;
  return Object.fromEntries(Object.entries(props).filter(([, s]) => s && s.default !== undefined).map(([k, s]) => [k, s.default]));
}

function settingsOf(set: PolicySet, p: Policy): { level: EnforcementLevel; config: Record<string, unknown> } {
  const o = set.config?.[p.name] ?? set.config?.all;
  const fromConfig = typeof o === "string" ? { enforcementLevel: o } : (o ?? {});
  const { enforcementLevel, ...rest } = fromConfig as { enforcementLevel?: EnforcementLevel };
  return { level: enforcementLevel ?? p.enforcementLevel ?? set.enforcementLevel ?? "advisory", config: { ...defaultsOf(p), ...rest } };
}

function options(r: CapturedResource) {
  return { protect: r.protect, ignoreChanges: [], aliases: [], customTimeouts: { createSeconds: 0, updateSeconds: 0, deleteSeconds: 0 }, additionalSecretOutputs: [], ...(r.parent ? { parent: r.parent } : {}) };
}

/** The captured plan as the policy SDK's `PolicyResource`s (parents and dependencies linked). */
export function policyResources(resources: readonly CapturedResource[]): PolicyResource[] {
  const byUrn = new Map<string, PolicyResource & { dependencies: PolicyResource[]; propertyDependencies: Record<string, PolicyResource[]> }>();
  for (const r of resources) {
    byUrn.set(r.urn, {
      type: r.type, props: unknownCheckingProxy(r.inputs), urn: r.urn, name: r.name, opts: options(r), dependencies: [], propertyDependencies: {},
      isType: (cls: AnyClass) => typeOf(cls) === r.type,
      asType: ((cls: AnyClass) => (typeOf(cls) === r.type ? r.inputs : undefined)) as PolicyResource["asType"],
    });
  }
  for (const r of resources) {
    const pr = byUrn.get(r.urn)! as { parent?: PolicyResource; provider?: unknown; dependencies: PolicyResource[]; propertyDependencies: Record<string, PolicyResource[]> };
    if (r.parent && byUrn.has(r.parent)) pr.parent = byUrn.get(r.parent);
    if (r.provider) {
      const p = byUrn.get(providerUrn(r.provider));
      if (p) pr.provider = { type: p.type, props: p.props, urn: p.urn, name: p.name };
    }
    pr.dependencies.push(...r.dependsOn.map((u) => byUrn.get(u)).filter((x): x is PolicyResource => !!x));
    for (const [k, urns] of Object.entries(r.propertyDependencies)) pr.propertyDependencies[k] = urns.map((u) => byUrn.get(u)).filter((x): x is PolicyResource => !!x);
  }
  return resources.map((r) => byUrn.get(r.urn)!);
}

async function runResourcePolicy(p: ResourceValidationPolicy, config: Record<string, unknown>, targets: readonly PolicyResource[]): Promise<{ violations: Violation[]; applied: boolean }> {
  const fns = p.validateResource === undefined ? [] : Array.isArray(p.validateResource) ? p.validateResource : [p.validateResource];
  const violations: Violation[] = [];
  let applied = false;
  for (const r of targets) {
    const args: ResourceValidationArgs = {
      type: r.type, props: r.props, urn: r.urn, name: r.name, opts: r.opts, ...(r.provider ? { provider: r.provider } : {}), stackTags: new Map(),
      isType: r.isType, asType: r.asType as ResourceValidationArgs["asType"], getConfig: <T extends object>() => config as T,
      notApplicable: (reason?: string) => { throw new NotApplicable(reason); },
    };
    try {
      for (const f of fns) await f(args, (message, urn) => violations.push({ message, urn: urn ?? r.urn, resource: r.name }));
      applied = true;
    } catch (e) {
      if (!(e instanceof NotApplicable)) throw e;
    }
  }
  return { violations, applied };
}

async function runStackPolicy(p: StackValidationPolicy, config: Record<string, unknown>, resources: PolicyResource[]): Promise<{ violations: Violation[]; applied: boolean }> {
  const violations: Violation[] = [];
  const names = new Map(resources.map((r) => [r.urn, r.name]));
  const args: StackValidationArgs = {
    resources, stackTags: new Map(), getConfig: <T extends object>() => config as T,
    notApplicable: (reason?: string) => { throw new NotApplicable(reason); },
  };
  try {
    await p.validateStack(args, (message, urn) => violations.push({ message, ...(urn ? { urn, resource: names.get(urn) } : {}) }));
    return { violations, applied: true };
  } catch (e) {
    if (e instanceof NotApplicable) return { violations, applied: false };
    throw e;
  }
}

/** Runs every policy of `set` over the captured resources. */
export async function runPolicies(set: PolicySet, resources: readonly CapturedResource[]): Promise<PolicyReport> {
  const targets = policyResources(resources);
  const outcomes: PolicyOutcome[] = [];
  for (const p of set.policies) {
    const { level, config } = settingsOf(set, p);
    const base = { name: p.name, description: p.description, enforcementLevel: level };
    if (level === "disabled") {
      outcomes.push({ ...base, status: "disabled", violations: [] });
      continue;
    }
    const r = "validateStack" in p
      ? await runStackPolicy(p as StackValidationPolicy, config, targets)
      : await runResourcePolicy(p as ResourceValidationPolicy, config, targets);
    const status = r.violations.length > 0 ? "fail" : r.applied ? "pass" : "not-applicable";
    outcomes.push({ ...base, status, violations: r.violations });
  }
  const count = (mandatory: boolean) => outcomes.filter((o) => (o.enforcementLevel === "mandatory") === mandatory).reduce((n, o) => n + o.violations.length, 0);
  return { pack: set.name, policies: outcomes, mandatoryViolations: count(true), advisoryViolations: count(false) };
}
