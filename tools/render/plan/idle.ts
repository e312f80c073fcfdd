/**
 * The GPU idle section of `plan.json` / `plan.md`: on a first `pulumi up`, how long a GPU node is billed before its
 * first worker starts loading the model, the per-node timeline from node join to Ready with each estimate's basis,
 * what a fleet's simultaneous image pulls ask of the registry and the NAT gateway, and, on a Capacity Block or ODCR, when to
 * start so the image is built before the reservation opens. Pure.
 *
 * Whether the weights download overlaps the image pull is read from what is rendered, not assumed: a prefetch pod
 * of another (small) image on the workers' nodes (`downloadOverlap`). The bandwidths are stated assumptions.
 */
import type { GpuPoolFacts } from "../../../components/catalog/pool";
import { ModelCacheMode } from "../../../components/inference/model-load";
import { isDgdType } from "../../../components/inference/dgd-v1beta1";
import { DgdContainer } from "../../../components/inference/dgd";
import { CREATE_MINUTES } from "./graph";
import { servicesOf, CapturedInputs } from "./dgd-inputs";
import type { ModelLoadPlan } from "./load";

/** Stated bandwidths and fixed costs of the timeline. */
export const PULL_ASSUMPTIONS = {
  /**
   * One node pulling one large image with containerd's default (layer-serial unpack) pull: ~60 MB/s.
   * Basis: AWS Machine Learning Blog, "Reducing container cold start times using SOCI index on DLAMI and DLC"
   * (2026): "Standard Docker image pulls of 15–20 GB can take 4–6 minutes per instance" (17.5 GB / 300 s), from ECR.
   * Assumed the same from a vendor registry (nvcr.io) through the NAT gateway: no measured figure was found.
   */
  pullMBps: 60,
  /** The prefetch's ~50 MB python:3.12-slim image: assumed a few seconds, rounded up. */
  smallImagePullSeconds: 10,
  /** The worker's readiness probe period: Ready at most one period after the engine answers. */
  readyProbeSeconds: 10,
  /** A NAT gateway: 5 Gbps, scaling automatically to 100 Gbps (Amazon VPC user guide, "NAT gateway basics"). */
  natGatewayBaselineGbps: 5,
  natGatewayMaxGbps: 100,
} as const;

/**
 * The kubelet pulls the images of different pods at once: nodeadm writes `serializeImagePulls: false` and no
 * `maxParallelImagePulls` (tests/contracts/facts/eks-node-image-pull.json, checked by eks-node-image-pull.spec).
 */
export const KUBELET_PULLS_IN_PARALLEL = true;

/** Resource type of a DaemonSet. */
const DAEMONSET_TYPE = "kubernetes:apps/v1:DaemonSet";
/** The init container that downloads the weights (`components/inference/cache.ts`). */
const PREFETCH_CONTAINER = "model-prefetch";

/** Whether a node's weights download runs while its workers pull the serving image, and why. */
export interface DownloadOverlap {
  readonly overlaps: boolean;
  readonly why: string;
}

type PodSpec = {
  nodeSelector?: Record<string, string>;
  initContainers?: DgdContainer[];
  containers?: DgdContainer[];
};
const images = (cs: readonly DgdContainer[] = []) => cs.map((c) => c.image).filter((i): i is string => !!i);
const subset = (a: Record<string, string> = {}, b: Record<string, string> = {}) =>
  Object.entries(a).every(([k, v]) => b[k] === v);

/**
 * Reads the rendered resources: the download overlaps the pull when a DaemonSet on the workers' nodes runs the
 * prefetch in a pod none of whose images is a worker's (so the kubelet, pulling in parallel, starts it at once).
 */
export function downloadOverlap(resources: readonly (CapturedInputs & { readonly type: string })[]): DownloadOverlap {
  const dgd = resources.find((r) => isDgdType(r.type));
  const workers = dgd ? servicesOf(dgd).filter(([, s]) => s.componentType === "worker") : [];
  if (workers.length === 0) return { overlaps: false, why: "no worker in the graph" };
  const workerImages = new Set(workers.flatMap(([, s]) => images([s.extraPodSpec?.mainContainer ?? {}])));
  const selector = workers[0][1].extraPodSpec?.nodeSelector as Record<string, string> | undefined;
  const pods = resources
    .filter((r) => r.type === DAEMONSET_TYPE)
    .map((r) => (r.inputs?.spec as { template?: { spec?: PodSpec } } | undefined)?.template?.spec ?? {});
  const prefetch = pods.find((p) =>
    [...(p.initContainers ?? []), ...(p.containers ?? [])].some((c) => c.name === PREFETCH_CONTAINER),
  );
  if (!prefetch) return { overlaps: false, why: "no prefetch DaemonSet: each worker downloads after its image pull" };
  if (!subset(prefetch.nodeSelector, selector))
    return { overlaps: false, why: "the prefetch DaemonSet does not select the workers' nodes" };
  const shared = [...images(prefetch.initContainers), ...images(prefetch.containers)].filter((i) =>
    workerImages.has(i),
  );
  if (shared.length > 0)
    return { overlaps: false, why: "the prefetch pod runs the serving image, so it waits for the same pull" };
  if (!KUBELET_PULLS_IN_PARALLEL) return { overlaps: false, why: "the kubelet serializes image pulls" };
  return {
    overlaps: true,
    why: "a prefetch DaemonSet of a small image on the workers' nodes; the kubelet pulls both pods' images at once",
  };
}

