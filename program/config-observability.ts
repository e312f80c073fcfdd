/**
 * `dynamo-efa:observability`: `false` (no monitoring), or an object (`enabled` defaults to true, so a
 * stack without the key gets monitoring). Checked with the schema table, then with the
 * `DynamoObservability` validator at the user's config paths. Pure.
 */
import { Problem } from "../components/_shared/problems";
import { OBSERVABILITY_DEFAULTS, PrometheusMode, resolveArgs } from "../components/observability/args";
import { OBSERVABILITY_LIMITS } from "../components/observability/limits";
import { validate } from "../components/observability/validate";
import { check, Field } from "./schema";

/** `dynamo-efa:observability` fields. */
export const OBSERVABILITY_FIELDS: Readonly<Record<string, Field>> = {
  enabled: {
    spec: { kind: "boolean" },
    default: true,
    doc: "install monitoring for the graph (`observability: false` is the same as `enabled: false`)",
  },
  prometheus: {
    spec: { kind: "string", enum: Object.values(PrometheusMode) },
    default: OBSERVABILITY_DEFAULTS.prometheus,
    doc: "install kube-prometheus-stack; the program refuses existing (its new cluster has no Prometheus Operator; DynamoObservability on your own cluster accepts it)",
  },
  monitorLabels: {
    spec: { kind: "map", keyDoc: "label keys", values: { kind: "string" } },
    defaultDoc: "- {} (required with existing)",
    doc: "labels on the PodMonitors, ServiceMonitor and dashboard ConfigMap that an existing Prometheus selects",
  },
  dcgmExporter: {
    spec: { kind: "boolean" },
    default: OBSERVABILITY_DEFAULTS.dcgmExporter,
    doc: "DCGM exporter DaemonSet on the GPU nodes (GPU utilisation, memory, power, PCIe)",
  },
  retentionDays: {
    spec: { kind: "integer", ...OBSERVABILITY_LIMITS.retentionDays },
    default: OBSERVABILITY_DEFAULTS.retentionDays,
    doc: "days Prometheus keeps samples",
  },
  storageGiB: {
    spec: { kind: "integer", ...OBSERVABILITY_LIMITS.storageGiB },
    default: OBSERVABILITY_DEFAULTS.storageGiB,
    doc: "Prometheus volume size (encrypted gp3, retained)",
  },
};

/** The observability config, checked; `undefined` when monitoring is off. */
export interface ObservabilityConfig {
  readonly prometheus: PrometheusMode;
  readonly monitorLabels?: Readonly<Record<string, string>>;
  readonly dcgmExporter: boolean;
  readonly retentionDays: number;
  readonly storageGiB: number;
}

/** Checks `dynamo-efa:observability` (absent = on with defaults). */
export function checkObservability(
  raw: unknown,
  graphName: string,
  graphNamespace: string,
): { value?: ObservabilityConfig; problems: Problem[] } {
  const checked = check("observability", typeof raw === "boolean" ? { enabled: raw } : (raw ?? {}), {
    kind: "object",
    fields: OBSERVABILITY_FIELDS,
  });
  const typed =
    checked.value && typeof checked.value === "object"
      ? (checked.value as Partial<ObservabilityConfig> & { enabled?: boolean })
      : undefined;
  if (!typed) return { problems: checked.problems };
  const { enabled, ...o } = typed;
  if (enabled === false) return { problems: checked.problems };
  // The component's own rules on the fields that type-checked (a field with a type problem is left to
  // its default here, and its semantic problem, if any, dropped: the type problem explains it).
  const known = Object.fromEntries(
    Object.entries(o).filter(([, v]) => v !== undefined),
  ) as Partial<ObservabilityConfig>;
  const typePaths = new Set(checked.problems.map((p) => p.propertyPath));
  const semantic = validate(resolveArgs({ ...known, graphName, graphNamespace }))
    .filter((p) => !p.propertyPath.startsWith("graph"))
    .map((p) => ({ ...p, propertyPath: `observability.${p.propertyPath}` }))
    .filter((p) => !typePaths.has(p.propertyPath));
  const problems = [...checked.problems, ...semantic];
  return problems.length ? { problems } : { value: known as ObservabilityConfig, problems: [] };
}
