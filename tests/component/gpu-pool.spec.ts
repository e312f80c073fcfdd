/**
 * `EfaGpuPool` on a cluster it did not create (pulumi-eks's `ManagedNodeGroup` model): given only the cluster's
 * name, node role, subnet and security groups, it makes the placement group, the EFA launch template and the node
 * group as its own children; every bad argument is one error before any child; the disabled placement group is
 * absent, not empty.
 */
import { strict as assert } from "assert";
import * as pulumi from "@pulumi/pulumi";
import { captureComponents, ofType, one } from "../helpers/capture";
import { thrown } from "../helpers/outputs";
import { EfaGpuPool, EfaGpuPoolArgs } from "../../components/cluster";

const CLUSTER = {
  clusterName: "shared-eks",
  kubernetesVersion: "1.35",
  nodeRoleArn: "arn:aws:iam::123456789012:role/shared-node",
  subnetIds: ["subnet-0aaaaaaaaaaaaaaaa"] as string[],
  clusterSecurityGroupId: "sg-0cccccccccccccccc",
  efaSecurityGroupId: "sg-0eeeeeeeeeeeeeeee",
};

const args = (over: Partial<EfaGpuPoolArgs> = {}): EfaGpuPoolArgs => ({
  poolName: "llama-8b",
  pool: { instanceType: "p5en.48xlarge", nodes: 2, availabilityZone: "us-east-2b" },
  ...CLUSTER,
  ...over,
});

describe("cluster: EfaGpuPool on a cluster it did not create", function () {
  this.timeout(30000);

  it("creates placement group, EFA launch template and node group as its children, wired to the given cluster", async () => {
    const c = await captureComponents(() => new EfaGpuPool("llama-8b", args()).facts);
    const pool = one(c.resources, "dynamo-efa:cluster:EfaGpuPool", "llama-8b");
    for (const r of c.resources.filter((x) => x.custom)) assert.equal(r.parent, pool.urn, `${r.name} is the pool's`);
    const lt = one(c.resources, "aws:ec2/launchTemplate:LaunchTemplate", "llama-8b-lt");
    const nics = lt.inputs.networkInterfaces as { interfaceType: string; securityGroups: string[] }[];
    assert.equal(nics.length, 17);
    assert.equal(nics.filter((n) => n.interfaceType === "efa-only").length, 16);
    for (const n of nics)
      assert.deepEqual(n.securityGroups, [CLUSTER.clusterSecurityGroupId, CLUSTER.efaSecurityGroupId]);
    assert.deepEqual(lt.inputs.metadataOptions.httpTokens, "required");
    assert.equal(lt.inputs.metadataOptions.httpPutResponseHopLimit, 1);
    // The launch template launches into the pool's own placement group (its auto-generated physical name).
    assert.match(lt.inputs.placement.groupName, /^llama-8b-placement-[0-9a-f]{7}$/);
    const ng = one(c.resources, "aws:eks/nodeGroup:NodeGroup", "llama-8b-ng");
    assert.equal(ng.inputs.clusterName, CLUSTER.clusterName);
    assert.equal(ng.inputs.nodeRoleArn, CLUSTER.nodeRoleArn);
    assert.deepEqual(ng.inputs.subnetIds, CLUSTER.subnetIds);
    assert.equal(ng.inputs.version, "1.35");
    assert.deepEqual(ng.inputs.scalingConfig, { desiredSize: 2, minSize: 2, maxSize: 2 });
    assert.equal(ng.inputs.labels["dynamo-efa/pool"], "llama-8b");
    assert.equal(ng.inputs.tags["dynamo-efa/pool"], "llama-8b");
    assert.deepEqual(c.result.nodeSelector, {
      "dynamo-efa/pool": "llama-8b",
      "node.kubernetes.io/instance-type": "p5en.48xlarge",
    });
    // Nothing of the cluster: no VPC, no EKS cluster, no role, no security group.
    assert.deepEqual(
      c.resources
        .filter((r) => r.custom)
        .map((r) => r.type)
        .sort(),
      ["aws:ec2/launchTemplate:LaunchTemplate", "aws:ec2/placementGroup:PlacementGroup", "aws:eks/nodeGroup:NodeGroup"],
    );
  });

  it("a reserved pool has no placement group (absent, not an empty one)", async () => {
    const c = await captureComponents(
      () =>
        new EfaGpuPool(
          "rsv",
          args({
            pool: {
              instanceType: "p5en.48xlarge",
              nodes: 2,
              availabilityZone: "us-east-2b",
              capacity: "odcr",
              capacityReservationId: "cr-0123456789abcdef0",
            },
          }),
        ).placementGroup,
    );
    assert.equal(c.result, undefined);
    assert.deepEqual(ofType(c.resources, "aws:ec2/placementGroup:PlacementGroup"), []);
    assert.equal(one(c.resources, "aws:ec2/launchTemplate:LaunchTemplate", "rsv-lt").inputs.placement, undefined);
  });

  it("every bad argument in ONE error at its own path, before any child", async () => {
    const c = await captureComponents(() =>
      thrown(
        () =>
          new EfaGpuPool(
            "bad",
            args({
              efaSecurityGroupId: undefined,
              pool: { instanceType: "p5en.48xlarge", nodes: 0, amiReleaseVersion: "1.34.2-20260714" },
            }),
          ),
      ),
    );
    const e = c.result;
    assert.ok(pulumi.InputPropertiesError.isInstance(e), String(e));
    assert.deepEqual(
      e.errors.map((x) => x.propertyPath),
      ["pool.nodes", "pool.availabilityZone", "pool.amiReleaseVersion", "efaSecurityGroupId"],
    );
    assert.match(e.errors.at(-1)!.reason, /required for an EFA pool/);
    assert.deepEqual(
      c.resources.map((r) => r.name),
      ["bad"],
      "the component itself, none of its children",
    );
  });
});
