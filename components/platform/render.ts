/**
 * The `dynamo-platform` Helm release as plain data (what `helm.v3.Release` receives). Pure.
 */
import { charts } from "../versions";
import { release } from "../releases";
import { ResolvedPlatform } from "./args";

/**
 * Helm release name of the platform. Fixed: the operator is a cluster-wide singleton (one per cluster, shared by
 * every graph), and this is the name NVIDIA's install guide uses (`helm install dynamo-platform <url>`).
 */
export const PLATFORM_RELEASE_NAME = "dynamo-platform";

/** A Helm release as plain data (what `helm.v3.Release` receives). */
export interface HelmReleaseSpec {
  readonly name: string;
  /** The chart tarball URL (no repository index: Helm downloads the archive itself). */
  readonly chart: string;
  readonly version: string;
  readonly namespace: string;
  readonly createNamespace: boolean;
  readonly atomic: boolean;
  readonly timeout: number;
  readonly values: Record<string, unknown>;
}

/**
 * The one `dynamo-platform` release: operator AND its CRDs (the chart's `upgradeCRD` hook Job applies
 * them before the operator starts, since Dynamo 1.0.0). `chart` is the tarball URL NVIDIA documents;
 * with no `repositoryOpts`, pulumi-kubernetes' Release hands an absolute URL to Helm's chart
 * downloader as is (pulumi/pulumi-kubernetes@01799d56995683adc30ed8be5c42157d9a6d3c06
 * `provider/pkg/provider/helm_release.go` `locateChart`). `version` is recorded for the plan; Helm
 * takes the version from the URL.
 */
export function renderPlatformRelease(r: ResolvedPlatform): HelmReleaseSpec {
  return {
    name: PLATFORM_RELEASE_NAME,
    chart: charts.dynamoPlatform.tarballUrl(r.version),
    version: r.version,
    namespace: r.namespace,
    createNamespace: true,
    atomic: true,
    timeout: 600,
    values: release(r.release).platform.values,
  };
}
