import { strict as assert } from "assert";
import { stringify } from "yaml";
import { GraphService, OperatorLabel, PlanAnnotation } from "../../components/_shared/names";
import {
  Backend,
  EFA_RESOURCE,
  renderGraph,
  renderHfSecret,
  renderInference,
  renderWorker,
  ServingRole,
  validate,
  workerPlan,
  workerShape,
} from "../../components/inference";
import { expectGolden } from "../helpers/golden";
import { IMAGE, pool, resolved, Variant, VARIANTS } from "../helpers/inference-fixtures";

type Obj = Record<string, any>;
const worker = (backend: Backend, variant: Variant, role: ServingRole): Obj =>
  renderWorker(resolved(variant, backend), role, IMAGE) as Obj;
const envOf = (w: Obj) => Object.fromEntries((w.envs as Obj[]).map((e) => [e.name, e.value ?? e.valueFrom]));
const argValue = (w: Obj, flag: string) => {
  const a: string[] = w.extraPodSpec.mainContainer.args;
  return a[a.indexOf(flag) + 1];
};

describe("inference: golden DynamoGraphDeployment per backend and variant", () => {
  for (const backend of Object.values(Backend)) {
    for (const variant of Object.keys(VARIANTS) as Variant[]) {
      it(`${backend} / ${variant}`, () => {
        const r = resolved(variant, backend);
        assert.deepEqual(validate(r, true), []);
        expectGolden(`inference/${backend}-${variant}.yaml`, stringify(renderGraph(r, IMAGE)));
      });
    }
  }
});

