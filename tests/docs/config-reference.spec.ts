/**
 * docs/CONFIG.md is generated from the component arguments (tools/config-reference/reference.ts) and current: the
 * file equals a fresh generation, and every key of every table has a row, its JSDoc and a default.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import { CONFIG_MD, configReference } from "../../tools/config-reference/reference";

describe("docs/CONFIG.md: the config reference, generated from the arguments' JSDoc", function () {
  this.timeout(120000);
  const text = configReference();

  it("is current (regenerate: npx tsx tools/config-reference/reference.ts)", () =>
    assert.equal(fs.readFileSync(CONFIG_MD, "utf8"), text));

  it("carries each argument's own doc and @default, and names the keys the program sets", () => {
    const row = (key: string) => text.split("\n").find((l) => l.startsWith(`| \`${key}\` |`));
    assert.match(row("inference.prefill.replicas") ?? "", /Number of worker pods of this role/);
    assert.match(row("inference.modelCacheMode") ?? "", /"local-nvme" when the pool has a local NVMe array/);
    assert.match(row("cluster.gpuPools.<name>.hugepages2MiPerNode") ?? "", /catalog value/);
    assert.match(row("inference.gpuPool") ?? "", /set by the program from the pool of cluster.gpuPools/);
    assert.equal(text.split("\n").filter((l) => /^\| `.*` \| \|/.test(l)).length, 0, "a row without a default");
  });
});
