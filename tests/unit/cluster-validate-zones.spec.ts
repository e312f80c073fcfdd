/** The cluster validator's availability-zone list: a repeated AZ is named, with the list it was found in. */
import { strict as assert } from "assert";
import { validateClusterArgs } from "../../components/cluster/validate";

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

  it("distinct AZs raise no AZ problem", () => {
    const found = validateClusterArgs({ availabilityZones: ["us-east-2a", "us-east-2b"], gpuPools: { dev: pool } });
    assert.deepEqual(
      found.filter((p) => p.propertyPath === "availabilityZones"),
      [],
    );
  });
});
