/**
 * The instance catalog's instance-store NVMe sizes against EC2 DescribeInstanceTypes as Karpenter records them
 * (facts/instance-local-nvme.json): a catalogued GPU type with a wrong or missing size fails.
 */
import { strict as assert } from "assert";
import { instanceNames, LOCAL_NVME_GB } from "../../components/catalog/instances";
import { loadFacts } from "./facts";

const { facts } = loadFacts<{ localNvmeGB: Record<string, number> }>("instance-local-nvme");

/** Catalog rows whose NVMe size differs from the facts. */
export function storageProblems(
  catalog: Readonly<Record<string, number>>,
  upstream: Readonly<Record<string, number>>,
): string[] {
  return instanceNames().flatMap((n) => {
    if (upstream[n] === undefined) return [`${n}: not in the facts; re-extract or drop it from the catalog`];
    return (catalog[n] ?? 0) === upstream[n] ? [] : [`${n}: catalog ${catalog[n] ?? 0} GB, EC2 ${upstream[n]} GB`];
  });
}

describe("contract: instance-store NVMe per catalogued instance type", () => {
  it("every catalogued type matches EC2's TotalSizeInGB", () =>
    assert.deepEqual(storageProblems(LOCAL_NVME_GB, facts.localNvmeGB), []));
  it("a skewed or missing size is caught", () => {
    assert.deepEqual(storageProblems({ ...LOCAL_NVME_GB, "p5en.48xlarge": 30720 }, facts.localNvmeGB), [
      "p5en.48xlarge: catalog 30720 GB, EC2 30400 GB",
    ]);
    const { ["g6.xlarge"]: _gone, ...rest } = LOCAL_NVME_GB;
    assert.deepEqual(storageProblems(rest, facts.localNvmeGB), ["g6.xlarge: catalog 0 GB, EC2 250 GB"]);
  });
});
