/** The reference deployment (8 prefill + 8 decode x 1 GPU on 2 x p5en.48xlarge) end to end, and the workers' security context. */
import { strict as assert } from "assert";
import { OperatorLabel } from "../../components/_shared/names";
import { renderInference, ServingRole, workerPlan } from "../../components/inference";
import { renderGraph, renderWorker, type DgdObject } from "../../components/inference/graph";
import { type DgdService } from "../../components/inference/dgd";
import { affinityTerm, IMAGE, mainOf, pool, resolved, worker } from "../helpers/inference-fixtures";
import { Annotation } from "../../components/_shared/annotations";

describe("inference: acceptance (8 prefill + 8 decode x 1 GPU on 2 x p5en.48xlarge)", () => {
  const r = resolved("p5en-8x1gpu");

  it("each worker asks for 1 GPU and 2 EFA; 8 workers' hugepages fit one node; vLLM JSON selects LIBFABRIC", () => {
    for (const p of workerPlan(r)) {
      assert.deepEqual(
        [p.replicas, p.gpusPerWorker, p.efaPerWorker, p.nixlRails, p.kvTransport],
        [8, 1, 2, 2, "LIBFABRIC"],
      );
      assert.ok(p.hugepages2MiPerWorker * 8 <= r.pool.hugepages2MiPerNode);
      assert.ok(p.command.includes(`"backends":["LIBFABRIC"]`), p.command);
    }
  });

  it("prefill and decode land on different nodes by construction", () => {
    const p = worker("vllm", "p5en-8x1gpu", ServingRole.Prefill);
    const d = worker("vllm", "p5en-8x1gpu", ServingRole.Decode);
    const sel = (s: DgdService, k: "podAffinity" | "podAntiAffinity") =>
      affinityTerm(s, k).labelSelector.matchLabels[OperatorLabel.Component];
    assert.deepEqual([sel(p, "podAffinity"), sel(p, "podAntiAffinity")], ["PrefillWorker", "DecodeWorker"]);
    assert.deepEqual([sel(d, "podAffinity"), sel(d, "podAntiAffinity")], ["DecodeWorker", "PrefillWorker"]);
  });

  it("switching backend to trtllm changes only engine-specific parts", () => {
    const a = renderGraph(resolved("p5en-8x1gpu", "vllm"), IMAGE);
    const b = renderGraph(resolved("p5en-8x1gpu", "trtllm"), IMAGE);
    const diffs: string[] = [];
    const isMap = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);
    const walk = (x: unknown, y: unknown, at: string) => {
      if (JSON.stringify(x) === JSON.stringify(y)) return;
      if (isMap(x) && isMap(y)) {
        for (const k of new Set([...Object.keys(x), ...Object.keys(y)])) walk(x[k], y[k], `${at}.${k}`);
      } else diffs.push(at);
    };
    walk(a, b, "");
    const allowed = [
      /^\.spec\.backendFramework$/,
      /^\.metadata\.annotations\.dynamo-efa\/fit-(prefill|decode)-kv-(cache-gib-per-gpu|capacity-tokens)$/,
      /^\.spec\.services\.(Prefill|Decode)Worker\.envs$/,
      /^\.spec\.services\.(Prefill|Decode)Worker\.extraPodMetadata$/,
      /^\.spec\.services\.(Prefill|Decode)Worker\.extraPodSpec\.volumes$/,
      /^\.spec\.services\.(Prefill|Decode)Worker\.extraPodSpec\.mainContainer\.(command|args|volumeMounts)$/,
    ];
    assert.ok(diffs.length > 0);
    for (const d of diffs)
      assert.ok(
        allowed.some((re) => re.test(d)),
        `backend switch changed a non-engine field: ${d}`,
      );
    // And the env difference is exactly the engine's own variables.
    const names = (g: DgdObject) => (g.spec.services.PrefillWorker.envs ?? []).map((e) => e.name);
    const common = names(a).filter((n) => names(b).includes(n));
    assert.deepEqual(
      names(a).filter((n) => !common.includes(n)),
      ["VLLM_NIXL_SIDE_CHANNEL_HOST", "VLLM_NIXL_SIDE_CHANNEL_PORT"],
    );
    assert.deepEqual(
      names(b).filter((n) => !common.includes(n)),
      ["TRTLLM_NIXL_KVCACHE_BACKEND"],
    );
  });

  it("renderInference returns every object, TRT-LLM engine args with cache_transceiver_config NIXL", () => {
    const out = renderInference(
      resolved("p5en-8x1gpu", "trtllm", { modelCache: { storageClassName: "efs-sc", sizeGiB: 500 } }),
    );
    assert.deepEqual(
      out.engineConfigMaps.map((c) => c.metadata.name),
      ["llama-trtllm-prefill", "llama-trtllm-decode"],
    );
    assert.ok(out.engineConfigMaps[0].data["engine.yaml"].includes("cache_transceiver_config:\n  backend: NIXL"));
    assert.equal(out.modelCachePvc?.spec.accessModes[0], "ReadWriteMany");
    assert.equal(out.namespace?.metadata.name, "dynamo");
    assert.equal(renderInference(resolved("p5en-1gpu", "vllm", { createNamespace: false })).namespace, undefined);
    assert.equal(out.frontendUrl, "http://llama-frontend.dynamo.svc.cluster.local:8000");
    assert.equal(out.graph.metadata.annotations["pulumi.com/waitFor"], "condition=Ready");
  });

  it("records image archs and toolkit as annotations for policies", () => {
    const g = renderGraph(
      resolved("p5en-1gpu", "vllm", { imageCudaArchs: ["sm_90", "sm_100"], imageCudaToolkit: "12.9" }),
      IMAGE,
    );
    assert.equal(g.metadata.annotations[Annotation.ImageCudaArchs], "sm_90,sm_100");
    assert.equal(g.metadata.annotations[Annotation.ImageCudaToolkit], "12.9");
    assert.equal(g.metadata.annotations[Annotation.Hugepages2MiPerNode], undefined, "catalog value: not recorded");
    const measured = renderGraph(
      resolved("p5en-1gpu", "vllm", { gpuPool: pool("p5en.48xlarge", 1, true, { hugepages2MiPerNode: 4096 }) }),
      IMAGE,
    );
    assert.equal(measured.metadata.annotations[Annotation.Hugepages2MiPerNode], "4096");
  });

  it("security: nothing privileged; EFA workers add only IPC_LOCK; everything non-root, no escalation, caps dropped, seccomp RuntimeDefault", () => {
    for (const variant of ["p5en-1gpu", "p5en-8x1gpu"] as const) {
      for (const role of [ServingRole.Prefill, ServingRole.Decode]) {
        const efa = mainOf(worker("vllm", variant, role)).securityContext;
        assert.deepEqual(efa, {
          runAsNonRoot: true,
          runAsUser: 1000,
          allowPrivilegeEscalation: false,
          seccompProfile: { type: "RuntimeDefault" },
          capabilities: { drop: ["ALL"], add: ["IPC_LOCK"] },
        });
      }
    }
    const noEfa = mainOf(
      renderWorker(
        resolved("p5en-1gpu", "vllm", { gpuPool: pool("p5en.48xlarge", 1, false) }),
        ServingRole.Prefill,
        IMAGE,
      ),
    ).securityContext;
    const f = mainOf(renderGraph(resolved("p5en-1gpu"), IMAGE).spec.services.Frontend).securityContext;
    for (const sc of [noEfa, f])
      assert.deepEqual(sc, {
        runAsNonRoot: true,
        runAsUser: 1000,
        allowPrivilegeEscalation: false,
        seccompProfile: { type: "RuntimeDefault" },
        capabilities: { drop: ["ALL"] },
      });
  });
});
