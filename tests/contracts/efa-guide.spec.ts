/**
 * verify's gate G against Dynamo's EFA guide (facts/dynamo-efa-guide.json, ai-dynamo/dynamo
 * docs/kubernetes/cloud-providers/eks/efa.md "Verification"): the plugin library the probe greps in the engine's
 * maps, the mapping that proves it runs, and the NIXL metric names under vLLM's prefix.
 */
import { strict as assert } from "assert";
import { LIBFABRIC_PLUGIN, NIXL_METRIC, parseProbe, WORKER_PROBE_SCRIPT } from "../../tools/verify/efa-process";
import { loadFacts } from "./facts";

interface GuideFacts {
  pluginLibrary: string;
  executableMapping: string;
  openedOnlyMapping: string;
  metrics: string[];
  vllmMetricPrefix: string;
  ipcLockAloneInsufficient: boolean;
}
const { facts } = loadFacts<GuideFacts>("dynamo-efa-guide");

describe("contract: verify gate G vs Dynamo's EFA guide", () => {
  it("greps the guide's plugin library in the engine's maps and reads its metrics under vLLM's prefix", () => {
    assert.equal(LIBFABRIC_PLUGIN, facts.pluginLibrary);
    assert.ok(WORKER_PROBE_SCRIPT.includes(`grep '${facts.pluginLibrary}' /proc/$pid/maps`));
    assert.deepEqual(
      Object.values(NIXL_METRIC).sort(),
      facts.metrics.map((m) => `${facts.vllmMetricPrefix}${m}`).sort(),
    );
    for (const m of Object.values(NIXL_METRIC)) assert.ok(WORKER_PROBE_SCRIPT.includes(m), m);
  });

  it("judges the mappings as the guide does: executable runs, read-only was only opened", () => {
    const line = (perm: string) => `7f00-7f10 ${perm} 00000000 00:2f 9 /opt/nixl/plugins/${facts.pluginLibrary}.so`;
    assert.equal(parseProbe(line(facts.executableMapping)).libfabricPlugin, "executable");
    assert.equal(parseProbe(line(facts.openedOnlyMapping)).libfabricPlugin, "read-only");
    assert.ok(facts.ipcLockAloneInsufficient, "the guide no longer says IPC_LOCK alone is insufficient: re-read it");
  });
});
