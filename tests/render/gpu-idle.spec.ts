/**
 * The first deploy wastes no GPU hour: in the manifests rendered for p5en-8gpu (the golden files
 * stacks.spec keeps equal to a real render) the weights download runs in a pod of a small image on the workers'
 * nodes, so it overlaps the serving image's pull; the plan's timeline, idle minutes, fleet pull and reservation
 * timing follow from that. Pure: no render here.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import YAML from "yaml";
import { DGD_TYPE_TOKEN } from "../../components/inference/dgd";
import { graphModel } from "../../components/inference/dgd-v1beta1";
import { ModelCacheMode } from "../../components/inference/model-load";
import type { GpuPoolFacts } from "../../components/catalog/pool";
import {
  downloadOverlap,
  fleetPull,
  gpuIdlePlan,
  GpuIdleInput,
  PULL_ASSUMPTIONS,
  type ServingImage,
} from "../../tools/render/plan/idle";
import { servingImage } from "../../tools/render/plan/idle-input";
import { IMAGE_COSTS, planned } from "../../components/catalog/images";
import { sourceEstimate } from "../../components/image/sources";
import type { ModelLoadPlan } from "../../tools/render/plan/load";
import { GOLDEN_DIR } from "../helpers/golden";

type Obj = { kind: string; spec: Record<string, unknown> } & Record<string, unknown>;
/** The rendered p5en-8gpu objects as captured resources (type token + inputs). */
function rendered(): { type: string; inputs: Obj }[] {
  const dir = path.join(GOLDEN_DIR, "render", "p5en-8gpu", "manifests");
  return fs.readdirSync(dir).map((f) => {
    const o = YAML.parse(fs.readFileSync(path.join(dir, f), "utf8")) as Obj;
    const type = o.kind === "DynamoGraphDeployment" ? DGD_TYPE_TOKEN : `kubernetes:${o.apiVersion}:${o.kind}`;
    return { type: type.replace("kubernetes:v1:", "kubernetes:core/v1:"), inputs: o };
  });
}
const daemonPod = (rs: { type: string; inputs: Obj }[]) =>
  (rs.find((r) => r.type === "kubernetes:apps/v1:DaemonSet")!.inputs.spec as { template: { spec: Obj } }).template
    .spec as unknown as {
    nodeSelector: Record<string, string>;
    initContainers: { name: string; image: string; command: string[] }[];
    containers: { image: string }[];
  };

const POOL = { name: "gpu", nodes: 2 } as GpuPoolFacts;
const LOAD: ModelLoadPlan = {
  mode: ModelCacheMode.LocalNvme,
  where: "",
  downloads: 2,
  weightBytes: 16e9,
  downloadSeconds: 80,
  loadSeconds: 95,
  loadBudgetSeconds: 1800,
  basis: { download: "d", load: "l" },
  overBudget: [],
};
/** A 35 GB image from ECR: the numbers below are worked by hand from it. */
const IMAGE: ServingImage = { name: "img", registry: "ECR", sizeGB: 35, size: "about 35 GB" };
const input = (over: Partial<GpuIdleInput> = {}): GpuIdleInput => ({
  pools: [POOL],
  modelLoad: LOAD,
  overlap: { overlaps: true, why: "w" },
  servingImage: IMAGE,
  imageBuild: true,
  nodesWaitForImage: true,
  imageMinutes: 95.1,
  gpuNodesMinutes: 103.1,
  reserved: [],
  usdPerNodeHour: { gpu: 63.3 },
  ...over,
});

