/**
 * `serving-estimate-meets-workload` (advisory): a graph declaring a workload its layout serves well passes;
 * one whose estimate misses a declared TTFT or ITL objective, or that aggregated workers are predicted to
 * beat, is reported with the numbers; a graph declaring no workload is not applicable.
 */
import { strict as assert } from "assert";
import { servingEstimateMeetsWorkload } from "../../policy/rules/serving";
import { graphServing } from "../../policy/rules/_serving";
import type { PlanDgd } from "../../policy/rules/_dgd";
import type { ServingEstimate } from "../../components/inference/serving";
import { happyGraph, TestGraph } from "../helpers/policy-graph-fixtures";
import { T } from "../helpers/policy-fixtures";
import { resourceArgs, resourcePolicyTable, runResourcePolicy } from "../helpers/policy-harness";
import { Annotation } from "../../components/_shared/annotations";

const FLAGS = ["--tensor-parallel-size", "1", "--max-model-len", "16384", "--gpu-memory-utilization", "0.85"];
const DGD = `DynamoGraphDeployment "llama"`;
/**
 * Prefill-heavy with an ITL objective aggregated workers cannot hold while prefills stall their steps: 8 prefill +
 * 8 decode workers beat 16 aggregated ones beyond the model's validation error, KV moved at the expected NIXL rate.
 */
const PREFILL_HEAVY = { isl: 8000, osl: 64, itlMs: 10, concurrency: 16 };
/** More 8k prompts per second than 2 prefill workers can take (the newcomer audit's R2 case, scaled to 8B). */
const SATURATING = { isl: 8000, osl: 64, requestsPerSecond: 30, ttftMs: 1000, itlMs: 30 };
/** The same prompts at a load too light for disaggregation to pay. */
const PREFILL_LIGHT_LOAD = { isl: 8000, osl: 64, concurrency: 4 };

