/**
 * What one run of a program hands its caller. `program()` returns it to `index.ts` (a real
 * `pulumi up`, which exports `exports`) and to the offline render (which runs the same function
 * under mocks and reads `result`). The types live here, beside the program that produces them, so
 * `program/` depends on nothing in `tools/`; the render imports them from here.
 */
import type { GpuPoolFacts } from "../components/catalog/pool";
import type { InferencePlan } from "../components/inference/plan";
import type { ImagePlan } from "../components/image/plan";

/** What a program function hands back: the stack outputs, plus anything else the caller wants. */
export interface ProgramRun<R> {
  readonly exports: Record<string, unknown>;
  readonly result: R;
}

/** Plain facts the program hands the render besides its resources. */
export interface RenderFacts {
  readonly region: string;
  /** Every GPU pool of the cluster (`EfaCluster.gpuPools`). */
  readonly gpuPools: readonly GpuPoolFacts[];
  readonly image: {
    readonly cudaArchs: readonly string[];
    readonly cudaToolkit: string;
    readonly build: boolean;
    /** The image component's plain build plan (written to image.json). */
    readonly plan?: ImagePlan;
  };
  /** The graph's plain plan facts (`DisaggInference.plan`); absent from a program without a graph. */
  readonly inference?: InferencePlan;
}
