/**
 * A plan finishes inside its own budgets: unset budgets are derived from the load estimate
 * (components/inference/args.ts `loadEstimate`, `derivedBudgets`), so big models get budgets, a startup probe and a `pulumi up` wait they
 * can finish in; an explicit budget below the estimate is a config error naming the budget, the estimate and the fix.
 */
import { strict as assert } from "assert";
import { startupFailureThreshold, STARTUP_PERIOD_SECONDS, waitTimeoutSeconds } from "../../components/inference/graph";
import { derivedBudgets, loadEstimate, overBudget } from "../../components/inference/model-load";
import { modelFacts } from "../../components/catalog/models";
import { validate } from "../../components/inference/validate";
import type { InferenceSettings } from "../../components/inference";
import { pool, resolved } from "../helpers/inference-fixtures";

const NVME = { localNvme: { mountPath: "/mnt/k8s-disks/0", sizeGB: 30400 } };
const BIG = ["meta-llama/Llama-3.1-405B-Instruct", "deepseek-ai/DeepSeek-R1", "Qwen/Qwen3-235B-A22B"];
const tp8 = (model: string, over: Partial<InferenceSettings> = {}) =>
  resolved("p5en-8x1gpu", "vllm", {
    model,
    modelCacheMode: "local-nvme",
    gpuPool: pool("p5en.48xlarge", 2, true, NVME),
    prefill: { replicas: 1, gpusPerWorker: 8 },
    decode: { replicas: 1, gpusPerWorker: 8 },
    ...over,
  });

describe("load budgets: derived from the estimate, an explicit one below it is an error", () => {
  for (const model of BIG) {
    it(`${model} at TP 8, local-nvme: unset budgets cover the estimate, and so do the probe and the graph wait`, () => {
      const r = tp8(model);
      const e = r.loadEstimate;
      assert.ok(e, "the catalog knows the model");
      assert.ok(e.downloadSeconds > 1800, `the estimate (${e.downloadSeconds} s) is over the old fixed 1800 s`);
      assert.deepEqual(overBudget(e, r.modelLoadBudgetSeconds, r.modelDownloadBudgetSeconds), []);
      assert.deepEqual(validate(r, true, "inference"), []);
      assert.ok(startupFailureThreshold(r) * STARTUP_PERIOD_SECONDS >= e.loadSeconds);
      assert.ok(waitTimeoutSeconds(r) > e.downloadSeconds + e.loadSeconds, "pulumi up waits past download + load");
    });
  }

  it("the estimate is the plan's: the same function, the same numbers (405B: 810 GB at 200 MB/s = 4,051 s)", () => {
    const m = modelFacts("meta-llama/Llama-3.1-405B-Instruct")!;
    const r = tp8(m.id);
    assert.deepEqual(r.loadEstimate, loadEstimate("local-nvme", m.weightBytes, r.pool, 2));
    assert.equal(r.loadEstimate!.downloadSeconds, Math.ceil(m.weightBytes / 200e6));
    assert.equal(r.modelDownloadBudgetSeconds, derivedBudgets(r.loadEstimate!).download);
    assert.equal(r.modelDownloadBudgetSeconds % 60, 0);
  });

  it("none/efs: the load budget covers the engine's own download; a small model keeps the 1800 s floor", () => {
    const none = tp8("meta-llama/Llama-3.1-405B-Instruct", { modelCacheMode: "none" });
    const e = none.loadEstimate!;
    assert.ok(e.downloadInLoad);
    assert.ok(none.modelLoadBudgetSeconds >= e.downloadSeconds + e.loadSeconds);
    const small = resolved("p5en-1gpu", "vllm");
    assert.deepEqual([small.modelLoadBudgetSeconds, small.modelDownloadBudgetSeconds], [1800, 1800]);
  });

  it("an explicit budget below the estimate: an error naming the key, the budget, the estimate and the fix", () => {
    const r = tp8("deepseek-ai/DeepSeek-R1", { modelDownloadBudgetSeconds: 1800, modelLoadBudgetSeconds: 120 });
    const e = r.loadEstimate!;
    const fix = derivedBudgets(e);
    const ps = validate(r, true, "inference").map((p) => `${p.propertyPath}: ${p.reason}`);
    assert.equal(ps.length, 2, ps.join("\n"));
    assert.ok(
      ps[0].startsWith(
        `inference.modelDownloadBudgetSeconds: (1800) is below the plan's estimate of ${e.downloadSeconds.toLocaleString("en-US")} s to download deepseek-ai/DeepSeek-R1`,
      ),
      ps[0],
    );
    assert.match(ps[0], new RegExp(`Fix: set it to at least ${fix.download} \\(2x the estimate\\) or remove it`));
    assert.match(ps[1], /^inference\.modelLoadBudgetSeconds: \(120\) is below the plan's estimate of \d+ s to load/);
  });

  it("a model of unknown size keeps the fixed defaults and no budget check", () => {
    const r = resolved("p5en-1gpu", "vllm", { model: "acme/private-model" });
    assert.equal(r.loadEstimate, undefined);
    assert.deepEqual([r.modelLoadBudgetSeconds, r.modelDownloadBudgetSeconds], [1800, 1800]);
  });
});
