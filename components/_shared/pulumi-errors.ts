/**
 * The Pulumi side of the package's one error style: `./problems.ts` stays free of any Pulumi import (the pure
 * validators, derivations and offline tools use it), so turning a `Problem` list into the
 * `pulumi.InputPropertiesError` the engine pretty-prints per property path, and reading either error style back,
 * live here. Component constructors call `assertValid` once, before any child (docs/CONTRIBUTING.md rule 6).
 */
import * as pulumi from "@pulumi/pulumi";
import { Checked, formatProblems, Problem, ValidationError } from "./problems";

/**
 * Throws one `pulumi.InputPropertiesError` listing every problem (the engine prints each with its
 * property path). Called by component constructors before they create any child (docs/CONTRIBUTING.md rule 6).
 */
export function assertValid(subject: string, problems: readonly Problem[]): void {
  if (problems.length === 0) return;
  throw new ComponentInputError(subject, problems);
}

/**
 * The engine's `InputPropertiesError`, carrying which component's arguments it is about, so a tool
 * can place the problems in the user's config (`EfaCluster` args under `cluster.`) without parsing
 * the message.
 */
export class ComponentInputError extends pulumi.InputPropertiesError {
  constructor(
    public readonly component: string,
    problems: readonly Problem[],
  ) {
    super({
      message: formatProblems(component, problems),
      errors: problems.map((p) => ({ propertyPath: p.propertyPath, reason: p.reason })),
    });
  }
}

/** The value of a `Checked`, or one `pulumi.InputPropertiesError` listing all of its problems. */
export function assertChecked<T>(subject: string, c: Checked<T>): T {
  if (!c.ok) throw new ComponentInputError(subject, c.problems);
  return c.value;
}

/** The component (or subject) either error style is about; undefined when it does not say. */
export function subjectOf(e: unknown): string | undefined {
  if (e instanceof ValidationError) return e.subject;
  const component = pulumi.InputPropertiesError.isInstance(e) ? (e as { component?: unknown }).component : undefined;
  return typeof component === "string" ? component : undefined;
}

/** The problems carried by either error style, or undefined for any other error (a bug). */
export function problemsOf(e: unknown): readonly Problem[] | undefined {
  if (e instanceof ValidationError) return e.problems;
  if (pulumi.InputPropertiesError.isInstance(e)) return e.errors;
  return undefined;
}
