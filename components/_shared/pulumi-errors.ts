import * as pulumi from "@pulumi/pulumi";
import { formatProblems, Problem, ValidationError } from "./problems";

/**
 * Throws one `pulumi.InputPropertiesError` listing every problem (the engine prints each with its
 * property path). Called by component constructors before they create any child (docs/CONTRIBUTING.md rule 6).
 */
export function assertValid(subject: string, problems: readonly Problem[]): void {
  if (problems.length === 0) return;
  throw new pulumi.InputPropertiesError({
    message: formatProblems(subject, problems),
    errors: problems.map((p) => ({ propertyPath: p.propertyPath, reason: p.reason })),
  });
}

/**
 * Runs pure code that may throw `ValidationError` and re-throws it as `pulumi.InputPropertiesError`,
 * so a component reports catalog errors (unknown instance, bad arch token) the same way as its own.
 */
export function underValidation<T>(subject: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof ValidationError) assertValid(subject, e.problems);
    throw e;
  }
}

/** The problems carried by either error style, or undefined for any other error (a bug). */
export function problemsOf(e: unknown): readonly Problem[] | undefined {
  if (e instanceof ValidationError) return e.problems;
  if (pulumi.InputPropertiesError.isInstance(e)) return e.errors;
  return undefined;
}
