/**
 * Narrowing for parsed YAML and JSON whose shape the contract tests do not own (a rendered manifest, an upstream
 * file): read a path without trusting it, or take the object at a path to mutate it, failing with the path.
 */

/** A JSON object (not null, not an array). */
export const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** The value at `path` under `v`, or undefined where a step is missing or not an object (optional chaining). */
export function at(v: unknown, ...path: readonly string[]): unknown {
  return path.reduce<unknown>((x, k) => (isRecord(x) ? x[k] : undefined), v);
}

/** The object at `path` under `v`, to read or mutate; throws naming the path when it is not an object. */
export function recordAt(v: unknown, ...path: readonly string[]): Record<string, unknown> {
  const x = at(v, ...path);
  if (!isRecord(x)) throw new Error(`${path.join(".") || "(root)"} is not an object: ${JSON.stringify(x)}`);
  return x;
}
