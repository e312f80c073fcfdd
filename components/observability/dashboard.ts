/**
 * The Grafana dashboard, generated as JSON from the metric names in `metrics.ts` (never hand-pasted):
 * TTFT and ITL percentiles, requests and errors, prefill vs decode worker load and response time, GPU
 * utilisation and memory per worker pod, GPU PCIe traffic per node. Pure.
 *
 * EFA device counters: none of the pinned exporters exposes them (DCGM reads GPU fields only), and
 * node-exporter, whose infiniband collector reads sysfs, must not run on the GPU nodes (no monitoring
 * pod but DCGM tolerates the GPU taint). The PCIe panel is the nearest measured proxy: GPUDirect RDMA
 * between a GPU and its EFA devices crosses PCIe.
 */
import { bucket, DcgmLabel, FrontendMetric, GpuMetric, ScrapeLabel, WorkerMetric } from "./metrics";

/** One query of a panel. */
interface Target {
  readonly expr: string;
  readonly legendFormat: string;
}

/** One time-series panel before layout. */
interface PanelSpec {
  readonly title: string;
  readonly unit: string;
  readonly description: string;
  readonly targets: readonly Target[];
}

/** What the dashboard selects on. */
export interface DashboardSpec {
  readonly graphName: string;
  readonly graphNamespace: string;
  /** Whether DCGM panels are included (the exporter is installed). */
  readonly gpuPanels: boolean;
}

/** uid of the generated dashboard (stable, so links and provisioning updates keep working). */
export const dashboardUid = (graph: string): string => `dynamo-efa-${graph}`.slice(0, 40);

const RATE = "[$__rate_interval]";

/** Quantile `q` of a histogram over the graph's series of one service (or all services when omitted). */
function quantile(q: number, histogram: string, sel: string, by: readonly string[] = []): string {
  return `histogram_quantile(${q}, sum by (le${by.map((l) => `, ${l}`).join("")}) (rate(${bucket(histogram)}{${sel}}${RATE})))`;
}

function percentiles(histogram: string, sel: string, by: readonly string[] = [], legend = ""): Target[] {
  return [0.5, 0.95, 0.99].map((q) => ({
    expr: quantile(q, histogram, sel, by),
    legendFormat: `p${Math.round(q * 100)}${legend}`,
  }));
}

/** Legend suffix naming the worker role of a series. */
const BY_SERVICE = ` {{${ScrapeLabel.Service}}}`;

/** Latency, traffic and queues at the Frontend (`fe`), with the workers' (`wk`) errors and in-flight counts. */
function requestPanels(fe: string, wk: string): PanelSpec[] {
  return [
    {
      title: "Time to first token",
      unit: "s",
      description: `${FrontendMetric.TimeToFirstToken} percentiles at the Frontend (~1 s on EFA; ~100 s means KV over a TCP fallback)`,
      targets: percentiles(FrontendMetric.TimeToFirstToken, fe),
    },
    {
      title: "Inter-token latency",
      unit: "s",
      description: `${FrontendMetric.InterTokenLatency} percentiles at the Frontend`,
      targets: percentiles(FrontendMetric.InterTokenLatency, fe),
    },
    {
      title: "Requests and errors",
      unit: "reqps",
      description: `${FrontendMetric.Requests} by status, and worker ${WorkerMetric.Errors}`,
      targets: [
        {
          expr: `sum by (status) (rate(${FrontendMetric.Requests}{${fe}}${RATE}))`,
          legendFormat: "frontend {{status}}",
        },
        {
          expr: `sum by (${ScrapeLabel.Service}) (rate(${WorkerMetric.Errors}{${wk}}${RATE}))`,
          legendFormat: `errors${BY_SERVICE}`,
        },
      ],
    },
    {
      title: "Request duration",
      unit: "s",
      description: `${FrontendMetric.RequestDuration} percentiles at the Frontend`,
      targets: percentiles(FrontendMetric.RequestDuration, fe),
    },
    {
      title: "Queued and in-flight requests",
      unit: "short",
      description: "Frontend queue (waiting for a first response) and requests in flight per worker role",
      targets: [
        { expr: `sum(${FrontendMetric.QueuedRequests}{${fe}})`, legendFormat: "frontend queued" },
        { expr: `sum(${FrontendMetric.InflightRequests}{${fe}})`, legendFormat: "frontend in flight" },
        {
          expr: `sum by (${ScrapeLabel.Service}) (${WorkerMetric.InflightRequests}{${wk}})`,
          legendFormat: `in flight${BY_SERVICE}`,
        },
      ],
    },
  ];
}

/** Prefill vs decode: the same worker metrics per role, where a slow KV transfer shows on the decode side. */
function rolePanels(wk: string): PanelSpec[] {
  return [
    {
      title: "Prefill vs decode: time to first response",
      unit: "s",
      description: `${WorkerMetric.TimeToFirstResponse} p50/p95 per worker role; the decode side includes waiting for its KV blocks from prefill`,
      targets: [0.5, 0.95].map((q) => ({
        expr: quantile(q, WorkerMetric.TimeToFirstResponse, wk, [ScrapeLabel.Service]),
        legendFormat: `p${Math.round(q * 100)}${BY_SERVICE}`,
      })),
    },
    {
      title: "Prefill vs decode: request rate and duration",
      unit: "s",
      description: `${WorkerMetric.RequestDuration} p95 and ${WorkerMetric.Requests} per worker role`,
      targets: [
        {
          expr: quantile(0.95, WorkerMetric.RequestDuration, wk, [ScrapeLabel.Service]),
          legendFormat: `p95${BY_SERVICE}`,
        },
        {
          expr: `sum by (${ScrapeLabel.Service}) (rate(${WorkerMetric.Requests}{${wk}}${RATE}))`,
          legendFormat: `req/s${BY_SERVICE}`,
        },
      ],
    },
  ];
}

