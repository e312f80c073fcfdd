/**
 * The declared workload (`inference.workload`): its bounds and its validation against the graph. The plan carries it
 * (`InferencePlan.workload`, plan.json's `serving.workload`); the graph does not. Pure.
 */
import { checkNumberRange, checkRange } from "../_shared/limits";
import type { Problem } from "../_shared/problems";
import { ResolvedInference, WORKLOAD_LIMITS } from "./args";

/** The workload's bounds live beside the other settings' bounds (args.ts), where the key table reads them. */
export { WORKLOAD_LIMITS };

const L = WORKLOAD_LIMITS;

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
