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
    "Warns when the serving estimate for the declared inference.workload is saturated (naming the role that limits it), misses its TTFT or ITL objective, or predicts, beyond its validation error, that aggregated workers on the same GPUs would serve more than the disaggregated layout.",
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
    const r = e.recommended;
    const split = `the balanced split is ${r.prefill} prefill + ${r.decode} decode, ${r.nodes.total} node(s) under separate-nodes`;
    if (e.ttftMs === null || e.itlMs === null)
      // Saturated: one advice, for the role that limits the layout (adding the other role changes nothing).
      report(
        `DynamoGraphDeployment ${name}: saturated at the declared load: the ${e.bottleneck} role limits this layout to ${e.capacityRequestsPerSecond} requests/s (prefill ${e.roles.prefill.replicas} x ${e.roles.prefill.requestsPerSecond}, decode ${e.roles.decode.replicas} x ${e.roles.decode.requestsPerSecond}); add ${e.bottleneck} workers (${split}) or lower the load`,
      );
    else {
      if (e.objectives.ttft === false)
        report(
          `DynamoGraphDeployment ${name}: estimated TTFT ${e.ttftMs} ms at the declared load misses the objective of ${w.ttftMs} ms; add prefill workers (${split}) or lower the load`,
        );
      if (e.objectives.itl === false)
        report(
          `DynamoGraphDeployment ${name}: estimated ITL ${e.itlMs} ms at the declared load misses the objective of ${w.itlMs} ms; add decode workers or GPUs per decode worker, or lower the load`,
        );
    }
    if (e.winner === "aggregated") {
      // The balanced split is advice only when it differs from the graph's own layout.
      const other =
        r.prefill !== e.roles.prefill.replicas || r.decode !== e.roles.decode.replicas
          ? ` or ${r.prefill} prefill + ${r.decode} decode workers (${r.nodes.total} node(s) under separate-nodes)`
          : "";
      const range = e.uncertainty.ranges.disaggGain;
      report(
        `DynamoGraphDeployment ${name}: for ISL ${w.isl} / OSL ${w.osl} aggregated workers on the same GPUs are estimated to serve more (disaggregated / aggregated = ${e.disaggGain ?? 0}${range ? `, ${range[0]}-${range[1]} over the validation errors` : ""}); disaggregation does not pay for this workload: consider aggregated serving${other} (plan.md, Serving estimate)`,
      );
    }
  },
});

/** Policies of this module, in pack order. */
export const servingPolicies = [servingEstimateMeetsWorkload];