describe("GPU idle: image pull and weights download overlap in the rendered manifests", () => {
  it("p5en-8gpu: the prefetch runs in a DaemonSet of another image on the workers' nodes, the same script as the workers", () => {
    const rs = rendered();
    assert.deepEqual(downloadOverlap(rs), {
      overlaps: true,
      why: "a prefetch DaemonSet of a small image on the workers' nodes; the kubelet pulls both pods' images at once",
    });
    const pod = daemonPod(rs);
    const dgd = graphModel(rs.find((r) => r.type === DGD_TYPE_TOKEN)!.inputs).spec as {
      services: Record<string, { extraPodSpec: { initContainers: { name: string; command: string[] }[] } }>;
    };
    const workerPrefetch = dgd.services.DecodeWorker.extraPodSpec.initContainers.find(
      (c) => c.name === "model-prefetch",
    );
    const own = pod.initContainers.find((c) => c.name === "model-prefetch");
    assert.deepEqual(own?.command, workerPrefetch?.command, "one script, one lock: the workers wait for the DaemonSet");
  });

  it("the overlap is gone when the prefetch pod runs the serving image, selects other nodes, or is absent", () => {
    const rs = rendered();
    const workerImage = (
      graphModel(rs.find((r) => r.type === DGD_TYPE_TOKEN)!.inputs).spec as {
        services: Record<string, { extraPodSpec: { mainContainer: { image: string } } }>;
      }
    ).services.PrefillWorker.extraPodSpec.mainContainer.image;
    const edit = (f: (pod: ReturnType<typeof daemonPod>) => void) => {
      const copy = JSON.parse(JSON.stringify(rs)) as typeof rs;
      f(daemonPod(copy));
      return downloadOverlap(copy).overlaps;
    };
    assert.equal(
      edit((p) => (p.initContainers[1].image = workerImage)),
      false,
    );
    assert.equal(
      edit((p) => (p.nodeSelector = { "dynamo-efa/pool": "other" })),
      false,
    );
    assert.equal(downloadOverlap(rs.filter((r) => r.type !== "kubernetes:apps/v1:DaemonSet")).overlaps, false);
  });

  it("idle = node join -> first worker loading: max(pull, small pull + download) with the overlap, pull + download without", () => {
    const pull = Math.ceil((35e9 / PULL_ASSUMPTIONS.pullMBps) * 1e-6);
    const on = gpuIdlePlan(input());
    assert.equal(on.gpuIdleMinutes, Math.round((pull / 60) * 10) / 10);
    const off = gpuIdlePlan(input({ overlap: { overlaps: false, why: "x" } }));
    assert.equal(off.gpuIdleMinutes, Math.round(((pull + 80) / 60) * 10) / 10);
    const weights = (g: typeof on) => g.timeline.find((s) => s.step === "weights on NVMe")!.atSeconds;
    assert.equal(weights(on), PULL_ASSUMPTIONS.smallImagePullSeconds + 80);
    assert.equal(weights(off), pull + 80);
    assert.equal(on.timeline.at(-1)!.atSeconds, pull + 95 + PULL_ASSUMPTIONS.readyProbeSeconds);
    // Prefetch pods are named at node join only where a prefetch DaemonSet exists.
    assert.match(on.timeline[0].basis, /worker and prefetch pods are scheduled/);
    assert.match(off.timeline[0].basis, /worker pods are scheduled$/);
    const early = gpuIdlePlan(input({ nodesWaitForImage: false, gpuNodesMinutes: 23 }));
    assert.equal(early.gpuIdleMinutes, Math.round((95.1 - 23 + pull / 60) * 10) / 10, "nodes idle through the build");
  });

  it("a fleet says what it pulls through the NAT gateway, and is NAT-limited past 100 Gbps", () => {
    const two = fleetPull(2, IMAGE);
    assert.deepEqual([two.totalGB, two.natLimited, two.aggregateGbps], [70, false, 1]);
    const big = fleetPull(300, IMAGE);
    assert.equal(big.natLimited, true);
    assert.equal(big.aggregateGbps, PULL_ASSUMPTIONS.natGatewayMaxGbps);
    assert.ok(big.perNodeMBps < PULL_ASSUMPTIONS.pullMBps);
    assert.match(big.note, /VPC endpoints/);
    assert.ok(
      gpuIdlePlan(input({ pools: [{ ...POOL, nodes: 300 }] })).gpuIdleMinutes > gpuIdlePlan(input()).gpuIdleMinutes,
    );
  });

  it("a Capacity Block says when to start and what a start at its opening burns", () => {
    const g = gpuIdlePlan(input({ reserved: [{ pool: "gpu", capacity: "capacity-block" }] }));
    const [r] = g.reservations;
    assert.equal(r.startMinutesBefore, 95.1, "node group asks for instances when the build is done");
    assert.equal(r.reservedInstanceHoursBeforeLaunch, Math.round(((2 * 95.1) / 60) * 10) / 10);
    assert.equal(r.usd, Math.round(((2 * 95.1) / 60) * 63.3));
  });

  it("the image pulled is the one the stack deploys: a vendor image from its registry at its size, a build from ECR", () => {
    const vendor = servingImage({
      kind: "prebuilt",
      source: "prebuilt",
      estimate: sourceEstimate("prebuilt", true, []),
      ref: undefined,
      resolve: { repository: "nvcr.io/nvidia/ai-dynamo/vllm-runtime", tag: "1.6.2-efa", source: "s" },
      backend: "vllm",
      cudaToolkit: { version: "13.0" } as never,
      cudaArchs: [],
    });
    assert.equal(vendor.name, "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6.2-efa");
    assert.equal(vendor.registry, "nvcr.io");
    assert.equal(vendor.sizeGB, planned(IMAGE_COSTS.prebuilt.sizeGB));
    const g = gpuIdlePlan(input({ servingImage: vendor }));
    const pull = g.timeline.find((s) => s.step === "serving image on node")!;
    assert.equal(pull.atSeconds, Math.ceil((vendor.sizeGB * 1e9) / (PULL_ASSUMPTIONS.pullMBps * 1e6)));
    assert.match(pull.basis, /vllm-runtime:1\.6\.2-efa: 22\.5 GB at 60 MB\/s from nvcr\.io/);
    assert.doesNotMatch(pull.basis, /ECR/);
    const built = servingImage({ kind: "build", estimate: sourceEstimate("source", false, ["sm_90"]) } as never);
    assert.deepEqual(
      [built.registry, built.sizeGB],
      ["the stack's ECR repository", planned(IMAGE_COSTS.source.sizeGB)],
    );
  });
});
