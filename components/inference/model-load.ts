/**
 * How long getting the weights onto the GPUs is estimated to take, per model cache mode, and the budgets derived
 * from that estimate when the user sets none. One function for the budgets (`resolveArgs`), their validation and the
 * plan's model-load section (tools/render/plan/load.ts), so the three cannot disagree. Pure.
 *
 * The bandwidths are stated assumptions, not measurements (the plan prints them); change them here when the field
 * measures better numbers.
 */
import type { GpuPoolFacts } from "../catalog/pool";

/** Where the workers' model weights come from. */
export const ModelCacheMode = {
  /** Every worker downloads the model itself from Hugging Face, inside its engine, into its own container. */
  None: "none",
  /** One shared ReadWriteMany volume (`modelCache`, e.g. EFS) as every worker's `HF_HOME`; the first worker to start downloads. */
  Efs: "efs",
  /**
   * Each node downloads the model once, before its workers start, into its instance-store NVMe RAID0 array
   * (a per-pod init container under a node-level lock; see `./cache.ts`); workers mount it read-only.
   */
  LocalNvme: "local-nvme",
} as const;
export type ModelCacheMode = (typeof ModelCacheMode)[keyof typeof ModelCacheMode];

/** Stated bandwidths and fixed costs, in MB/s (10^6 bytes) and seconds. */
export const LOAD_ASSUMPTIONS = {
  /** One node downloading from Hugging Face's CDN, one file at a time (the prefetch is one stream): assumed. */
  hfDownloadMBps: 200,
  /** Sequential read of the instance-store NVMe RAID0 array (8 disks on p5en): assumed, well under the disks' sum. */
  nvmeReadMBps: 4000,
  /** One EFS client (one node) reading, elastic throughput: assumed. */
  efsReadMBps: 500,
  /** gp3 root volume at its baseline throughput (125 MiB/s: the launch template sets no extra throughput). */
  gp3ReadMBps: 131,
  /** Engine start besides reading the weights (CUDA context, torch.compile, CUDA graph capture): assumed. */
  engineStartSeconds: 90,
} as const;

/**
 * Budgets derived from the estimate: this many times it (the bandwidths are assumptions, a slow CDN or a cold
 * array must not fail a deploy that would finish), rounded up to a minute, never below the fixed default the
 * budgets had before they were derived, never above the budgets' upper limit.
 */
export const BUDGET_MARGIN = 2;
export const BUDGET_FLOOR_SECONDS = 1800;
export const BUDGET_CEILING_SECONDS = 86400;

/** Seconds of each step. `none`/`efs`: the engine downloads inside its own start, so the load budget covers both. */
export interface LoadEstimate {
  readonly downloadSeconds: number;
  readonly loadSeconds: number;
  /** True when the download happens inside the engine's start (and its load budget). */
  readonly downloadInLoad: boolean;
}

const secs = (bytes: number, mbps: number) => Math.ceil(bytes / (mbps * 1e6));

/** The estimate of a mode for `weightBytes` on `pool` with `workers` worker pods. */
export function loadEstimate(
  mode: ModelCacheMode,
  weightBytes: number,
  pool: Pick<GpuPoolFacts, "nodes" | "localNvme">,
  workers: number,
): LoadEstimate {
  const a = LOAD_ASSUMPTIONS;
  if (mode === "local-nvme")
    return {
      downloadSeconds: secs(weightBytes, a.hfDownloadMBps),
      loadSeconds: secs(weightBytes, a.nvmeReadMBps) + a.engineStartSeconds,
      downloadInLoad: false,
    };
  if (mode === "efs")
    return {
      downloadSeconds: secs(weightBytes, Math.min(a.hfDownloadMBps, a.efsReadMBps)),
      loadSeconds: secs(weightBytes, a.efsReadMBps) + a.engineStartSeconds,
      downloadInLoad: true,
    };
  const perNode = noCacheWorkersPerNode(pool, workers);
  return {
    downloadSeconds: secs(weightBytes * perNode, a.hfDownloadMBps),
    loadSeconds: secs(weightBytes, pool.localNvme ? a.nvmeReadMBps : a.gp3ReadMBps) + a.engineStartSeconds,
    downloadInLoad: true,
  };
}

/** `none`: workers of a node share its download bandwidth. */
export function noCacheWorkersPerNode(pool: Pick<GpuPoolFacts, "nodes">, workers: number): number {
  return Math.max(1, Math.ceil(workers / Math.max(1, pool.nodes)));
}

const derive = (seconds: number) =>
  Math.min(BUDGET_CEILING_SECONDS, Math.max(BUDGET_FLOOR_SECONDS, Math.ceil((seconds * BUDGET_MARGIN) / 60) * 60));

/** The budgets a user who sets none gets: the load budget covers what happens inside the engine's start. */
export function derivedBudgets(e: LoadEstimate): { readonly load: number; readonly download: number } {
  return {
    load: derive(e.loadSeconds + (e.downloadInLoad ? e.downloadSeconds : 0)),
    download: e.downloadInLoad ? BUDGET_FLOOR_SECONDS : derive(e.downloadSeconds),
  };
}

/** The budgets an estimate exceeds, as "<what> <estimate> s > <key> <budget>". */
export function overBudget(e: LoadEstimate, loadBudget: number, downloadBudget: number): string[] {
  const out: string[] = [];
  if (!e.downloadInLoad) {
    if (e.downloadSeconds > downloadBudget)
      out.push(`download ${e.downloadSeconds} s > modelDownloadBudgetSeconds ${downloadBudget}`);
    if (e.loadSeconds > loadBudget) out.push(`load ${e.loadSeconds} s > modelLoadBudgetSeconds ${loadBudget}`);
  } else if (e.downloadSeconds + e.loadSeconds > loadBudget) {
    out.push(
      `download + load ${e.downloadSeconds + e.loadSeconds} s > modelLoadBudgetSeconds ${loadBudget} (the engine downloads inside its start)`,
    );
  }
  return out;
}
