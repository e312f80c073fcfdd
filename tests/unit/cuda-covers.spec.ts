/**
 * `archCovers`: which GPUs a binary built for an arch list runs on (SASS within a family, "a" exactly, PTX by JIT).
 * Split from cuda-lists.spec.ts, which builds the lists.
 */
import { strict as assert } from "assert";
import { archCovers, INSTANCES, parseArchList } from "../../components/catalog";
import { valueOf } from "../../components/_shared/problems";

describe("catalog: which GPUs an arch list covers", () => {
  const covers: [string, string, boolean][] = [
    ["sm_90", "sm_90", true],
    ["sm_80", "sm_86", true], // SASS X.y runs on X.z, z >= y
    ["sm_86", "sm_80", false],
    ["sm_90", "sm_100", false], // no SASS across majors, no PTX
    ["sm_90+PTX", "sm_100", true], // PTX JIT to a newer SM
    ["sm_90+PTX", "sm_89", false],
    ["sm_90a", "sm_90", true],
    ["sm_100a", "sm_103", false], // "a" runs on exactly sm_100
    ["sm_100a+PTX", "sm_103", false],
    ["sm_100f", "sm_103", true], // family: same major, higher minor
    ["sm_103f", "sm_100", false],
    ["sm_100f+PTX", "sm_110", false], // family PTX stays in its family
    ["sm_100 sm_120", "sm_121", true],
    ["sm_80 sm_86 sm_87 sm_89 sm_90 sm_100 sm_110 sm_120+PTX", "sm_103", true],
  ];
  for (const [list, gpu, want] of covers) {
    it(`archCovers(${list}, ${gpu}) = ${want}`, () =>
      assert.equal(archCovers(valueOf("test", parseArchList(list, "13.0", "l")), gpu), want));
  }

  it("archCovers throws on a non-arch GPU string (its input is a catalog row's smArch, never user input)", () => {
    assert.throws(() => archCovers([], "hopper"), /archCovers: "hopper" is not an SM arch \(a catalog row is wrong\)/);
    for (const row of INSTANCES.values()) assert.doesNotThrow(() => archCovers([], row.smArch), row.name);
  });
});
