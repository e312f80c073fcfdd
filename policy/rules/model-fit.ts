/**
 * Does the model a DynamoGraphDeployment serves fit its workers' GPUs? Read from the graph's own content, so a
 * hand-written graph is held to the rule `DisaggInference` validates its own by (components/inference/fit.ts
 * `fitProblem`): the model (annotation `dynamo-efa/model`, else the workers' `--model`, with a stated
 * `dynamo-efa/model-shape` and `dynamo-efa/kv-cache-dtype`), each worker's engine flags (`_command.ts` `fitFlags`)
 * and the instance type it is pinned to. A model of unknown fit, or a worker whose flags are not stated, is not
 * judged: the policy says why.
 */
import { GpuInstance, INSTANCES } from "../../components/catalog/instances";
import { KvCacheDtype, ModelFacts, ModelShape, WEIGHT_DTYPE_BYTES } from "../../components/catalog/models";
import { Backend } from "../../components/inference/args";
import { modelFacts } from "../../components/catalog/models";
import { FitInput, fitProblem, smallestTensorParallel } from "../../components/inference/fit";
import { dgdPolicy } from "./_policy";
import { commandWords, FIT_FLAGS, FIT_FLAGS_TEXT, fitFlags, flagValue } from "./_command";
import { annotation, GraphService, instanceTypeOf, workers } from "./_predicates";
import { PlanDgd } from "./_dgd";
import { show } from "../../components/_shared/problems";
import { Annotation } from "../../components/_shared/annotations";

/** The model the graph serves, from its annotations and its workers' `--model`; a reason when unknown. */
export function graphModel(
  props: PlanDgd,
  ws: readonly GraphService[],
): { m: ModelFacts; kvDtype: KvCacheDtype } | { why: string } {
  const id =
    annotation(props, Annotation.Model) ??
    ws.map((w) => flagValue(commandWords(w.svc), "--model")).find((x) => x !== undefined);
  if (!id) return { why: `no ${Annotation.Model} annotation and no worker --model` };
  // A catalogued model is judged by its row (as modelFacts does), so only another model's stated shape is read.
  const stated = modelFacts(id) ? {} : statedShape(annotation(props, Annotation.ModelShape));
  if ("why" in stated) return stated;
  const m = modelFacts(id, stated.shape);
  if (!m)
    return {
      why: `model ${show(id)} is not in the model catalog (components/catalog/models.ts) and the graph states no ${Annotation.ModelShape}`,
    };
  // A dtype outside the enum has no bytes per element: judging with it would report NaN-sized KV caches.
  const kvDtype = annotation(props, Annotation.KvCacheDtype) ?? KvCacheDtype.Auto;
  const dtypes: readonly string[] = Object.values(KvCacheDtype);
  if (!dtypes.includes(kvDtype))
    return { why: `annotation ${Annotation.KvCacheDtype} is ${show(kvDtype)}, not one of ${show(dtypes)}` };
  return { m, kvDtype: kvDtype as KvCacheDtype };
}

/**
 * The model shape a graph states (JSON in its annotation), checked as far as the fit reads it: a hand-written graph
 * may state `{}` or `5`, and fit arithmetic on absent fields would report "undefined attention heads" as a violation.
 */
function statedShape(raw: string | undefined): { shape?: ModelShape } | { why: string } {
  if (raw === undefined) return {};
  let x: unknown;
  try {
    x = JSON.parse(raw);
  } catch (e) {
    return { why: `annotation ${Annotation.ModelShape} is not valid JSON (${(e as Error).message})` };
  }
  const o = (typeof x === "object" && x !== null && !Array.isArray(x) ? x : {}) as Record<string, unknown>;
  const mla = (typeof o.mla === "object" && o.mla !== null ? o.mla : undefined) as Record<string, unknown> | undefined;
  const positive = (v: unknown) => typeof v === "number" && Number.isFinite(v) && v > 0;
  const fields = ["paramsB", "layers", "attentionHeads", "maxContext", ...(mla ? [] : ["kvHeads", "headDim"])];
  const bad = fields.filter((k) => !positive(o[k]));
  if (mla) bad.push(...["kvLoraRank", "qkRopeHeadDim"].filter((k) => !positive(mla[k])).map((k) => `mla.${k}`));
  if (!(typeof o.weightDtype === "string" && Object.keys(WEIGHT_DTYPE_BYTES).includes(o.weightDtype)))
    bad.push("weightDtype");
  if (bad.length === 0) return { shape: o as unknown as ModelShape };
  return {
    why: `annotation ${Annotation.ModelShape} ${show(raw)} does not state ${bad.join(", ")} (positive numbers; weightDtype one of ${show(Object.keys(WEIGHT_DTYPE_BYTES))})`,
  };
}

