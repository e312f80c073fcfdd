/**
 * `model-fit-annotations-match-catalog`: the fit annotations on a graph (parameters, KV bytes per token, per-role
 * weights, KV cache and token capacity) are recomputed from the model catalog, the engine flags and the instance
 * type, so an edited or stale annotation fails; a graph with no fit annotations is not applicable.
 */
import { strict as assert } from "assert";
import { INSTANCES } from "../../components/catalog/instances";
import { KvCacheDtype } from "../../components/catalog/models";
import { Backend } from "../../components/inference/args";
import { modelFacts, workerFit, fitAnnotations } from "../../components/inference/fit";
import { modelFitAnnotationsMatchCatalog } from "../../policy/rules/model-fit";
import { happyGraph, T, TestGraph } from "../helpers/policy-fixtures";
import { resourceArgs, resourcePolicyTable, runResourcePolicy } from "../helpers/policy-harness";

const MODEL = "meta-llama/Llama-3.1-8B-Instruct";
const FLAGS = ["--tensor-parallel-size", "1", "--max-model-len", "8192", "--gpu-memory-utilization", "0.85"];
const DGD = `DynamoGraphDeployment "llama"`;

/** The annotations the render writes for the happy graph's model, flags and p5en workers. */
function renderedFit(): Record<string, string> {
  const m = modelFacts(MODEL)!;
  const instance = INSTANCES.get("p5en.48xlarge")!;
  const fit = workerFit({
    model: m,
    instance,
    backend: Backend.Vllm,
    tensorParallel: 1,
    gpuMemoryUtilization: 0.85,
    maxModelLen: 8192,
    kvCacheDtype: KvCacheDtype.Auto,
  });
  return fitAnnotations(m, KvCacheDtype.Auto, [
    { role: "prefill", fit },
    { role: "decode", fit },
  ]);
}

/** The happy graph with engine flags and the fit annotations computed for them. */
function annotatedGraph(): TestGraph {
  const g = happyGraph();
  for (const s of [g.spec.services.PrefillWorker, g.spec.services.DecodeWorker])
    s.extraPodSpec.mainContainer.args.push(...FLAGS);
  Object.assign(g.metadata.annotations, renderedFit());
  return g;
}

const decodeArgs = (g: TestGraph): string[] => g.spec.services.DecodeWorker.extraPodSpec.mainContainer.args;
const setFlag = (g: TestGraph, flag: string, v: string) => {
  const a = decodeArgs(g);
  a[a.indexOf(flag) + 1] = v;
};
const tokens = "dynamo-efa/fit-decode-kv-capacity-tokens";
const cacheGiB = "dynamo-efa/fit-decode-kv-cache-gib-per-gpu";

describe("policies: model fit", () => {
  resourcePolicyTable(
    modelFitAnnotationsMatchCatalog,
    T.Dgd,
    annotatedGraph,
    [
      {
        title: "a hand-edited KV capacity is reported",
        mutate: (g) => {
          g.metadata.annotations[tokens] = "999999999";
        },
        expect: [
          `${DGD}: annotation ${tokens} is "999999999", but the model catalog, the workers' engine flags and instance type give ${renderedFit()[tokens]}; re-render the plan instead of editing the annotation`,
        ],
      },
      {
        title: "rounding within the tolerance passes",
        mutate: (g) => {
          g.metadata.annotations[cacheGiB] = String(Number(renderedFit()[cacheGiB]) + 0.005);
        },
        expect: [],
      },
      {
        title: "a raised --gpu-memory-utilization no longer matches the stated KV cache",
        mutate: (g) => {
          setFlag(g, "--gpu-memory-utilization", "0.95");
        },
        expect: (() => {
          const m = modelFacts(MODEL)!;
          const f = workerFit({
            model: m,
            instance: INSTANCES.get("p5en.48xlarge")!,
            backend: Backend.Vllm,
            tensorParallel: 1,
            gpuMemoryUtilization: 0.95,
            maxModelLen: 8192,
            kvCacheDtype: KvCacheDtype.Auto,
          });
          const want = fitAnnotations(m, KvCacheDtype.Auto, [{ role: "decode", fit: f }]);
          const stated = renderedFit();
          return [cacheGiB, tokens].map(
            (k) =>
              `${DGD}: annotation ${k} is ${JSON.stringify(stated[k])}, but the model catalog, the workers' engine flags and instance type give ${want[k]}; re-render the plan instead of editing the annotation`,
          );
        })(),
      },
      {
        title: "an annotation for a role without a worker in this graph is not recomputed",
        mutate: (g) => {
          g.metadata.annotations["dynamo-efa/fit-router-kv-capacity-tokens"] = "5";
        },
        expect: [],
      },
      {
        title: "a model outside the catalog with fit annotations cannot be checked",
        mutate: (g) => {
          for (const s of [g.spec.services.PrefillWorker, g.spec.services.DecodeWorker])
            s.extraPodSpec.mainContainer.args[1] = "acme/unknown-7b";
        },
        expect: [
          `${DGD} states model-fit annotations that cannot be checked: model "acme/unknown-7b" is not in the model catalog (components/catalog/models.ts) and the graph states no dynamo-efa/model-shape; remove them or name a catalog model`,
        ],
      },
      {
        title: "a worker without --tensor-parallel-size cannot be checked",
        mutate: (g) => {
          decodeArgs(g).splice(decodeArgs(g).indexOf("--tensor-parallel-size"), 2);
        },
        expect: [
          `${DGD} states model-fit annotations that cannot be checked: DynamoGraphDeployment "llama" service "DecodeWorker" does not state --tensor-parallel-size, --max-model-len (--max-seq-len) and --gpu-memory-utilization (--free-gpu-memory-fraction) as positive numbers; state them, or remove the annotations`,
        ],
      },
    ],
    { name: "llama" },
  );

  it("a graph without fit annotations (a model of unknown fit) is not applicable", async () => {
    const run = await runResourcePolicy(
      modelFitAnnotationsMatchCatalog,
      resourceArgs(T.Dgd, happyGraph(), { name: "llama" }),
    );
    assert.deepEqual([run.notApplicable, run.violations], ["the graph states no model-fit annotations", []]);
  });
});