describe("inference: field failures the render makes impossible", () => {
  it("F1: one graph holds Frontend, PrefillWorker and DecodeWorker", () => {
    const g = renderGraph(resolved("p5en-8x1gpu"), IMAGE);
    assert.deepEqual(Object.keys(g.spec.services), [GraphService.Frontend, GraphService.Prefill, GraphService.Decode]);
    assert.equal(g.kind, "DynamoGraphDeployment");
  });

  it("F2: readiness httpGet /health on the system port; startup budget >= the load budget, never 30 s", () => {
    for (const budget of [60, 601, 1800, 7200]) {
      const w = renderWorker(
        resolved("p5en-8x1gpu", "vllm", { modelLoadBudgetSeconds: budget }),
        ServingRole.Decode,
        IMAGE,
      ) as Obj;
      assert.deepEqual(w.readinessProbe.httpGet, { path: "/health", port: "system" });
      const s = w.extraPodSpec.mainContainer.startupProbe;
      assert.ok(s.httpGet && !s.exec && !s.tcpSocket, "one handler type, httpGet like the operator's");
      assert.ok(
        s.periodSeconds * s.failureThreshold >= budget,
        `startup budget ${s.periodSeconds * s.failureThreshold} < ${budget}`,
      );
      assert.equal(
        renderGraph(resolved("p5en-1gpu", "vllm", { modelLoadBudgetSeconds: budget }), IMAGE).metadata.annotations[
          PlanAnnotation.ModelLoadBudgetSeconds
        ],
        String(budget),
      );
    }
  });

  it("F3: vLLM selects LIBFABRIC only through --kv-transfer-config; TRT-LLM through its env; no no-op variables", () => {
    const v = worker("vllm", "p5en-8x1gpu", ServingRole.Prefill);
    assert.deepEqual(JSON.parse(argValue(v, "--kv-transfer-config")), {
      kv_connector: "NixlConnector",
      kv_role: "kv_both",
      kv_connector_extra_config: { backends: ["LIBFABRIC"] },
    });
    const t = worker("trtllm", "p5en-8x1gpu", ServingRole.Prefill);
    assert.equal(envOf(t).TRTLLM_NIXL_KVCACHE_BACKEND, "LIBFABRIC");
    const text = JSON.stringify([
      renderGraph(resolved("p5en-8x1gpu", "vllm"), IMAGE),
      renderGraph(resolved("p5en-8x1gpu", "trtllm"), IMAGE),
    ]);
    for (const noop of [
      "NIXL_BACKEND",
      "VLLM_NIXL_KVCACHE_BACKEND",
      "NIXL_LIBFABRIC_MAX_RAILS",
      "NIXL_SKIP_TOPOLOGY_CHECK",
    ])
      assert.ok(!text.includes(`"${noop}"`), noop);
  });

  it("F3: a pool without EFA uses UCX, and says so in the plan", () => {
    const r = resolved("p5en-1gpu", "vllm", { gpuPool: pool("p5en.48xlarge", 1, false) });
    const w = renderWorker(r, ServingRole.Prefill, IMAGE) as Obj;
    assert.deepEqual(JSON.parse(argValue(w, "--kv-transfer-config")).kv_connector_extra_config, { backends: ["UCX"] });
    assert.equal(envOf(w).FI_PROVIDER, undefined);
    assert.deepEqual(
      workerPlan(r).map((p) => [p.kvTransport, p.nixlRails]),
      [
        ["UCX", 0],
        ["UCX", 0],
      ],
    );
  });

  it("F4: the Frontend is the stock dynamo.frontend (stream is a smoke-check concern; nothing here strips it)", () => {
    const f = renderGraph(resolved("p5en-1gpu"), IMAGE).spec.services.Frontend as Obj;
    assert.deepEqual(f.extraPodSpec.mainContainer.command, ["python3", "-m", "dynamo.frontend"]);
  });

  it("F5: rendering is deterministic code (same input, same bytes)", () => {
    assert.equal(
      stringify(renderGraph(resolved("p5en-8x1gpu"), IMAGE)),
      stringify(renderGraph(resolved("p5en-8x1gpu"), IMAGE)),
    );
  });

  it("F6: no hostNetwork; explicit side-channel host = pod IP and port", () => {
    for (const role of [ServingRole.Prefill, ServingRole.Decode]) {
      const w = worker("vllm", "p5en-8x1gpu", role);
      assert.equal(w.extraPodSpec.hostNetwork, undefined);
      assert.deepEqual(envOf(w).VLLM_NIXL_SIDE_CHANNEL_HOST, { fieldRef: { fieldPath: "status.podIP" } });
      assert.equal(envOf(w).VLLM_NIXL_SIDE_CHANNEL_PORT, "5600");
    }
  });

  it("F7: affinity selects on the operator's labels, never app.kubernetes.io/part-of", () => {
    const w = worker("vllm", "p5en-8x1gpu", ServingRole.Prefill);
    const own = w.extraPodSpec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0];
    const other = w.extraPodSpec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0];
    assert.deepEqual(own.labelSelector.matchLabels, {
      [OperatorLabel.GraphName]: "llama",
      [OperatorLabel.Component]: GraphService.Prefill,
    });
    assert.deepEqual(other.labelSelector.matchLabels, {
      [OperatorLabel.GraphName]: "llama",
      [OperatorLabel.Component]: GraphService.Decode,
    });
    assert.equal(own.topologyKey, "kubernetes.io/hostname");
    assert.ok(!JSON.stringify(renderGraph(resolved("p5en-8x1gpu"), IMAGE)).includes("app.kubernetes.io/part-of"));
  });

  it("F8: GPUs and EFA in Dynamo's resource form, not on mainContainer", () => {
    const w = worker("vllm", "p5en-8x1gpu", ServingRole.Decode);
    assert.equal(w.resources.limits.gpu, "1");
    assert.equal(w.resources.limits.custom[EFA_RESOURCE], "2");
    assert.equal(w.extraPodSpec.mainContainer.resources, undefined);
  });

  it("F9: the HF secret carries HF_TOKEN and HUGGING_FACE_HUB_TOKEN; every service reads it", () => {
    const r = resolved("p5en-1gpu");
    assert.deepEqual(renderHfSecret(r, "hf_x").stringData, { HF_TOKEN: "hf_x", HUGGING_FACE_HUB_TOKEN: "hf_x" });
    for (const s of Object.values(renderGraph(r, IMAGE).spec.services))
      assert.equal((s as Obj).envFromSecret, "llama-hf-token");
  });

  it("F13: rails = every EFA device aligned to the worker's GPUs (GPUs x EFA-per-GPU from the catalog)", () => {
    for (const [type, gpus, efa] of [
      ["p5en.48xlarge", 1, 2],
      ["p5.48xlarge", 2, 8],
      ["p6-b200.48xlarge", 4, 4],
      ["p4d.24xlarge", 2, 1],
    ] as const) {
      const r = resolved("p5en-1gpu", "vllm", {
        gpuPool: pool(type, 1),
        prefill: { replicas: 1, gpusPerWorker: gpus },
        decode: { replicas: 1, gpusPerWorker: gpus },
      });
      assert.deepEqual(validate(r, true), []);
      assert.equal(
        (renderWorker(r, ServingRole.Prefill, IMAGE) as Obj).resources.limits.custom[EFA_RESOURCE],
        String(efa),
        type,
      );
      assert.equal(workerPlan(r)[0].nixlRails, efa);
    }
  });

  it("F14: hugepages per worker x workers per node fit the node's pre-allocation; requests == limits; HugePages emptyDir", () => {
    const r = resolved("p5en-8x1gpu");
    const s = workerShape(r, ServingRole.Prefill);
    assert.equal(s.workersPerNode, 8);
    assert.ok(s.hugepages2MiPages * 8 <= r.pool.hugepages2MiPerNode);
    const w = renderWorker(r, ServingRole.Prefill, IMAGE) as Obj;
    assert.equal(w.resources.requests.custom["hugepages-2Mi"], w.resources.limits.custom["hugepages-2Mi"]);
    assert.equal(w.resources.limits.custom["hugepages-2Mi"], `${Math.floor(r.pool.hugepages2MiPerNode / 8) * 2}Mi`);
    assert.deepEqual(w.extraPodSpec.volumes[0], { name: "hugepages-2mi", emptyDir: { medium: "HugePages-2Mi" } });
  });
});

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
    const p = worker("vllm", "p5en-8x1gpu", ServingRole.Prefill).extraPodSpec.affinity;
    const d = worker("vllm", "p5en-8x1gpu", ServingRole.Decode).extraPodSpec.affinity;
    const sel = (a: Obj, k: string) =>
      a[k].requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchLabels[OperatorLabel.Component];
    assert.deepEqual([sel(p, "podAffinity"), sel(p, "podAntiAffinity")], ["PrefillWorker", "DecodeWorker"]);
    assert.deepEqual([sel(d, "podAffinity"), sel(d, "podAntiAffinity")], ["DecodeWorker", "PrefillWorker"]);
  });

  it("switching backend to trtllm changes only engine-specific parts", () => {
    const a = renderGraph(resolved("p5en-8x1gpu", "vllm"), IMAGE);
    const b = renderGraph(resolved("p5en-8x1gpu", "trtllm"), IMAGE);
    const diffs: string[] = [];
    const walk = (x: any, y: any, at: string) => {
      if (JSON.stringify(x) === JSON.stringify(y)) return;
      if (x && y && typeof x === "object" && typeof y === "object" && !Array.isArray(x) && !Array.isArray(y)) {
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
    const names = (g: Obj) => (g.spec.services.PrefillWorker.envs as Obj[]).map((e) => e.name);
    const common = names(a).filter((n: string) => names(b).includes(n));
    assert.deepEqual(
      names(a).filter((n: string) => !common.includes(n)),
      ["VLLM_NIXL_SIDE_CHANNEL_HOST", "VLLM_NIXL_SIDE_CHANNEL_PORT"],
    );
    assert.deepEqual(
      names(b).filter((n: string) => !common.includes(n)),
      ["TRTLLM_NIXL_KVCACHE_BACKEND"],
    );
  });

  it("renderInference returns every object, TRT-LLM engine args with cache_transceiver_config NIXL", () => {
    const out = renderInference(
      resolved("p5en-8x1gpu", "trtllm", { modelCache: { storageClassName: "efs-sc", sizeGiB: 500 } }),
    );
    assert.deepEqual(
      out.engineConfigMaps.map((c: Obj) => c.metadata.name),
      ["llama-trtllm-prefill", "llama-trtllm-decode"],
    );
    assert.ok(
      (out.engineConfigMaps[0] as Obj).data["engine.yaml"].includes("cache_transceiver_config:\n  backend: NIXL"),
    );
    assert.equal((out.modelCachePvc as Obj).spec.accessModes[0], "ReadWriteMany");
    assert.equal(out.helm?.chart, "https://helm.ngc.nvidia.com/nvidia/ai-dynamo/charts/dynamo-platform-1.0.1.tgz");
    assert.equal(
      renderInference(resolved("p5en-1gpu", "vllm", { platform: { version: "1.1.0" } })).helm?.chart,
      "https://helm.ngc.nvidia.com/nvidia/ai-dynamo/charts/dynamo-platform-1.1.0.tgz",
    );
    assert.deepEqual(out.helm?.values, { "dynamo-operator": { namespaceRestriction: { enabled: false } } });
    assert.equal(renderInference(resolved("p5en-1gpu", "vllm", { platform: { install: false } })).helm, undefined);
    assert.equal(out.frontendUrl, "http://llama-frontend.dynamo.svc.cluster.local:8000");
    assert.equal(out.graph.metadata.annotations["pulumi.com/waitFor"], "condition=Ready");
  });

  it("records image archs, toolkit and pool as annotations for policies", () => {
    const g = renderGraph(
      resolved("p5en-1gpu", "vllm", { imageCudaArchs: ["sm_90", "sm_100"], imageCudaToolkit: "12.9" }),
      IMAGE,
    );
    assert.equal(g.metadata.annotations[PlanAnnotation.ImageCudaArchs], "sm_90,sm_100");
    assert.equal(g.metadata.annotations[PlanAnnotation.ImageCudaToolkit], "12.9");
    assert.equal(g.metadata.annotations[PlanAnnotation.GpuPool], "gpu");
    assert.equal(g.metadata.annotations[PlanAnnotation.Hugepages2MiPerNode], undefined, "catalog value: not recorded");
    const measured = renderGraph(
      resolved("p5en-1gpu", "vllm", { gpuPool: pool("p5en.48xlarge", 1, true, { hugepages2MiPerNode: 4096 }) }),
      IMAGE,
    );
    assert.equal(measured.metadata.annotations[PlanAnnotation.Hugepages2MiPerNode], "4096");
  });

  it("security: nothing privileged; EFA workers add only IPC_LOCK; everything non-root, no escalation, caps dropped", () => {
    for (const variant of ["p5en-1gpu", "p5en-8x1gpu"] as const) {
      for (const role of [ServingRole.Prefill, ServingRole.Decode]) {
        const efa = worker("vllm", variant, role).extraPodSpec.mainContainer.securityContext;
        assert.deepEqual(efa, {
          runAsNonRoot: true,
          runAsUser: 1000,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ["ALL"], add: ["IPC_LOCK"] },
        });
      }
    }
    const noEfa = (
      renderWorker(
        resolved("p5en-1gpu", "vllm", { gpuPool: pool("p5en.48xlarge", 1, false) }),
        ServingRole.Prefill,
        IMAGE,
      ) as Obj
    ).extraPodSpec.mainContainer.securityContext;
    const f = (renderGraph(resolved("p5en-1gpu"), IMAGE).spec.services.Frontend as Obj).extraPodSpec.mainContainer
      .securityContext;
    for (const sc of [noEfa, f])
      assert.deepEqual(sc, {
        runAsNonRoot: true,
        runAsUser: 1000,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ["ALL"] },
      });
  });
});

