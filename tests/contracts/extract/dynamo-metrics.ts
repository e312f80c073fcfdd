/**
 * Extracts the Prometheus metric names, labels and ports the pinned Dynamo runtime exposes, from a
 * checkout of ai-dynamo/dynamo:
 *   npx tsx tests/contracts/extract/dynamo-metrics.ts <checkout> <ref> <commit> <extracted>
 * - `lib/runtime/src/metrics/prometheus_names.rs`: name prefixes (`name_prefix`), the Frontend's metric
 *   suffixes (`frontend_service`, composed `<prefix>_<suffix>` in `lib/llm/src/http/service/metrics.rs`)
 *   and the workers' request metrics (`work_handler`, composed by `build_component_metric_name`).
 * - `deploy/operator/internal/consts/consts.go`: the container ports the operator wires and their names.
 * - `deploy/helm/charts/platform/components/operator/values.yaml` + `templates/prometheus.yaml`: the
 *   operator chart's own PodMonitor switch.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** `pub const NAME: &str = "value";` of one top-level `pub mod <name> {` block, without nested modules. */
export function rustConsts(source: string, mod: string): Record<string, string> {
  const start = source.indexOf(`pub mod ${mod} {`);
  if (start < 0) throw new Error(`pub mod ${mod} not found`);
  const out: Record<string, string> = {};
  let depth = 0;
  for (const line of source.slice(start).split("\n")) {
    const opens = (line.match(/{/g) ?? []).length;
    const closes = (line.match(/}/g) ?? []).length;
    const m = /^\s*pub const ([A-Z0-9_]+): &str =\s*"([^"]*)";/.exec(line);
    if (m && depth === 1) out[m[1]!] = m[2]!;
    depth += opens - closes;
    if (depth === 0 && opens + closes > 0) break;
  }
  return out;
}

/** Multi-line consts (`pub const X: &str =\n    "value";`) joined onto one line first. */
const joinConsts = (s: string) => s.replace(/(pub const [A-Z0-9_]+: &str =)\s*\n\s*/g, "$1 ");

/** `Name = <int>` / `Name = "str"` constants of consts.go. */
function goConst(source: string, name: string): string {
  const m = new RegExp(`\\b${name}\\s*=\\s*("?)([^"\\s]+)\\1`).exec(source);
  if (!m) throw new Error(`${name} not found in consts.go`);
  return m[2]!;
}

const METRIC_SUFFIX = /^[a-z0-9_]+$/;
const LABEL_OR_ENV = /(_LABEL|_ENV)$/;

export function extract(checkout: string): Record<string, unknown> {
  const names = joinConsts(readFileSync(join(checkout, "lib/runtime/src/metrics/prometheus_names.rs"), "utf8"));
  const consts = readFileSync(join(checkout, "deploy/operator/internal/consts/consts.go"), "utf8");
  const opValues = readFileSync(join(checkout, "deploy/helm/charts/platform/components/operator/values.yaml"), "utf8");
  const httpMetrics = readFileSync(join(checkout, "lib/llm/src/http/service/metrics.rs"), "utf8");
  const prefix = rustConsts(names, "name_prefix");
  // Only the suffixes the Frontend's HTTP service really registers under its prefix.
  const registered = new Set(
    [...httpMetrics.matchAll(/frontend_metric_name\(frontend_service::([A-Z0-9_]+)\)/g)].map((m) => m[1]),
  );
  const metrics = (mod: string, p: string) =>
    Object.entries(rustConsts(names, mod))
      .filter(([k, v]) => !LABEL_OR_ENV.test(k) && METRIC_SUFFIX.test(v))
      .map(([, v]) => `${p}_${v}`)
      .sort();
  return {
    frontendMetrics: Object.entries(rustConsts(names, "frontend_service"))
      .filter(([k]) => registered.has(k))
      .map(([, v]) => `${prefix.FRONTEND}_${v}`)
      .sort(),
    workerMetrics: metrics("work_handler", prefix.COMPONENT!),
    labels: rustConsts(names, "labels"),
    frontendRequestStatus: rustConsts(names.slice(names.indexOf("pub mod frontend_service {")), "status"),
    ports: {
      frontendHttp: {
        port: Number(goConst(consts, "DynamoServicePort")),
        name: goConst(consts, "DynamoContainerPortName"),
      },
      workerSystem: {
        port: Number(goConst(consts, "DynamoSystemPort")),
        name: goConst(consts, "DynamoSystemPortName"),
      },
      nixlTelemetry: { port: Number(goConst(consts, "DynamoNixlPort")), name: goConst(consts, "DynamoNixlPortName") },
    },
    metricsPath: "/metrics",
    operator: {
      metricsEnabledLabel: goConst(consts, "KubeLabelMetricsEnabled"),
      podMonitorsValue: /podMonitors:\s*\n(?:\s*#.*\n)*\s*enabled:\s*null/.test(opValues)
        ? "dynamo.metrics.podMonitors.enabled (null = create PodMonitors when monitoring.coreos.com/v1 exists)"
        : "absent",
    },
  };
}

function main(argv: string[]): void {
  const [checkout, ref, commit, extracted] = argv;
  if (!checkout || !ref || !commit || !extracted) {
    process.stderr.write("usage: dynamo-metrics.ts <checkout> <ref> <commit> <extracted>\n");
    process.exit(2);
  }
  const out = {
    provenance: {
      repository: "ai-dynamo/dynamo",
      ref,
      commit,
      paths: [
        "lib/runtime/src/metrics/prometheus_names.rs",
        "lib/llm/src/http/service/metrics.rs",
        "lib/runtime/src/pipeline/network/ingress/push_handler.rs",
        "deploy/operator/internal/consts/consts.go",
        "deploy/helm/charts/platform/components/operator/values.yaml",
        "deploy/helm/charts/platform/components/operator/templates/prometheus.yaml",
      ],
      extracted,
      extractor: `tests/contracts/extract/dynamo-metrics.ts <checkout> ${ref} ${commit} ${extracted}`,
      notes:
        "The Dynamo runtime commit the image pins (parent of ba3aef8ae, read from a fork carrying main history, zinuga/dynamo). Read by hand: the Frontend composes `${DYN_METRICS_PREFIX:-dynamo_frontend}_<suffix>` (metrics.rs `frontend_metric_name`) with labels model (+ endpoint, request_type, status, error_type on requests_total); workers compose `dynamo_component_<suffix>` (`build_component_metric_name`, push_handler.rs). The Frontend serves /metrics on its HTTP port, workers on DYN_SYSTEM_PORT, which the operator sets to the system port. The operator chart at this commit creates its own PodMonitors (dynamo-frontend, dynamo-worker, ...) selecting nvidia.com/metrics-enabled=true when the Prometheus Operator CRDs exist at install time; the v1.0.1 tag commit could not be resolved offline (the fork has no tags).",
    },
    facts: extract(checkout),
  };
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
}

if (require.main === module) main(process.argv.slice(2));
