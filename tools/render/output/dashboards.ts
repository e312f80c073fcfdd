/**
 * `dashboards/<name>.json`: every Grafana dashboard the program provisions, read back from the plan
 * (kube-prometheus-stack's `grafana.dashboards` values, or a ConfigMap labelled for Grafana's dashboard
 * sidecar), pretty-printed so a reviewer can import or diff it. Pure.
 */
import { DASHBOARD_CONFIGMAP_LABEL } from "../../../components/observability/render";
import type { ManifestSource, RenderedFile } from "./manifests";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);

/** `[file name, dashboard JSON text]` of a Helm release's `grafana.dashboards.<provider>.<name>.json` values. */
function fromRelease(inputs: Obj): [string, string][] {
  const values = isObj(inputs.values) ? inputs.values : {};
  const grafana = isObj(values.grafana) ? values.grafana : {};
  const providers = isObj(grafana.dashboards) ? grafana.dashboards : {};
  return Object.values(providers)
    .filter(isObj)
    .flatMap((files) =>
      Object.entries(files).flatMap(([name, d]) =>
        isObj(d) && typeof d.json === "string" ? [[`${name}.json`, d.json] as [string, string]] : [],
      ),
    );
}

/** `[file name, JSON text]` of a ConfigMap that Grafana's dashboard sidecar would load. */
function fromConfigMap(inputs: Obj): [string, string][] {
  const labels = isObj(inputs.metadata) && isObj(inputs.metadata.labels) ? inputs.metadata.labels : {};
  if (!(DASHBOARD_CONFIGMAP_LABEL in labels) || !isObj(inputs.data)) return [];
  return Object.entries(inputs.data).filter(
    (e): e is [string, string] => typeof e[1] === "string" && e[0].endsWith(".json"),
  );
}

/** The dashboard files of a plan, sorted by name; each is re-serialised so it is valid, stable JSON. */
export function dashboardFiles(resources: readonly ManifestSource[]): RenderedFile[] {
  const found = resources.flatMap((r) =>
    r.type === "kubernetes:helm.sh/v3:Release"
      ? fromRelease(r.inputs)
      : r.type === "kubernetes:core/v1:ConfigMap"
        ? fromConfigMap(r.inputs)
        : [],
  );
  return found
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([file, text]) => ({ path: `dashboards/${file}`, content: `${JSON.stringify(JSON.parse(text), null, 2)}\n` }));
}
