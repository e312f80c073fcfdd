/**
 * The three model cache modes (local-nvme, efs, none) as rendered into the graph and the inference objects: init
 * containers, mounts, security, budgets and the prefetch ConfigMap, against a golden graph and exact validation.
 */
import { strict as assert } from "assert";
import { stringify } from "yaml";
import { validate } from "../../components/inference/validate";
import {
  renderGraph,
  renderWorker,
  startupFailureThreshold,
  waitTimeoutSeconds,
} from "../../components/inference/graph";
import { type DgdContainer, type EnvVar } from "../../components/inference/dgd";
import { renderInference } from "../../components/inference/render";
import { ServingRole } from "../../components/inference/args";
import { modelFacts } from "../../components/catalog/models";
import { COMPLETION_MARKERS_DIR, modelCacheDir, PREFETCH_SCRIPT } from "../../components/inference/cache";
import { expectGolden } from "../helpers/golden";
import type { InferenceSettings } from "../../components/inference";
import { argValue, IMAGE, mainOf, MODEL, pool, resolved } from "../helpers/inference-fixtures";

const NVME = { localNvme: { mountPath: "/mnt/k8s-disks/0", sizeGB: 30400 } };
const localNvme = (over: Partial<InferenceSettings> = {}) =>
  resolved("p5en-8x1gpu", "vllm", {
    modelCacheMode: "local-nvme",
    gpuPool: pool("p5en.48xlarge", 2, true, NVME),
    ...over,
  });

/** The worker's init containers (fails the test when there are none). */
function initContainers(cs: readonly DgdContainer[] | undefined): readonly DgdContainer[] {
  assert.ok(cs && cs.length > 0, "worker has no init containers");
  return cs;
}

/** A container's env var by name (fails the test when it is missing). */
function envNamed(c: DgdContainer, name: string): EnvVar {
  const e = c.env?.find((x) => x.name === name);
  assert.ok(e, `no env ${name}`);
  return e;
}

