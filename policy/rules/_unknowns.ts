/**
 * Values unknown during `pulumi preview`. The policy server wraps props in `@pulumi/policy`'s
 * unknown-checking proxy, which throws on reading an unknown value (the server then reports the
 * policy as "can't run during preview"); stack policies read the raw object behind it instead and
 * skip only what they cannot decide yet (the preview guard).
 */
import * as proxyModule from "@pulumi/policy/proxy";

/** What `@pulumi/policy/proxy` exports at runtime: its `.d.ts` is empty because these are `@internal` there. */
interface PolicyProxyInternals {
  readonly UnknownValueError: new (...a: never[]) => Error;
  readonly unknownCheckingProxy: <T>(v: T) => T;
  readonly getSpecialProxyTarget: string;
  readonly [sentinel: string]: unknown;
}

/** The unknown-value sentinels and the unknown-checking proxy of `@pulumi/policy` (runtime-only). */
const proxy = proxyModule as unknown as PolicyProxyInternals;

/** The sentinel strings the engine sends for values unknown during preview. */
const UNKNOWN_SENTINELS: ReadonlySet<unknown> = new Set(
  [
    "unknownBooleanValue",
    "unknownNumberValue",
    "unknownStringValue",
    "unknownArrayValue",
    "unknownAssetValue",
    "unknownArchiveValue",
    "unknownObjectValue",
  ].map((k) => proxy[k]),
);

/** True when `v` is a value unknown during preview (read from raw, un-proxied props). */
export function isUnknownValue(v: unknown): boolean {
  return UNKNOWN_SENTINELS.has(v);
}

/**
 * The raw object behind proxied props: unknown values stay in place as sentinels (test them with
 * `isUnknownValue`) instead of throwing on access. For stack policies, which must ignore values
 * unknown during preview rather than fail the whole check.
 */
export function rawProps<T>(props: T): T {
  const target: unknown =
    props !== null && typeof props === "object"
      ? (props as Record<string, unknown>)[proxy.getSpecialProxyTarget]
      : undefined;
  return (target as T | undefined) ?? props;
}

/** The sentinel the engine sends for a string not known during preview (for tests of the preview guard). */
export const UNKNOWN_STRING_VALUE = proxy.unknownStringValue as string;

/** `@pulumi/policy`'s unknown-checking proxy (what the policy server wraps props in). */
export const unknownCheckingProxy = proxy.unknownCheckingProxy;

/** True for the error the unknown-checking proxy throws on an unknown value. */
export function isUnknownValueError(e: unknown): boolean {
  return e instanceof proxy.UnknownValueError;
}