describe("inference: kvTransport", () => {
  it("auto = LIBFABRIC on an EFA pool: EFA devices, hugepages, FI_* env, IPC_LOCK, and the choice on the graph", () => {
    const r = resolved("p5en-8x1gpu", "vllm");
    assert.equal(r.kvTransport, "LIBFABRIC");
    const g = renderGraph(r, IMAGE);
    assert.equal(g.metadata.annotations["dynamo-efa/kv-transport"], "LIBFABRIC");
    const w = g.spec.services.DecodeWorker as Obj;
    assert.equal(w.resources.limits.custom[EFA_RESOURCE], "2");
    assert.equal(envOf(w).FI_PROVIDER, "efa");
    assert.equal(envOf(w).FI_EFA_ENABLE_SHM, undefined, "FI_EFA_ENABLE_SHM is read by no libfabric release");
    assert.equal(envOf(w).FI_EFA_ENABLE_SHM_TRANSFER, "0");
  });

  for (const backend of Object.values(Backend)) {
    it(`${backend}: ucx on an EFA pool gives workers no EFA device, no hugepages, no FI_* env, no capability, and selects UCX`, () => {
      const r = resolved("p5en-8x1gpu", backend, { kvTransport: "ucx" });
      assert.deepEqual(validate(r, true), []);
      const g = renderGraph(r, IMAGE);
      assert.equal(g.metadata.annotations["dynamo-efa/kv-transport"], "UCX");
      for (const key of [GraphService.Prefill, GraphService.Decode]) {
        const w = g.spec.services[key] as Obj;
        assert.equal(w.resources.limits.custom[EFA_RESOURCE], undefined);
        assert.equal(w.resources.limits.custom["hugepages-2Mi"], undefined);
        assert.deepEqual(
          Object.keys(envOf(w)).filter((k) => k.startsWith("FI_")),
          [],
        );
        assert.deepEqual(w.extraPodSpec.mainContainer.securityContext.capabilities, { drop: ["ALL"] });
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
