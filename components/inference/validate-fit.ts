/**
 * Model-aware config errors, found before a worker spends up to `modelLoadBudgetSeconds` loading a
 * model that cannot run: weights that do not fit a GPU, a KV cache too small for one `maxModelLen`
 * sequence, a tensor-parallel size that does not split the attention heads, and a `maxModelLen` past
 * the model's context. Each names the key, the numbers and the smallest `gpusPerWorker` that fits.
 * A model outside the catalog without `modelShape` is not checked (the plan says its fit is unknown). Pure.
 */
import { GpuInstance, INSTANCES } from "../catalog/instances";
import { ModelFacts, ModelShape } from "../catalog/model-math";
import { modelRow } from "../catalog/models";
import { Problem, show } from "../_shared/problems";
import { checkNumberRange, checkRange } from "../_shared/limits";
import { ResolvedInference } from "./args";
import { efaPerWorker, poolHasEfa, roleArgs, ServingRole, SERVING_ROLES } from "./derive";
import { MODEL_SHAPE_LIMITS } from "./limits";
import { FitInput, headSplitProblem, modelFacts, RUNTIME_RESERVE_GIB, workerFit, WorkerFit } from "./fit";

const gib = (n: number) => `${n.toFixed(1)} GiB`;
const int = (n: number) => n.toLocaleString("en-US");

function fitInput(r: ResolvedInference, model: ModelFacts, instance: GpuInstance, tp: number): FitInput {
  return {
    model,
    instance,
    backend: r.backend,
    tensorParallel: tp,
    gpuMemoryUtilization: r.gpuMemoryUtilization,
    maxModelLen: r.maxModelLen,
    kvCacheDtype: r.kvCacheDtype,
  };
}

/** Why `tp` GPUs per worker do not run the model, or undefined when they do. */
function misfit(r: ResolvedInference, m: ModelFacts, f: WorkerFit, tp: number): string | undefined {
  const split = headSplitProblem(m, tp);
  if (split) return split;
  const budget =
    r.backend === "trtllm"
      ? `${f.gpuMemoryGiB} GiB - ${RUNTIME_RESERVE_GIB} GiB runtime reserve`
      : `${f.gpuMemoryGiB} GiB x gpuMemoryUtilization ${r.gpuMemoryUtilization} - ${RUNTIME_RESERVE_GIB} GiB runtime reserve`;
  if (!f.weightsFit) {
    return `${show(m.id)} has ${gib(m.weightBytes / 2 ** 30)} of ${m.weightDtype} weights (${(m.paramsTotal / 1e9).toFixed(2)}B parameters): ${gib(f.weightsGiBPerGpu)} per GPU at tensor parallel ${tp}, more than the ${gib(f.usableGiBPerGpu)} one GPU offers (${budget})`;
  }
  if (f.kvCapacityTokens < r.maxModelLen) {
    return `leaves a KV cache of ${gib(f.kvCacheGiBPerGpu)} per GPU after ${gib(f.weightsGiBPerGpu)} of weights (${budget}): ${int(f.kvCapacityTokens)} tokens at ${int(f.kvBytesPerTokenPerGpu)} bytes per token per GPU, fewer than one maxModelLen sequence of ${int(r.maxModelLen)} tokens`;
  }
  return undefined;
}

/** The smallest GPUs per worker (a divisor of the node's GPUs, whole EFA devices) that runs the model. */
export function smallestFit(
  r: ResolvedInference,
  m: ModelFacts,
  instance: GpuInstance,
): { tp: number; fit: WorkerFit } | undefined {
  for (let tp = 1; tp <= r.pool.gpusPerNode; tp++) {
    if (r.pool.gpusPerNode % tp !== 0) continue;
    const efa = efaPerWorker(r.pool, tp);
    if (poolHasEfa(r.pool) && (!Number.isInteger(efa) || efa < 1)) continue;
    const fit = workerFit(fitInput(r, m, instance, tp));
    if (misfit(r, m, fit, tp) === undefined) return { tp, fit };
  }
  return undefined;
}

