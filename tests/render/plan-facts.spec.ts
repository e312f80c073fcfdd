/**
 * The plan is computed once: plan.json's model, fit, model load, serving and KV-transport sections come
 * from the facts the program returns with its run (`DisaggInference.plan` -> `RenderFacts.inference`), never from
 * the graph's engine flags or annotations parsed back, and they agree with the component's fit arithmetic.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";
import { renderGraph, type DgdObject } from "../../components/inference/graph";
import { DGD_TYPE_TOKEN } from "../../components/inference/dgd";
import { modelFacts } from "../../components/catalog/models";
import { roleArgs } from "../../components/inference/args";
import { workerFit } from "../../components/inference/fit";
import { INSTANCES } from "../../components/catalog/instances";
import { inferencePlan } from "../../components/inference/plan";
import type { ResolvedInference } from "../../components/inference/args";
import { buildPlan, Plan } from "../../tools/render/plan/plan";
import { IMAGE, pool, resolved } from "../helpers/inference-fixtures";

const NVME = { localNvme: { mountPath: "/mnt/k8s-disks/0", sizeGB: 30400 } };
const CASES: Record<string, () => ResolvedInference> = {
  "vLLM, 8 + 8 workers": () => resolved("p5en-8x1gpu"),
  "TensorRT-LLM, 1 + 1 workers": () => resolved("p5en-1gpu", "trtllm"),
  "vLLM on the local-nvme cache": () =>
    resolved("p5en-8x1gpu", "vllm", { modelCacheMode: "local-nvme", gpuPool: pool("p5en.48xlarge", 2, true, NVME) }),
  "UCX over TCP": () => resolved("p5en-8x1gpu", "vllm", { kvTransport: "ucx" }),
};

/** The graph as a captured resource. */
const resourceOf = (g: object) => ({
  urn: "urn:dgd",
  type: DGD_TYPE_TOKEN,
  name: "llama-graph",
  inputs: g as Record<string, unknown>,
  propertyDependencies: {},
});

/** The graph without its annotations and without any worker's engine command line. */
function stripped(g: DgdObject): object {
  const services = Object.fromEntries(
    Object.entries(g.spec.services).map(([k, s]) => {
      const main = s.extraPodSpec?.mainContainer;
      const bare = main ? { ...main, command: [], args: [] } : main;
      return [k, { ...s, extraPodSpec: { ...s.extraPodSpec, mainContainer: bare } }];
    }),
  );
  return { ...g, metadata: { name: g.metadata.name, namespace: g.metadata.namespace }, spec: { ...g.spec, services } };
}

function planOf(r: ResolvedInference, graph: object): Plan {
  return buildPlan({
    stack: "s",
    region: "us-east-2",
    pools: [r.pool],
    resources: [resourceOf(graph)],
    image: { cudaArchs: ["sm_90"], cudaToolkit: "12.9", build: true },
    criticalPath: { steps: [], minutes: 0 },
    inference: inferencePlan(r),
  });
}

const sections = (p: Plan) => ({
  model: p.model,
  fit: p.fit,
  modelLoad: p.modelLoad,
  serving: p.serving,
  servingUnknown: p.servingUnknown,
  kvTransport: p.kvTransport,
});

describe("render: the plan's model sections come from the program's facts, not from the graph", () => {
  for (const [title, r] of Object.entries(CASES)) {
    it(`${title}: the same sections with the graph's annotations and engine flags gone`, () => {
      const graph = renderGraph(r(), IMAGE);
      const full = planOf(r(), graph);
      assert.deepEqual(sections(planOf(r(), stripped(graph))), sections(full));
      const len = r().maxModelLen;
      assert.deepEqual(
        full.fit?.map((f) => [f.role, f.service, f.tensorParallel, f.maxModelLen]),
        [
          ["prefill", "PrefillWorker", 1, len],
          ["decode", "DecodeWorker", 1, len],
        ],
      );
      assert.ok(full.serving, full.servingUnknown);
      assert.equal(full.kvTransport?.transport, r().kvTransport);
    });

    it(`${title}: the fit is the component's fit arithmetic, and the budgets are the resolved ones`, () => {
      const p = planOf(r(), renderGraph(r(), IMAGE));
      assert.equal(p.fit?.length, 2);
      const round2 = (n: number) => Math.round(n * 100) / 100;
      for (const f of p.fit ?? []) {
        const want = workerFit({
          model: modelFacts(r().model)!,
          instance: INSTANCES.get(r().pool.instanceType)!,
          backend: r().backend,
          tensorParallel: roleArgs(r(), f.role as "prefill" | "decode").gpusPerWorker,
          gpuMemoryUtilization: r().gpuMemoryUtilization,
          maxModelLen: r().maxModelLen,
          kvCacheDtype: r().kvCacheDtype,
        });
        assert.deepEqual(
          [f.weightsGiBPerGpu, f.kvCacheGiBPerGpu, f.kvCapacityTokens],
          [round2(want.weightsGiBPerGpu), round2(want.kvCacheGiBPerGpu), want.kvCapacityTokens],
          f.role,
        );
      }
      assert.equal(p.modelLoad?.loadBudgetSeconds, r().modelLoadBudgetSeconds);
      assert.equal(p.modelLoad?.mode, r().modelCacheMode);
      if (r().modelCacheMode === "local-nvme")
        assert.equal(p.modelLoad?.downloadBudgetSeconds, r().modelDownloadBudgetSeconds);
    });
  }

  it("no module of tools/render/ imports the policy pack's graph readers (engine flags, serving, fit)", () => {
    const dir = path.join(__dirname, "..", "..", "tools", "render");
    const offenders = fs
      .readdirSync(dir, { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".ts"))
      .flatMap((f) =>
        ts
          .preProcessFile(fs.readFileSync(path.join(dir, f), "utf8"), true, true)
          .importedFiles.filter((i) => /policy\/rules\//.test(i.fileName))
          .map((i) => `${f} -> ${i.fileName}`),
      );
    assert.deepEqual(offenders, []);
  });
});
