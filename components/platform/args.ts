/**
 * Arguments of `DynamoPlatform` and their one resolution step (docs/CONTRIBUTING.md rules 3-5). Pure.
 */
import { KeyShape, str } from "../_shared/keys";
import { DEFAULT_PLATFORM_NAMESPACE } from "../_shared/names";
import { DEFAULT_RELEASE, release, ReleaseId } from "../releases";

/** The Dynamo platform: the operator and its CRDs (one chart since Dynamo 1.0.0), once per cluster. */
export interface DynamoPlatformArgs {
  /** Namespace of the operator release (created when missing). @default "dynamo-system" */
  readonly namespace?: string;
  /**
   * The supported release whose operator this installs (`components/releases`): its `dynamo-platform` chart version
   * and values (`dynamo-1.6`: chart 1.6.2, no NATS; `seed`: chart 1.0.1 with its bundled NATS). The same value as
   * the graphs' `release`. @default "dynamo-1.6"
   */
  readonly release?: ReleaseId;
  /** `dynamo-platform` chart version (installed from its NGC tarball URL). @default - the release's chart version */
  readonly version?: string;
}

/** The stack keys of `dynamo-efa:platform` and the kind of each value (components/_shared/keys.ts). */
export const PLATFORM_KEYS = {
  namespace: str,
  version: str,
  release: { wired: "dynamo-efa:release" },
} as const satisfies KeyShape<DynamoPlatformArgs>;

/** Every argument with its default filled in. */
export interface ResolvedPlatform {
  readonly release: ReleaseId;
  readonly namespace: string;
  readonly version: string;
}

const RELEASE_IDS: readonly string[] = Object.values(ReleaseId);

/** Defaults of the optional arguments. */
export const PLATFORM_DEFAULTS = { namespace: DEFAULT_PLATFORM_NAMESPACE } as const;

/** Fills every default (never throws: `validate` checks the values it returns). */
export function resolveArgs(a: DynamoPlatformArgs = {}): ResolvedPlatform {
  const id = a.release ?? DEFAULT_RELEASE;
  return {
    release: id,
    namespace: a.namespace ?? PLATFORM_DEFAULTS.namespace,
    // An unknown release is reported by `validate`; its version falls back so resolution never throws.
    version: a.version ?? (RELEASE_IDS.includes(id) ? release(id).platform.chart.version : ""),
  };
}
