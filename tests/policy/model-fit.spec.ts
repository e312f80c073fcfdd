/**
 * `model-fits-workers`: the model a graph serves fits each worker's GPUs, judged from the graph's own content (its
 * `--model` or `dynamo-efa/model`, the engine flags, the instance type the worker is pinned to), so a hand-written
 * graph gets the check `DisaggInference` runs on its own args; a model of unknown fit, or workers that state no
 * fit flags, are not applicable, with the reason.
 */
import { strict as assert } from "assert";
import { INSTANCES } from "../../components/catalog/instances";
import { KvCacheDtype } from "../../components/catalog/models";
import { Backend } from "../../components/inference/args";
import { modelFacts } from "../../components/catalog/models";
import { FitInput, fitProblem, smallestTensorParallel } from "../../components/inference/fit";
import { renderGraph } from "../../components/inference/graph";
import { modelFitsWorkers } from "../../policy/rules/model-fit";
import { IMAGE, resolved, STATED_MODEL } from "../helpers/inference-fixtures";
import { happyGraph, TestGraph } from "../helpers/policy-graph-fixtures";
import { T } from "../helpers/policy-fixtures";
import { resourceArgs, resourcePolicyTable, runResourcePolicy } from "../helpers/policy-harness";

const FLAGS = ["--tensor-parallel-size", "1", "--max-model-len", "8192", "--gpu-memory-utilization", "0.85"];
const DGD = `DynamoGraphDeployment "llama" service "DecodeWorker"`;
const P5EN = INSTANCES.get("p5en.48xlarge")!;

/** The happy graph (Llama-3.1-8B on p5en workers) with the engine flags its fit is judged from. */
function flaggedGraph(): TestGraph {
  const g = happyGraph();
  for (const s of [g.spec.services.PrefillWorker, g.spec.services.DecodeWorker])
    s.extraPodSpec.mainContainer.args.push(...FLAGS);
  return g;
}

const decodeArgs = (g: TestGraph): string[] => g.spec.services.DecodeWorker.extraPodSpec.mainContainer.args;
const setFlag = (g: TestGraph, flag: string, v: string) => {
  const a = decodeArgs(g);
  a[a.indexOf(flag) + 1] = v;
};
const setModel = (g: TestGraph, id: string) => {
  for (const s of [g.spec.services.PrefillWorker, g.spec.services.DecodeWorker])
    s.extraPodSpec.mainContainer.args[1] = id;
};

/** The fit input of the decode worker of `model` at `tp` with the happy flags otherwise. */
const input = (model: string, tp: number, maxModelLen = 8192): FitInput => ({
  model: modelFacts(model)!,
  instance: P5EN,
  backend: Backend.Vllm,
  tensorParallel: tp,
  gpuMemoryUtilization: 0.85,
  maxModelLen,
  kvCacheDtype: KvCacheDtype.Auto,
});

