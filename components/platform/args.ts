/**
 * Arguments of `DynamoPlatform` and their one resolution step (docs/CONTRIBUTING.md rules 3-5). Pure.
 */
import type { KeyShape } from "../_shared/keys";
import { DEFAULT_PLATFORM_NAMESPACE } from "../_shared/names";
import { charts } from "../versions";

/** The Dynamo platform: the operator and its CRDs (one chart since Dynamo 1.0.0), once per cluster. */
export interface DynamoPlatformArgs {
  /** Namespace of the operator release (created when missing). @default "dynamo-system" */
  readonly namespace?: string;
  /** `dynamo-platform` chart version (installed from its NGC tarball URL). @default "1.0.1" (`versions.charts.dynamoPlatform.version`) */
  readonly version?: string;
}

/** The stack keys of `dynamo-efa:platform` (components/_shared/keys.ts): one row per argument. */
export const PLATFORM_KEYS = { namespace: "value", version: "value" } as const satisfies KeyShape<DynamoPlatformArgs>;

/** Every argument with its default filled in. */
export interface ResolvedPlatform {
  readonly namespace: string;
  readonly version: string;
}

/** Defaults of the optional arguments. */
export const PLATFORM_DEFAULTS = { namespace: DEFAULT_PLATFORM_NAMESPACE } as const;

/** Fills every default (never throws: `validate` checks the values it returns). */
export function resolveArgs(a: DynamoPlatformArgs = {}): ResolvedPlatform {
  return {
    namespace: a.namespace ?? PLATFORM_DEFAULTS.namespace,
    version: a.version ?? charts.dynamoPlatform.version,
  };
}