/** One step of a node's timeline: seconds after the node joined the cluster. */
export interface NodeStep {
  readonly step: string;
  readonly atSeconds: number;
  readonly basis: string;
}

/** The serving image a GPU node pulls: what it is, where from, how big (components/catalog/images.ts). */
export interface ServingImage {
  /** The image, e.g. `nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6.2-efa`, or the stack's built image. */
  readonly name: string;
  /** The registry it is pulled from: `nvcr.io`, or the stack's ECR repository. */
  readonly registry: string;
  /** Size the plan computes with, GB: the middle of the source's stated range. */
  readonly sizeGB: number;
  /** The stated range and what it is ("about 20-25 GB (one engine's vendor runtime image)"). */
  readonly size: string;
}

/** What a fleet's simultaneous pulls ask for. */
export interface FleetPull {
  readonly nodes: number;
  readonly image: ServingImage;
  readonly imageGB: number;
  readonly totalGB: number;
  readonly aggregateGbps: number;
  readonly perNodeMBps: number;
  readonly natLimited: boolean;
  readonly note: string;
}

/** A reserved pool (Capacity Block / ODCR): when to start, and what a start at the reservation's opening costs. */
export interface ReservationTiming {
  readonly pool: string;
  readonly capacity: "capacity-block" | "odcr";
  /** Minutes between `pulumi up` and the node group asking for instances. */
  readonly startMinutesBefore: number;
  /** Instance-hours of the reservation that pass before the nodes launch, when `pulumi up` starts at its opening. */
  readonly reservedInstanceHoursBeforeLaunch: number;
  readonly usd?: number;
}

/** The section. */
export interface GpuIdlePlan {
  /** Minutes a GPU node is billed, on a first deploy, before its first worker starts loading the model. */
  readonly gpuIdleMinutes: number;
  readonly basis: string;
  /** The GPU node groups wait for the image build (created after the push). */
  readonly nodesWaitForImage: boolean;
  readonly imageMinutes?: number;
  readonly gpuNodesMinutes?: number;
  readonly downloadOverlapsPull: boolean;
  readonly overlapWhy: string;
  readonly timeline: readonly NodeStep[];
  readonly fleet: FleetPull;
  readonly reservations: readonly ReservationTiming[];
}

