/**
 * `plan.json`: the deployment at a glance — GPU pools, workers per role, GPUs and EFA rails requested vs
 * provisioned, the model's fit and load, the critical path and a rough $/hour. Pure. `plan.md` renders it
 * (`./md.ts`); the workers rows come from `./workers.ts`, the cost lines from `./cost.ts`.
 *
 * Pools come from the cluster's plain `GpuPoolFacts`; the workers, model, fit, load, serving and KV-transport
 * sections from the graph's plan, which the program returns with its run (`RenderFacts.inference`, the facts the
 * graph is rendered from), never parsed back from the rendered graph.
 */
import type { GpuPoolFacts } from "../../../components/catalog/pool";
import type { FrontendImagePlan, InferencePlan, RuntimePlan, UpWait } from "../../../components/inference/plan";
import { PLACEHOLDER_DIGEST } from "../../../components/image/image-digest";
import { capacityTotals, CapacityTotals, SummaryImage, SummaryPool, summaryPool } from "../../../program/summary";
import { CriticalPath } from "./graph";
import { kvWire, KvWire } from "../../../components/inference/args";
import { ModelPlanSection, modelPlan } from "./model";
import { ServingPlanSection, servingPlan } from "./serving";
import { costLines, SharedClusterCost, sharedClusterCost } from "./cost";
import type { SharedClusterFacts } from "../../../program/run";
import { PlanSourceResource, PlanWorker, planWorkers } from "./workers";
import { PlanPlacement, placementOf } from "./placement";
import { CostLine, PRICE_SOURCE, PRICED_REGIONS, PRICES_REVIEWED, totalUsdPerHour } from "./prices";
import type { GpuIdlePlan } from "./idle";

/** One GPU pool in the plan: the summary's pool fields and its availability zone, when pinned. */
export type PlanPool = SummaryPool & Pick<GpuPoolFacts, "availabilityZone">;

/** The plan. */
export interface Plan extends ModelPlanSection, ServingPlanSection, CapacityTotals {
  readonly stack: string;
  readonly region: string;
  readonly gpuPools: readonly PlanPool[];
  readonly workers: readonly PlanWorker[];
  /** Which GPU nodes each role is expected to hold, and the nodes no worker uses (billed, idle). */
  readonly placement: PlanPlacement;
  /** NIXL backend for KV cache and whether it moves over RDMA or TCP. */
  readonly kvTransport?: KvWire;
  /** The graph's backend, and the Dynamo release and engine versions it runs (`RuntimePlan`). */
  readonly runtime?: RuntimePlan & { readonly backend: string };
  /**
   * The image's CUDA targets (as in the stack's summary), its ref when known, whether the stack builds it, and, for a
   * vendor tag the render cannot resolve, that its digest is a placeholder (`pulumi up` resolves it once); absent
   * from a cluster stack (it serves no graph).
   */
  readonly image?: PlanImage;
  /** The Frontend's image and how its digest is known (the graph's plan). */
  readonly frontendImage?: FrontendImagePlan;
  readonly criticalPath: readonly string[];
  readonly criticalPathDetail: CriticalPath;
  /** What `pulumi up` waits for on the graph, in order, with the most it waits (the graph's plan, `upWaits`). */
  readonly pulumiUpWaits: readonly UpWait[];
  readonly resources: { readonly total: number; readonly byType: Readonly<Record<string, number>> };
  readonly costPerHourUsd: number;
  /** Minutes a GPU node is billed on a first deploy before its first worker loads (basis in `gpuIdle.basis`). */
  readonly gpuIdleMinutes?: number;
  /** The GPU idle time, the per-node timeline, the fleet's image pulls and reservation timing (`./idle.ts`). */
  readonly gpuIdle?: GpuIdlePlan;
  readonly cost: {
    readonly lines: readonly CostLine[];
    readonly source: string;
    readonly reviewed: string;
    readonly regionPriced: boolean;
  };
  /**
   * A model stack's shared cluster and what it costs, apart from this stack's own cost (`costPerHourUsd`): paid
   * once, by the cluster stack, however many model stacks run on it. Absent from a stack with its own cluster.
   */
  readonly sharedCluster?: SharedClusterCost;
}

/** The image in the plan. */
export type PlanImage = SummaryImage & {
  readonly ref?: string;
  readonly build: boolean;
  readonly digestPlaceholder?: boolean;
};

/** What the plan is computed from. */
export interface PlanInput {
  readonly stack: string;
  readonly region: string;
  readonly pools: readonly GpuPoolFacts[];
  readonly image?: PlanImage;
  readonly resources: readonly PlanSourceResource[];
  /** The shared cluster a model stack runs on (`RenderFacts.sharedCluster`). */
  readonly sharedCluster?: SharedClusterFacts;
  readonly criticalPath: CriticalPath;
  /** The graph's plan facts (`RenderFacts.inference`); absent when the program has no graph. */
  readonly inference?: InferencePlan;
}

/** Builds the plan. */
export function buildPlan(input: PlanInput): Plan {
  const workers = planWorkers(input.inference);
  const byType: Record<string, number> = {};
  for (const r of input.resources) byType[r.type] = (byType[r.type] ?? 0) + 1;
  const lines = costLines(input.pools, input.resources);
  const gpuPools = input.pools.map((p) => ({
    ...summaryPool(p),
    ...(p.availabilityZone ? { availabilityZone: p.availabilityZone } : {}),
  }));
  return {
    stack: input.stack,
    region: input.region,
    gpuPools,
    workers,
    placement: placementOf({ gpuPools, workers }),
    ...modelPlan(input.inference, input.pools),
    ...servingPlan(input.inference, input.pools),
    ...capacityTotals(input.pools, workers),
    ...(input.inference ? { kvTransport: kvWire(input.inference.kvTransport) } : {}),
    ...(input.inference ? { runtime: { backend: input.inference.backend, ...input.inference.runtime } } : {}),
    ...(input.image
      ? {
          image: {
            ...input.image,
            ...(input.image.ref?.endsWith(`@${PLACEHOLDER_DIGEST}`) ? { digestPlaceholder: true } : {}),
          },
        }
      : {}),
    ...(input.inference ? { frontendImage: input.inference.frontendImage } : {}),
    criticalPath: input.criticalPath.steps.map((s) => s.name),
    criticalPathDetail: input.criticalPath,
    pulumiUpWaits: input.inference?.upWaits ?? [],
    resources: {
      total: input.resources.length,
      byType: Object.fromEntries(Object.entries(byType).sort(([a], [b]) => a.localeCompare(b))),
    },
    costPerHourUsd: totalUsdPerHour(lines),
    cost: {
      lines,
      source: PRICE_SOURCE,
      reviewed: PRICES_REVIEWED,
      regionPriced: PRICED_REGIONS.includes(input.region),
    },
    ...(input.sharedCluster ? { sharedCluster: sharedClusterCost(input.sharedCluster) } : {}),
  };
}