function servingPanels(s: DashboardSpec): PanelSpec[] {
  const fe = `${ScrapeLabel.Graph}="${s.graphName}", namespace="${s.graphNamespace}"`;
  const wk = `${ScrapeLabel.Graph}="${s.graphName}", namespace="${s.graphNamespace}", ${ScrapeLabel.Service}=~"PrefillWorker|DecodeWorker"`;
  const tokens: PanelSpec = {
    title: "Input and output tokens",
    unit: "short",
    description: `${FrontendMetric.InputSequenceTokens} and ${FrontendMetric.OutputSequenceTokens} p50`,
    targets: [
      { expr: quantile(0.5, FrontendMetric.InputSequenceTokens, fe), legendFormat: "input p50" },
      { expr: quantile(0.5, FrontendMetric.OutputSequenceTokens, fe), legendFormat: "output p50" },
    ],
  };
  return [...requestPanels(fe, wk), ...rolePanels(wk), tokens];
}

function gpuPanels(s: DashboardSpec): PanelSpec[] {
  const ns = `${DcgmLabel.Namespace}="${s.graphNamespace}", ${DcgmLabel.Pod}=~"${s.graphName}-.*"`;
  const pod = `{{${DcgmLabel.Pod}}}`;
  return [
    {
      title: "GPU utilisation per worker",
      unit: "percent",
      description: `${GpuMetric.Utilisation} per worker pod (DCGM maps GPUs to pods)`,
      targets: [{ expr: `avg by (${DcgmLabel.Pod}) (${GpuMetric.Utilisation}{${ns}})`, legendFormat: pod }],
    },
    {
      title: "GPU memory used per worker",
      unit: "decmbytes",
      description: `${GpuMetric.FramebufferUsed} and ${GpuMetric.FramebufferFree} (MiB) per worker pod`,
      targets: [
        { expr: `sum by (${DcgmLabel.Pod}) (${GpuMetric.FramebufferUsed}{${ns}})`, legendFormat: `used ${pod}` },
        { expr: `sum by (${DcgmLabel.Pod}) (${GpuMetric.FramebufferFree}{${ns}})`, legendFormat: `free ${pod}` },
      ],
    },
    {
      title: "GPU power per node",
      unit: "watt",
      description: `${GpuMetric.Power} summed per node`,
      targets: [
        { expr: `sum by (${DcgmLabel.Hostname}) (${GpuMetric.Power})`, legendFormat: `{{${DcgmLabel.Hostname}}}` },
      ],
    },
    {
      title: "GPU PCIe bytes per node (GPUDirect RDMA to EFA crosses PCIe)",
      unit: "Bps",
      description: `${GpuMetric.PcieTxBytes} / ${GpuMetric.PcieRxBytes} summed per node. No pinned exporter exposes EFA device counters; this is the nearest measured proxy`,
      targets: [
        {
          expr: `sum by (${DcgmLabel.Hostname}) (${GpuMetric.PcieTxBytes})`,
          legendFormat: `tx {{${DcgmLabel.Hostname}}}`,
        },
        {
          expr: `sum by (${DcgmLabel.Hostname}) (${GpuMetric.PcieRxBytes})`,
          legendFormat: `rx {{${DcgmLabel.Hostname}}}`,
        },
      ],
    },
  ];
}

/** Panels in Grafana's JSON model: two per row, 12 x 8 grid units each. */
function layout(specs: readonly PanelSpec[]): Record<string, unknown>[] {
  return specs.map((p, i) => ({
    id: i + 1,
    type: "timeseries",
    title: p.title,
    description: p.description,
    datasource: { type: "prometheus", uid: "${datasource}" },
    gridPos: { h: 8, w: 12, x: (i % 2) * 12, y: Math.floor(i / 2) * 8 },
    fieldConfig: { defaults: { unit: p.unit }, overrides: [] },
    options: {
      legend: { displayMode: "list", placement: "bottom", showLegend: true },
      tooltip: { mode: "multi", sort: "none" },
    },
    targets: p.targets.map((t, j) => ({
      refId: String.fromCharCode(65 + j),
      datasource: { type: "prometheus", uid: "${datasource}" },
      expr: t.expr,
      legendFormat: t.legendFormat,
    })),
  }));
}

/** The dashboard as a Grafana JSON model object. */
export function renderDashboard(s: DashboardSpec): Record<string, unknown> {
  return {
    uid: dashboardUid(s.graphName),
    title: `Dynamo ${s.graphName} (disaggregated serving)`,
    description: `Generated by dynamo-efa for graph ${s.graphNamespace}/${s.graphName}`,
    tags: ["dynamo-efa", "dynamo"],
    editable: false,
    schemaVersion: 39,
    version: 1,
    refresh: "30s",
    time: { from: "now-1h", to: "now" },
    timezone: "utc",
    templating: {
      list: [
        { name: "datasource", label: "Prometheus", type: "datasource", query: "prometheus", current: {}, hide: 0 },
      ],
    },
    panels: layout([...servingPanels(s), ...(s.gpuPanels ? gpuPanels(s) : [])]),
  };
}

/** Every PromQL expression of a dashboard object (for tests and the render). */
export function dashboardExprs(dashboard: unknown): string[] {
  const panels = (dashboard as { panels?: { targets?: { expr?: unknown }[] }[] }).panels ?? [];
  return panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr)).filter((e): e is string => typeof e === "string");
}
