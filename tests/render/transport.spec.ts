/** plan.json / plan.md state the KV transport and whether KV moves over RDMA or TCP. */
import { strict as assert } from "assert";
import { inferencePlan } from "../../components/inference/plan";
import { buildPlan } from "../../tools/render/plan/plan";
import { kvTransportMarkdown, planMarkdown } from "../../tools/render/plan/md";
import { kvWire } from "../../components/inference/args";
import { resolved } from "../helpers/inference-fixtures";

const planInput = (r: ReturnType<typeof resolved>) => ({
  stack: "s",
  region: "us-east-2",
  pools: [r.pool],
  resources: [],
  image: { cudaArchs: ["sm_90"], cudaToolkit: "12.9", build: true },
  criticalPath: { steps: [], minutes: 0 },
});

describe("render: KV transport in the plan", () => {
  it("states the graph's choice from its plan facts: LIBFABRIC = RDMA, UCX = TCP", () => {
    const lf = kvWire(inferencePlan(resolved("p5en-8x1gpu")).kvTransport);
    assert.deepEqual([lf.transport, lf.rdma], ["LIBFABRIC", true]);
    const ucx = kvWire(inferencePlan(resolved("p5en-8x1gpu", "trtllm", { kvTransport: "ucx" })).kvTransport);
    assert.deepEqual([ucx.transport, ucx.rdma], ["UCX", false]);
    assert.equal(buildPlan(planInput(resolved("p5en-8x1gpu"))).kvTransport, undefined);
  });

  it("plan.md has a KV transfer section naming the backend and RDMA vs TCP", () => {
    const r = resolved("p5en-1gpu", "vllm", { kvTransport: "ucx" });
    const plan = buildPlan({ ...planInput(r), inference: inferencePlan(r) });
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
