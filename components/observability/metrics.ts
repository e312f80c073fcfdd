/**
 * The metric names the dashboard and `verify` gate F query. Each one is checked against the upstream
 * facts (tests/contracts/facts/dynamo-metrics.json, dcgm-metrics.json), so a name the pinned Dynamo
 * or DCGM exporter does not expose fails CI. Pure data.
 */

/** Frontend (`python3 -m dynamo.frontend`, /metrics on its HTTP port): `dynamo_frontend_*`, label `model`. */
export const FrontendMetric = {
  /** Counter; labels model, endpoint, request_type, status (success|error), error_type. */
  Requests: "dynamo_frontend_requests_total",
  /** Histogram, seconds. */
  TimeToFirstToken: "dynamo_frontend_time_to_first_token_seconds",
  /** Histogram, seconds. */
  InterTokenLatency: "dynamo_frontend_inter_token_latency_seconds",
  /** Histogram, seconds. */
  RequestDuration: "dynamo_frontend_request_duration_seconds",
  /** Gauge: requests waiting for their first response. */
  QueuedRequests: "dynamo_frontend_queued_requests",
  /** Gauge: requests in flight to the engines. */
  InflightRequests: "dynamo_frontend_inflight_requests",
  /** Histogram, tokens. */
  InputSequenceTokens: "dynamo_frontend_input_sequence_tokens",
  /** Histogram, tokens. */
  OutputSequenceTokens: "dynamo_frontend_output_sequence_tokens",
} as const;

/** Workers (/metrics on the system port): `dynamo_component_*` request metrics of the work handler. */
export const WorkerMetric = {
  Requests: "dynamo_component_requests_total",
  Errors: "dynamo_component_errors_total",
  InflightRequests: "dynamo_component_inflight_requests",
  /** Histogram, seconds: handler entry to first response sent. */
  TimeToFirstResponse: "dynamo_component_time_to_first_response_seconds",
  /** Histogram, seconds. */
  RequestDuration: "dynamo_component_request_duration_seconds",
} as const;

/** DCGM exporter fields exported by the pinned chart's default counters. */
export const GpuMetric = {
  /** Gauge, %. */
  Utilisation: "DCGM_FI_DEV_GPU_UTIL",
  /** Gauge, MiB. */
  FramebufferUsed: "DCGM_FI_DEV_FB_USED",
  /** Gauge, MiB. */
  FramebufferFree: "DCGM_FI_DEV_FB_FREE",
  /** Gauge, W. */
  Power: "DCGM_FI_DEV_POWER_USAGE",
  /** Gauge, bytes/s over PCIe: GPUDirect RDMA between the GPU and its EFA devices crosses PCIe. */
  PcieTxBytes: "DCGM_FI_PROF_PCIE_TX_BYTES",
  PcieRxBytes: "DCGM_FI_PROF_PCIE_RX_BYTES",
} as const;

/** Labels the monitors add to every Dynamo series (from the operator's pod labels), so queries select one graph. */
export const ScrapeLabel = {
  /** The DynamoGraphDeployment's name. */
  Graph: "graph",
  /** The graph's service key: Frontend, PrefillWorker, DecodeWorker. */
  Service: "graph_service",
} as const;

/** Labels DCGM puts on GPU series: the GPU's node and, through the kubelet's pod-resources API, its pod. */
export const DcgmLabel = { Hostname: "Hostname", Pod: "pod", Namespace: "namespace" } as const;

/** `_bucket`/`_sum`/`_count` series of a histogram name. */
export const bucket = (histogram: string): string => `${histogram}_bucket`;

/** Every metric name the package queries (for the contract test). */
export const QUERIED_METRICS: readonly string[] = [
  ...Object.values(FrontendMetric),
  ...Object.values(WorkerMetric),
  ...Object.values(GpuMetric),
];
