/**
 * The serving estimate (components/inference/serving.ts) judged against the declared workload
 * (annotation `dynamo-efa/workload`): advisory, since an estimate is not a measurement (`verify` gate F
 * reports the measured/estimated ratio of each deploy). Only a declared workload is judged: the defaults
 * are nobody's traffic.
 */
import { dgdPolicy } from "./_policy";
import { annotation, dgdName } from "./_predicates";
import { show } from "../../components/_shared/problems";
import { graphServing } from "./_serving";
import { Annotation } from "../../components/_shared/annotations";

/** Warns when the estimate misses a declared objective, or aggregated workers are predicted to serve more. */
export const servingEstimateMeetsWorkload = dgdPolicy({
  name: "serving-estimate-meets-workload",
  description:
    "Warns when the serving estimate for the declared inference.workload misses its TTFT or ITL objective, or predicts that aggregated workers on the same GPUs would serve more than the disaggregated layout.",
  enforcementLevel: "advisory",
  defaults: {},
  check: (props, args, report) => {
    if (annotation(props, Annotation.Workload) === undefined)
      args.notApplicable(`the graph declares no workload (${Annotation.Workload})`);
    const name = show(dgdName(props, args.name));
    const e = graphServing(props, args.name);
    if ("why" in e)
      return report(`DynamoGraphDeployment ${name} declares a workload but has no serving estimate: ${e.why}`);
    const w = e.workload;
    if (e.objectives.ttft === false)
      report(
        `DynamoGraphDeployment ${name}: estimated TTFT ${e.ttftMs ?? "unbounded (saturated)"} ms at the declared load misses the objective of ${w.ttftMs} ms; add prefill workers (the balanced split is ${e.recommended.prefill} prefill + ${e.recommended.decode} decode) or lower the load`,
      );
    if (e.objectives.itl === false)
      report(
        `DynamoGraphDeployment ${name}: estimated ITL ${e.itlMs ?? "unbounded (saturated)"} ms at the declared load misses the objective of ${w.itlMs} ms; add decode workers or GPUs per decode worker, or lower the load`,
      );
    if (e.winner === "aggregated") {
      // The balanced split is advice only when it differs from the graph's own layout.
      const r = e.recommended;
      const split =
        r.prefill !== e.roles.prefill.replicas || r.decode !== e.roles.decode.replicas
          ? ` or ${r.prefill} prefill + ${r.decode} decode workers`
          : "";
      report(
        `DynamoGraphDeployment ${name}: for ISL ${w.isl} / OSL ${w.osl} aggregated workers on the same GPUs are estimated to serve more (disaggregated / aggregated = ${e.disaggGain ?? 0}); disaggregation does not pay for this workload: consider aggregated serving${split} (plan.md, Serving estimate)`,
      );
    }
  },
});

/** Policies of this module, in pack order. */
export const servingPolicies = [servingEstimateMeetsWorkload];