/** What the section is computed from. */
export interface GpuIdleInput {
  readonly pools: readonly GpuPoolFacts[];
  readonly modelLoad?: ModelLoadPlan;
  readonly overlap: DownloadOverlap;
  /** The image the workers pull. */
  readonly servingImage: ServingImage;
  readonly imageBuild: boolean;
  readonly nodesWaitForImage: boolean;
  /** Ready minutes on a first `pulumi up` (`./build-order.ts`). */
  readonly imageMinutes?: number;
  readonly gpuNodesMinutes?: number;
  readonly reserved: readonly { readonly pool: string; readonly capacity: "capacity-block" | "odcr" }[];
  /** $/hour of one node of each pool, by pool name. */
  readonly usdPerNodeHour: Readonly<Record<string, number | undefined>>;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/** N nodes pulling the image at once through the NAT gateway of their AZ. */
export function fleetPull(nodes: number, image: ServingImage): FleetPull {
  const a = PULL_ASSUMPTIONS;
  const imageGB = image.sizeGB;
  const wantGbps = (nodes * a.pullMBps * 8) / 1000;
  const natLimited = wantGbps > a.natGatewayMaxGbps;
  const perNodeMBps = natLimited ? (a.natGatewayMaxGbps * 1000) / 8 / nodes : a.pullMBps;
  const aggregateGbps = round1((nodes * perNodeMBps * 8) / 1000);
  const note = natLimited
    ? `${nodes} nodes would pull ${wantGbps.toFixed(0)} Gbps, over one NAT gateway's ${a.natGatewayMaxGbps} Gbps: each node gets ~${perNodeMBps.toFixed(0)} MB/s; add ECR and S3 VPC endpoints or spread the pools over AZs`
    : wantGbps > a.natGatewayBaselineGbps
      ? `${aggregateGbps} Gbps through one NAT gateway: above its ${a.natGatewayBaselineGbps} Gbps baseline, within the ${a.natGatewayMaxGbps} Gbps it scales to`
      : `${aggregateGbps} Gbps through one NAT gateway, within its ${a.natGatewayBaselineGbps} Gbps baseline`;
  return {
    nodes,
    image,
    imageGB,
    totalGB: round1(nodes * imageGB),
    aggregateGbps,
    perNodeMBps: round1(perNodeMBps),
    natLimited,
    note,
  };
}

/** The node timeline: image pull, weights, engine load, Ready (seconds after the node joined). */
function timeline(i: GpuIdleInput, fleet: FleetPull): { steps: NodeStep[]; loadingAt: number } {
  const a = PULL_ASSUMPTIONS;
  const pull = Math.ceil((fleet.imageGB * 1e9) / (fleet.perNodeMBps * 1e6));
  const l = i.modelLoad;
  const download = l?.downloadSeconds ?? 0;
  const local = l?.mode === ModelCacheMode.LocalNvme;
  const parallel = local && i.overlap.overlaps;
  const weights = parallel ? a.smallImagePullSeconds + download : pull + download;
  const loadingAt = Math.max(pull, weights);
  const loaded = loadingAt + (l?.loadSeconds ?? 0);
  const where = local
    ? "weights on NVMe"
    : `weights ${l ? `in ${l.mode === ModelCacheMode.Efs ? "EFS" : "the pod"}` : "(unknown)"}`;
  const steps: NodeStep[] = [
    {
      step: "node joins (Ready)",
      atSeconds: 0,
      basis: `the managed node group's nodes; worker ${i.overlap.overlaps ? "and prefetch pods are" : "pods are"} scheduled`,
    },
    {
      step: "serving image on node",
      atSeconds: pull,
      basis: `${fleet.image.name}: ${fleet.imageGB} GB at ${fleet.perNodeMBps} MB/s from ${fleet.image.registry} (${fleet.natLimited ? "NAT-limited" : "AWS ML blog: 15-20 GB in 4-6 min"})`,
    },
    {
      step: where,
      atSeconds: weights,
      basis: parallel
        ? `${a.smallImagePullSeconds} s small-image pull + ${download} s download, during the image pull (${l?.basis.download ?? ""})`
        : `${download} s download after the image pull (${i.overlap.why})`,
    },
    {
      step: "engine loaded",
      atSeconds: loaded,
      basis: l ? `${l.loadSeconds} s: ${l.basis.load}` : "model load unknown",
    },
    {
      step: "Ready",
      atSeconds: loaded + a.readyProbeSeconds,
      basis: `within one ${a.readyProbeSeconds} s readiness period`,
    },
  ];
  return { steps, loadingAt };
}

/** The section. */
export function gpuIdlePlan(i: GpuIdleInput): GpuIdlePlan {
  const nodes = i.pools.reduce((n, p) => n + p.nodes, 0);
  const fleet = fleetPull(nodes, i.servingImage);
  const { steps, loadingAt } = timeline(i, fleet);
  const waitBefore =
    i.imageBuild && !i.nodesWaitForImage && i.imageMinutes !== undefined && i.gpuNodesMinutes !== undefined
      ? Math.max(0, i.imageMinutes - i.gpuNodesMinutes)
      : 0;
  const gpuIdleMinutes = round1(waitBefore + loadingAt / 60);
  const basis =
    (waitBefore > 0 ? `${round1(waitBefore)} min waiting for the image build + ` : "") +
    `node join -> first worker loading: max(image pull, weights) = ${loadingAt} s (timeline)`;
  const launchAt = (i.gpuNodesMinutes ?? 0) - CREATE_MINUTES["aws:eks/nodeGroup:NodeGroup"];
  const reservations = i.reserved.map((r): ReservationTiming => {
    const pool = i.pools.find((p) => p.name === r.pool);
    const hours = ((pool?.nodes ?? 0) * Math.max(0, launchAt)) / 60;
    const each = i.usdPerNodeHour[r.pool];
    return {
      pool: r.pool,
      capacity: r.capacity,
      startMinutesBefore: round1(Math.max(0, launchAt)),
      reservedInstanceHoursBeforeLaunch: round1(hours),
      ...(each !== undefined ? { usd: Math.round(hours * each) } : {}),
    };
  });
  return {
    gpuIdleMinutes,
    basis,
    nodesWaitForImage: i.nodesWaitForImage,
    ...(i.imageMinutes !== undefined ? { imageMinutes: i.imageMinutes } : {}),
    ...(i.gpuNodesMinutes !== undefined ? { gpuNodesMinutes: i.gpuNodesMinutes } : {}),
    downloadOverlapsPull: i.overlap.overlaps,
    overlapWhy: i.overlap.why,
    timeline: steps,
    fleet,
    reservations,
  };
}

const mmss = (s: number) => `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;

/** How the GPU nodes come up relative to the image build. */
function orderLines(g: GpuIdlePlan, imageBuild: boolean): string[] {
  if (!imageBuild)
    return [
      `The stack deploys a prebuilt image (\`${g.fleet.image.name}\`, from ${g.fleet.image.registry}): nothing is built; the GPU node groups come up with the cluster.`,
    ];
  if (g.nodesWaitForImage)
    return [
      `The GPU node groups depend on the image build (\`EfaCluster\` arg \`gpuNodesDependOn\`): the image is pushed at ~${Math.round(g.imageMinutes ?? 0)} min, then the GPU nodes are created and join at ~${Math.round(g.gpuNodesMinutes ?? 0)} min, so no GPU is billed during the build. The VPC, control plane, system nodes, platform and observability still come up in parallel with the build.`,
    ];
  return [
    `The GPU node groups do **not** wait for the image build: they join at ~${Math.round(g.gpuNodesMinutes ?? 0)} min and idle until the image is pushed at ~${Math.round(g.imageMinutes ?? 0)} min.`,
  ];
}

