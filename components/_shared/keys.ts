/**
 * The key table of a component's arguments: which keys a stack file may write and the kind of value each takes
 * (boolean, string, a whole number within bounds, a list of strings, ...), checked by the compiler against the
 * argument type (`satisfies KeyShape<Args>` in each args.ts). An argument added without a table entry, an entry
 * without an argument, or an entry whose kind is not the argument's type (`bool` for a `string`) fails `tsc`.
 * program/keys.ts walks these tables and checks every value against its kind before any validator runs, so a quoted
 * `'false'` never reaches a truthiness test and a list never reaches a regex (docs/CONTRIBUTING.md rule 18). The bounds are the
 * components' own limit tables (`CLUSTER_LIMITS`, `INFERENCE_LIMITS`, ...), referenced, not restated. What a value
 * means beyond its kind (a closed choice, a CIDR, a version EKS supports) stays the component validator's. Pure.
 */
import type { IntRange, NumberRange } from "./limits";

/** A value set by the program, not written in a stack file; `wired` says where it comes from. */
export interface Wired {
  readonly wired: string;
}

/** Every entry of a map of objects (`gpuPools: { gpu: {...} }`) has this table. */
export interface EachOf<T> {
  readonly each: KeyShape<T>;
}

/** `true` or `false` (never the string "false"). */
export interface BoolKind {
  readonly kind: "boolean";
}
/** A string (an `Input<string>` too: a stack file writes the plain string). */
export interface StringKind {
  readonly kind: "string";
}
/** A whole number in `[min, max]`. */
export interface IntKind {
  readonly kind: "integer";
  readonly range: IntRange;
}
/** A finite number in `(minExclusive, max]`. */
export interface NumKind {
  readonly kind: "number";
  readonly range: NumberRange;
}
/** A list whose every item is `of`, with at most `maxItems` items when a limit applies. */
export interface ListKind<K = AnyValueKind> {
  readonly kind: "list";
  readonly of: K;
  /** The most items the list may hold, and why (the fact that limits it). @default - no limit */
  readonly maxItems?: { readonly count: number; readonly why: string };
}
/** A map of names to `of` (labels, tags): any name but a prototype key, each value `of`. */
export interface MapKind<K = AnyValueKind> {
  readonly kind: "map";
  readonly of: K;
}
/** One of several kinds (`cudaArchs`: "fat", "auto" or a list of tokens). */
export interface EitherKind<K = AnyValueKind> {
  readonly kind: "either";
  readonly of: readonly K[];
}

/** Any value kind, as the walker reads it. */
export type AnyValueKind =
  BoolKind | StringKind | IntKind | NumKind | ListKind<AnyValueKind> | MapKind<AnyValueKind> | EitherKind<AnyValueKind>;

/** `V` is written as a string: a string, a string-literal union, or an `Input<string>` (which a string is). */
type StringLike<V> = [V] extends [string] ? true : [string] extends [V] ? true : false;
/** `V` is a map with free keys (`Record<string, X>`), not an object of fixed keys. */
type FreeKeys<V> = string extends keyof V ? true : false;

/**
 * The kinds that fit an argument of type `V` (never distributed over a union: `boolean` stays one kind), or `either`
 * of its union members' kinds.
 */
export type ValueKind<V> = BaseKind<V> | EitherKind<MemberKind<V>>;
type BaseKind<V> =
  | ([V] extends [boolean] ? BoolKind : never)
  | (StringLike<V> extends true ? StringKind : never)
  | ([V] extends [number] ? IntKind | NumKind : never)
  | ([V] extends [readonly (infer I)[]] ? ListKind<ValueKind<I>> : never)
  | ([V] extends [readonly unknown[]] ? never : [V] extends [object] ? MapOf<V> : never);
/** A map's kind: its values' (an object of fixed keys whose values share a kind may be written as a map too). */
type MapOf<V> = MapKind<ValueKind<NonNullable<V[keyof V]>>>;
/** The kind of each member of a union, for `either`. */
type MemberKind<V> = V extends unknown ? BaseKind<V> : never;

/**
 * How a stack file writes one argument: a value of a kind (`bool`, `str`, `int(range)`, `listOf(str)`, ...), a
 * nested table for an object argument, `{ each }` for a map of objects, or `{ wired }` for an argument the program
 * sets.
 */
export type KeyEntry<V> =
  | Wired
  | ValueKind<V>
  | ([V] extends [readonly unknown[]]
      ? never
      : [V] extends [object]
        ? FreeKeys<V> extends true
          ? EachOf<V[keyof V & string]>
          : KeyShape<V>
        : never);

/** One entry per argument of `T`, optional ones included. */
export type KeyShape<T> = { readonly [K in keyof T]-?: KeyEntry<NonNullable<T[K]>> };

/** Any key table, as the walker reads it. */
export interface AnyKeyShape {
  readonly [key: string]: AnyKeyEntry;
}
/** Any table entry, as the walker reads it. */
export type AnyKeyEntry = AnyValueKind | Wired | AnyKeyShape | { readonly each: AnyKeyShape };

/** `true` or `false`. */
export const bool: BoolKind = { kind: "boolean" };
/** A string. */
export const str: StringKind = { kind: "string" };
/** A whole number within `range` (a component's limit table entry). */
export const int = (range: IntRange): IntKind => ({ kind: "integer", range });
/** A finite number within `range`. */
export const num = (range: NumberRange): NumKind => ({ kind: "number", range });
/** A list of `of`; `maxItems` when a service limits its length. */
export const listOf = <K extends AnyValueKind>(of: K, maxItems?: ListKind["maxItems"]): ListKind<K> => ({
  kind: "list",
  of,
  ...(maxItems ? { maxItems } : {}),
});
/** A map of names to `of`. */
export const mapOf = <K extends AnyValueKind>(of: K): MapKind<K> => ({ kind: "map", of });
/** One of `of`. */
export const either = <K extends AnyValueKind[]>(...of: K): EitherKind<K[number]> => ({ kind: "either", of });

/** `{ a: kind, b: kind }` for the keys given: table rows of one kind, written once. */
export function rows<K extends string, E>(kind: E, ...keys: K[]): { readonly [P in K]: E } {
  return Object.fromEntries(keys.map((k) => [k, kind])) as { readonly [P in K]: E };
}

/** Whether a table entry is a value kind (not a nested table, a map of tables or a wired argument). */
export function isValueKind(e: AnyKeyEntry): e is AnyValueKind {
  return typeof (e as { kind?: unknown }).kind === "string" && !("wired" in e) && !("each" in e);
}

/** What a kind accepts, in words: "true or false", "a whole number 1..450", "a list of strings". */
export function describeKind(k: AnyValueKind, plural = false): string {
  switch (k.kind) {
    case "boolean":
      return plural ? "true or false values" : "true or false";
    case "string":
      return plural ? "strings" : "a string";
    case "integer": {
      const r = k.range.max >= Number.MAX_SAFE_INTEGER ? `>= ${k.range.min}` : `${k.range.min}..${k.range.max}`;
      return plural ? `whole numbers ${r}` : `a whole number ${r}`;
    }
    case "number":
      return `${plural ? "numbers" : "a number"} in (${k.range.minExclusive}, ${k.range.max}]`;
    case "list":
      return `${plural ? "lists" : "a list"} of ${describeKind(k.of, true)}`;
    case "map":
      return `${plural ? "maps" : "a map"} of names to ${describeKind(k.of, true)}`;
    case "either":
      return k.of.map((o) => describeKind(o, plural)).join(" or ");
  }
}
