/**
 * Synchronous validation of `DynamoObservability`'s resolved arguments: every problem at once, each
 * with the argument path, the bad value, what is allowed and the fix (docs/CONTRIBUTING.md rule 6). Pure.
 */
import { K8S_NAME } from "../_shared/names";
import { checkRange } from "../_shared/limits";
import { Problem, show } from "../_shared/problems";
import { oneOf } from "../_shared/suggest";
import { PrometheusMode, ResolvedObservability } from "./args";
import { OBSERVABILITY_LIMITS } from "./limits";

/** A Kubernetes label key (optional DNS prefix + name) and value. */
const LABEL_KEY = /^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;
/** A chart version such as `88.5.3` or `4.8.2-rc.1`. */
const CHART_VERSION = /^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;

function labels(path: string, m: Readonly<Record<string, string>>): Problem[] {
  const out: Problem[] = [];
  for (const [k, v] of Object.entries(m)) {
    if (!LABEL_KEY.test(k))
      out.push({
        propertyPath: `${path}.${k}`,
        reason: `${show(k)} is not a Kubernetes label key (an optional DNS prefix and "/", then at most 63 of A-Z a-z 0-9 - _ .)`,
      });
    if (typeof v !== "string" || !LABEL_VALUE.test(v))
      out.push({
        propertyPath: `${path}.${k}`,
        reason: `label value ${show(v)} must be a string of at most 63 of A-Z a-z 0-9 - _ . (starting and ending alphanumeric)`,
      });
  }
  return out;
}

/** Every problem with the resolved arguments; empty when they are valid. */
export function validate(r: ResolvedObservability): Problem[] {
  const out: Problem[] = [];
  for (const [path, v] of [
    ["graphName", r.graphName],
    ["graphNamespace", r.graphNamespace],
    ["namespace", r.namespace],
  ] as const) {
    if (v !== undefined && !K8S_NAME.test(v))
      out.push({
        propertyPath: path,
        reason: `must be a lower-case RFC 1123 name (a-z, 0-9, "-", at most 63 characters); got ${show(v)}`,
      });
  }
  // The graph fences every pod of its namespace (default-deny NetworkPolicy): Prometheus must not live there.
  if (r.namespace === r.graphNamespace && K8S_NAME.test(r.namespace))
    out.push({
      propertyPath: "namespace",
      reason: `${show(r.namespace)} is the graph's namespace, whose pods the graph fences with a default-deny NetworkPolicy; run Prometheus in a namespace of its own, e.g. "monitoring"`,
    });
  const modes = Object.values(PrometheusMode) as string[];
  if (!modes.includes(r.prometheus))
    out.push({ propertyPath: "prometheus", reason: `must be ${oneOf(modes)}; got ${show(r.prometheus)}` });
  if (r.prometheus === PrometheusMode.Existing && r.graphName === undefined)
    out.push({
      propertyPath: "graphName",
      reason:
        'required with prometheus "existing": without a graph there is nothing to add to an existing Prometheus (its monitors and dashboard are the graph\'s)',
    });
  if (r.prometheus === PrometheusMode.Existing && Object.keys(r.monitorLabels).length === 0) {
    out.push({
      propertyPath: "monitorLabels",
      reason:
        'required with prometheus "existing": give the labels your Prometheus\'s podMonitorSelector and serviceMonitorSelector match, e.g. { release: "kube-prometheus-stack" }',
    });
  }
  out.push(...labels("monitorLabels", r.monitorLabels), ...labels("systemNodeSelector", r.systemNodeSelector));
  if (Object.keys(r.systemNodeSelector).length === 0)
    out.push({
      propertyPath: "systemNodeSelector",
      reason:
        'must not be empty: monitoring pods would be free to land anywhere; use the system node group\'s label { "dynamo-efa/role": "system" }',
    });
  for (const k of ["scrapeIntervalSeconds", "retentionDays", "storageGiB"] as const)
    out.push(...checkRange(k, r[k], OBSERVABILITY_LIMITS[k]));
  if (!K8S_NAME.test(r.storageClassName))
    out.push({
      propertyPath: "storageClassName",
      reason: `must be a StorageClass name; got ${show(r.storageClassName)}`,
    });
  for (const [path, v] of [
    ["kubePrometheusStackVersion", r.kubePrometheusStackVersion],
    ["dcgmExporterVersion", r.dcgmExporterVersion],
  ] as const) {
    if (!CHART_VERSION.test(v))
      out.push({ propertyPath: path, reason: `must be a chart version such as "1.2.3"; got ${show(v)}` });
  }
  return out;
}
