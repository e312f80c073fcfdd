/**
 * The model-fit annotations of a DynamoGraphDeployment (components/inference/fit.ts) are
 * recomputed from the model catalog, the graph's own engine flags and each worker's instance type, so
 * a hand-edited plan cannot claim a fit its model and GPUs do not give. Flags are read by the same
 * function as the plan's model section reads them (`_command.ts` `fitFlags`).
 */
import type { ReportViolation } from "@pulumi/policy";
import { INSTANCES } from "../../components/catalog/instances";
import { KvCacheDtype, ModelFacts, ModelShape } from "../../components/catalog/models";
import { Backend } from "../../components/inference/args";
import { modelFacts, workerFit, modelAnnotationValues, roleAnnotationValues } from "../../components/inference/fit";
import { dgdPolicy } from "./_policy";
import { commandWords, FIT_FLAGS_TEXT, fitFlags, flagValue } from "./_command";
import { annotation, dgdName, GraphService, instanceTypeOf, PlanDgd, show, workers } from "./_predicates";
import { Annotation, FIT_ROLE_PREFIX } from "../../components/_shared/annotations";

/** Whether an annotation key is one of the recorded fit numbers. */
const isFitKey = (k: string) =>
  k === Annotation.ModelParamsB || k === Annotation.ModelKvBytesPerToken || k.startsWith(FIT_ROLE_PREFIX);

/** The model the graph serves, from its annotations and its workers' `--model`; a reason when unknown. */
export function graphModel(
  props: PlanDgd,
  ws: readonly GraphService[],
): { m: ModelFacts; kvDtype: KvCacheDtype } | { why: string } {
  const id =
    annotation(props, Annotation.Model) ??
    ws.map((w) => flagValue(commandWords(w.svc), "--model")).find((x) => x !== undefined);
  if (!id) return { why: `no ${Annotation.Model} annotation and no worker --model` };
  let shape: ModelShape | undefined;
  const rawShape = annotation(props, Annotation.ModelShape);
  try {
    shape = rawShape === undefined ? undefined : (JSON.parse(rawShape) as ModelShape);
  } catch (e) {
    return { why: `annotation ${Annotation.ModelShape} is not valid JSON (${(e as Error).message})` };
  }
  const m = modelFacts(id, shape);
  if (!m)
    return {
      why: `model ${show(id)} is not in the model catalog (components/catalog/models.ts) and the graph states no ${Annotation.ModelShape}`,
    };
  return { m, kvDtype: (annotation(props, Annotation.KvCacheDtype) ?? KvCacheDtype.Auto) as KvCacheDtype };
}

/** The fit numbers one worker's flags and instance give, keyed by annotation; a reason when they cannot be computed. */
function workerValues(
  props: PlanDgd,
  w: GraphService,
  m: ModelFacts,
  kvDtype: KvCacheDtype,
): Record<string, number> | { why: string } {
  const role = String(w.svc?.subComponentType ?? "");
  const flags = fitFlags(commandWords(w.svc));
  const type = instanceTypeOf(w.svc);
  const instance = type === undefined ? undefined : INSTANCES.get(type);
  if (!role) return { why: `${w.label} has no subComponentType (prefill or decode)` };
  if (!instance)
    return { why: `${w.label} is pinned to instance type ${show(type)}, which the instance catalog does not know` };
  if (!flags) return { why: `${w.label} does not state ${FIT_FLAGS_TEXT} as positive numbers` };
  const backend = (props?.spec?.backendFramework === Backend.Trtllm ? Backend.Trtllm : Backend.Vllm) as Backend;
  return roleAnnotationValues(role, workerFit({ model: m, instance, backend, ...flags, kvCacheDtype: kvDtype }));
}

/** Largest difference between a stated and a computed value that rounding explains. */
function tolerance(key: string, cfg: { gibTolerance: number; tokenTolerance: number }): number {
  if (key === Annotation.ModelKvBytesPerToken) return 0;
  return /tokens$/.test(key) ? cfg.tokenTolerance : cfg.gibTolerance;
}

function compare(
  name: string,
  stated: Record<string, string>,
  computed: Record<string, number>,
  cfg: { gibTolerance: number; tokenTolerance: number },
  report: ReportViolation,
): void {
  for (const [k, raw] of Object.entries(stated)) {
    const want = computed[k];
    // A role with no worker in this graph (a graph split by hand) has nothing to recompute against.
    if (want === undefined) continue;
    const got = Number(raw);
    if (!Number.isFinite(got) || Math.abs(got - want) > tolerance(k, cfg) + 1e-9) {
      report(
        `DynamoGraphDeployment ${show(name)}: annotation ${k} is ${show(raw)}, but the model catalog, the workers' engine flags and instance type give ${want}; re-render the plan instead of editing the annotation`,
      );
    }
  }
}

/** Model-fit annotations agree with what the catalog, the engine flags and the GPUs give. */
export const modelFitAnnotationsMatchCatalog = dgdPolicy({
  name: "model-fit-annotations-match-catalog",
  description:
    "The model-fit annotations of a DynamoGraphDeployment (parameters, KV bytes per token, per-role weights, KV cache and token capacity) match what the model catalog, the workers' engine flags and instance type give.",
  defaults: { gibTolerance: 0.01, tokenTolerance: 1 },
  check: (props, args, report, cfg) => {
    const all = (props?.metadata?.annotations ?? {}) as Record<string, string>;
    const stated = Object.fromEntries(Object.entries(all).filter(([k]) => isFitKey(k)));
    if (Object.keys(stated).length === 0) args.notApplicable("the graph states no model-fit annotations");
    const name = dgdName(props, args.name);
    const ws = workers(props, args.name);
    const model = graphModel(props, ws);
    if ("why" in model)
      return report(
        `DynamoGraphDeployment ${show(name)} states model-fit annotations that cannot be checked: ${model.why}; remove them or name a catalog model`,
      );
    const computed: Record<string, number> = { ...modelAnnotationValues(model.m, model.kvDtype) };
    for (const w of ws) {
      const v = workerValues(props, w, model.m, model.kvDtype);
      if ("why" in v)
        return report(
          `DynamoGraphDeployment ${show(name)} states model-fit annotations that cannot be checked: ${v.why}; state them, or remove the annotations`,
        );
      Object.assign(computed, v);
    }
    compare(name, stated, computed, cfg, report);
  },
});

/** The model-fit policy, for policy/policies.ts. */
export const modelFitPolicies = [modelFitAnnotationsMatchCatalog];
