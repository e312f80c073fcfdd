/**
 * Numeric bounds of component arguments. Each component exports a table of them beside its args
 * (`CLUSTER_LIMITS`, `INFERENCE_LIMITS`, ...); its validator and the stack config schema both read
 * that table, so a range is stated once and the README's config reference is generated from it.
 */
import { checkInteger, Problem, show } from "./problems";

/** An inclusive whole-number range. */
export interface IntRange {
  readonly min: number;
  readonly max: number;
}

/** A number range open below: `(minExclusive, max]`. */
export interface NumberRange {
  readonly minExclusive: number;
  readonly max: number;
}

/**
 * Largest EBS gp3 volume, 16 TiB (EBS volume types: gp3 is 1 GiB - 16 TiB,
 * https://docs.aws.amazon.com/ebs/latest/userguide/general-purpose.html).
 */
export const GP3_MAX_GIB = 16384;

/** Problems for a value outside a whole-number range; empty when it is inside. */
export function checkRange(path: string, value: unknown, r: IntRange): Problem[] {
  return checkInteger(path, value, r.min, r.max);
}

/** `(min, max]` as the config reference and messages write it. */
export function describeNumberRange(r: NumberRange): string {
  return `(${r.minExclusive}, ${r.max}]`;
}

/** Problems for a value outside a number range; `what` says what it measures ("a fraction"). */
export function checkNumberRange(
  path: string,
  value: unknown,
  r: NumberRange,
  what: string,
  example?: number,
): Problem[] {
  if (typeof value === "number" && Number.isFinite(value) && value > r.minExclusive && value <= r.max) return [];
  const eg = example === undefined ? "" : `, e.g. ${example}`;
  return [{ propertyPath: path, reason: `must be ${what} in ${describeNumberRange(r)}${eg}; got ${show(value)}` }];
}
