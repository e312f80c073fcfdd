/**
 * The model-fit annotations the renderer writes on the graph (components/inference/fit.ts): a catalog
 * model gets them and the model-fit policy accepts the rendered graph; a model outside the catalog gets none.
 */
import { strict as assert } from "assert";
import { graphFitAnnotations } from "../../components/inference/fit";
import { modelFitAnnotationsMatchCatalog } from "../../policy/rules/model-fit";
import { ResourceType } from "../../policy/rules/_predicates";
import { renderGraph } from "../../components/inference/graph";
import { IMAGE, resolved } from "../helpers/inference-fixtures";
import { resourceArgs, runResourcePolicy } from "../helpers/policy-harness";

const fitKeys = (a: Record<string, string>) =>
  Object.keys(a).filter(
    (k) =>
      k === "dynamo-efa/model-params-b" ||
      k === "dynamo-efa/model-kv-bytes-per-token" ||
      k.startsWith("dynamo-efa/fit-"),
  );

describe("inference: model-fit annotations on the graph", () => {
  it("a catalog model gets the model and per-role fit annotations, and the policy accepts the rendered graph", async () => {
    for (const backend of ["vllm", "trtllm"] as const) {
      const g = renderGraph(resolved("p5en-8x1gpu", backend), IMAGE);
      assert.deepEqual(
        fitKeys(g.metadata.annotations).sort(),
        Object.keys(graphFitAnnotations(resolved("p5en-8x1gpu", backend))).sort(),
      );
      assert.equal(fitKeys(g.metadata.annotations).length, 8);
      const run = await runResourcePolicy(
        modelFitAnnotationsMatchCatalog,
        resourceArgs(ResourceType.Dgd, g, { name: "g" }),
      );
      assert.deepEqual([run.violations, run.notApplicable], [[], undefined], backend);
    }
  });

  it("a model outside the catalog without modelShape gets none", () => {
    const g = renderGraph(resolved("p5en-8x1gpu", "vllm", { model: "acme/unknown-7b" }), IMAGE);
    assert.deepEqual(fitKeys(g.metadata.annotations), []);
  });
});