/** Capacity Block / ODCR lines. */
function reservationLines(g: GpuIdlePlan): string[] {
  return g.reservations.flatMap((r) => [
    `- Pool \`${r.pool}\` is on ${r.capacity === "capacity-block" ? "a Capacity Block" : "an On-Demand Capacity Reservation"}, billed from its start whether or not nodes run: start \`pulumi up\` **~${Math.round(r.startMinutesBefore)} min before the reservation starts**, so the image build finishes and the node group asks for instances as it opens. Started at the opening instead, the build runs inside the reservation: ~${r.reservedInstanceHoursBeforeLaunch} instance-hours${r.usd !== undefined ? ` (~$${r.usd} at this plan's price for the pool)` : ""} pass before the nodes launch. A prebuilt \`image.ref\` shortens this to the cluster's own creation.`,
  ]);
}

/** The `plan.md` lines of the section. */
export function gpuIdleMarkdown(
  g: GpuIdlePlan | undefined,
  imageBuild: boolean,
  table: (head: string[], rows: (string | number)[][]) => string,
): string[] {
  if (!g) return [];
  const a = PULL_ASSUMPTIONS;
  const f = g.fleet;
  return [
    `## GPU idle time on a first deploy: ~${g.gpuIdleMinutes} min per node`,
    "",
    ...orderLines(g, imageBuild),
    "",
    `Each GPU node is then idle from joining until its first worker starts loading the model: **~${g.gpuIdleMinutes} min** (\`plan.json\` \`gpuIdleMinutes\`; ${g.basis}). The weights download ${g.downloadOverlapsPull ? "runs **during** the image pull" : "runs **after** the image pull"}: ${g.overlapWhy}.`,
    "",
    table(
      ["step", "after node join (m:ss)", "basis"],
      g.timeline.map((s) => [s.step, mmss(s.atSeconds), s.basis]),
    ),
    "",
    `- Fleet: ${f.nodes} node${f.nodes === 1 ? "" : "s"} pull ${f.image.name} (${f.image.size}) at once, ${f.totalGB} GB from ${f.image.registry} per deploy, through the NAT gateway of the pool's AZ (no VPC endpoints are created): ${f.note}. Per-node throughput, not the registry, is the bound assumed here.`,
    ...reservationLines(g),
    `- Estimated, not measured: image pull ${a.pullMBps} MB/s per node (AWS ML blog: "15–20 GB can take 4–6 minutes per instance", from ECR; assumed the same from nvcr.io), small-image pull ${a.smallImagePullSeconds} s, NAT gateway ${a.natGatewayBaselineGbps} Gbps scaling to ${a.natGatewayMaxGbps} Gbps (Amazon VPC user guide); the kubelet pulls in parallel (\`serializeImagePulls: false\` in the EKS AMI, tests/contracts/facts/eks-node-image-pull.json). Not used: SOCI. The AMI ships the SOCI snapshotter but configures only its parallel pull mode (no lazy loading), behind nodeadm's experimental \`FastImagePull\` gate, off by default; turning it on would shorten the image-pull step (tools/render/plan/idle.ts).`,
    "",
  ];
}
