/**
 * Test harness for the policy pack (docs/ARCHITECTURE.md#pulumi-without-the-cli): builds the args the policy server would
 * build (props behind `@pulumi/policy`'s unknown-checking proxy, `notApplicable` thrown and caught)
 * and runs one policy. A thin layer over `policy/run.ts`, so tests and the offline render run the
 * policies the same way.
 */
import type {
  ResourceValidationArgs,
  ResourceValidationPolicy,
  StackValidationArgs,
  StackValidationPolicy,
} from "@pulumi/policy";
import { PlanResource, PlanResourceOptions, resourceValidationArgs, stackValidationArgs } from "../../policy/plan-args";
import { PolicyPackConfigJson } from "../../policy/policies";
import {
  policyConfig,
  runResourcePolicy as runResource,
  runStackPolicy as runStack,
  SingleRun,
} from "../../policy/run";
import { UNKNOWN_STRING_VALUE } from "../../policy/rules/_unknowns";

export type { SingleRun, PlanResource };

/** The URN a test resource gets. */
export function urnOf(type: string, name: string): string {
  return `urn:pulumi:test::dynamo-efa::${type}::${name}`;
}

/** Links and options of a test resource. */
export interface ResourceExtras {
  readonly name?: string;
  readonly parent?: string;
  readonly dependencies?: readonly string[];
  readonly propertyDependencies?: Readonly<Record<string, readonly string[]>>;
  readonly opts?: PlanResourceOptions;
}

/** A plan resource (URN derived from type and name). */
export function planResource(type: string, props: object, x: ResourceExtras = {}): PlanResource {
  const name = x.name ?? "r";
  const { parent, dependencies, propertyDependencies, opts } = x;
  const json = props as Readonly<Record<string, unknown>>;
  return { type, name, urn: urnOf(type, name), props: json, parent, dependencies, propertyDependencies, opts };
}

/** `ResourceValidationArgs` for one resource; `config` is what `getConfig()` returns. */
export function resourceArgs(
  type: string,
  props: object,
  x: ResourceExtras & { config?: object } = {},
): ResourceValidationArgs {
  return resourceValidationArgs(planResource(type, props, x), () => ({ ...(x.config ?? {}) }));
}

/** `StackValidationArgs` for a set of plan resources linked by URN. */
export function stackArgs(resources: readonly PlanResource[], config: object = {}): StackValidationArgs {
  return stackValidationArgs(resources, () => ({ ...config }));
}

/** Runs one resource policy over one resource. */
export function runResourcePolicy(p: ResourceValidationPolicy, args: ResourceValidationArgs): Promise<SingleRun> {
  return runResource(p, args);
}

/** Runs one stack policy over a stack. */
export function runStackPolicy(p: StackValidationPolicy, args: StackValidationArgs): Promise<SingleRun> {
  return runStack(p, args);
}

/** The config a policy sees for a pack config (schema defaults under the given values). */
export function configFor(
  p: ResourceValidationPolicy | StackValidationPolicy,
  pack: PolicyPackConfigJson,
): Record<string, unknown> {
  return policyConfig(p, pack);
}

/** Violation messages of a run, sorted. */
export function messages(run: SingleRun): string[] {
  return run.violations.map((v) => v.message).sort();
}

/** A deep copy of plain test data. */
export function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/** The unknown-value sentinel the engine sends for a string not known during preview. */
export const UNKNOWN_STRING: string = UNKNOWN_STRING_VALUE;

/** One row of a happy-path-then-mutate table: change one thing, expect exactly these messages. */
export interface MutationCase<I> {
  readonly title: string;
  /** Mutates the happy input in place (or returns a replacement). */
  readonly mutate: (input: I) => I | void;
  /** Exact violation messages, in any order ([] = the mutation is allowed). */
  readonly expect: readonly string[];
  /** Policy config for this case (what `getConfig()` returns). */
  readonly config?: object;
}

/**
 * Declares the mocha tests of one resource policy: the happy input passes, then each mutation
 * yields exactly its messages (docs/CONTRIBUTING.md rule 17).
 */
export function resourcePolicyTable<I extends object>(
  p: ResourceValidationPolicy,
  type: string,
  happy: () => I,
  cases: readonly MutationCase<I>[],
  x: ResourceExtras = {},
): void {
  describe(p.name, () => {
    it("passes the happy path", async () => {
      const run = await runResourcePolicy(p, resourceArgs(type, happy(), x));
      if (run.violations.length || run.notApplicable || run.unknown)
        throw new Error(`expected a clean pass, got ${JSON.stringify(run)}`);
    });
    for (const c of cases) {
      it(c.title, async () => {
        const input = happy();
        const props = c.mutate(input) ?? input;
        const run = await runResourcePolicy(p, resourceArgs(type, props, { ...x, config: c.config }));
        assertMessages(run, c.expect);
      });
    }
  });
}

/** Declares the mocha tests of one stack policy over a happy plan and its mutations. */
export function stackPolicyTable(
  p: StackValidationPolicy,
  happy: () => PlanResource[],
  cases: readonly MutationCase<PlanResource[]>[],
): void {
  describe(p.name, () => {
    it("passes the happy path", async () => {
      const run = await runStackPolicy(p, stackArgs(happy()));
      if (run.violations.length || run.notApplicable || run.unknown)
        throw new Error(`expected a clean pass, got ${JSON.stringify(run)}`);
    });
    for (const c of cases) {
      it(c.title, async () => {
        const input = happy();
        const plan = c.mutate(input) ?? input;
        assertMessages(await runStackPolicy(p, stackArgs(plan, c.config ?? {})), c.expect);
      });
    }
  });
}

/** Asserts the run's messages equal `expected` (order-insensitive), with a readable diff. */
export function assertMessages(run: SingleRun, expected: readonly string[]): void {
  if (run.unknown) throw new Error(`policy hit an unknown value: ${run.unknown}`);
  const got = messages(run);
  const want = [...expected].sort();
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    throw new Error(
      `violations differ\n  got:\n${got.map((m) => `    ${m}`).join("\n") || "    (none)"}\n  expected:\n${want.map((m) => `    ${m}`).join("\n") || "    (none)"}`,
    );
  }
}

/**
 * Policies that advise on every EFA graph by design: each release's known issues (policy/rules/known-issues.ts) hold
 * for every layout of that release, so a happy plan still carries them as advisories. The happy-path and
 * one-mutation assertions compare the other policies; the known-issue specs check these advisories themselves.
 */
export const ALWAYS_ADVISES: ReadonlySet<string> = new Set(["release-known-issues"]);

/** The results a run failed, less the advisories every EFA graph carries by design. */
export function failedBeyondKnownIssues<R extends { readonly name: string; readonly passed: boolean }>(
  results: readonly R[],
): R[] {
  return results.filter((r) => !r.passed && !ALWAYS_ADVISES.has(r.name));
}