function remedy(r: ResolvedInference, m: ModelFacts, instance: GpuInstance): string {
  const best = smallestFit(r, m, instance);
  if (!best) {
    return `no gpusPerWorker up to ${r.pool.gpusPerNode} fits on ${instance.name}: use a quantized variant of the model, a lower inference.maxModelLen, inference.kvCacheDtype "fp8", or a GPU with more memory`;
  }
  const f = best.fit;
  return `the smallest gpusPerWorker that fits is ${best.tp} (${gib(f.weightsGiBPerGpu)} of weights and ${gib(f.kvCacheGiBPerGpu)} of KV cache per GPU, ${int(f.kvCapacityTokens)} tokens = ${int(f.maxConcurrentAtMaxLen)} sequences of ${int(r.maxModelLen)}); replicas x gpusPerWorker must still fit the pool`;
}

function roleProblem(
  r: ResolvedInference,
  role: ServingRole,
  m: ModelFacts,
  instance: GpuInstance,
  at: (k: string) => string,
): Problem[] {
  const tp = roleArgs(r, role).gpusPerWorker;
  const why = misfit(r, m, workerFit(fitInput(r, m, instance, tp)), tp);
  if (!why) return [];
  return [
    {
      propertyPath: at(`${role}.gpusPerWorker`),
      reason: `(${tp}) does not run the model on ${instance.name}: ${why}. Fix: ${remedy(r, m, instance)}`,
    },
  ];
}

/** Problems with a stated `modelShape` (types are the config schema's; these are the relations). */
function shapeProblems(r: ResolvedInference, s: ModelShape, at: (k: string) => string): Problem[] {
  const row = modelRow(r.model);
  if (row)
    return [
      {
        propertyPath: at("modelShape"),
        reason: `must not be set for ${show(r.model)}: the model catalog knows it (${row.source}); remove modelShape`,
      },
    ];
  const out: Problem[] = [];
  const L = MODEL_SHAPE_LIMITS;
  for (const k of ["layers", "attentionHeads", "maxContext"] as const)
    out.push(...checkRange(at(`modelShape.${k}`), s[k], L[k]));
  out.push(...checkNumberRange(at("modelShape.paramsB"), s.paramsB, L.paramsB, "a number of billions of parameters"));
  for (const k of ["kvHeads", "headDim"] as const) {
    if (s[k] !== undefined) out.push(...checkRange(at(`modelShape.${k}`), s[k], L[k]));
    else if (!s.mla)
      out.push({
        propertyPath: at(`modelShape.${k}`),
        reason: "is required unless modelShape.mla is set (config.json num_key_value_heads / head_dim)",
      });
  }
  if (s.mla)
    for (const k of ["kvLoraRank", "qkRopeHeadDim"] as const)
      out.push(...checkRange(at(`modelShape.mla.${k}`), s.mla[k], L[k]));
  return out;
}

/** Every model-fit problem of a resolved spec; `at` maps an argument key to the user's path. */
export function validateModelFit(r: ResolvedInference, at: (k: string) => string): Problem[] {
  if (r.modelShape) {
    const bad = shapeProblems(r, r.modelShape, at);
    if (bad.length > 0) return bad;
  }
  const m = modelFacts(r.model, r.modelShape);
  const instance = INSTANCES.get(r.pool.instanceType);
  if (!m || !instance) return [];
  const out: Problem[] = [];
  if (r.maxModelLen > m.maxContext) {
    out.push({
      propertyPath: at("maxModelLen"),
      reason: `(${int(r.maxModelLen)}) is above ${show(m.id)}'s maximum context of ${int(m.maxContext)} tokens (max_position_embeddings); use at most ${m.maxContext}`,
    });
    return out;
  }
  for (const role of SERVING_ROLES) out.push(...roleProblem(r, role, m, instance, at));
  return out;
}
