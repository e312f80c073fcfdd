/**
 * `index.ts`, the entry `pulumi up` runs, under the render's mocks with the p5en-8gpu stack config:
 * it builds the program at import time and exports the promised outputs (kubeconfig as a secret).
 * Its own file: the module runs once per process (require cache).
 */
import { strict as assert } from "assert";
import * as path from "path";
import { captureIndex } from "./fixtures/load-index";

const ROOT = path.join(__dirname, "..", "..");

describe("index.ts (the Pulumi program entry)", function () {
  this.timeout(60000);

  it("exports frontendUrl, imageRef, clusterName, kubeconfig (secret), servedModelName and the plan", async () => {
    const c = await captureIndex(ROOT);
    assert.deepEqual(Object.keys(c.outputs).sort(), [
      "clusterName",
      "frontendLoadBalancerUrl",
      "frontendUrl",
      "imageRef",
      "kubeconfig",
      "plan",
      "servedModelName",
    ]);
    assert.equal(c.outputs.frontendUrl, "http://llm-frontend.dynamo.svc.cluster.local:8000");
    // A ClusterIP Frontend has no load balancer: null, stated (an undefined output makes Pulumi warn on every run).
    assert.equal(c.outputs.frontendLoadBalancerUrl, null);
    // The default release (dynamo-1.6) deploys the vendor's runtime image, its tag resolved to a digest.
    assert.match(String(c.outputs.imageRef), /^nvcr\.io\/nvidia\/ai-dynamo\/vllm-runtime@sha256:[0-9a-f]{64}$/);
    assert.equal(c.outputs.kubeconfig, "[secret]");
    const plan = c.outputs.plan as { gpus: object; efaRails: object; image: { cudaArchs: string[] } };
    assert.deepEqual(plan.gpus, { requested: 16, provisioned: 16 });
    assert.deepEqual(plan.efaRails, { used: 32, provisioned: 32 });
    assert.deepEqual(plan.image.cudaArchs, ["sm_90", "sm_100"]);
    assert.ok(!JSON.stringify(c.resources.map((r) => r.redactedInputs)).includes("hf_x"));
  });
});
