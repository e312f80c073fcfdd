/**
 * Extracts the metrics the DCGM exporter chart exports, from a checkout of NVIDIA/dcgm-exporter:
 *   npx tsx tests/contracts/extract/dcgm-metrics.ts <checkout> --ref <tag> [--commit <sha>] > tests/contracts/facts/dcgm-metrics.json
 * - the metrics the chart exports by default: the uncommented fields of the counters CSV the chart
 *   mounts over the image's (`deployment/templates/metrics-configmap.yaml`, used when `customMetrics` is
 *   unset), cross-checked against `etc/default-counters.csv`;
 * - the labels each GPU series carries (`internal/pkg/rendermetrics/render_metrics.go`) and the pod
 *   attributes of its Kubernetes mapping (`internal/pkg/transformation/const.go`).
 * The chart's value keys are facts/chart-dcgm-exporter.json (helm-values.ts, `--chart deployment`).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { checkoutArgs, printFacts, today, withNotes } from "./_checkout";

/** Uncommented `DCGM_FI_*` fields of a counters CSV (`field, type, help`). */
export function csvFields(text: string): { name: string; type: string }[] {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.startsWith("DCGM_FI_"))
    .map((l) => l.split(",").map((s) => s.trim()))
    .map(([name, type]) => ({ name: name!, type: type! }));
}

export function extract(checkout: string): Record<string, unknown> {
  const chart = parse(readFileSync(join(checkout, "deployment/Chart.yaml"), "utf8")) as {
    version: string;
    appVersion: string;
  };
  const template = readFileSync(join(checkout, "deployment/templates/metrics-configmap.yaml"), "utf8");
  const chartDefault = csvFields(template.slice(template.indexOf("{{- else }}")));
  const imageDefault = new Set(
    csvFields(readFileSync(join(checkout, "etc/default-counters.csv"), "utf8")).map((f) => f.name),
  );
  const render = readFileSync(join(checkout, "internal/pkg/rendermetrics/render_metrics.go"), "utf8");
  const gpuFormat = render.slice(render.indexOf("gpuMetricsFormat"), render.indexOf("linkMetricsFormat"));
  const consts = readFileSync(join(checkout, "internal/pkg/transformation/const.go"), "utf8");
  const attr = (n: string) => (new RegExp(`${n}\\s*=\\s*"([^"]+)"`).exec(consts) ?? [])[1];
  return {
    chart: "dcgm-exporter",
    version: String(chart.version),
    appVersion: String(chart.appVersion),
    defaultMetrics: chartDefault
      .filter((f) => f.type !== "label")
      .map((f) => ({ ...f, inImageDefault: imageDefault.has(f.name) })),
    gpuSeriesLabels: [...gpuFormat.matchAll(/[,{]([A-Za-z_]+)="\{\{/g)]
      .map((m) => m[1])
      .filter((l) => l !== "GPU_I_PROFILE" && l !== "GPU_I_ID"),
    podAttributeLabels: {
      pod: attr("podAttribute"),
      namespace: attr("namespaceAttribute"),
      container: attr("containerAttribute"),
    },
  };
}

function main(): void {
  const args = checkoutArgs(process.argv.slice(2), "dcgm-metrics.ts");
  printFacts(
    {
      repository: "NVIDIA/dcgm-exporter",
      ref: args.ref,
      commit: args.commit,
      paths: [
        "deployment/Chart.yaml",
        "deployment/templates/metrics-configmap.yaml",
        "etc/default-counters.csv",
        "internal/pkg/rendermetrics/render_metrics.go",
        "internal/pkg/transformation/const.go",
      ],
      extracted: today(),
      extractor: "tests/contracts/extract/dcgm-metrics.ts",
      notes: withNotes(
        "Helm repository https://nvidia.github.io/dcgm-exporter/helm-charts (README.md). The chart mounts its own counters ConfigMap over /etc/dcgm-exporter/default-counters.csv, so `defaultMetrics` is that list. DCGM exposes GPU fields only: no EFA/network device counters. `{{ $metric.UUID }}` renders the UUID label name chosen at run time (UUID by default), so it is not listed.",
        args,
      ),
    },
    extract(args.root),
  );
}

if (require.main === module) main();
