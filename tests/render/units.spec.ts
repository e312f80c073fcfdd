/**
 * Pure pieces of the render: the critical path and diagram, the plan's worker model, the price
 * table, redaction and manifests. Stack files and the config schema: ./stack-config.spec.ts.
 */
import { strict as assert } from "assert";
import { criticalPath, deployEdges, GraphNode, graphCreateMinutes, mermaid } from "../../tools/render/plan/graph";
import { BUILD_MINUTES } from "../../components/image/sources";
import { imageJson, kubernetesObject, manifestFiles } from "../../tools/render/output/manifests";
import { buildPlan } from "../../tools/render/plan/plan";
import { PlanSourceResource, planWorkers } from "../../tools/render/plan/workers";
import { DGD_TYPE_TOKEN as DGD_TYPE, EFA_RESOURCE, HUGEPAGES_2MI_RESOURCE } from "../../components/inference/dgd";
import { inferencePlan } from "../../components/inference/plan";
import { renderGraph } from "../../components/inference/graph";
import { OperatorLabel } from "../../components/_shared/names";
import { IMAGE, resolved } from "../helpers/inference-fixtures";
import {
  instanceLine,
  ON_DEMAND_USD_PER_HOUR,
  priceOf,
  RESERVATION_BILLING,
  totalUsdPerHour,
} from "../../tools/render/plan/prices";
import { costLines, poolBilling } from "../../tools/render/plan/cost";
import { POOL_LABEL } from "../../components/catalog/pool";
import { CapacityType } from "../../components/cluster/args";
import { capacitySettings } from "../../components/cluster/derive";
import { fromSerialized } from "../../tools/render/capture/redact";
import { checkStackConfig } from "../../program/config";
import { INSTANCES } from "../../components/catalog/instances";

const node = (name: string, type: string, dependsOn: string[] = [], extra: Partial<GraphNode> = {}): GraphNode => ({
  urn: name,
  name,
  type,
  custom: true,
  remote: false,
  dependsOn,
  ...extra,
});

