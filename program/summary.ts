/**
 * The plan summary the program exports as a stack output (`pulumi stack output plan`): pools,
 * workers, GPUs and EFA rails requested vs provisioned, and the image's arch list. Pure.
 *
 * The types are picks of their sources (the cluster's `GpuPoolFacts`, the component's `WorkerPlanRow`),
 * and `capacityTotals` is the one computation of the GPU and EFA totals: the render tool's plan uses it too.
 */
import type { GpuPoolFacts } from "../components/catalog/pool";
import type { WorkerPlanRow } from "../components/inference/plan";

/** One GPU pool in the summary. */
export type SummaryPool = Pick<
  GpuPoolFacts,
  "name" | "instanceType" | "nodes" | "gpusPerNode" | "efaPerNode" | "smArch"
>;

/** One worker role in the summary. */
export type SummaryWorker = Pick<WorkerPlanRow, "role" | "replicas" | "gpusPerWorker" | "efaPerWorker" | "nixlRails">;

/** The image's CUDA targets. */
export interface SummaryImage {
  readonly cudaArchs: readonly string[];
  readonly cudaToolkit: string;
}

/** GPUs requested by the workers vs provisioned by the pools, and EFA rails the same way. */
export interface CapacityTotals {
  readonly gpus: { readonly requested: number; readonly provisioned: number };
  readonly efaRails: { readonly used: number; readonly provisioned: number };
}

/** The exported plan summary. */
export interface PlanSummary extends CapacityTotals {
  readonly gpuPools: readonly SummaryPool[];
  readonly workers: readonly SummaryWorker[];
  readonly image: SummaryImage;
}

/** The totals of `workers` (replicas x per-worker GPUs / EFA) against `pools` (nodes x per-node GPUs / EFA). */
export function capacityTotals(
  pools: readonly Pick<GpuPoolFacts, "nodes" | "gpusPerNode" | "efaPerNode">[],
  workers: readonly Pick<WorkerPlanRow, "replicas" | "gpusPerWorker" | "efaPerWorker">[],
): CapacityTotals {
  return {
    gpus: {
      requested: workers.reduce((s, w) => s + w.replicas * w.gpusPerWorker, 0),
      provisioned: pools.reduce((s, p) => s + p.nodes * p.gpusPerNode, 0),
    },
    efaRails: {
      used: workers.reduce((s, w) => s + w.replicas * w.efaPerWorker, 0),
      provisioned: pools.reduce((s, p) => s + p.nodes * p.efaPerNode, 0),
    },
  };
}

/** A pool's summary fields. */
export function summaryPool(p: GpuPoolFacts): SummaryPool {
  return {
    name: p.name,
    instanceType: p.instanceType,
    nodes: p.nodes,
    gpusPerNode: p.gpusPerNode,
    efaPerNode: p.efaPerNode,
    smArch: p.smArch,
  };
}

/** Summarizes pools, workers and the image. */
export function planSummary(
  pools: readonly GpuPoolFacts[],
  workers: readonly WorkerPlanRow[],
  cudaArchs: readonly string[],
  cudaToolkit: string,
): PlanSummary {
  return {
    gpuPools: pools.map(summaryPool),
    workers: workers.map((w) => ({
      role: w.role,
      replicas: w.replicas,
      gpusPerWorker: w.gpusPerWorker,
      efaPerWorker: w.efaPerWorker,
      nixlRails: w.nixlRails,
    })),
    ...capacityTotals(pools, workers),
    image: { cudaArchs: [...cudaArchs], cudaToolkit },
  };
}