describe("policies: model fit", () => {
  it("every graph the component renders passes (vLLM and TensorRT-LLM, catalog model and stated shape)", async () => {
    for (const backend of ["vllm", "trtllm"] as const)
      for (const extra of [{}, STATED_MODEL]) {
        const g = renderGraph(resolved("p5en-8x1gpu", backend, extra), IMAGE);
        const run = await runResourcePolicy(modelFitsWorkers, resourceArgs(T.Dgd, g, { name: "g" }));
        assert.deepEqual([run.violations, run.notApplicable], [[], undefined], `${backend} ${JSON.stringify(extra)}`);
      }
  });

  resourcePolicyTable(
    modelFitsWorkers,
    T.Dgd,
    flaggedGraph,
    [
      {
        title: "a 70B model on one GPU per worker: the weights do not fit, and the smallest tensor parallel that does",
        mutate: (g) => setModel(g, "meta-llama/Llama-3.1-70B-Instruct"),
        expect: ["PrefillWorker", "DecodeWorker"].map((svc) => {
          const i = input("meta-llama/Llama-3.1-70B-Instruct", 1);
          const best = smallestTensorParallel(i, P5EN.gpuCount)!;
          return `DynamoGraphDeployment "llama" service "${svc}": --tensor-parallel-size 1 does not run the model on p5en.48xlarge: ${fitProblem(i, "--gpu-memory-utilization")}. Fix: the smallest --tensor-parallel-size that fits is ${best.tp} (and as many GPUs per worker)`;
        }),
      },
      {
        title: "a tensor parallel that does not split the attention heads",
        mutate: (g) => setFlag(g, "--tensor-parallel-size", "3"),
        expect: [
          `${DGD}: --tensor-parallel-size 3 does not run the model on p5en.48xlarge: 32 attention heads are not divisible by tensor parallel 3. Fix: the smallest --tensor-parallel-size that fits is 1 (and as many GPUs per worker)`,
        ],
      },
      {
        title: "a --max-model-len above the model's context",
        mutate: (g) => setFlag(g, "--max-model-len", "200000"),
        expect: [
          `${DGD}: --max-model-len 200000 is above "meta-llama/Llama-3.1-8B-Instruct"'s maximum context of ${modelFacts("meta-llama/Llama-3.1-8B-Instruct")!.maxContext} tokens (max_position_embeddings); use at most ${modelFacts("meta-llama/Llama-3.1-8B-Instruct")!.maxContext}`,
        ],
      },
      {
        title: "a worker whose flags are not stated is not judged while another is",
        mutate: (g) => {
          decodeArgs(g).splice(decodeArgs(g).indexOf("--tensor-parallel-size"), 2);
          setModel(g, "meta-llama/Llama-3.1-70B-Instruct");
        },
        expect: [
          (() => {
            const i = input("meta-llama/Llama-3.1-70B-Instruct", 1);
            return `DynamoGraphDeployment "llama" service "PrefillWorker": --tensor-parallel-size 1 does not run the model on p5en.48xlarge: ${fitProblem(i, "--gpu-memory-utilization")}. Fix: the smallest --tensor-parallel-size that fits is ${smallestTensorParallel(i, P5EN.gpuCount)!.tp} (and as many GPUs per worker)`;
          })(),
        ],
      },
    ],
    { name: "llama" },
  );

  const notApplicable = async (g: TestGraph) =>
    (await runResourcePolicy(modelFitsWorkers, resourceArgs(T.Dgd, g, { name: "llama" }))).notApplicable;

  it("a model outside the catalog without a stated shape is not applicable, with the reason", async () => {
    const g = flaggedGraph();
    setModel(g, "acme/unknown-7b");
    assert.equal(
      await notApplicable(g),
      `the model's fit is unknown: model "acme/unknown-7b" is not in the model catalog (components/catalog/models.ts) and the graph states no dynamo-efa/model-shape`,
    );
  });

  /** The flagged graph serving `model` with `annotations` added (a hand-written graph's statements). */
  const stating = (model: string, annotations: Record<string, string>): TestGraph => {
    const g = flaggedGraph();
    setModel(g, model);
    Object.assign(g.metadata.annotations, annotations);
    return g;
  };
  const SHAPE = "dynamo-efa/model-shape";

  it("a stated model shape that lacks what the fit reads is not applicable, naming the fields (no NaN verdict)", async () => {
    const kinds = '(positive numbers; weightDtype one of ["bf16","fp16","fp8","mxfp4"])';
    for (const [raw, missing] of [
      ["{}", "paramsB, layers, attentionHeads, maxContext, kvHeads, headDim, weightDtype"],
      ["5", "paramsB, layers, attentionHeads, maxContext, kvHeads, headDim, weightDtype"],
      [JSON.stringify({ ...STATED_MODEL.modelShape, layers: "32", weightDtype: "toString" }), "layers, weightDtype"],
    ])
      assert.equal(
        await notApplicable(stating("acme/private-8b", { [SHAPE]: raw })),
        `the model's fit is unknown: annotation ${SHAPE} ${JSON.stringify(raw)} does not state ${missing} ${kinds}`,
      );
  });

  it("a stated shape is judged for a model outside the catalog, and ignored for a catalogued one (as the component)", async () => {
    const shape = JSON.stringify(STATED_MODEL.modelShape);
    const run = await runResourcePolicy(
      modelFitsWorkers,
      resourceArgs(T.Dgd, stating("acme/private-8b", { [SHAPE]: shape }), { name: "llama" }),
    );
    assert.deepEqual([run.violations, run.notApplicable], [[], undefined]);
    assert.equal(await notApplicable(stating("meta-llama/Llama-3.1-8B-Instruct", { [SHAPE]: "{}" })), undefined);
  });

  it("a KV-cache dtype annotation outside the enum is not applicable, not a NaN-sized KV cache", async () => {
    assert.equal(
      await notApplicable(stating("meta-llama/Llama-3.1-8B-Instruct", { "dynamo-efa/kv-cache-dtype": "fp4" })),
      `the model's fit is unknown: annotation dynamo-efa/kv-cache-dtype is "fp4", not one of ["auto","fp8"]`,
    );
  });

  it("a graph whose workers state no fit flags is not applicable, naming each worker", async () => {
    assert.equal(
      await notApplicable(happyGraph()),
      ["DecodeWorker", "PrefillWorker"]
        .map(
          (s) =>
            `DynamoGraphDeployment "llama" service "${s}" does not state --tensor-parallel-size, --max-model-len (--max-seq-len) and --gpu-memory-utilization (--free-gpu-memory-fraction) as positive numbers`,
        )
        .join("; "),
    );
  });
});
