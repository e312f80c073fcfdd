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
/** Prefill-heavy at a load where 8 prefill + 8 decode workers beat 16 aggregated ones, KV moved at the expected NIXL rate. */
const PREFILL_HEAVY = { isl: 8000, osl: 64, concurrency: 16 };
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
  it("the happy graph's workload is one disaggregation wins (so the happy path tests something)", () => {
    assert.equal(estimate(graph()).winner, "disaggregated");
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
            `${DGD}: estimated TTFT ${e.ttftMs} ms at the declared load misses the objective of 50 ms; add prefill workers (the balanced split is ${e.recommended.prefill} prefill + ${e.recommended.decode} decode) or lower the load`,
          ];
        })(),
      },
      {
        title: "an ITL objective below one decode step is reported",
        mutate: (g) => {
          g.metadata.annotations[Annotation.Workload] = JSON.stringify({ ...PREFILL_HEAVY, itlMs: 1 });
        },
        expect: (() => {
          const e = estimate(graph({ ...PREFILL_HEAVY, itlMs: 1 }));
          return [
            `${DGD}: estimated ITL ${e.itlMs} ms at the declared load misses the objective of 1 ms; add decode workers or GPUs per decode worker, or lower the load`,
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
            `${DGD}: for ISL 256 / OSL 2048 aggregated workers on the same GPUs are estimated to serve more (disaggregated / aggregated = ${e.disaggGain}); disaggregation does not pay for this workload: consider aggregated serving or ${e.recommended.prefill} prefill + ${e.recommended.decode} decode workers (plan.md, Serving estimate)`,
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
            `${DGD}: for ISL 8000 / OSL 64 aggregated workers on the same GPUs are estimated to serve more (disaggregated / aggregated = ${e.disaggGain}); disaggregation does not pay for this workload: consider aggregated serving (plan.md, Serving estimate)`,
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
