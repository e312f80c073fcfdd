/**
 * The key table of a component's arguments: which keys a stack file may write, checked by the compiler against the
 * argument type (`satisfies KeyShape<Args>` in each args.ts), so an argument added without a table entry, or an entry
 * without an argument, fails `tsc`. It holds no types, bounds, defaults or docs: those are the argument's own (its
 * TypeScript type, its JSDoc and `@default`, its component's validator). program/keys.ts walks these tables. Pure.
 */

/** A value set by the program, not written in a stack file; `from` says where it comes from. */
export interface Wired {
  readonly wired: string;
}

/** Every entry of a map (`gpuPools: { gpu: {...} }`) has this table. */
export interface EachOf<T> {
  readonly each: KeyShape<T>;
}

/**
 * How a stack file writes one argument: `"value"` (any value; the component's validator checks it), `"list"` (a
 * list; the validator checks its items), a nested table for an object argument, `{ each }` for a map of objects, or
 * `{ wired }` for an argument the program sets.
 */
export type KeyEntry<V> =
  | "value"
  | "list"
  | Wired
  | (V extends readonly unknown[] ? never : V extends object ? KeyShape<V> | EachOf<V[keyof V]> : never);

/** One entry per argument of `T`, optional ones included. */
export type KeyShape<T> = { readonly [K in keyof T]-?: KeyEntry<NonNullable<T[K]>> };

/** Any key table, as the walker reads it. */
export interface AnyKeyShape {
  readonly [key: string]: "value" | "list" | Wired | AnyKeyShape | { readonly each: AnyKeyShape };
}

/** `{ a: "value", b: "value" }` for the keys given: the table rows of plain values, written once. */
export function values<K extends string>(...keys: K[]): { readonly [P in K]: "value" } {
  return Object.fromEntries(keys.map((k) => [k, "value"])) as { readonly [P in K]: "value" };
}