/** One worker's fit input from its flags and instance type; a reason when the graph does not say enough. */
function workerInput(
  props: PlanDgd,
  w: GraphService,
  model: { m: ModelFacts; kvDtype: KvCacheDtype },
): { input: FitInput; instance: GpuInstance } | { why: string } {
  const type = instanceTypeOf(w.svc);
  const instance = type === undefined ? undefined : INSTANCES.get(type);
  if (!instance)
    return {
      why: `${w.label} is ${type === undefined ? "not pinned to an instance type" : `pinned to instance type ${show(type)}, which the instance catalog does not know`}`,
    };
  const flags = fitFlags(commandWords(w.svc));
  if (!flags) return { why: `${w.label} does not state ${FIT_FLAGS_TEXT} as positive numbers` };
  const backend = props?.spec?.backendFramework === Backend.Trtllm ? Backend.Trtllm : Backend.Vllm;
  return { input: { model: model.m, instance, backend, kvCacheDtype: model.kvDtype, ...flags }, instance };
}

/** Why the worker does not run the model, with the fix; undefined when it does. */
function workerProblem(w: GraphService, input: FitInput, instance: GpuInstance): string | undefined {
  const { model: m, maxModelLen } = input;
  // The flag names of the worker's engine (FIT_FLAGS: vLLM's, then TensorRT-LLM's where it differs).
  const flag = (names: readonly string[]) => names[input.backend === Backend.Trtllm ? names.length - 1 : 0];
  const tpFlag = flag(FIT_FLAGS.tensorParallel);
  const lenFlag = flag(FIT_FLAGS.maxModelLen);
  if (maxModelLen > m.maxContext)
    return `${w.label}: ${lenFlag} ${maxModelLen} is above ${show(m.id)}'s maximum context of ${m.maxContext} tokens (max_position_embeddings); use at most ${m.maxContext}`;
  const why = fitProblem(input, flag(FIT_FLAGS.gpuMemoryUtilization));
  if (!why) return undefined;
  const best = smallestTensorParallel(input, instance.gpuCount);
  const fix = best
    ? `the smallest ${tpFlag} that fits is ${best.tp} (and as many GPUs per worker)`
    : `no ${tpFlag} up to ${instance.gpuCount} fits on ${instance.name}: use a quantized model, a lower ${lenFlag}, an FP8 KV cache or a GPU with more memory`;
  return `${w.label}: ${tpFlag} ${input.tensorParallel} does not run the model on ${instance.name}: ${why}. Fix: ${fix}`;
}

/** Every worker of a graph runs the model it serves on the GPUs it is pinned to. */
export const modelFitsWorkers = dgdPolicy({
  name: "model-fits-workers",
  description:
    "Each worker of a DynamoGraphDeployment runs the model it serves on the GPUs it is pinned to: the tensor parallel splits the heads, the weights fit and the KV cache holds one --max-model-len sequence (model catalog, engine flags, instance type).",
  defaults: {},
  check: (props, args, report) => {
    const ws = workers(props, args.name);
    if (ws.length === 0) args.notApplicable("the graph has no workers");
    const model = graphModel(props, ws);
    if ("why" in model) return args.notApplicable(`the model's fit is unknown: ${model.why}`);
    const unjudged: string[] = [];
    for (const w of ws) {
      const wi = workerInput(props, w, model);
      if ("why" in wi) unjudged.push(wi.why);
      else {
        const problem = workerProblem(w, wi.input, wi.instance);
        if (problem) report(problem);
      }
    }
    if (unjudged.length === ws.length) args.notApplicable(unjudged.join("; "));
  },
});

/** The model-fit policy, for policy/policies.ts. */
export const modelFitPolicies = [modelFitsWorkers];
