/**
 * DisaggInference and DynamoPlatform under the render's mocks, captured with the render's own engine
 * (`tools/render/capture/capture.ts`: URNs, parents, providers, dependsOn, retainOnDelete, secret inputs). Four graphs in
 * ONE cluster: two sharing the namespace "dynamo" and the cluster's one platform, one in its own namespace without a
 * platform, and one with invalid args that must fail before any child.
 */
import { strict as assert } from "assert";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import * as sdkDependsOn from "@pulumi/pulumi/runtime/dependsOn";
import { DisaggInference, resolveArgs } from "../../components/inference";
import { checkedGraph, releaseGraph } from "../../components/inference/inference";
import { PLACEHOLDER_COMMIT, withCommit } from "../../components/inference/revision";
import { DGD_V1BETA1_TYPE_TOKEN as DGD, graphModel } from "../../components/inference/dgd-v1beta1";
import { DYNAMO_PLATFORM_TYPE, DynamoPlatform } from "../../components/platform";
import { DEFAULT_RELEASE, release } from "../../components/releases";
import { problemsOf, subjectOf } from "../../components/_shared/pulumi-errors";
import { Annotation } from "../../components/_shared/annotations";
import { firstTokenWaitSeconds } from "../../components/inference/first-token";
import { PLACEHOLDER_DIGEST } from "../../components/image/image-digest";
import type { Capture, CapturedResource } from "../../tools/render/capture/capture";
import { platformMovedFromGraph } from "../../program/moved";
import { captureComponents, TEST_REGION } from "../helpers/capture";
import { mockOutputs } from "../../tools/render/capture/mocks";
import { promiseOf, thrown as thrownBy } from "../helpers/outputs";
import { IMAGE, MODEL, pool } from "../helpers/inference-fixtures";

const RELEASE = "kubernetes:helm.sh/v3:Release";
const INFERENCE = "dynamo-efa:inference:DisaggInference";

const LLAMA = {
  model: MODEL,
  gpuPool: pool("p5en.48xlarge", 2),
  prefill: { replicas: 8, gpusPerWorker: 1 },
  decode: { replicas: 8, gpusPerWorker: 1 },
  modelCache: { storageClassName: "efs-sc", sizeGiB: 500 },
  frontend: { serviceType: "InternalLoadBalancer" as const },
  vpcCidr: "10.0.0.0/16",
};

/** The SDK's expansion of a `dependsOn` list into the custom resources the engine waits for (3.248.0 `runtime/dependsOn.js`). */
const engineDependsOn = (
  sdkDependsOn as unknown as {
    getAllTransitivelyReferencedResourceURNs(
      r: Set<pulumi.Resource>,
      exclude: Set<pulumi.Resource>,
    ): Promise<Set<string>>;
  }
).getAllTransitivelyReferencedResourceURNs;

interface Built {
  readonly inf: DisaggInference;
  readonly platform: DynamoPlatform;
  readonly badError: unknown;
}

