/**
 * `dynamo-efa/components/platform`: the `DynamoPlatform` component (the Dynamo operator and CRDs, once per
 * cluster), its arguments and the pure release renderer.
 */
export { DYNAMO_PLATFORM_TYPE, DynamoPlatform } from "./platform";
export { PLATFORM_DEFAULTS, resolveArgs } from "./args";
export type { DynamoPlatformArgs, ResolvedPlatform } from "./args";
export { CHART_VERSION, validate } from "./validate";
export { PLATFORM_RELEASE_NAME, renderPlatformRelease } from "./render";
export type { HelmReleaseSpec } from "./render";
