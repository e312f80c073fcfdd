/**
 * `EfaCluster` with invalid args: resolveArgs never throws first, validation reports every problem (pool, network,
 * region, versions) in ONE InputPropertiesError, and no child exists (split from cluster.spec.ts).
 */
import { strict as assert } from "assert";
import * as pulumi from "@pulumi/pulumi";
import { captureComponents } from "../helpers/capture";
import { thrown } from "../helpers/outputs";
import { EfaCluster, EfaClusterArgs } from "../../components/cluster";

/**
 * Runs `build` in a capture: what it threw, and the names of the resources it constructed (the capture's stack
 * transformation sees every constructor, and fails when one never reached the mock monitor).
 */
async function inStack(build: () => unknown): Promise<{ e: unknown; constructed: string[] }> {
  const c = await captureComponents(() => thrown(build));
  return { e: c.result, constructed: c.resources.map((r) => r.name) };
}

describe("cluster: EfaCluster with invalid args", function () {
  this.timeout(30000);

  it("invalid args: one InputPropertiesError listing every problem, and no child created", async () => {
    const { e, constructed } = await inStack(
      () =>
        new EfaCluster("bad", {
          deployFromInsideVpc: true,
          gpuPools: { gpu: { instanceType: "p5en.48xlarge", nodes: 1, capacity: "capacity-block" } },
        }),
    );
    assert.ok(pulumi.InputPropertiesError.isInstance(e));
    assert.deepEqual(
      e.errors.map((x) => x.propertyPath),
      ["gpuPools.gpu.availabilityZone", "gpuPools.gpu.capacityReservationId", "availabilityZones"],
    );
    const { subjectOf } = await import("../../components/_shared/pulumi-errors");
    assert.equal(subjectOf(e), "EfaCluster", "the error names its component as data (tools place its paths by it)");
    // The constructor threw: no child was constructed, so none can ever reach the monitor.
    assert.deepEqual(constructed, ["bad"], "the component itself, none of its children");
  });

  it("a bad pool, an unknown instance type, the network and a version: every class in ONE error, no child", async () => {
    const args = {
      gpuPools: {
        gpu: { instanceType: "p5en.48xlarg", nodes: 0, availabilityZone: "us-east-2a" },
        broken: null,
      },
      availabilityZones: ["us-east-2a"],
      deployFromInsideVpc: true,
      vpcCidr: "10.0.0.1/16",
      kubernetesVersion: "1.20",
    } as unknown as EfaClusterArgs; // a pool that is not an object: only untyped stack config can send one
    const { e, constructed } = await inStack(() => new EfaCluster("worse", args));
    assert.ok(pulumi.InputPropertiesError.isInstance(e), String(e));
    assert.deepEqual(
      e.errors.map((x) => x.propertyPath),
      [
        "gpuPools.gpu.instanceType",
        "gpuPools.gpu.nodes",
        "gpuPools.broken",
        "availabilityZones",
        "vpcCidr",
        "kubernetesVersion",
      ],
    );
    assert.match(e.errors[0].reason, /unknown GPU instance type "p5en\.48xlarg"; did you mean "p5en\.48xlarge"\?/);
    assert.match(e.message, /^EfaCluster: 6 problems\n/);
    assert.deepEqual(constructed, ["worse"]);
  });
});
