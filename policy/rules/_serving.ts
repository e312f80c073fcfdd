/**
 * A DynamoGraphDeployment read into the serving estimate's input (components/inference/serving.ts):
 * the model (as the model-fit policy reads it), each role's replicas, engine flags and EFA devices, the
 * workload annotation. The policy `serving-estimate-meets-workload` judges whatever graph it is given, so it reads
 * that graph; the render's plan and verify start from the graph's plan instead (`servingInputOf`,
 * components/inference/plan.ts), and tests/render/plan-facts.spec.ts checks this reading of the rendered graph
 * gives the plan's own estimate.
 */
import { Backend } from "../../components/inference/args";
import { ServingEstimate, servingEstimate, ServingInput, ServingRoleInput } from "../../components/inference/serving";
import { workloadOf } from "../../components/inference/workload";
import { commandWords, fitFlags, FIT_FLAGS_TEXT } from "./_command";
import { efaOf, GraphService, instanceTypeOf, workers } from "./_predicates";
import { PlanDgd } from "./_dgd";
import { graphModel } from "./model-fit";

/** One role's workers of the graph; a reason when the role is missing or its flags are unreadable. */
function roleOf(ws: readonly GraphService[], role: string): ServingRoleInput | { why: string } {
  const svc = ws.find((w) => w.svc?.subComponentType === role);
  if (!svc) return { why: `the graph has no ${role} worker` };
  const flags = fitFlags(commandWords(svc.svc));
  if (!flags) return { why: `${svc.label} does not state ${FIT_FLAGS_TEXT} as positive numbers` };
  return { replicas: Number(svc.svc?.replicas ?? 1), efaDevices: efaOf(svc.svc), ...flags };
}

/**
 * The serving input of a graph. `instanceType`: the pool's, when the caller knows it (the render); else the
 * instance type the workers are pinned to.
 */
export function graphServingInput(
  props: PlanDgd,
  resourceName: string,
  instanceType?: string,
): ServingInput | { why: string } {
  const ws = workers(props, resourceName);
  const model = graphModel(props, ws);
  if ("why" in model) return model;
  const prefill = roleOf(ws, "prefill");
  if ("why" in prefill) return prefill;
  const decode = roleOf(ws, "decode");
  if ("why" in decode) return decode;
  const type = instanceType ?? ws.map((w) => instanceTypeOf(w.svc)).find((t) => t !== undefined);
  if (!type) return { why: "no worker is pinned to an instance type" };
  const workload = workloadOf((props.metadata?.annotations ?? {}) as Record<string, string>);
  if ("why" in workload) return workload;
  const backend = props.spec?.backendFramework === Backend.Trtllm ? Backend.Trtllm : Backend.Vllm;
  return {
    model: model.m,
    kvCacheDtype: model.kvDtype,
    backend,
    pool: { instanceType: type },
    prefill,
    decode,
    workload,
  };
}

/** The serving estimate of a graph, or why there is none. */
export function graphServing(
  props: PlanDgd,
  resourceName: string,
  instanceType?: string,
): ServingEstimate | { why: string } {
  const input = graphServingInput(props, resourceName, instanceType);
  return "why" in input ? input : servingEstimate(input);
}