function graph(workload: object = PREFILL_HEAVY): TestGraph {
  const g = happyGraph();
  for (const s of [g.spec.services.PrefillWorker, g.spec.services.DecodeWorker])
    s.extraPodSpec.mainContainer.args.push(...FLAGS);
  g.metadata.annotations[Annotation.Workload] = JSON.stringify(workload);
  return g;
}
/** Node's own JSON.parse message (it differs between Node versions). */
function jsonError(text: string): string {
  try {
    JSON.parse(text);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error(`${text} parsed`);
}
const estimate = (g: TestGraph) => graphServing(g as unknown as PlanDgd, "llama") as ServingEstimate;

describe("policies: serving estimate", () => {
  it("the happy graph's workload is one disaggregation wins, its gain's range above 1 (so the happy path tests something)", () => {
    const e = estimate(graph());
    assert.equal(e.winner, "disaggregated");
    assert.ok(e.uncertainty.ranges.disaggGain![0] > 1, JSON.stringify(e.uncertainty.ranges.disaggGain));
  });
  it("a gain whose range includes 1 is too close to call, and says what would settle it", () => {
    const e = estimate(graph({ isl: 8000, osl: 64, concurrency: 16 }));
    assert.equal(e.winner, "too close to call");
    assert.match(e.uncertainty.settle!, /measure both layouts .*npm run measure -- <stack> --twin/);
  });

  resourcePolicyTable(
    servingEstimateMeetsWorkload,
    T.Dgd,
    () => graph(),
    [
      {
        title: "a TTFT objective below the estimate is reported",
        mutate: (g) => {
          g.metadata.annotations[Annotation.Workload] = JSON.stringify({ ...PREFILL_HEAVY, ttftMs: 50 });
        },
        expect: (() => {
          const e = estimate(graph({ ...PREFILL_HEAVY, ttftMs: 50 }));
          return [
            `${DGD}: estimated TTFT ${e.ttftMs} ms at the declared load misses the objective of 50 ms; add prefill workers (the balanced split is ${e.recommended.prefill} prefill + ${e.recommended.decode} decode, ${e.recommended.nodes.total} node(s) under separate-nodes) or lower the load`,
          ];
        })(),
      },
      {
        title: "an ITL objective below one decode step is reported",
        mutate: (g) => {
          g.metadata.annotations[Annotation.Workload] = JSON.stringify({ ...PREFILL_HEAVY, itlMs: 4 });
        },
        expect: (() => {
          const e = estimate(graph({ ...PREFILL_HEAVY, itlMs: 4 }));
          return [
            `${DGD}: estimated ITL ${e.itlMs} ms at the declared load misses the objective of 4 ms; add decode workers or GPUs per decode worker, or lower the load`,
          ];
        })(),
      },
      {
        title: "saturated by prefill: one advice, naming prefill as the role that limits it (not 'add decode workers')",
        mutate: (g) => {
          g.spec.services.PrefillWorker.replicas = 2;
          g.spec.services.DecodeWorker.replicas = 14;
          g.metadata.annotations[Annotation.Workload] = JSON.stringify(SATURATING);
        },
        expect: (() => {
          const g = graph(SATURATING);
          g.spec.services.PrefillWorker.replicas = 2;
          g.spec.services.DecodeWorker.replicas = 14;
          const e = estimate(g);
          assert.equal(e.ttftMs, null);
          assert.equal(e.bottleneck, "prefill");
          const r = e.recommended;
          const g2 = e.uncertainty.ranges.disaggGain!;
          return [
            `${DGD}: for ISL 8000 / OSL 64 aggregated workers on the same GPUs are estimated to serve more (disaggregated / aggregated = ${e.disaggGain}, ${g2[0]}-${g2[1]} over the validation errors); disaggregation does not pay for this workload: consider aggregated serving or ${r.prefill} prefill + ${r.decode} decode workers (${r.nodes.total} node(s) under separate-nodes) (plan.md, Serving estimate)`,
            `${DGD}: saturated at the declared load: the prefill role limits this layout to ${e.capacityRequestsPerSecond} requests/s (prefill 2 x ${e.roles.prefill.requestsPerSecond}, decode 14 x ${e.roles.decode.requestsPerSecond}); add prefill workers (the balanced split is ${r.prefill} prefill + ${r.decode} decode, ${r.nodes.total} node(s) under separate-nodes) or lower the load`,
          ];
        })(),
      },
      {
        title: "a decode-heavy workload that aggregated workers serve better is reported",
        mutate: (g) => {
          g.metadata.annotations[Annotation.Workload] = JSON.stringify({ isl: 256, osl: 2048, concurrency: 256 });
        },
        expect: (() => {
          const e = estimate(graph({ isl: 256, osl: 2048, concurrency: 256 }));
          assert.equal(e.winner, "aggregated");
          return [
            `${DGD}: for ISL 256 / OSL 2048 aggregated workers on the same GPUs are estimated to serve more (disaggregated / aggregated = ${e.disaggGain}, ${e.uncertainty.ranges.disaggGain![0]}-${e.uncertainty.ranges.disaggGain![1]} over the validation errors); disaggregation does not pay for this workload: consider aggregated serving or ${e.recommended.prefill} prefill + ${e.recommended.decode} decode workers (${e.recommended.nodes.total} node(s) under separate-nodes) (plan.md, Serving estimate)`,
          ];
        })(),
      },
      {
        title: "aggregated winning on a graph already at the balanced split names no split to move to",
        mutate: (g) => {
          g.spec.services.PrefillWorker.replicas = 14;
          g.spec.services.DecodeWorker.replicas = 2;
          g.metadata.annotations[Annotation.Workload] = JSON.stringify(PREFILL_LIGHT_LOAD);
        },
        expect: (() => {
          const g = graph(PREFILL_LIGHT_LOAD);
          g.spec.services.PrefillWorker.replicas = 14;
          g.spec.services.DecodeWorker.replicas = 2;
          const e = estimate(g);
          assert.equal(e.winner, "aggregated");
          assert.deepEqual([e.recommended.prefill, e.recommended.decode], [14, 2]);
          return [
            `${DGD}: for ISL 8000 / OSL 64 aggregated workers on the same GPUs are estimated to serve more (disaggregated / aggregated = ${e.disaggGain}, ${e.uncertainty.ranges.disaggGain![0]}-${e.uncertainty.ranges.disaggGain![1]} over the validation errors); disaggregation does not pay for this workload: consider aggregated serving (plan.md, Serving estimate)`,
          ];
        })(),
      },
      {
        title: "a workload annotation that is not JSON is reported",
        mutate: (g) => {
          g.metadata.annotations[Annotation.Workload] = "{isl: 4000";
        },
        expect: [
          `${DGD} declares a workload but has no serving estimate: annotation ${Annotation.Workload} is not JSON (${jsonError("{isl: 4000")})`,
        ],
      },
    ],
    { name: "llama" },
  );

  it("a graph declaring no workload is not applicable (the defaults are nobody's traffic)", async () => {
    const g = graph();
    delete g.metadata.annotations[Annotation.Workload];
    const run = await runResourcePolicy(servingEstimateMeetsWorkload, resourceArgs(T.Dgd, g, { name: "llama" }));
    assert.deepEqual(
      [run.notApplicable, run.violations],
      [`the graph declares no workload (${Annotation.Workload})`, []],
    );
  });
});
