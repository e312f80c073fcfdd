/**
 * What one run of a program hands its caller. `program()` returns it to `index.ts` (a real
 * `pulumi up`, which exports `exports`) and to the offline render (which runs the same function
 * under mocks and reads `result`). The types live here, beside the program that produces them, so
 * `program/` depends on nothing in `tools/`; the render imports them from here.
 */
import type { GpuPoolFacts } from "../components/catalog/pool";
import type { InferencePlan } from "../components/inference/plan";
import type { ImagePlan } from "../components/image/plan";
import type { StackKind } from "./config";

/** What a program function hands back: the stack outputs, plus anything else the caller wants. */
export interface ProgramRun<R> {
  readonly exports: Record<string, unknown>;
  readonly result: R;
}

/** Plain facts the program hands the render besides its resources. */
export interface RenderFacts {
  /** What the stack deploys: a whole system, a shared cluster, or one model on a shared cluster. */
  readonly kind: StackKind;
  readonly region: string;
  /** Every GPU pool of the cluster (`EfaCluster.gpuPools`). */
  readonly gpuPools: readonly GpuPoolFacts[];
  /** The graph's image; absent from a cluster stack (it serves no graph). */
  readonly image?: {
    readonly cudaArchs: readonly string[];
    readonly cudaToolkit: string;
    readonly build: boolean;
    /** The image component's plain build plan (written to image.json). */
    readonly plan?: ImagePlan;
  };
  /** The graph's plain plan facts (`DisaggInference.plan`); absent from a program without a graph. */
  readonly inference?: InferencePlan;
  /**
   * The shared cluster a model stack runs on and what it costs (paid once, by the cluster stack, for every model on
   * it); absent from a stack with its own cluster.
   */
  readonly sharedCluster?: SharedClusterFacts;
}

/** The cluster a model stack shares, as its handoff describes it. */
export interface SharedClusterFacts {
  /** The cluster stack. */
  readonly stack: string;
  readonly clusterName: string;
  /** The CPU system node group. */
  readonly systemNodes: { readonly instanceType: string; readonly count: number };
}
