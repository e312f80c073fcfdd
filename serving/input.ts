/**
 * The serving estimate's one input adapter: a graph's plan (`InferencePlan`, computed once by the inference component
 * from the resolved settings) on its GPU pool, as `ServingInput`. Pure.
 */
import type { GpuPoolFacts } from "../components/catalog/pool";
import { modelFacts } from "../components/catalog/models";
import { ServingRole } from "../components/inference/args";
import type { InferencePlan } from "../components/inference/plan";
import type { ServingInput, ServingRoleInput } from "./estimate";

/**
 * The serving estimate's input of a plan, on `pool`; a reason when there is none (a model of unknown shape, a role
 * without workers). The one translation of the plan into that input: the render's `plan.json` and verify's
 * expected latencies (and measure's estimate) all come through here.
 */
export function servingInputOf(
  p: InferencePlan,
  pool: Pick<GpuPoolFacts, "instanceType">,
): ServingInput | { why: string } {
  const model = modelFacts(p.model, p.modelShape);
  if (!model)
    return {
      why: `model ${JSON.stringify(p.model)} is not in the model catalog (components/catalog/models.ts) and the graph states no inference.modelShape`,
    };
  const role = (r: ServingRole): ServingRoleInput | undefined => {
    const w = p.workers.find((x) => x.role === r);
    return w
      ? {
          replicas: w.replicas,
          tensorParallel: w.gpusPerWorker,
          efaDevices: w.efaPerWorker,
          maxModelLen: p.maxModelLen,
          gpuMemoryUtilization: p.gpuMemoryUtilization,
        }
      : undefined;
  };
  const prefill = role(ServingRole.Prefill);
  const decode = role(ServingRole.Decode);
  if (!prefill || !decode) return { why: "the graph has no prefill or no decode worker" };
  const { kvCacheDtype, backend, workload } = p;
  return { model, kvCacheDtype, backend, pool: { instanceType: pool.instanceType }, prefill, decode, workload };
}
