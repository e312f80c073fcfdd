/**
 * The declared workload (`inference.workload`): its bounds, its validation against the graph, and the annotation
 * that carries it on the DynamoGraphDeployment for the plan, the policy and a person reading the graph. Pure.
 */
import { Annotation } from "../_shared/annotations";
import { checkNumberRange, checkRange } from "../_shared/limits";
import type { Problem } from "../_shared/problems";
import {
  INFERENCE_DEFAULTS,
  ResolvedInference,
  ResolvedWorkload,
  resolveWorkload,
  WorkloadArgs,
  WORKLOAD_LIMITS,
} from "./args";

/** The workload's bounds live beside the other settings' bounds (args.ts), where the key table reads them. */
export { WORKLOAD_LIMITS };

const L = WORKLOAD_LIMITS;

/*
 * The declared workload on the DynamoGraphDeployment: `dynamo-efa/workload`, the resolved workload as JSON,
 * written only when the config declares one, so the plan, the policy `serving-estimate-meets-workload` and a
 * person reading the graph see the traffic the estimate is for. A graph without it is estimated at the
 * defaults (`INFERENCE_DEFAULTS.workload`). Pure.
 */
/** The annotation of a declared workload (nothing for the defaults, so undeclared graphs render as before). */
export function workloadAnnotations(r: Pick<ResolvedInference, "workload">): Record<string, string> {
  if (!r.workload.declared) return {};
  const { declared: _declared, ...w } = r.workload;
  return { [Annotation.Workload]: JSON.stringify(w) };
}

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : undefined);

/**
 * The workload of a graph's annotations: the annotation's, else the defaults; a reason when the annotation is
 * not a workload (a hand edit).
 */
export function workloadOf(annotations: Readonly<Record<string, string>>): ResolvedWorkload | { why: string } {
  const raw = annotations[Annotation.Workload];
  if (raw === undefined) return resolveWorkload(undefined);
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(raw) as Record<string, unknown>;
  } catch (e) {
    return { why: `annotation ${Annotation.Workload} is not JSON (${(e as Error).message})` };
  }
  const w: WorkloadArgs = {
    isl: num(v?.isl) ?? INFERENCE_DEFAULTS.workload.isl,
    osl: num(v?.osl) ?? INFERENCE_DEFAULTS.workload.osl,
    ...(num(v?.requestsPerSecond) ? { requestsPerSecond: num(v.requestsPerSecond) } : {}),
    ...(num(v?.concurrency) ? { concurrency: num(v.concurrency) } : {}),
    ...(num(v?.ttftMs) ? { ttftMs: num(v.ttftMs) } : {}),
    ...(num(v?.itlMs) ? { itlMs: num(v.itlMs) } : {}),
  };
  return resolveWorkload(w);
}

/*
 * The declared workload (`workload`) against its bounds and the graph: one load, not two, and requests that
 * fit `maxModelLen` (the engine refuses a longer one, so the estimate would be for traffic that cannot run).
 * Pure.
 */

/** Every problem with `r.workload`; none when it was not declared (the defaults are valid by construction). */
export function validateWorkload(r: ResolvedInference, at: (k: string) => string): Problem[] {
  const w = r.workload;
  if (!w.declared) return [];
  const p = (k: string) => at(`workload.${k}`);
  const out: Problem[] = [...checkRange(p("isl"), w.isl, L.isl), ...checkRange(p("osl"), w.osl, L.osl)];
  if (w.concurrency !== undefined) out.push(...checkRange(p("concurrency"), w.concurrency, L.concurrency));
  if (w.requestsPerSecond !== undefined)
    out.push(...checkNumberRange(p("requestsPerSecond"), w.requestsPerSecond, L.requestsPerSecond, "a rate", 20));
  if (w.ttftMs !== undefined) out.push(...checkNumberRange(p("ttftMs"), w.ttftMs, L.ttftMs, "milliseconds", 1000));
  if (w.itlMs !== undefined) out.push(...checkNumberRange(p("itlMs"), w.itlMs, L.itlMs, "milliseconds", 25));
  if (w.requestsPerSecond !== undefined && w.concurrency !== undefined)
    out.push({
      propertyPath: p("concurrency"),
      reason: `(${w.concurrency}) and workload.requestsPerSecond (${w.requestsPerSecond}) are both set; the load is one of them: an open-loop arrival rate or a closed-loop concurrency. Remove one`,
    });
  if (out.length === 0 && w.isl + w.osl > r.maxModelLen)
    out.push({
      propertyPath: p("isl"),
      reason: `(${w.isl}) + workload.osl (${w.osl}) = ${w.isl + w.osl} tokens exceeds ${at("maxModelLen")} (${r.maxModelLen}): the engine refuses such a request. Raise ${at("maxModelLen")} to at least ${w.isl + w.osl} or shorten the workload`,
    });
  return out;
}