describe("inference: DisaggInference and DynamoPlatform components (mocks)", () => {
  let c: Capture<Built>;
  const named = (n: string): CapturedResource => {
    const hit = c.resources.filter((r) => r.name === n);
    if (hit.length !== 1) throw new Error(`expected one ${n}; have ${c.resources.map((r) => r.name).join(", ")}`);
    return hit[0];
  };
  const childrenOf = (n: string) => c.resources.filter((r) => r.parent === named(n).urn);

  before(async function () {
    this.timeout(30000);
    c = await captureComponents(() => {
      const provider = new k8s.Provider("k8s", { kubeconfig: "{}" });
      const inCluster = { providers: { kubernetes: provider } };
      const platform = new DynamoPlatform("dynamo", {}, inCluster);
      const inf = new DisaggInference(
        "llama",
        { ...LLAMA, image: pulumi.output(IMAGE), platform, hfToken: pulumi.secret("hf_test_token") },
        inCluster,
      );
      // A second model in the same namespace and cluster: it shares the platform and the namespace llama creates.
      new DisaggInference(
        "qwen",
        {
          ...{ model: "Qwen/Qwen3-8B", gpuPool: pool("p5en.48xlarge", 1), image: IMAGE, platform },
          ...{ createNamespace: false, hfToken: pulumi.secret("hf_qwen") },
        },
        { ...inCluster, dependsOn: [inf] },
      );
      new DisaggInference(
        "lean",
        {
          backend: "trtllm",
          model: MODEL,
          gpuPool: pool("p5en.48xlarge", 1),
          namespace: "lean",
          image: IMAGE,
          hfTokenSecretName: "existing-hf",
          // The first-token check off: no Job, no script, no policy for it.
          firstTokenCheck: { enabled: false },
        },
        inCluster,
      );
      let badError: unknown;
      try {
        const bad = { model: "", gpuPool: pool("p5en.48xlarge", 1), prefill: { replicas: 1, gpusPerWorker: 3 } };
        new DisaggInference("bad", { ...bad, image: "repo:latest" }, inCluster);
      } catch (e) {
        badError = e;
      }
      return { inf, platform, badError };
    });
  });

  it("ONE dynamo-platform release in the cluster, a child of DynamoPlatform, from the pinned NGC tarball URL", () => {
    // The default release's operator chart (dynamo-1.6: 1.6.2).
    const version = release(DEFAULT_RELEASE).platform.chart.version;
    assert.equal(version, "1.6.2");
    const url = `https://helm.ngc.nvidia.com/nvidia/ai-dynamo/charts/dynamo-platform-${version}.tgz`;
    const releases = c.resources.filter((r) => r.type === RELEASE);
    assert.deepEqual(
      releases.map((r) => [r.name, r.inputs.name, r.inputs.chart, r.inputs.namespace, r.inputs.repositoryOpts]),
      [["dynamo-release", "dynamo-platform", url, "dynamo-system", undefined]],
    );
    assert.equal(releases[0].parent, named("dynamo").urn);
    assert.equal(named("dynamo").type, DYNAMO_PLATFORM_TYPE);
  });

  it("each graph given the platform depends on it (CRDs and webhook before the graph); lean, given none, on nothing of it", async () => {
    const platform = named("dynamo").urn;
    for (const g of ["llama-graph", "qwen-graph"]) assert.ok(named(g).explicitDependsOn.includes(platform), g);
    assert.equal(named("lean-graph").dependsOn.includes(platform), false);
    const deps = named("llama-graph").explicitDependsOn;
    for (const n of ["llama-ns", "llama-hf-token", "llama-model-cache"]) assert.ok(deps.includes(named(n).urn), n);
    // The engine is sent the platform's custom children in its place: the graph waits for the release itself.
    const sent = await engineDependsOn(new Set([c.result.platform]), new Set());
    assert.deepEqual([...sent], [named("dynamo-release").urn]);
  });

  it("two graphs share no child: distinct URNs, and no Kubernetes object (kind, namespace, name) managed twice", () => {
    const urns = c.resources.map((r) => r.urn);
    assert.equal(new Set(urns).size, urns.length);
    const objects = c.resources
      .filter((r) => r.custom && r.type.startsWith("kubernetes:") && r.inputs.metadata)
      .map((r) => {
        const md = r.inputs.metadata as { name: string; namespace?: string };
        return `${String(r.inputs.kind ?? r.type)}/${md.namespace ?? ""}/${md.name}`;
      });
    assert.deepEqual(
      objects.filter((o, i) => objects.indexOf(o) !== i),
      [],
    );
    const namespaces = c.resources.filter((r) => r.type === "kubernetes:core/v1:Namespace");
    assert.deepEqual(namespaces.map((r) => [r.name, (r.inputs.metadata as { name: string }).name]).sort(), [
      ["lean-ns", "lean"],
      ["llama-ns", "dynamo"],
    ]);
    const qwen = named("qwen-graph").inputs.metadata as { name: string; namespace: string };
    assert.deepEqual([qwen.name, qwen.namespace], ["qwen", "dynamo"]);
  });

  it("every child has its own component as parent and the Kubernetes provider from the resource options", () => {
    const provider = named("k8s").urn;
    assert.deepEqual(
      childrenOf("llama")
        .map((k) => k.name)
        .sort(),
      [
        "llama-first-token",
        "llama-first-token-script",
        "llama-frontend-image",
        "llama-frontend-lb",
        "llama-graph",
        "llama-hf-token",
        "llama-model-cache",
        "llama-model-commit",
        "llama-netpol-default-deny",
        "llama-netpol-first-token",
        "llama-netpol-frontend",
        "llama-netpol-workers",
        "llama-ns",
      ],
    );
    assert.deepEqual(
      childrenOf("qwen")
        .map((k) => k.name)
        .sort(),
      [
        "qwen-first-token",
        "qwen-first-token-script",
        "qwen-frontend-image",
        "qwen-graph",
        "qwen-hf-token",
        "qwen-model-commit",
        "qwen-netpol-default-deny",
        "qwen-netpol-first-token",
        "qwen-netpol-frontend",
        "qwen-netpol-workers",
      ],
    );
    // ModelCommit is a dynamic resource: it talks to the hub, not the cluster, and has no Kubernetes provider.
    const kube = (k: CapturedResource) => !k.type.startsWith("pulumi-nodejs:dynamic");
    for (const k of [...childrenOf("llama"), ...childrenOf("qwen"), ...childrenOf("lean"), ...childrenOf("dynamo")])
      if (kube(k)) assert.ok(k.provider?.startsWith(`${provider}::`), `${k.name}: provider ${k.provider}`);
  });

  it("pulumi up waits for the first-token check after the graph, for its budget; nothing waits for the check", () => {
    const job = named("llama-first-token");
    assert.equal(job.type, "kubernetes:batch/v1:Job");
    for (const n of ["llama-graph", "llama-first-token-script", "llama-netpol-first-token", "llama-netpol-frontend"])
      assert.ok(job.explicitDependsOn.includes(named(n).urn), n);
    const wait = `${firstTokenWaitSeconds()}s`;
    assert.deepEqual(job.customTimeouts, { create: wait, update: wait });
    assert.deepEqual(
      c.resources.filter((r) => r.dependsOn.includes(job.urn)).map((r) => r.name),
      [],
    );
    // The graph as sent is what the hash covers: the Job's name carries it.
    const md = job.inputs.metadata as { name: string; annotations: Record<string, string> };
    assert.match(md.name, /^llama-first-token-[0-9a-f]{10}$/);
    assert.equal(md.name.slice(-10), md.annotations[Annotation.FirstTokenChecksSha256].slice(0, 10));
  });

  it("the HF secret is secret-wrapped, with both keys, and marks its outputs secret", () => {
    const s = named("llama-hf-token");
    assert.deepEqual(s.secretPaths, ["stringData"]);
    assert.deepEqual(s.inputs.stringData, { HF_TOKEN: "hf_test_token", HUGGING_FACE_HUB_TOKEN: "hf_test_token" });
    for (const k of ["stringData", "data"]) assert.ok(s.additionalSecretOutputs.includes(k), k);
  });

  it("a moving revision is resolved once by ModelCommit, with the token as a secret input", () => {
    const m = named("llama-model-commit");
    assert.equal(m.type, "pulumi-nodejs:dynamic/inference:ModelCommit");
    assert.deepEqual(
      [m.inputs.endpoint, m.inputs.model, m.inputs.revision, m.inputs.token],
      ["https://huggingface.co", MODEL, "main", "hf_test_token"],
    );
    assert.ok(m.secretPaths.includes("token"), "the token is a secret input");
  });

  it("the model-cache PVC is retained on delete", () => {
    const pvc = named("llama-model-cache");
    assert.equal(pvc.retainOnDelete, true);
    assert.equal((pvc.inputs.spec as { storageClassName: string }).storageClassName, "efs-sc");
  });

  it("registers the rendered DGD with waitFor and the load-budget annotation", () => {
    const g = named("llama-graph");
    assert.equal(g.type, DGD);
    // Rendered with the commit "main" named at `pulumi up` (the mocks' placeholder): one commit for every worker.
    const r = withCommit(resolveArgs("llama", LLAMA, IMAGE), PLACEHOLDER_COMMIT);
    // The default release (dynamo-1.6) deploys the v1beta1 form of the rendered model.
    assert.equal(g.inputs.apiVersion, "nvidia.com/v1beta1");
    // The Frontend runs the release's Frontend image, its tag resolved once and kept in state (ImageDigest).
    const frontendImage = `nvcr.io/nvidia/ai-dynamo/dynamo-frontend@${PLACEHOLDER_DIGEST}`;
    assert.deepEqual(g.inputs.spec, JSON.parse(JSON.stringify(releaseGraph(r, IMAGE, frontendImage).spec)));
    const fi = named("llama-frontend-image");
    assert.deepEqual(
      [fi.type, fi.inputs.repository, fi.inputs.tag],
      [
        "pulumi-nodejs:dynamic/image:ImageDigest",
        "nvcr.io/nvidia/ai-dynamo/dynamo-frontend",
        release(DEFAULT_RELEASE).frontendImage?.tag,
      ],
    );
    const annotations = (g.inputs.metadata as { annotations: Record<string, string> }).annotations;
    assert.equal(annotations["pulumi.com/waitFor"], "condition=Ready");
    assert.equal(annotations["dynamo-efa/model-load-budget-seconds"], "1800");
  });

  it("an internal load balancer fronts the Frontend when asked, keeping the caller's address", () => {
    const md = named("llama-frontend-lb").inputs.metadata as { annotations: Record<string, string> };
    assert.equal(md.annotations["service.beta.kubernetes.io/aws-load-balancer-scheme"], "internal");
    assert.equal(md.annotations["service.beta.kubernetes.io/aws-load-balancer-type"], "nlb");
    const spec = named("llama-frontend-lb").inputs.spec as {
      loadBalancerSourceRanges: string[];
      externalTrafficPolicy: string;
    };
    assert.deepEqual(spec.loadBalancerSourceRanges, ["10.0.0.0/16"]);
    assert.equal(spec.externalTrafficPolicy, "Local");
  });

  it("the load balancer's address is an output (from the Service's status)", async () => {
    const lb = named("llama-frontend-lb");
    const out = mockOutputs(lb.type, lb.name, lb.inputs, TEST_REGION) as {
      status: { loadBalancer: { ingress: { hostname: string }[] } };
    };
    assert.ok(c.result.inf.frontendLoadBalancerUrl, "defined for an InternalLoadBalancer");
    assert.equal(
      await promiseOf(c.result.inf.frontendLoadBalancerUrl!),
      `http://${out.status.loadBalancer.ingress[0].hostname}:8000`,
    );
  });

  it("the NetworkPolicies exist in the graph's namespace before the graph (it depends on them)", () => {
    const deps = named("llama-graph").explicitDependsOn;
    for (const n of ["llama-netpol-default-deny", "llama-netpol-frontend", "llama-netpol-workers"]) {
      assert.equal(named(n).type, "kubernetes:networking.k8s.io/v1:NetworkPolicy");
      assert.equal((named(n).inputs.metadata as { namespace: string }).namespace, "dynamo");
      assert.ok(deps.includes(named(n).urn), n);
    }
  });

  it("outputs: graph name, frontend URL, served model, worker commands", async () => {
    const inf = c.result.inf;
    assert.equal(await promiseOf(inf.graphName), "llama");
    assert.equal(await promiseOf(inf.frontendUrl), "http://llama-frontend.dynamo.svc.cluster.local:8000");
    assert.equal(await promiseOf(inf.servedModelName), MODEL);
    const cmds = await promiseOf<Record<string, string>>(inf.workerCommands);
    assert.ok(cmds.prefill.startsWith("python3 -m dynamo.vllm --model meta-llama/Llama-3.1-8B-Instruct"));
    assert.ok(cmds.decode.includes("--disaggregation-mode decode"));
  });

  it("existing secret, no platform: no secret, no release; TRT-LLM engine ConfigMaps created", () => {
    assert.deepEqual(
      childrenOf("lean")
        .map((k) => k.name)
        .sort(),
      [
        "lean-engine-decode",
        "lean-engine-prefill",
        "lean-frontend-image",
        "lean-graph",
        "lean-netpol-default-deny",
        "lean-netpol-frontend",
        "lean-netpol-workers",
        "lean-ns",
      ],
    );
    assert.deepEqual(
      ["lean-engine-decode", "lean-engine-prefill"].map((n) => (named(n).inputs.metadata as { name: string }).name),
      ["lean-trtllm-decode", "lean-trtllm-prefill"],
    );
    // v1beta1 (spec.components) read back in the model's shape: the secret is the main container's envFrom.
    const { spec } = graphModel(named("lean-graph").inputs) as {
      spec: { services: Record<string, { envFromSecret: string }> };
    };
    assert.equal(spec.services.PrefillWorker.envFromSecret, "existing-hf");
  });

  it("invalid args throw one InputPropertiesError listing every problem, before any child", () => {
    const e = c.result.badError;
    assert.ok(pulumi.InputPropertiesError.isInstance(e));
    assert.equal(subjectOf(e), "DisaggInference");
    assert.deepEqual(
      problemsOf(e)!.map((p) => p.propertyPath),
      ["model", "prefill.gpusPerWorker", "hfToken", "image"],
    );
    // Only the component itself registered; no child.
    assert.deepEqual(
      c.resources.filter((r) => r.name.startsWith("bad")).map((r) => r.type),
      [INFERENCE],
    );
  });

  it("an image ref known only at deployment is validated when it resolves (checkedGraph)", () => {
    const r = resolveArgs("late", { model: MODEL, gpuPool: pool("p5en.48xlarge", 1) }, undefined);
    const e = thrownBy(() => checkedGraph(r, "repo/x:latest"));
    assert.ok(pulumi.InputPropertiesError.isInstance(e));
    assert.deepEqual(
      e.errors.map((p) => p.propertyPath),
      ["image"],
    );
    assert.equal(checkedGraph(r, IMAGE).metadata.name, "late");
  });

  it("the program's platform release keeps the URN it had as a child of the graph (alias), other children none", async () => {
    const move = platformMovedFromGraph("llm");
    const seen = (type: string) => ({ type, name: "dynamo-efa-release", props: {}, opts: {} }) as never;
    assert.equal(move(seen("kubernetes:core/v1:Namespace")), undefined);
    const alias = (move(seen(RELEASE))?.opts.aliases ?? [])[0] as { name: string; parent: pulumi.Input<string> };
    assert.equal(
      await promiseOf(pulumi.createUrn(alias.name, RELEASE, alias.parent)),
      `urn:pulumi:test::dynamo-efa::${INFERENCE}$${RELEASE}::llm-dynamo-platform`,
    );
  });
});
