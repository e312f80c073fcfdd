/**
 * A component's validation error reaches the user at the config keys they wrote, placed by the
 * component the error names as data (never by parsing its message).
 */
import { strict as assert } from "assert";
import { componentProblemsAtConfig } from "../../program/config-paths";
import { ComponentInputError, problemsOf, subjectOf } from "../../components/_shared/pulumi-errors";
import { ValidationError } from "../../components/_shared/problems";

const at = (component: string | undefined, propertyPath: string) =>
  componentProblemsAtConfig(component, [{ propertyPath, reason: "r" }])[0].propertyPath;

describe("config sections: component problems at the user's config keys", () => {
  it("places each component's argument paths in its section", () => {
    assert.equal(at("EfaCluster", "gpuPools.gpu.nodes"), "cluster.gpuNodes.count");
    assert.equal(at("EfaCluster", "publicAccessCidrs[0]"), "cluster.publicAccessCidrs[0]");
    assert.equal(at("DisaggInference", "prefill.replicas"), "inference.prefill.replicas");
    assert.equal(at("DisaggInference", "modelCache.sizeGiB"), "inference.modelCacheGiB");
    assert.equal(at("DisaggInference", "inference.maxModelLen"), "inference.maxModelLen");
    assert.equal(at("DynamoImage", "cudaArchs[0]"), "image.cudaArchs[0]");
    assert.equal(at("DynamoObservability", "monitorLabels"), "observability.monitorLabels");
    assert.equal(at(undefined, "region"), "aws:region");
  });

  it("the section comes from the error's data, not its message", () => {
    const e = new ComponentInputError("DisaggInference", [{ propertyPath: "prefill.replicas", reason: "r" }]);
    Object.defineProperty(e, "message", { value: "EfaCluster: misleading text" });
    assert.equal(subjectOf(e), "DisaggInference");
    assert.deepEqual(
      componentProblemsAtConfig(subjectOf(e), problemsOf(e)!).map((p) => p.propertyPath),
      ["inference.prefill.replicas"],
    );
    assert.equal(subjectOf(new ValidationError("DynamoImage", [])), "DynamoImage");
    assert.equal(subjectOf(new Error("EfaCluster: 1 problem")), undefined);
  });
});
