/**
 * The plan summary the program exports as a stack output (`pulumi stack output plan`): pools,
 * workers, GPUs and EFA rails requested vs provisioned, and the image's arch list. Pure.
 */
import type { GpuPoolFacts } from "../components/catalog/pool";
import type { WorkerPlanRow } from "../components/inference/render";

/** The exported plan summary. */
export interface PlanSummary {
  readonly gpuPools: readonly {
    readonly name: string;
    readonly instanceType: string;
    readonly nodes: number;
    readonly gpusPerNode: number;
    readonly efaPerNode: number;
    readonly smArch: string;
  }[];
  readonly workers: readonly {
    readonly role: string;
    readonly replicas: number;
    readonly gpusPerWorker: number;
    readonly efaPerWorker: number;
    readonly nixlRails: number;
  }[];
  readonly gpus: { readonly requested: number; readonly provisioned: number };
  readonly efaRails: { readonly used: number; readonly provisioned: number };
  readonly image: { readonly cudaArchs: readonly string[]; readonly cudaToolkit: string };
}

/** Summarizes pools, workers and the image. */
export function planSummary(
  pools: readonly GpuPoolFacts[],
  workers: readonly WorkerPlanRow[],
  cudaArchs: readonly string[],
  cudaToolkit: string,
): PlanSummary {
  return {
    gpuPools: pools.map((p) => ({
      name: p.name,
      instanceType: p.instanceType,
      nodes: p.nodes,
      gpusPerNode: p.gpusPerNode,
      efaPerNode: p.efaPerNode,
      smArch: p.smArch,
    })),
    workers: workers.map((w) => ({
      role: w.role,
      replicas: w.replicas,
      gpusPerWorker: w.gpusPerWorker,
      efaPerWorker: w.efaPerWorker,
      nixlRails: w.nixlRails,
    })),
    gpus: {
      requested: workers.reduce((s, w) => s + w.replicas * w.gpusPerWorker, 0),
      provisioned: pools.reduce((s, p) => s + p.nodes * p.gpusPerNode, 0),
    },
    efaRails: {
      used: workers.reduce((s, w) => s + w.replicas * w.efaPerWorker, 0),
      provisioned: pools.reduce((s, p) => s + p.nodes * p.efaPerNode, 0),
    },
    image: { cudaArchs: [...cudaArchs], cudaToolkit },
  };
}
