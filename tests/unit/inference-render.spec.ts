/** The rendered DynamoGraphDeployment: the goldens per backend and variant, and the field failures (F1-F14) it makes impossible. */
import { strict as assert } from "assert";
import { stringify } from "yaml";
import { GraphService, OperatorLabel } from "../../components/_shared/names";
import { Backend, ServingRole, validate, workerPlan } from "../../components/inference";
import { renderGraph, renderWorker } from "../../components/inference/graph";
import { EFA_RESOURCE, HUGEPAGES_2MI_RESOURCE } from "../../components/inference/dgd";
import { renderHfSecret } from "../../components/inference/render";
import { workerShape } from "../../components/inference/fit";
import { expectGolden } from "../helpers/golden";
import {
  affinityTerm,
  argValue,
  envOf,
  IMAGE,
  mainOf,
  pool,
  resolved,
  Variant,
  VARIANTS,
  worker,
} from "../helpers/inference-fixtures";
import { Annotation } from "../../components/_shared/annotations";

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
      );
      assert.deepEqual(w.readinessProbe?.httpGet, { path: "/health", port: "system" });
      const s = mainOf(w).startupProbe ?? {};
      assert.ok(s.httpGet && !s.exec && !s.tcpSocket, "one handler type, httpGet like the operator's");
      const window = (s.periodSeconds ?? 0) * (s.failureThreshold ?? 0);
      assert.ok(window >= budget, `startup budget ${window} < ${budget}`);
      assert.equal(
        renderGraph(resolved("p5en-1gpu", "vllm", { modelLoadBudgetSeconds: budget }), IMAGE).metadata.annotations[
          Annotation.ModelLoadBudgetSeconds
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
    const w = renderWorker(r, ServingRole.Prefill, IMAGE);
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
    const f = renderGraph(resolved("p5en-1gpu"), IMAGE).spec.services.Frontend;
    assert.deepEqual(mainOf(f).command, ["python3", "-m", "dynamo.frontend"]);
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
      assert.ok(!("hostNetwork" in (w.extraPodSpec ?? {})));
      assert.deepEqual(envOf(w).VLLM_NIXL_SIDE_CHANNEL_HOST, { fieldRef: { fieldPath: "status.podIP" } });
      assert.equal(envOf(w).VLLM_NIXL_SIDE_CHANNEL_PORT, "5600");
    }
  });

  it("F7: affinity selects on the operator's labels, never app.kubernetes.io/part-of", () => {
    const w = worker("vllm", "p5en-8x1gpu", ServingRole.Prefill);
    const own = affinityTerm(w, "podAffinity");
    const other = affinityTerm(w, "podAntiAffinity");
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
    assert.equal(w.resources?.limits?.gpu, "1");
    assert.equal(w.resources?.limits?.custom?.[EFA_RESOURCE], "2");
    assert.equal(mainOf(w).resources, undefined);
  });

  it("F9: the HF secret carries HF_TOKEN and HUGGING_FACE_HUB_TOKEN; every service that downloads reads it", () => {
    const r = resolved("p5en-1gpu", "vllm", { modelCacheMode: "none" });
    assert.deepEqual(renderHfSecret(r, "hf_x").stringData, { HF_TOKEN: "hf_x", HUGGING_FACE_HUB_TOKEN: "hf_x" });
    const services = renderGraph(r, IMAGE).spec.services;
    for (const key of [GraphService.Prefill, GraphService.Decode])
      assert.equal(services[key].envFromSecret, "llama-hf-token");
    // Self-hosted model cards (dynamo-1.6): the Frontend fetches the card's files from the workers, not the hub.
    assert.equal(services[GraphService.Frontend].envFromSecret, undefined);
    const seed = renderGraph(resolved("p5en-1gpu", "vllm", { modelCacheMode: "none", release: "seed" }), IMAGE);
    assert.equal(seed.spec.services[GraphService.Frontend].envFromSecret, "llama-hf-token");
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
        renderWorker(r, ServingRole.Prefill, IMAGE).resources?.limits?.custom?.[EFA_RESOURCE],
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
    const w = renderWorker(r, ServingRole.Prefill, IMAGE);
    const limit = w.resources?.limits?.custom?.[HUGEPAGES_2MI_RESOURCE];
    assert.equal(w.resources?.requests?.custom?.[HUGEPAGES_2MI_RESOURCE], limit);
    assert.equal(limit, `${Math.floor(r.pool.hugepages2MiPerNode / 8) * 2}Mi`);
    assert.deepEqual(w.extraPodSpec?.volumes?.[0], { name: "hugepages-2mi", emptyDir: { medium: "HugePages-2Mi" } });
  });
});
