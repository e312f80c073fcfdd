/** `inference.kvTransport`: LIBFABRIC on EFA pools, UCX when asked or without EFA, and what each gives the workers. */
import { strict as assert } from "assert";
import { GraphService } from "../../components/_shared/names";
import { Backend, validate, workerPlan } from "../../components/inference";
import { renderGraph } from "../../components/inference/graph";
import { EFA_RESOURCE, HUGEPAGES_2MI_RESOURCE } from "../../components/inference/dgd";
import { argValue, envOf, IMAGE, mainOf, pool, resolved } from "../helpers/inference-fixtures";

describe("inference: kvTransport", () => {
  it("auto = LIBFABRIC on an EFA pool: EFA devices, hugepages, FI_* env, IPC_LOCK, and LIBFABRIC selected", () => {
    const r = resolved("p5en-8x1gpu", "vllm");
    assert.equal(r.kvTransport, "LIBFABRIC");
    const g = renderGraph(r, IMAGE);
    const w = g.spec.services.DecodeWorker;
    assert.deepEqual(JSON.parse(argValue(w, "--kv-transfer-config")).kv_connector_extra_config.backends, ["LIBFABRIC"]);
    assert.equal(w.resources?.limits?.custom?.[EFA_RESOURCE], "2");
    assert.equal(envOf(w).FI_PROVIDER, "efa");
    assert.equal(envOf(w).FI_EFA_ENABLE_SHM, undefined, "FI_EFA_ENABLE_SHM is read by no libfabric release");
    assert.equal(envOf(w).FI_EFA_ENABLE_SHM_TRANSFER, "0");
  });

  for (const backend of Object.values(Backend)) {
    it(`${backend}: ucx on an EFA pool gives workers no EFA device, no hugepages, no FI_* env, no capability, and selects UCX`, () => {
      const r = resolved("p5en-8x1gpu", backend, { kvTransport: "ucx" });
      assert.deepEqual(validate(r, true), []);
      const g = renderGraph(r, IMAGE);
      for (const key of [GraphService.Prefill, GraphService.Decode]) {
        const w = g.spec.services[key];
        assert.equal(w.resources?.limits?.custom?.[EFA_RESOURCE], undefined);
        assert.equal(w.resources?.limits?.custom?.[HUGEPAGES_2MI_RESOURCE], undefined);
        assert.deepEqual(
          Object.keys(envOf(w)).filter((k) => k.startsWith("FI_")),
          [],
        );
        assert.deepEqual(mainOf(w).securityContext?.capabilities, { drop: ["ALL"] });
        if (backend === "vllm")
          assert.deepEqual(JSON.parse(argValue(w, "--kv-transfer-config")).kv_connector_extra_config.backends, ["UCX"]);
        else assert.equal(envOf(w).TRTLLM_NIXL_KVCACHE_BACKEND, "UCX");
      }
      assert.deepEqual(
        workerPlan(r).map((row) => [row.kvTransport, row.nixlRails, row.efaPerWorker]),
        [
          ["UCX", 0, 0],
          ["UCX", 0, 0],
        ],
      );
    });
  }

  it("auto = UCX on a pool without EFA", () => {
    assert.equal(resolved("p5en-1gpu", "vllm", { gpuPool: pool("p5en.48xlarge", 1, false) }).kvTransport, "UCX");
  });
});
