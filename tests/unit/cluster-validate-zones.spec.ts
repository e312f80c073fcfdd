/** The cluster validator's availability-zone list: a repeated AZ is named, with the list it was found in. */
import { strict as assert } from "assert";
import { validateClusterArgs } from "../../components/cluster/validate";
import { REGION_ZONE_LETTERS, zonesOf } from "../../components/cluster/region-zones";
import { checkStackConfig } from "../../program/config";

describe("cluster: availability zones", () => {
  const pool = { instanceType: "g6e.12xlarge", nodes: 1 };

  it("a repeated AZ is named, once, with the whole list and the fix", () => {
    const azs = ["us-east-2a", "us-east-2b", "us-east-2a", "us-east-2a"];
    const found = validateClusterArgs({ availabilityZones: azs, gpuPools: { dev: pool } }).filter(
      (p) => p.propertyPath === "availabilityZones",
    );
    assert.deepEqual(
      found.map((p) => p.reason),
      [`lists "us-east-2a" more than once in ${JSON.stringify(azs)}; each AZ gets one subnet, so list each once`],
    );
  });

  it("a zone the region does not have (us-east-2d) is refused at every path, naming the region's zones", () => {
    const why = (az: string) =>
      `"${az}" is not an availability zone of us-east-2, which has us-east-2a, us-east-2b, us-east-2c (AWS Availability Zones, read 2026-12-01); use one of them`;
    const found = validateClusterArgs({
      region: "us-east-2",
      availabilityZones: ["us-east-2a", "us-east-2d"],
      gpuPools: { gpu: { ...pool, availabilityZone: "us-east-2d" } },
    }).filter((p) => /availabilityZone/.test(p.propertyPath));
    assert.deepEqual(
      found.map((p) => [p.propertyPath, p.reason]),
      [
        ["availabilityZones[1]", why("us-east-2d")],
        ["gpuPools.gpu.availabilityZone", why("us-east-2d")],
      ],
    );
  });

  it("every zone of the table is accepted; a region outside the table is checked for its prefix only", () => {
    for (const region of Object.keys(REGION_ZONE_LETTERS)) {
      const azs = zonesOf(region)!;
      const problems = validateClusterArgs({ region, availabilityZones: [...azs], gpuPools: { dev: pool } });
      assert.deepEqual(
        problems.filter((p) => p.propertyPath.startsWith("availabilityZones")),
        [],
        region,
      );
    }
    const elsewhere = validateClusterArgs({
      region: "eu-north-1",
      availabilityZones: ["eu-north-1a", "eu-north-1z"],
      gpuPools: { dev: pool },
    });
    assert.deepEqual(
      elsewhere.filter((p) => p.propertyPath.startsWith("availabilityZones")),
      [],
    );
  });

  it("from stack config: a pool AZ us-east-2d is a config error at the key written", () => {
    const { problems } = checkStackConfig({
      region: "us-east-2",
      hfTokenSet: true,
      cluster: {
        availabilityZones: ["us-east-2a", "us-east-2b"],
        gpuPools: { gpu: { instanceType: "p5en.48xlarge", nodes: 2, availabilityZone: "us-east-2d" } },
      },
      inference: { model: "meta-llama/Llama-3.1-8B-Instruct" },
    });
    assert.ok(
      problems.some(
        (p) =>
          p.propertyPath === "cluster.gpuPools.gpu.availabilityZone" &&
          p.reason.includes("is not an availability zone of us-east-2"),
      ),
      JSON.stringify(problems),
    );
  });

  it("a pool AZ the region does not have gets that one message, not 'add it to availabilityZones'", () => {
    const reasons = (az: string) =>
      validateClusterArgs({
        region: "us-east-2",
        availabilityZones: ["us-east-2a", "us-east-2b"],
        gpuPools: { gpu: { ...pool, availabilityZone: az } },
      })
        .filter((p) => p.propertyPath === "gpuPools.gpu.availabilityZone")
        .map((p) => p.reason);
    const missing = reasons("us-east-2d");
    assert.equal(missing.length, 1, JSON.stringify(missing));
    assert.match(missing[0], /is not an availability zone of us-east-2/);
    // A real zone of the region that the VPC lacks still says where to add it.
    assert.deepEqual(reasons("us-east-2c"), [
      `"us-east-2c" is not in availabilityZones ["us-east-2a","us-east-2b"]; add it there`,
    ]);
  });

  it("distinct AZs raise no AZ problem", () => {
    const found = validateClusterArgs({ availabilityZones: ["us-east-2a", "us-east-2b"], gpuPools: { dev: pool } });
    assert.deepEqual(
      found.filter((p) => p.propertyPath === "availabilityZones"),
      [],
    );
  });
});
