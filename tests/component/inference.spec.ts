/**
 * DisaggInference under recording mocks. Parents, dependsOn, retainOnDelete and secret options are
 * captured with a stack transformation inside runInPulumiStack (docs/ARCHITECTURE.md#pulumi-without-the-cli): the mock monitor
 * does not see them.
 */
import { strict as assert } from "assert";
import * as pulumi from "@pulumi/pulumi";
import type { DisaggInference as DisaggInferenceClass } from "../../components/inference";
import { DGD_TYPE_TOKEN as DGD } from "../../components/inference/dgd-types";
import { armMocks, ofType, one, Recorded } from "../helpers/mocks";
import { promiseOf, thrown as thrownBy } from "../helpers/outputs";
import { IMAGE, MODEL, pool } from "../helpers/inference-fixtures";

interface Seen {
  type: string;
  name: string;
  resource: pulumi.Resource;
  props: pulumi.Inputs;
  opts: pulumi.ResourceOptions;
}

const RELEASE = "kubernetes:helm.sh/v3:Release";

describe("inference: DisaggInference component (mocks)", () => {
  let recorded: Recorded[];
  const seen: Seen[] = [];
  let inf: DisaggInferenceClass;
  let lean: DisaggInferenceClass;
  let badError: unknown;
  let countBeforeBad = 0;
  let countAfterBad = 0;
  const byName = (n: string) => {
    const s = seen.find((x) => x.name === n);
    if (!s) throw new Error(`not captured: ${n}; have ${seen.map((x) => x.name).join(", ")}`);
    return s;
  };

  before(async function () {
    this.timeout(30000);
    recorded = armMocks();
    await pulumi.runtime.runInPulumiStack(async () => {
      pulumi.runtime.registerStackTransformation((a) => {
        seen.push({ type: a.type, name: a.name, resource: a.resource, props: a.props, opts: a.opts });
        return undefined;
      });
      const k8s = await import("@pulumi/kubernetes");
      const { DisaggInference } = await import("../../components/inference");
      const provider = new k8s.Provider("k8s", { kubeconfig: "{}" });
      inf = new DisaggInference("llama", {
        model: MODEL,
        gpuPool: pool("p5en.48xlarge", 2),
        prefill: { replicas: 8, gpusPerWorker: 1 },
        decode: { replicas: 8, gpusPerWorker: 1 },
        image: pulumi.output(IMAGE),
        provider,
        hfToken: pulumi.secret("hf_test_token"),
        modelCache: { storageClassName: "efs-sc", sizeGiB: 500 },
        frontend: { serviceType: "InternalLoadBalancer" },
        vpcCidr: "10.0.0.0/16",
      });
      lean = new DisaggInference("lean", {
        backend: "trtllm",
        model: MODEL,
        gpuPool: pool("p5en.48xlarge", 1),
        namespace: "lean",
        image: IMAGE,
        provider,
        hfTokenSecretName: "existing-hf",
        platform: { install: false },
      });
      await Promise.all([promiseOf(inf.graph.urn), promiseOf(lean.graph.urn), promiseOf(inf.platformRelease?.urn)]);
      countBeforeBad = seen.length;
      try {
        new DisaggInference("bad", {
          model: "",
          gpuPool: pool("p5en.48xlarge", 1),
          prefill: { replicas: 1, gpusPerWorker: 3 },
          image: "repo:latest",
          provider,
        });
      } catch (e) {
        badError = e;
      }
      countAfterBad = seen.length;
      return {};
    });
  });

  it("installs ONE dynamo-platform release (operator + CRDs) from the pinned NGC chart tarball URL, no repository index", async () => {
    const { charts } = await import("../../components/versions");
    const rel = ofType(recorded, RELEASE).filter((r) => r.name.startsWith("llama-"));
    const url = `https://helm.ngc.nvidia.com/nvidia/ai-dynamo/charts/dynamo-platform-${charts.dynamoPlatform.version}.tgz`;
    assert.deepEqual(
      rel.map((r) => [r.name, r.inputs.chart, r.inputs.version, r.inputs.repositoryOpts]),
      [["llama-dynamo-platform", url, charts.dynamoPlatform.version, undefined]],
    );
  });

  it("the graph depends on the platform release (and namespace, secret, cache)", () => {
    const deps = byName("llama-graph").opts.dependsOn as pulumi.Resource[];
    for (const n of ["llama-dynamo-platform", "llama-ns", "llama-hf-token", "llama-model-cache"])
      assert.ok(deps.includes(byName(n).resource), n);
  });

  it("the HF secret is secret-wrapped, with both keys, and marks its outputs secret", async () => {
    const s = byName("llama-hf-token");
    assert.equal(await pulumi.isSecret(s.props.stringData), true);
    assert.deepEqual(await promiseOf(s.props.stringData), {
      HF_TOKEN: "hf_test_token",
      HUGGING_FACE_HUB_TOKEN: "hf_test_token",
    });
    for (const k of ["stringData", "data"])
      assert.ok((s.opts as pulumi.CustomResourceOptions).additionalSecretOutputs?.includes(k), k);
  });

  it("the model-cache PVC is retained on delete", () => {
    assert.equal(byName("llama-model-cache").opts.retainOnDelete, true);
    assert.equal(
      one(recorded, "kubernetes:core/v1:PersistentVolumeClaim", "llama-model-cache").inputs.spec.storageClassName,
      "efs-sc",
    );
  });

  it("every child has the component as parent and the given provider", () => {
    const kids = seen.filter((s) => s.name.startsWith("llama-"));
    assert.deepEqual(kids.map((k) => k.name).sort(), [
      "llama-dynamo-platform",
      "llama-frontend-lb",
      "llama-graph",
      "llama-hf-token",
      "llama-model-cache",
      "llama-netpol-default-deny",
      "llama-netpol-frontend",
      "llama-netpol-workers",
      "llama-ns",
    ]);
    for (const k of kids) {
      assert.equal(k.opts.parent, inf, k.name);
      assert.ok(k.opts.provider, `${k.name} has no provider`);
    }
  });

  it("registers the rendered DGD with waitFor and the load-budget annotation", async () => {
    const { renderGraph, resolveArgs } = await import("../../components/inference");
    const g = one(recorded, DGD, "llama-graph");
    const r = resolveArgs(
      "llama",
      {
        model: MODEL,
        gpuPool: pool("p5en.48xlarge", 2),
        prefill: { replicas: 8, gpusPerWorker: 1 },
        decode: { replicas: 8, gpusPerWorker: 1 },
        modelCache: { storageClassName: "efs-sc", sizeGiB: 500 },
        frontend: { serviceType: "InternalLoadBalancer" },
        vpcCidr: "10.0.0.0/16",
      },
      IMAGE,
    );
    assert.deepEqual(JSON.parse(JSON.stringify(g.inputs.spec)), JSON.parse(JSON.stringify(renderGraph(r, IMAGE).spec)));
    assert.equal(g.inputs.metadata.annotations["pulumi.com/waitFor"], "condition=Ready");
    assert.equal(g.inputs.metadata.annotations["dynamo-efa/model-load-budget-seconds"], "1800");
  });

  it("an internal load balancer fronts the Frontend when asked", () => {
    const svc = one(recorded, "kubernetes:core/v1:Service", "llama-frontend-lb");
    assert.equal(svc.inputs.metadata.annotations["service.beta.kubernetes.io/aws-load-balancer-scheme"], "internal");
    assert.deepEqual(svc.inputs.spec.loadBalancerSourceRanges, ["10.0.0.0/16"]);
  });

  it("the NetworkPolicies exist before the graph (it depends on them)", () => {
    const graph = byName("llama-graph");
    for (const n of ["llama-netpol-default-deny", "llama-netpol-frontend", "llama-netpol-workers"]) {
      assert.equal(
        one(recorded, "kubernetes:networking.k8s.io/v1:NetworkPolicy", n).inputs.metadata.namespace,
        "dynamo",
      );
      assert.ok((graph.opts.dependsOn as unknown[]).includes(byName(n).resource), n);
    }
  });

  it("outputs: graph name, frontend URL, served model, worker commands", async () => {
    assert.equal(await promiseOf(inf.graphName), "llama");
    assert.equal(await promiseOf(inf.frontendUrl), "http://llama-frontend.dynamo.svc.cluster.local:8000");
    assert.equal(await promiseOf(inf.servedModelName), MODEL);
    const cmds = await promiseOf<Record<string, string>>(inf.workerCommands);
    assert.ok(cmds.prefill.startsWith("python3 -m dynamo.vllm --model meta-llama/Llama-3.1-8B-Instruct"));
    assert.ok(cmds.decode.includes("--disaggregation-mode decode"));
  });

  it("existing secret + no platform: no secret, no releases; TRT-LLM engine ConfigMaps created", () => {
    assert.equal(
      seen.some((s) => s.name === "lean-hf-token"),
      false,
    );
    assert.equal(
      ofType(recorded, RELEASE).some((r) => r.name.startsWith("lean-")),
      false,
    );
    assert.equal(lean.platformRelease, undefined);
    const cms = ofType(recorded, "kubernetes:core/v1:ConfigMap").filter((r) => r.name.startsWith("lean-"));
    assert.deepEqual(
      cms.map((c) => [c.name, c.inputs.metadata.name]),
      [
        ["lean-engine-decode", "lean-trtllm-decode"],
        ["lean-engine-prefill", "lean-trtllm-prefill"],
      ],
    );
    const dgd = one(recorded, DGD, "lean-graph");
    assert.equal(dgd.inputs.spec.services.PrefillWorker.envFromSecret, "existing-hf");
  });

  it("invalid args throw one InputPropertiesError listing every problem, before any child", async () => {
    const { problemsOf, subjectOf } = await import("../../components/_shared/pulumi-errors");
    assert.ok(pulumi.InputPropertiesError.isInstance(badError));
    assert.equal(subjectOf(badError), "DisaggInference");
    assert.deepEqual(
      problemsOf(badError)!.map((p) => p.propertyPath),
      ["model", "prefill.gpusPerWorker", "hfToken", "image"],
    );
    // Only the component itself registered; no child.
    assert.deepEqual(
      seen.slice(countBeforeBad, countAfterBad).map((s) => s.type),
      ["dynamo-efa:inference:DisaggInference"],
    );
  });

  it("an image ref known only at deployment is validated when it resolves (checkedGraph)", async () => {
    const { checkedGraph, resolveArgs } = await import("../../components/inference");
    const r = resolveArgs("late", { model: MODEL, gpuPool: pool("p5en.48xlarge", 1) }, undefined);
    const e = thrownBy(() => checkedGraph(r, "repo/x:latest"));
    assert.ok(pulumi.InputPropertiesError.isInstance(e));
    assert.deepEqual(
      e.errors.map((p) => p.propertyPath),
      ["image"],
    );
    assert.equal(checkedGraph(r, IMAGE).metadata.name, "late");
  });
});
