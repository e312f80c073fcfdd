/** plan.json / plan.md state the KV transport and whether KV moves over RDMA or TCP. */
import { DGD_TYPE_TOKEN as DGD } from "../../components/inference/dgd-types";
import { strict as assert } from "assert";
import { renderGraph } from "../../components/inference";
import { buildPlan } from "../../tools/render/plan";
import { kvTransportMarkdown, planMarkdown } from "../../tools/render/plan-md";
import { IMAGE, resolved } from "../helpers/inference-fixtures";

const resourceOf = (g: object) => ({
  urn: "urn:dgd",
  type: DGD,
  name: "llm-graph",
  inputs: g as Record<string, unknown>,
  propertyDependencies: {},
});

describe("render: KV transport in the plan", () => {
  it("reads the rendered graph's choice: LIBFABRIC = RDMA, UCX = TCP", () => {
    const r = resolved("p5en-8x1gpu");
    const kvOf = (resources: object[]) =>
      buildPlan({
        stack: "s",
        region: "us-east-2",
        pools: [r.pool],
        resources: resources.map(resourceOf),
        image: { cudaArchs: ["sm_90"], cudaToolkit: "12.9", build: true },
        criticalPath: { steps: [], minutes: 0 },
      }).kvTransport;
    const lf = kvOf([renderGraph(r, IMAGE)]);
    assert.deepEqual([lf?.transport, lf?.rdma], ["LIBFABRIC", true]);
    const ucx = kvOf([renderGraph(resolved("p5en-8x1gpu", "trtllm", { kvTransport: "ucx" }), IMAGE)]);
    assert.deepEqual([ucx?.transport, ucx?.rdma], ["UCX", false]);
    assert.equal(kvOf([]), undefined);
  });

  it("plan.md has a KV transfer section naming the backend and RDMA vs TCP", () => {
    const r = resolved("p5en-1gpu", "vllm", { kvTransport: "ucx" });
    const plan = buildPlan({
      stack: "s",
      region: "us-east-2",
      pools: [r.pool],
      resources: [resourceOf(renderGraph(r, IMAGE))],
      image: { cudaArchs: ["sm_90"], cudaToolkit: "12.9", build: true },
      criticalPath: { steps: [], minutes: 0 },
    });
    assert.equal(plan.kvTransport?.transport, "UCX");
    const md = planMarkdown(plan);
    assert.ok(md.includes("- NIXL backend: **UCX** (`inference.kvTransport`)"), md);
    assert.ok(md.includes("- KV moves over: **TCP**"), md);
    assert.deepEqual(kvTransportMarkdown(undefined).slice(0, 3), [
      "## KV transfer",
      "",
      "- no DynamoGraphDeployment records a KV transport",
    ]);
  });
});
