/**
 * The model fit written onto the DynamoGraphDeployment's `metadata.annotations`, so whoever reads the
 * graph (a person, `kubectl`, the policy `model-fit-annotations-match-catalog`) sees the numbers the
 * plan was sized with. Written only for a model the catalog knows or a stated `modelShape`; a model
 * with unknown fit gets none. Values are strings (Kubernetes annotations are):
 *
 * - `dynamo-efa/model-params-b`: total parameters in billions, 2 decimals.
 * - `dynamo-efa/model-kv-bytes-per-token`: KV-cache bytes of one token at tensor parallel 1 (exact).
 * - `dynamo-efa/fit-<role>-weights-gib-per-gpu`, `dynamo-efa/fit-<role>-kv-cache-gib-per-gpu`: GiB per
 *   GPU of the `<role>` (prefill, decode) worker, 2 decimals.
 * - `dynamo-efa/fit-<role>-kv-capacity-tokens`: tokens the worker's KV cache holds (exact).
 *
 * Pure; the policy recomputes the same numbers from the graph's engine flags and node selector.
 */
import { KvCacheDtype, kvBytesPerTokenPerGpu, ModelFacts } from "../catalog/model-math";
import { INSTANCES } from "../catalog/instances";
import { ResolvedInference } from "./args";
import { roleArgs, SERVING_ROLES } from "./derive";
import { modelFacts, workerFit, WorkerFit } from "./fit";
import { Annotation, FIT_QUANTITIES, FitQuantity, fitRoleAnnotation } from "../_shared/annotations";

const round2 = (n: number) => Math.round(n * 100) / 100;

/** The model's own annotations (parameters, KV bytes per token at tensor parallel 1). */
export function modelAnnotationValues(m: ModelFacts, kvDtype: KvCacheDtype): Record<string, number> {
  return {
    [Annotation.ModelParamsB]: round2(m.paramsTotal / 1e9),
    [Annotation.ModelKvBytesPerToken]: kvBytesPerTokenPerGpu(m, 1, kvDtype),
  };
}

/** The annotations of one role's worker fit, as numbers. */
export function roleAnnotationValues(role: string, f: WorkerFit): Record<string, number> {
  const v: Record<FitQuantity, number> = {
    "weights-gib-per-gpu": round2(f.weightsGiBPerGpu),
    "kv-cache-gib-per-gpu": round2(f.kvCacheGiBPerGpu),
    "kv-capacity-tokens": f.kvCapacityTokens,
  };
  return Object.fromEntries(FIT_QUANTITIES.map((k) => [fitRoleAnnotation(role, k), v[k]]));
}

/** All fit annotations of a graph, as strings. */
export function fitAnnotations(
  m: ModelFacts,
  kvDtype: KvCacheDtype,
  fits: readonly { readonly role: string; readonly fit: WorkerFit }[],
): Record<string, string> {
  const values = {
    ...modelAnnotationValues(m, kvDtype),
    ...Object.assign({}, ...fits.map((w) => roleAnnotationValues(w.role, w.fit))),
  } as Record<string, number>;
  return Object.fromEntries(Object.entries(values).map(([k, n]) => [k, String(n)]));
}

/** The fit annotations of a resolved graph: one set per serving role; none when the model's fit is unknown. */
export function graphFitAnnotations(r: ResolvedInference): Record<string, string> {
  const m = modelFacts(r.model, r.modelShape);
  const instance = INSTANCES.get(r.pool.instanceType);
  if (!m || !instance) return {};
  const fits = SERVING_ROLES.map((role) => ({
    role,
    fit: workerFit({
      model: m,
      instance,
      backend: r.backend,
      tensorParallel: roleArgs(r, role).gpusPerWorker,
      gpuMemoryUtilization: r.gpuMemoryUtilization,
      maxModelLen: r.maxModelLen,
      kvCacheDtype: r.kvCacheDtype,
    }),
  }));
  return fitAnnotations(m, r.kvCacheDtype, fits);
}
