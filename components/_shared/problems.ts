/**
 * One error style for the whole package (docs/CONTRIBUTING.md rule 6): validators collect `Problem`s, never throw
 * one at a time, and the caller reports them all at once. This module is pure (no Pulumi import) so
 * derive/validate code and the offline tools can use it; `assertValid` in `./pulumi-errors.ts` turns
 * the list into the `pulumi.InputPropertiesError` the engine pretty-prints.
 */

/** One thing wrong with the input: where (`propertyPath`, the user's own argument or config path) and why. */
export interface Problem {
  /** Dotted path of the offending argument, e.g. `gpuPools.gpu.instanceType` or `inference.prefill.replicas`. */
  readonly propertyPath: string;
  /** What is wrong, the bad value, what is allowed and how to fix it. */
  readonly reason: string;
}

/** Thrown by pure code when input is invalid; carries every problem found, not just the first. */
export class ValidationError extends Error {
  /** Every problem found, in the order they were found. */
  public readonly problems: readonly Problem[];
  /** What the problems are about (`DynamoImage`, `CUDA arch list`); callers map paths by it, never by the message. */
  public readonly subject: string;
  constructor(subject: string, problems: readonly Problem[]) {
    super(formatProblems(subject, problems));
    this.name = "ValidationError";
    this.problems = problems;
    this.subject = subject;
  }
}

/**
 * What a catalog lookup or parser returns instead of throwing: the value, or every problem with the input at the
 * caller's property path. Validators collect the problems; code that runs after validation uses `valueOf`. Each
 * variant names the other's field as absent, so `c.problems` also type-checks where `strictNullChecks` is off and
 * `!c.ok` does not narrow (Pulumi compiles the policy pack with ts-node's default, non-strict options).
 */
export type Checked<T> =
  | { readonly ok: true; readonly value: T; readonly problems?: undefined }
  | { readonly ok: false; readonly problems: readonly Problem[]; readonly value?: undefined };

/** A successful `Checked`. */
export function ok<T>(value: T): Checked<T> {
  return { ok: true, value };
}

/** A failed `Checked` carrying `problems` (at least one). */
export function failed<T = never>(problems: readonly Problem[]): Checked<T> {
  return { ok: false, problems };
}

/** The problems of a `Checked` (empty when it holds a value), for validators that collect. */
export function problemsIn(c: Checked<unknown>): readonly Problem[] {
  return c.ok ? [] : c.problems;
}

/**
 * The value of a `Checked` whose input was already validated. A failure here is a bug in the caller (it skipped
 * validation), reported as a `ValidationError` about `subject` so the message still names the path.
 */
export function valueOf<T>(subject: string, c: Checked<T>): T {
  if (!c.ok) throw new ValidationError(subject, c.problems);
  return c.value;
}

/** `subject` has N problems, then one `- path: reason` line per problem. */
export function formatProblems(subject: string, problems: readonly Problem[]): string {
  const head = `${subject}: ${problems.length} problem${problems.length === 1 ? "" : "s"}`;
  return [head, ...problems.map((p) => `  - ${p.propertyPath}: ${p.reason}`)].join("\n");
}

/** Throws a `ValidationError` when `problems` is not empty. */
export function throwIfAny(subject: string, problems: readonly Problem[]): void {
  if (problems.length > 0) throw new ValidationError(subject, problems);
}

/** Joins a parent path and a child key the way users write them (`a.b`, `a.b[0]`). */
export function joinPath(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent}[${key}]`;
  return parent ? `${parent}.${key}` : key;
}

/** Renders a value for an error message: strings quoted, everything else as JSON. */
export function show(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (value === undefined) return "undefined";
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/** `show(v)` cut to about 80 characters: messages never echo a 10k-character value or a 3,000-entry list. */
export function brief(v: unknown): string {
  const s = show(v);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/** Problems for a value that must be an integer in [min, max]; empty when it is. */
export function checkInteger(path: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): Problem[] {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `${min}..${max}`;
    return [{ propertyPath: path, reason: `must be a whole number ${range}; got ${show(value)}` }];
  }
  return [];
}
