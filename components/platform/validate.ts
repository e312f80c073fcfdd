/**
 * Synchronous validation of `DynamoPlatform`'s resolved arguments (docs/CONTRIBUTING.md rule 6). Pure.
 */
import { K8S_NAME } from "../_shared/names";
import { Problem, show } from "../_shared/problems";
import { ResolvedPlatform } from "./args";
import { releaseProblems } from "../releases";

/** A Helm chart version as NGC publishes them (`1.0.1`, `1.1.0-dev.1`): it names the tarball, so no leading `v`. */
export const CHART_VERSION = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;

/** Every problem with the resolved arguments, under `prefix` (e.g. a config path); empty when they are valid. */
export function validate(r: ResolvedPlatform, prefix = ""): Problem[] {
  const at = (k: string) => (prefix ? `${prefix}.${k}` : k);
  const out: Problem[] = [...releaseProblems(r.release, at("release"))];
  // An unknown release leaves no chart version to check (resolveArgs filled ""): its problem says it all.
  const versionUnknown = out.length > 0 && r.version === "";
  if (!K8S_NAME.test(r.namespace))
    out.push({
      propertyPath: at("namespace"),
      reason: `must be a lower-case RFC 1123 name (a-z, 0-9, "-", <= 63 characters); got ${show(r.namespace)}`,
    });
  if (!versionUnknown && !CHART_VERSION.test(String(r.version)))
    out.push({
      propertyPath: at("version"),
      reason: `must be a dynamo-platform chart version such as "1.0.1" (it names the chart tarball on helm.ngc.nvidia.com); got ${show(r.version)}`,
    });
  return out;
}