describe("inference: model cache modes (local-nvme, efs, none)", () => {
  it("local-nvme golden graph (vLLM, 8 + 8 workers on 2 x p5en)", () => {
    expectGolden("inference/vllm-p5en-8x1gpu-local-nvme.yaml", stringify(renderGraph(localNvme(), IMAGE)));
  });

  it("workers: cache-owner then model-prefetch init containers; the engine mounts the node cache read-only and loads the model from it offline", () => {
    for (const role of [ServingRole.Prefill, ServingRole.Decode]) {
      const w = renderWorker(localNvme(), role, IMAGE);
      assert.deepEqual(
        initContainers(w.extraPodSpec?.initContainers).map((c) => c.name),
        ["cache-owner", "model-prefetch"],
      );
      const vol = w.extraPodSpec?.volumes?.find((v) => v.name === "model-cache-node");
      assert.deepEqual(vol?.hostPath, { path: "/mnt/k8s-disks/0/dynamo-efa-model-cache", type: "DirectoryOrCreate" });
      assert.deepEqual(
        mainOf(w).volumeMounts?.find((m) => m.name === "model-cache-node"),
        { name: "model-cache-node", mountPath: "/model-cache", readOnly: true },
      );
      assert.equal(argValue(w, "--model"), modelCacheDir("/model-cache", MODEL));
      assert.equal(argValue(w, "--served-model-name"), MODEL);
      assert.ok(w.envs?.some((e) => e.name === "HF_HUB_OFFLINE" && e.value === "1"));
    }
  });

  it("security: nothing privileged; only cache-owner runs as root, with CHOWN alone; the prefetch is non-root and reads the token from the Secret", () => {
    const [owner, prefetch] = initContainers(
      renderWorker(localNvme(), ServingRole.Decode, IMAGE).extraPodSpec?.initContainers,
    );
    for (const c of [owner, prefetch]) {
      assert.equal(c.securityContext?.privileged, undefined);
      assert.equal(c.securityContext?.allowPrivilegeEscalation, false);
      assert.equal(c.securityContext?.readOnlyRootFilesystem, true);
      assert.deepEqual(c.securityContext?.capabilities?.drop, ["ALL"]);
    }
    assert.deepEqual(
      [owner.securityContext?.runAsUser, owner.securityContext?.capabilities?.add, owner.command],
      [0, ["CHOWN"], ["chown", "1000:1000", "/model-cache"]],
    );
    assert.deepEqual(
      [
        prefetch.securityContext?.runAsNonRoot,
        prefetch.securityContext?.runAsUser,
        prefetch.securityContext?.capabilities?.add,
      ],
      [true, 1000, undefined],
    );
    assert.deepEqual(envNamed(prefetch, "HF_TOKEN").valueFrom, {
      secretKeyRef: { name: "llama-hf-token", key: "HF_TOKEN" },
    });
    assert.equal(envNamed(prefetch, "MODEL_ID").value, MODEL);
  });

  it("budgets: the download budget goes to the prefetch and pulumi's wait; the startup probe covers the load only", () => {
    const r = localNvme({ modelDownloadBudgetSeconds: 900, modelLoadBudgetSeconds: 600 });
    const prefetch = initContainers(renderWorker(r, ServingRole.Prefill, IMAGE).extraPodSpec?.initContainers)[1];
    assert.equal(envNamed(prefetch, "DOWNLOAD_BUDGET_SECONDS").value, "900");
    assert.deepEqual([startupFailureThreshold(r), waitTimeoutSeconds(r)], [60, 900 + 600 + 600]);
    assert.equal(
      waitTimeoutSeconds(
        resolved("p5en-8x1gpu", "vllm", { modelDownloadBudgetSeconds: 900, modelLoadBudgetSeconds: 600 }),
      ),
      1200,
      "none: the engine downloads within its load budget",
    );
  });

  it("the prefetch script ships in a ConfigMap, and the graph records the model id (the engine's --model is a path)", () => {
    const out = renderInference(localNvme());
    const cm = out.engineConfigMaps.find((c) => c.metadata.name === "llama-model-prefetch");
    assert.equal(cm?.data["prefetch.py"], PREFETCH_SCRIPT);
    assert.ok(
      PREFETCH_SCRIPT.includes(`MARKERS = "${COMPLETION_MARKERS_DIR}"`),
      "the script writes its markers where the TS side names",
    );
    assert.equal(out.graph.metadata.annotations["dynamo-efa/model"], MODEL);
  });

  it("none and efs still render without init containers or the node cache", () => {
    for (const over of [{}, { modelCache: { storageClassName: "efs-shared", sizeGiB: 200 } }]) {
      const w = renderWorker(resolved("p5en-8x1gpu", "vllm", over), ServingRole.Decode, IMAGE);
      assert.equal(w.extraPodSpec?.initContainers, undefined);
      assert.ok(!JSON.stringify(w).includes("model-cache-node"));
      assert.equal(argValue(w, "--model"), MODEL);
    }
  });

  const problems = (r: ReturnType<typeof resolved>) =>
    validate(r, true, "inference").map((p) => [p.propertyPath, p.reason]);
  it("validation: local-nvme needs a pool with a local NVMe array big enough; efs needs the volume; a volume needs efs", () => {
    assert.deepEqual(problems(localNvme()), []);
    assert.deepEqual(problems(resolved("p5en-8x1gpu", "vllm", { modelCacheMode: "local-nvme" })), [
      [
        "inference.modelCacheMode",
        '"local-nvme" needs a pool whose nodes put their instance-store NVMe in a RAID0 array; pool "gpu" (p5en.48xlarge) has none. Turn on the pool\'s localNvme, or use "efs" or "none"',
      ],
    ]);
    assert.deepEqual(problems(resolved("p5en-8x1gpu", "vllm", { modelCacheMode: "efs" })), [
      [
        "inference.modelCache",
        'is required with modelCacheMode "efs": the shared ReadWriteMany volume (storageClassName, sizeGiB; in stack config, set inference.modelCache.sizeGiB)',
      ],
    ]);
    assert.deepEqual(problems(localNvme({ modelCache: { storageClassName: "efs-shared", sizeGiB: 10 } })), [
      [
        "inference.modelCacheMode",
        '("local-nvme") does not use the shared cache volume (modelCache); use mode "efs" or drop the volume',
      ],
    ]);
    const tiny = pool("p5en.48xlarge", 2, true, { localNvme: { mountPath: "/mnt/k8s-disks/0", sizeGB: 250 } });
    assert.deepEqual(
      problems(
        localNvme({
          model: "meta-llama/Llama-3.1-405B-Instruct",
          gpuPool: tiny,
          prefill: { replicas: 1, gpusPerWorker: 8 },
          decode: { replicas: 1, gpusPerWorker: 8 },
        }),
      ).filter(([p]) => p === "inference.modelCacheMode"),
      [
        [
          "inference.modelCacheMode",
          `meta-llama/Llama-3.1-405B-Instruct's ${(modelFacts("meta-llama/Llama-3.1-405B-Instruct")!.weightBytes / 1e9).toFixed(0)} GB of weights do not fit 90% of the 250 GB NVMe array of a p5en.48xlarge node (kubelet and container images share it); use "efs" or a type with more instance store`,
        ],
      ],
    );
    assert.deepEqual(
      // A mode outside the closed choice, as a stack file could spell it: the type system would refuse it.
      problems(
        localNvme({
          modelCacheMode: "nvme" as unknown as InferenceSettings["modelCacheMode"],
          modelDownloadBudgetSeconds: 5,
        }),
      ).map(([p]) => p),
      ["inference.modelCacheMode", "inference.modelDownloadBudgetSeconds"],
    );
  });
});
