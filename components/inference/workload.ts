/**
 * The declared workload on the DynamoGraphDeployment: `dynamo-efa/workload`, the resolved workload as JSON,
 * written only when the config declares one, so the plan, the policy `serving-estimate-meets-workload` and a
 * person reading the graph see the traffic the estimate is for. A graph without it is estimated at the
 * defaults (`INFERENCE_DEFAULTS.workload`). Pure.
 */
import { INFERENCE_DEFAULTS, ResolvedInference, resolveWorkload, ResolvedWorkload, WorkloadArgs } from "./args";
import { Annotation } from "../_shared/annotations";

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
