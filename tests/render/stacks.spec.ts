/**
 * Both stacks render offline with the real program and policy pack; every manifest validates
 * against the Kubernetes schemas (core kinds via kubernetes-models) and the DGD against a typed
 * model of its CRD fields; manifests and Helm values match the golden files; the plan has the
 * numbers the stacks promise; nothing secret reaches the disk; two renders are byte-identical.
 * The default release (dynamo-1.6) deploys the vendor's prebuilt image and builds nothing; what the source
 * build promises (ECR repositories, the Dockerfile, GPU nodes after the image, sm_90-only gencode) is checked on
 * the same stacks with `--set release=seed`, which builds from source.
 * The EFS model cache variant is stacks-model-cache.spec.ts.
 */
import { DGD_V1BETA1_TYPE_TOKEN, graphModel } from "../../components/inference/dgd-v1beta1";
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import YAML from "yaml";
import { ConfigMap, Namespace, PersistentVolumeClaim, Secret, Service } from "kubernetes-models/v1";
import { StorageClass } from "kubernetes-models/storage.k8s.io/v1";
import { NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1";
import { DaemonSet } from "kubernetes-models/apps/v1";
import { Job } from "kubernetes-models/batch/v1";
import { dgdProblems } from "../helpers/dgd-model";
import { podMonitorProblems } from "../helpers/podmonitor-model";
import { expectGolden } from "../helpers/golden";
import { files, readJson, Rendered, renderStack } from "./render-harness";
import { RENDER_FILES } from "../../tools/render/render";
import { gpuNodesWaitForImage } from "../../tools/render/plan/build-order";

const STACKS = ["p5en-1gpu", "p5en-8gpu"] as const;

/** Kubernetes schema per core kind (kubernetes-models validates against the OpenAPI schemas). */
const CORE: Record<string, new (o: never) => { validate(): void }> = {
  Namespace,
  Secret,
  ConfigMap,
  Service,
  PersistentVolumeClaim,
  StorageClass,
  NetworkPolicy,
  DaemonSet,
  Job,
};

describe("render: both stacks, real program", function () {
  this.timeout(60000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "render-stacks-"));
  const out: Record<string, Rendered> = {};
  /** The same stacks on release seed: the image built from source. */
  const seed: Record<string, Rendered> = {};

  before(async () => {
    for (const s of STACKS) out[s] = await renderStack(s, tmp);
    for (const s of STACKS) {
      seed[s] = await renderStack(s, path.join(tmp, "seed"), ["--set", "release=seed"]);
      assert.equal(seed[s].code, 0, [...seed[s].stdout, ...seed[s].stderr].join("\n"));
    }
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  for (const stack of STACKS) {
    describe(stack, () => {
      it("exits 0 and writes every file", () => {
        const r = out[stack];
        assert.equal(r.code, 0, [...r.stdout, ...r.stderr].join("\n"));
        const all = files(r.dir);
        for (const f of RENDER_FILES) assert.ok(all.includes(f), `${f} missing: ${all.join(", ")}`);
        assert.ok(
          all.some((f) => f.startsWith("manifests/")),
          "no manifests",
        );
        assert.ok(
          all.some((f) => f.startsWith("helm/") && f.endsWith(".values.yaml")),
          "no helm values",
        );
        assert.match(r.stdout[0], new RegExp(`^rendered ${stack} -> `));
      });

      it("writes one valid Kubernetes object per manifest (core kinds: kubernetes-models; DGD: typed model)", () => {
        const dir = path.join(out[stack].dir, "manifests");
        const kinds: string[] = [];
        for (const f of fs.readdirSync(dir).sort()) {
          const docs = YAML.parseAllDocuments(fs.readFileSync(path.join(dir, f), "utf8"));
          assert.equal(docs.length, 1, `${f}: one object per file`);
          const obj = docs[0].toJS();
          kinds.push(obj.kind);
          // The default release writes v1beta1 (held to its CRD by tests/contracts/dgd-crd.spec.ts); the typed model
          // checks the graph as every reader sees it.
          if (obj.kind === "DynamoGraphDeployment")
            assert.deepEqual(dgdProblems({ ...graphModel(obj), apiVersion: "nvidia.com/v1alpha1" }), [], f);
          else if (obj.kind === "PodMonitor") assert.deepEqual(podMonitorProblems(obj), [], f);
          else {
            const Model = CORE[obj.kind];
            assert.ok(Model, `${f}: no schema for kind ${obj.kind}; add it to CORE`);
            assert.doesNotThrow(() => new Model(obj as never).validate(), f);
          }
        }
        assert.equal(kinds.filter((k) => k === "DynamoGraphDeployment").length, 1, "exactly one graph (F1)");
        assert.ok(kinds.includes("Namespace") && kinds.includes("Secret"));
        // The graph's namespace is fenced: a default deny plus the Frontend's, the workers', (local-nvme, both
        // stacks) the prefetch DaemonSet's and the first-token check's allowed flows.
        assert.equal(kinds.filter((k) => k === "NetworkPolicy").length, 5, "the graph's five NetworkPolicies");
        assert.equal(kinds.filter((k) => k === "Job").length, 1, "the first-token check");
      });

      it("matches the golden manifests and Helm values (UPDATE_GOLDEN=1 to refresh)", () => {
        // The image digest follows the Dockerfile's content (tested in the image and determinism tests);
        // masked here so an image edit does not churn these files. The placeholder of a vendor digest the offline
        // render cannot resolve (ImageDigest, resolved at `pulumi up`) stays as written: the golden shows it.
        const masked = (t: string) =>
          t.replace(/@sha256:(?!0{64})[0-9a-f]{64}/g, "@sha256:<digest of the build inputs>");
        for (const f of files(out[stack].dir).filter((x) => x.startsWith("manifests/") || x.startsWith("helm/"))) {
          expectGolden(`render/${stack}/${f}`, masked(fs.readFileSync(path.join(out[stack].dir, f), "utf8")));
        }
        const golden = path.join(__dirname, "..", "golden", "render", stack);
        if (process.env.UPDATE_GOLDEN !== "1") {
          const expected = files(golden);
          const actual = files(out[stack].dir).filter((x) => x.startsWith("manifests/") || x.startsWith("helm/"));
          assert.deepEqual(actual, expected, "the set of rendered files changed");
        }
      });

      it("never writes a secret value: the Secret carries stringData placeholders, the kubeconfig output is [secret]", () => {
        const dir = out[stack].dir;
        const secret = fs.readdirSync(path.join(dir, "manifests")).find((f) => f.includes("-secret-"))!;
        const obj = YAML.parse(fs.readFileSync(path.join(dir, "manifests", secret), "utf8"));
        assert.deepEqual(obj.stringData, { HF_TOKEN: "[secret]", HUGGING_FACE_HUB_TOKEN: "[secret]" });
        assert.equal(obj.data, undefined);
        assert.equal(readJson(dir, "outputs.json").kubeconfig, "[secret]");
        const hf = readJson(dir, "resources.json").find(
          (r: { type: string }) => r.type === "kubernetes:core/v1:Secret",
        );
        assert.equal(hf.inputs.stringData, "[secret]");
        for (const f of files(dir))
          assert.ok(
            !fs.readFileSync(path.join(dir, f), "utf8").includes("placeholder-ecr-token"),
            `${f} leaks the registry password`,
          );
      });

      it("writes no path of this checkout (files are the same on every machine)", () => {
        const root = path.resolve(__dirname, "..", "..");
        for (const dir of [out[stack].dir, seed[stack].dir])
          for (const f of files(dir))
            assert.ok(!fs.readFileSync(path.join(dir, f), "utf8").includes(root), `${f} contains ${root}`);
        // The source build (release seed) names its Dockerfile relative to the package.
        const image = readJson(seed[stack].dir, "image.json");
        assert.equal(image.dockerfile.location, "dockerfiles/Dockerfile.dynamo-combined-efa");
      });

      it("records parents, dependencies and retention in resources.json", () => {
        const rs = readJson(out[stack].dir, "resources.json") as {
          type: string;
          name: string;
          urn: string;
          parent: string | null;
          dependsOn: string[];
          retainOnDelete: boolean;
        }[];
        const byType = (t: string) => rs.filter((r) => r.type === t);
        const [inference] = byType("dynamo-efa:inference:DisaggInference");
        const [graph] = byType(DGD_V1BETA1_TYPE_TOKEN);
        assert.equal(graph.parent, inference.urn);
        // The cluster's DynamoPlatform, not a child of the graph: the graph waits for it (and so for its release).
        const [platform] = byType("dynamo-efa:platform:DynamoPlatform");
        const release = rs.find((r) => r.type === "kubernetes:helm.sh/v3:Release" && r.parent === platform.urn)!;
        assert.equal(release.name, "dynamo-efa-release");
        assert.equal(platform.parent, null);
        assert.ok(graph.dependsOn.includes(platform.urn), "the graph waits for the Dynamo platform");
        // The image repository exists where the image is built (release seed) and survives destroy.
        const seedRs = readJson(seed[stack].dir, "resources.json") as typeof rs;
        const imageRepo = seedRs.find((r) => r.type === "aws:ecr/repository:Repository" && r.name.endsWith("-repo"));
        assert.equal(imageRepo?.retainOnDelete, true);
        const sorted = [...rs].sort(
          (a, b) => a.type.localeCompare(b.type) || a.name.localeCompare(b.name) || a.urn.localeCompare(b.urn),
        );
        assert.deepEqual(
          rs.map((r) => r.urn),
          sorted.map((r) => r.urn),
        );
      });

      it("runs every policy of the pack and writes policy.json with zero mandatory violations", () => {
        const p = readJson(out[stack].dir, "policy.json");
        assert.ok(p.results.length >= 20, `${p.results.length} policies`);
        assert.equal(
          p.mandatoryViolations,
          0,
          JSON.stringify(
            p.results.filter((r: { passed: boolean }) => !r.passed),
            null,
            1,
          ),
        );
      });
    });
  }

  it("both stacks: the platform and kube-prometheus-stack releases wait for the system nodes and the default class", () => {
    for (const stack of Object.keys(out)) {
      const rs = readJson(out[stack].dir, "resources.json") as {
        type: string;
        name: string;
        urn: string;
        dependsOn: string[];
      }[];
      const urn = (type: string, name: string) => rs.find((r) => r.type === type && r.name === name)!.urn;
      const needed = [
        urn("aws:eks/nodeGroup:NodeGroup", "dynamo-efa-system-ng"),
        urn("aws:eks/addon:Addon", "dynamo-efa-ebs-csi"),
        urn("kubernetes:storage.k8s.io/v1:StorageClass", "dynamo-efa-gp3"),
      ];
      for (const r of rs.filter((x) => x.type === "kubernetes:helm.sh/v3:Release"))
        if (/-release$|-kube-prometheus-stack$/.test(r.name))
          assert.deepEqual(
            needed.filter((u) => !r.dependsOn.includes(u)),
            [],
            `${stack}: ${r.name} waits for ${r.dependsOn.join(", ")}`,
          );
    }
  });

  it("p5en-8gpu: the GPU node group waits for the image build only where one is built; plan.json states the GPU idle minutes with their basis", () => {
    const dir = out["p5en-8gpu"].dir;
    const rs = readJson(dir, "resources.json");
    assert.equal(gpuNodesWaitForImage(rs, ["p5en.48xlarge"]), false, "prebuilt: the GPU nodes wait for no build");
    const seedDir = seed["p5en-8gpu"].dir;
    const seedRs = readJson(seedDir, "resources.json");
    assert.equal(gpuNodesWaitForImage(seedRs, ["p5en.48xlarge"]), true, "seed: GPU node group after the image");
    const system = seedRs.find((r: { name: string }) => r.name === "dynamo-efa-system-ng");
    assert.ok(!system.dependsOn.some((u: string) => u.includes("DynamoImage")), "system nodes do not wait");
    const seedIdle = readJson(seedDir, "plan.json").gpuIdle;
    assert.ok(seedIdle.gpuNodesMinutes > seedIdle.imageMinutes, JSON.stringify(seedIdle));
    const plan = readJson(dir, "plan.json");
    assert.equal(plan.gpuIdleMinutes, plan.gpuIdle.gpuIdleMinutes);
    assert.ok(plan.gpuIdleMinutes > 0 && plan.gpuIdleMinutes < 20, String(plan.gpuIdleMinutes));
    assert.match(plan.gpuIdle.basis, /node join -> first worker loading/);
    assert.equal(plan.gpuIdle.downloadOverlapsPull, true);
    const md = fs.readFileSync(path.join(dir, "plan.md"), "utf8");
    assert.match(md, new RegExp(`## GPU idle time on a first deploy: ~${plan.gpuIdleMinutes} min per node`));
    assert.doesNotMatch(md, /--target/, "no targeted-update dance");
  });

  it("p5en-8gpu: 16/16 GPUs, 32/32 EFA rails, 8+8 workers of 1 GPU + 2 EFA; the vendor image (sm_90, sm_100), or built for sm_90 only", () => {
    const dir = out["p5en-8gpu"].dir;
    const plan = readJson(dir, "plan.json");
    assert.deepEqual(plan.gpus, { requested: 16, provisioned: 16 });
    assert.deepEqual(plan.efaRails, { used: 32, provisioned: 32 });
    assert.deepEqual(
      plan.gpuPools.map((p: object) => ({ ...p, availabilityZone: undefined })),
      [
        {
          name: "gpu",
          instanceType: "p5en.48xlarge",
          nodes: 2,
          gpusPerNode: 8,
          efaPerNode: 16,
          smArch: "sm_90",
          availabilityZone: undefined,
        },
      ],
    );
    for (const role of ["prefill", "decode"]) {
      const w = plan.workers.find((x: { role: string }) => x.role === role);
      const { cpu: _c, memory: _m, hugepages2Mi: _h, avoids, ...counts } = w;
      assert.deepEqual(
        { ...counts, service: undefined },
        {
          role,
          service: undefined,
          replicas: 8,
          gpusPerWorker: 1,
          efaPerWorker: 2,
          nixlRails: 2,
          // The default: counts, and the EFA device plugin picks the devices (docs/ARCHITECTURE.md#gpu-and-efa-pairing).
          pairing: { allocation: "device-plugin", efaPerGpu: 2 },
        },
      );
      assert.deepEqual(
        avoids,
        [role === "prefill" ? "DecodeWorker" : "PrefillWorker"],
        "separate-nodes: each role avoids the other",
      );
    }
    // Default (dynamo-1.6): the vendor's runtime image, digest-pinned, with the archs its kernels are built for.
    assert.deepEqual(plan.image.cudaArchs, ["sm_90", "sm_100"]);
    const image = readJson(dir, "image.json");
    assert.equal(image.build, false);
    assert.deepEqual(image.cudaArchs, ["sm_90", "sm_100"]);
    // Offline, the vendor's digest is the placeholder (resolved once at `pulumi up` and kept in state), and the
    // plan says so; a build's digest is computed from its inputs and is never the placeholder.
    assert.equal(image.ref, `nvcr.io/nvidia/ai-dynamo/vllm-runtime@sha256:${"0".repeat(64)}`);
    assert.equal(plan.image.digestPlaceholder, true);
    assert.equal(plan.frontendImage.image, "nvcr.io/nvidia/ai-dynamo/dynamo-frontend:1.6.2");
    assert.match(plan.frontendImage.resolution, /resolved to a digest once, at `pulumi up`/);
    assert.match(
      fs.readFileSync(path.join(dir, "plan.md"), "utf8"),
      /the digest above is a placeholder\*\* \(all zeros\)/,
    );
    // The Frontend runs the release's own Frontend image, digest-pinned; the workers the runtime image.
    const dgdFile = fs
      .readdirSync(path.join(dir, "manifests"))
      .find((f) => f.endsWith("-dynamographdeployment-dynamo-llm.yaml"))!;
    const dgd = YAML.parse(fs.readFileSync(path.join(dir, "manifests", dgdFile), "utf8"));
    interface Component {
      name: string;
      podTemplate: { spec: { containers: { name: string; image: string }[] } };
    }
    const main = (c: Component) => c.podTemplate.spec.containers.find((x) => x.name === "main")!.image;
    const components = dgd.spec.components as Component[];
    assert.deepEqual(
      [...new Set(components.map((c) => `${c.name} ${main(c).replace(/@sha256:0{64}$/, "@<placeholder>")}`))].sort(),
      [
        "DecodeWorker nvcr.io/nvidia/ai-dynamo/vllm-runtime@<placeholder>",
        "Frontend nvcr.io/nvidia/ai-dynamo/dynamo-frontend@<placeholder>",
        "PrefillWorker nvcr.io/nvidia/ai-dynamo/vllm-runtime@<placeholder>",
      ],
    );
    assert.doesNotMatch(fs.readFileSync(path.join(seed["p5en-8gpu"].dir, "plan.md"), "utf8"), /is a placeholder/);
    // Built from source (release seed): only the fleet's arch.
    const built = readJson(seed["p5en-8gpu"].dir, "image.json");
    assert.deepEqual(built.cudaArchs, ["sm_90"]);
    assert.equal(built.plan.buildArgs.NVCC_GENCODE, "-gencode=arch=compute_90,code=sm_90");
    assert.match(built.ref, /@sha256:(?!0{64})[0-9a-f]{64}$/);
    assert.equal(readJson(seed["p5en-8gpu"].dir, "plan.json").image.digestPlaceholder, undefined);
    assert.ok(plan.costPerHourUsd > 100 && plan.costPerHourUsd < 300, String(plan.costPerHourUsd));
    assert.ok(plan.criticalPath.length >= 2);
    // One deploy time: the critical path's graph step is the GPU idle timeline's node join -> Ready, after the
    // GPU nodes join; its budgets are the upper bound, said beside it. The first-token check follows it.
    const steps = plan.criticalPathDetail.steps;
    const graphStep = steps.at(-2);
    assert.equal(steps.at(-1).type, "kubernetes:batch/v1:Job", "the path ends with the first token");
    const checkMinutes = steps.at(-1).minutes;
    const readySeconds = plan.gpuIdle.timeline.at(-1).atSeconds;
    assert.equal(graphStep.type, DGD_V1BETA1_TYPE_TOKEN);
    assert.equal(graphStep.minutes, Math.round((readySeconds / 60) * 10) / 10);
    assert.ok(graphStep.budgetMinutes > graphStep.minutes, JSON.stringify(graphStep));
    // The path is its steps, and the graph starts no earlier than the GPU nodes join. With nothing built (the
    // default) the GPU nodes join before the platform release is done, so the path runs through the release
    // (~39 min); with a source build (seed) it runs through the image and the GPU nodes, exactly.
    const sum = (d: { steps: { minutes: number }[] }) => d.steps.reduce((t, x) => t + x.minutes, 0);
    assert.ok(Math.abs(plan.criticalPathDetail.minutes - sum(plan.criticalPathDetail)) < 0.2);
    assert.ok(
      plan.criticalPathDetail.minutes > plan.gpuIdle.gpuNodesMinutes + readySeconds / 60 + checkMinutes - 0.2,
      `${plan.criticalPathDetail.minutes} vs ${plan.gpuIdle.gpuNodesMinutes} + ${readySeconds / 60}`,
    );
    assert.ok(plan.criticalPathDetail.minutes < 60, `prebuilt: ${plan.criticalPathDetail.minutes} min`);
    const seedPlan = readJson(seed["p5en-8gpu"].dir, "plan.json");
    const seedReady = seedPlan.gpuIdle.timeline.at(-1).atSeconds;
    assert.ok(
      Math.abs(
        seedPlan.criticalPathDetail.minutes - (seedPlan.gpuIdle.gpuNodesMinutes + seedReady / 60 + checkMinutes),
      ) < 0.2,
      `seed: ${seedPlan.criticalPathDetail.minutes} vs ${seedPlan.gpuIdle.gpuNodesMinutes} + ${seedReady / 60} + ${checkMinutes}`,
    );
  });

  it("p5en-1gpu: two nodes, 1 prefill + 1 decode of 1 GPU each on different nodes, KV over EFA", () => {
    const plan = readJson(out["p5en-1gpu"].dir, "plan.json");
    assert.deepEqual(plan.gpus, { requested: 2, provisioned: 16 });
    assert.equal(plan.gpuPools[0].nodes, 2);
    assert.deepEqual(
      [plan.placement.mode, plan.placement.nodesByRole, plan.placement.idleNodes],
      ["separate-nodes", { prefill: ["gpu-0"], decode: ["gpu-1"] }, []],
    );
    for (const role of ["prefill", "decode"]) {
      const w = plan.workers.find((x: { role: string }) => x.role === role);
      assert.equal(w.replicas, 1);
      assert.equal(w.gpusPerWorker, 1);
      assert.equal(w.efaPerWorker, 2);
    }
    const dgd = fs
      .readdirSync(path.join(out["p5en-1gpu"].dir, "manifests"))
      .find((f) => f.includes("dynamographdeployment"))!;
    assert.match(
      fs.readFileSync(path.join(out["p5en-1gpu"].dir, "manifests", dgd), "utf8"),
      /"backends":\["LIBFABRIC"\]/,
    );
  });

  it("two stacks in one account never share an ECR repository name (repositories survive destroy)", () => {
    // Repositories exist where the image is built (release seed); the prebuilt default creates none.
    for (const stack of STACKS)
      assert.deepEqual(
        readJson(out[stack].dir, "resources.json").filter(
          (r: { type: string }) => r.type === "aws:ecr/repository:Repository",
        ),
        [],
        `${stack}: the prebuilt image needs no repository`,
      );
    const repos = (stack: string) =>
      readJson(seed[stack].dir, "resources.json")
        .filter((r: { type: string }) => r.type === "aws:ecr/repository:Repository")
        .map((r: { inputs: { name: string } }) => r.inputs.name)
        .sort();
    assert.deepEqual(repos("p5en-1gpu"), ["dynamo-efa-p5en-1gpu", "dynamo-efa-p5en-1gpu-cache"]);
    assert.deepEqual(repos("p5en-8gpu"), ["dynamo-efa-p5en-8gpu", "dynamo-efa-p5en-8gpu-cache"]);
  });

  it("is deterministic: a second render of p5en-8gpu writes byte-identical files", async () => {
    const again = await renderStack("p5en-8gpu", path.join(tmp, "again"));
    assert.equal(again.code, 0);
    const a = files(out["p5en-8gpu"].dir);
    assert.deepEqual(files(again.dir), a);
    for (const f of a)
      assert.equal(
        fs.readFileSync(path.join(again.dir, f), "utf8"),
        fs.readFileSync(path.join(out["p5en-8gpu"].dir, f), "utf8"),
        f,
      );
  });
});
