/**
 * Values unknown during `pulumi preview`. The policy server wraps props in `@pulumi/policy`'s
 * unknown-checking proxy, which throws on reading an unknown value (the server then reports the
 * policy as "can't run during preview"); stack policies read the raw object behind it instead and
 * skip only what they cannot decide yet (the preview guard).
 */

/** The unknown-value sentinels of `@pulumi/policy` (runtime-only, `@internal` there). */
// eslint-disable-next-line @typescript-eslint/no-var-requires
const proxy: {
  UnknownValueError: new (...a: any[]) => Error;
  unknownCheckingProxy: <T>(v: T) => T;
  getSpecialProxyTarget: string;
  [sentinel: string]: unknown;
} = require("@pulumi/policy/proxy");

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
export function rawProps(props: any): any {
  return props?.[proxy.getSpecialProxyTarget] ?? props;
}

/** `@pulumi/policy`'s unknown-checking proxy (what the policy server wraps props in). */
export const unknownCheckingProxy = proxy.unknownCheckingProxy;

/** True for the error the unknown-checking proxy throws on an unknown value. */
export function isUnknownValueError(e: unknown): boolean {
  return e instanceof proxy.UnknownValueError;
}