describe("render units", () => {
  describe("graph", () => {
    const nodes: GraphNode[] = [
      node("vpc", "awsx:ec2:Vpc", [], { custom: false, remote: true }),
      node("eks", "eks:index:Cluster", ["vpc"], { custom: false, remote: true }),
      node("comp", "fixture:index:Comp", [], { custom: false }),
      node("ng", "aws:eks/nodeGroup:NodeGroup", ["eks"], { parent: "comp" }),
      node("k8s", "pulumi:providers:kubernetes", ["eks"]),
      node("ns", "kubernetes:core/v1:Namespace", [], { provider: "k8s::k8s-id" }),
      node("img", "docker-build:index:Image"),
      node("dgd", DGD_TYPE, ["ns", "img", "comp"]),
    ];
    const graphMinutes = graphCreateMinutes({ modelLoadBudgetSeconds: 600 });

    it("expands a component dependency to its deployable children and adds provider edges", () => {
      const e = deployEdges(nodes);
      assert.deepEqual(e.get("dgd"), ["img", "ng", "ns"]);
      assert.deepEqual(e.get("ns"), ["k8s"]);
      assert.equal(e.has("comp"), false);
    });

    it("finds the chain with the most create minutes (the source image build + graph load budget 10)", () => {
      const p = criticalPath(nodes, new Map(), graphMinutes);
      assert.deepEqual(
        p.steps.map((s) => s.name),
        ["img", "dgd"],
      );
      assert.equal(p.minutes, BUILD_MINUTES.source + 10);
    });

    it("times the graph by its plan facts' budgets: load, plus a node cache's download before it", () => {
      assert.equal(graphCreateMinutes({ modelLoadBudgetSeconds: 1800, modelDownloadBudgetSeconds: 600 }), 40);
      assert.equal(graphCreateMinutes(undefined), undefined);
      const p = criticalPath(nodes, new Map(), graphCreateMinutes({ modelLoadBudgetSeconds: 3600 }));
      assert.deepEqual([p.minutes, p.steps.at(-1)?.minutes], [BUILD_MINUTES.source + 60, 60]);
      assert.equal(criticalPath(nodes).minutes, BUILD_MINUTES.source + 10, "a graph without facts counts 10 minutes");
    });

    it("follows the longer cluster chain when the image is prebuilt", () => {
      const p = criticalPath(
        nodes.filter((n) => n.name !== "img").map((n) => (n.name === "dgd" ? { ...n, dependsOn: ["ns", "comp"] } : n)),
      );
      assert.deepEqual(
        p.steps.map((s) => s.name),
        ["vpc", "eks", "ng", "dgd"],
      );
      assert.equal(p.minutes, 3 + 12 + 8 + 10);
    });

    it("draws components as subgraphs and highlights the critical path", () => {
      const m = mermaid(nodes, criticalPath(nodes));
      assert.match(m, /^flowchart LR\n/);
      assert.match(m, /subgraph n\d+\["comp \(Comp\)"\]\n\s+n\d+\["ng<br\/><small>NodeGroup<\/small>"\]\n\s+end/);
      assert.match(m, /class (n\d+,n\d+) critical/);
    });
  });

  describe("plan", () => {
    it("lists the graph's services from its plan, in frontend/prefill/decode order, as the graph renders them", () => {
      for (const r of [
        resolved("p5en-8x1gpu"),
        resolved("p5en-1gpu", "vllm", { kvTransport: "ucx", placement: "any" }),
      ]) {
        const w = planWorkers(inferencePlan(r));
        const services = renderGraph(r, IMAGE).spec.services;
        assert.deepEqual(
          w.map((x) => x.service),
          ["Frontend", "PrefillWorker", "DecodeWorker"],
        );
        for (const x of w) {
          const s = services[x.service as keyof typeof services];
          const anti = s.extraPodSpec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
          assert.deepEqual(
            [x.role, x.replicas, x.gpusPerWorker, x.efaPerWorker, x.cpu, x.memory, x.hugepages2Mi, x.avoids],
            [
              s.subComponentType ?? s.componentType,
              s.replicas,
              Number(s.resources?.limits?.gpu ?? 0),
              Number(s.resources?.limits?.custom?.[EFA_RESOURCE] ?? 0),
              s.resources?.requests?.cpu,
              s.resources?.requests?.memory,
              s.resources?.requests?.custom?.[HUGEPAGES_2MI_RESOURCE] ?? "-",
              anti.map((t) => t.labelSelector?.matchLabels?.[OperatorLabel.Component]),
            ],
            x.service,
          );
        }
      }
      assert.deepEqual(planWorkers(undefined), [], "a program without a graph has no workers");
    });

    it("compares requested with provisioned GPUs and EFA rails", () => {
      const pool = { ...poolFacts(), nodes: 2 };
      const r = resolved("p5en-1gpu", "vllm", {
        gpuPool: pool,
        prefill: { replicas: 3, gpusPerWorker: 2 },
        decode: { replicas: 1, gpusPerWorker: 1 },
      });
      const plan = buildPlan({
        stack: "s",
        region: "us-east-2",
        pools: [pool],
        criticalPath: { steps: [], minutes: 0 },
        image: { cudaArchs: ["sm_90"], cudaToolkit: "12.9", build: true },
        resources: [],
        inference: inferencePlan(r),
      });
      assert.deepEqual(plan.gpus, { requested: 7, provisioned: 16 });
      assert.deepEqual(plan.efaRails, { used: 14, provisioned: 32 });
      assert.equal(plan.costPerHourUsd, totalUsdPerHour(plan.cost.lines));
    });
  });

  describe("prices", () => {
    it("prices every catalog instance whose facts are verified (g7e is not yet)", () => {
      const missing = [...INSTANCES.values()]
        .filter((i) => !i.unverified || i.family === "p5" || i.family.startsWith("p6"))
        .map((i) => i.name)
        .filter((t) => !priceOf(t));
      assert.deepEqual(missing, []);
    });
    it("multiplies and flags unverified rows; unknown types cost null, not zero", () => {
      assert.deepEqual(instanceLine("x", "g5.xlarge", 3), {
        item: "x",
        count: 3,
        usdPerHourEach: 1.006,
        usdPerHour: 3.02,
      });
      assert.match(instanceLine("x", "p5en.48xlarge", 1).note!, /not re-checked/);
      assert.equal(instanceLine("x", "z9.huge", 1).usdPerHour, null);
      assert.ok(Object.values(ON_DEMAND_USD_PER_HOUR).every((p) => p.usdPerHour > 0));
    });
    it("reserved capacity: a Capacity Block is prepaid (out of the on-demand total), an ODCR billed at on-demand used or not", () => {
      const pool = { ...poolFacts(), nodes: 2 };
      // The node group and launch template as the cluster component renders them (its own capacity derivation).
      const rendered = (capacity: CapacityType): PlanSourceResource[] => {
        const cap = capacitySettings({ capacity, capacityReservationId: "cr-0123456789abcdef0" });
        const lt = {
          urn: "urn:lt",
          type: "aws:ec2/launchTemplate:LaunchTemplate",
          name: "c-gpu-lt",
          inputs: { instanceType: "p5en.48xlarge", ...cap },
          propertyDependencies: {},
        };
        const ng = {
          urn: "urn:ng",
          type: "aws:eks/nodeGroup:NodeGroup",
          name: "c-gpu-ng",
          inputs: { capacityType: cap.nodeGroupCapacityType, labels: { [POOL_LABEL]: "gpu" } },
          propertyDependencies: { launchTemplate: [lt.urn] },
        };
        return [lt, ng];
      };
      const line = (capacity: CapacityType) => costLines([pool], rendered(capacity))[0];
      assert.deepEqual(
        [CapacityType.OnDemand, CapacityType.CapacityBlock, CapacityType.Odcr].map((c) =>
          poolBilling("gpu", rendered(c)),
        ),
        ["on-demand", "capacity-block", "odcr"],
      );
      const cb = line(CapacityType.CapacityBlock);
      assert.deepEqual([cb.usdPerHour, cb.note], [null, RESERVATION_BILLING.capacityBlock]);
      assert.equal(totalUsdPerHour([cb]), 0);
      const odcr = line(CapacityType.Odcr);
      assert.equal(odcr.usdPerHour, line(CapacityType.OnDemand).usdPerHour);
      assert.ok(odcr.note!.startsWith(RESERVATION_BILLING.odcr));
      assert.equal(line(CapacityType.OnDemand).note, "price transcribed, not re-checked at the last review");
    });
  });

  describe("redaction and manifests", () => {
    it("turns wire secrets into [secret] on disk and keeps the value in memory", () => {
      const sig = "4dabf18193072939515e22adb298388d";
      const d = fromSerialized({
        a: 1,
        s: { [sig]: "1b47061264138c4ac30d75fd1eb44270", value: { k: "v" } },
        u: "04da6b54-80e4-46f7-96ec-b56ff0331ba9",
      });
      assert.deepEqual(d.redacted, { a: 1, s: "[secret]", u: "[unknown]" });
      assert.deepEqual(d.plain, { a: 1, s: { k: "v" }, u: "[unknown]" });
      assert.deepEqual(d.secretPaths, ["s"]);
    });

    it("gives a Secret stringData placeholders for every key and an auto-named object a name", () => {
      const s = kubernetesObject({
        type: "kubernetes:core/v1:Secret",
        name: "hf",
        inputs: { apiVersion: "v1", kind: "Secret", metadata: {}, data: { A: "x" }, stringData: { B: "y" } },
        redactedInputs: { apiVersion: "v1", kind: "Secret", metadata: {}, data: "[secret]", stringData: "[secret]" },
      });
      assert.deepEqual(s.stringData, { A: "[secret]", B: "[secret]" });
      assert.equal(s.data, undefined);
      assert.match(String((s.metadata as { name: string }).name), /^hf-[0-9a-f]{7}$/);
    });

    it("writes manifests in apply order (Namespace first) and skips non-objects", () => {
      const mk = (kind: string, name: string, type = `kubernetes:core/v1:${kind}`) => ({
        type,
        name,
        inputs: {},
        redactedInputs: { apiVersion: "v1", kind, metadata: { name, namespace: "ns" } },
      });
      const files = manifestFiles([
        mk("Service", "b"),
        mk("Namespace", "ns"),
        { type: "pulumi:providers:kubernetes", name: "p", inputs: {}, redactedInputs: {} },
      ]);
      assert.deepEqual(
        files.map((f) => f.path),
        ["manifests/00-namespace-ns-ns.yaml", "manifests/01-service-ns-b.yaml"],
      );
    });

    it("describes a prebuilt image without a build", () => {
      assert.deepEqual(imageJson([], { cudaArchs: ["sm_90"], cudaToolkit: "12.9", ref: "r@sha256:x" }), {
        build: false,
        cudaArchs: ["sm_90"],
        cudaToolkit: "12.9",
        ref: "r@sha256:x",
      });
    });
  });
});

function poolFacts() {
  const { config } = checkStackConfig({
    region: "us-east-2",
    hfTokenSet: true,
    cluster: {
      availabilityZones: ["us-east-2a", "us-east-2b"],
      deployFromInsideVpc: true,
      gpuPools: { gpu: { instanceType: "p5en.48xlarge", nodes: 1, availabilityZone: "us-east-2b" } },
    },
    inference: { model: "org/m" },
  });
  return config!.gpuPool;
}
