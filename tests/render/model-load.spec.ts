/**
 * The model-load section of the plan through the real render: p5en-8gpu's default local-nvme cache (the NodeConfig,
 * the prefetch, read-only mounts, estimates vs budgets), and the efs and none modes still rendering.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { graphModel } from "../../components/inference/dgd-v1beta1";
import YAML from "yaml";
import { modelFacts } from "../../components/catalog/models";
import { ModelCacheMode } from "../../components/inference/model-load";
import { ExitCode } from "../../tools/_shared/exit-codes";
import { renderStack } from "./render-harness";
import { LOAD_ASSUMPTIONS, loadPlan } from "../../tools/render/plan/load";

describe("render: model load (local-nvme, efs, none) in the plan", function () {
  this.timeout(90000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "render-load-"));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  async function render(label: string, sets: string[]) {
    const rendered = await renderStack(
      "p5en-8gpu",
      path.join(tmp, label),
      sets.flatMap((s) => ["--set", s]),
    );
    const { code, dir } = rendered;
    const lines = [...rendered.stdout, ...rendered.stderr];
    const plan = code === ExitCode.Ok ? JSON.parse(fs.readFileSync(path.join(dir, "plan.json"), "utf8")) : undefined;
    const md = plan ? fs.readFileSync(path.join(dir, "plan.md"), "utf8") : "";
    const dgdFile = plan
      ? fs.readdirSync(path.join(dir, "manifests")).find((f) => f.includes("dynamographdeployment"))
      : undefined;
    // Read as the model (the default release writes v1beta1 components; graphModel gives every reader v1alpha1 services).
    const dgd = dgdFile
      ? graphModel(YAML.parse(fs.readFileSync(path.join(dir, "manifests", dgdFile), "utf8")))
      : undefined;
    const raw = plan ? JSON.parse(fs.readFileSync(path.join(dir, "resources.json"), "utf8")) : [];
    const resources: { type: string; name: string; urn: string; dependsOn: string[] }[] = Array.isArray(raw)
      ? raw
      : raw.resources;
    return { code, text: lines.join("\n"), plan, md, dgd, resources };
  }

  it("p5en-8gpu defaults to local-nvme: 2 downloads (one per node), estimates from the catalog's weight bytes and the stated bandwidths", async () => {
    const r = await render("default", []);
    assert.equal(r.code, ExitCode.Ok, r.text);
    const w = modelFacts("meta-llama/Llama-3.1-8B-Instruct")!.weightBytes;
    const a = LOAD_ASSUMPTIONS;
    assert.deepEqual(
      [
        r.plan.modelLoad.mode,
        r.plan.modelLoad.downloads,
        r.plan.modelLoad.weightBytes,
        r.plan.modelLoad.downloadSeconds,
        r.plan.modelLoad.loadSeconds,
        r.plan.modelLoad.downloadBudgetSeconds,
        r.plan.modelLoad.loadBudgetSeconds,
      ],
      [
        "local-nvme",
        2,
        w,
        Math.ceil(w / (a.hfDownloadMBps * 1e6)),
        Math.ceil(w / (a.nvmeReadMBps * 1e6)) + a.engineStartSeconds,
        1800,
        1800,
      ],
    );
    assert.deepEqual(r.plan.modelLoad.overBudget, []);
    assert.match(r.md, /## Model load: `local-nvme`/);
    assert.match(r.md, /\/mnt\/k8s-disks\/0\/dynamo-efa-model-cache/);
    const cm = r.resources.find(
      (x) => x.type === "kubernetes:core/v1:ConfigMap" && x.name.endsWith("-model-prefetch"),
    )!;
    const graph = r.resources.find((x) => x.type.endsWith(":DynamoGraphDeployment"))!;
    assert.ok(graph.dependsOn.includes(cm.urn), "the graph is sent after the prefetch script's ConfigMap exists");
    for (const svc of ["PrefillWorker", "DecodeWorker"]) {
      const pod = r.dgd.spec.services[svc].extraPodSpec;
      assert.deepEqual(
        pod.initContainers.map((c: { name: string }) => c.name),
        ["cache-owner", "model-prefetch"],
        svc,
      );
      assert.ok(
        pod.mainContainer.volumeMounts.some(
          (m: { name: string; readOnly?: boolean }) => m.name === "model-cache-node" && m.readOnly === true,
        ),
        svc,
      );
    }
  });

  it("efs (with modelCache.sizeGiB) and none still render, with their own download counts", async () => {
    const efs = await render("efs", ["inference.modelCacheMode=efs", "inference.modelCache.sizeGiB=200"]);
    assert.equal(efs.code, ExitCode.Ok, efs.text);
    assert.deepEqual([efs.plan.modelLoad.mode, efs.plan.modelLoad.downloads], ["efs", 1]);
    const none = await render("none", ["inference.modelCacheMode=none"]);
    assert.equal(none.code, ExitCode.Ok, none.text);
    assert.deepEqual([none.plan.modelLoad.mode, none.plan.modelLoad.downloads], ["none", 16]);
    for (const r of [efs, none]) assert.equal(r.dgd.spec.services.DecodeWorker.extraPodSpec.initContainers, undefined);
  });

  it("local-nvme with modelCache.sizeGiB is refused at the config key, with the fix", async () => {
    const r = await render("both", ["inference.modelCacheMode=local-nvme", "inference.modelCache.sizeGiB=200"]);
    assert.equal(r.code, ExitCode.InvalidConfig);
    assert.match(
      r.text,
      /inference\.modelCacheMode: \("local-nvme"\) does not use the shared cache volume \(modelCache\); use mode "efs" or drop the volume/,
    );
  });

  it("an estimate over its budget is flagged", () => {
    const m = modelFacts("meta-llama/Llama-3.1-405B-Instruct")!;
    const pool = { name: "gpu", nodes: 2, localNvme: { mountPath: "/mnt/k8s-disks/0", sizeGB: 30400 } } as never;
    const l = loadPlan(
      m,
      { modelCacheMode: ModelCacheMode.LocalNvme, modelDownloadBudgetSeconds: 600, modelLoadBudgetSeconds: 1800 },
      pool,
      2,
    );
    assert.deepEqual(l.overBudget, [`download ${l.downloadSeconds} s > modelDownloadBudgetSeconds 600`]);
  });
});
