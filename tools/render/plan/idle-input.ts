/**
 * Gathers what the GPU idle section (`./idle.ts`) is computed from, out of a render: the captured resource
 * graph (ready times, whether the GPU node groups wait for the image, which pools are reserved), the rendered
 * manifests (whether the download overlaps the pull) and the plan (model load, prices). Pure.
 */
import type { GpuPoolFacts } from "../../../components/catalog/pool";
import { IMAGE_COSTS, planned, sizeText } from "../../../components/catalog/images";
import type { ImagePlan } from "../../../components/image/plan";
import { gpuNodeGroups, gpuNodesReadyMinutes, gpuNodesWaitForImage, imageVsGpuNodes } from "./build-order";
import type { GraphNode } from "./graph";
import type { Plan } from "./plan";
import { downloadOverlap, GpuIdlePlan, gpuIdlePlan, type ServingImage } from "./idle";

type Reserved = { pool: string; capacity: "capacity-block" | "odcr" };

/** Pools on a Capacity Block or an ODCR, read from their node groups and launch templates. */
export function reservedPools(nodes: readonly GraphNode[], gpuTypes: readonly string[]): Reserved[] {
  const byUrn = new Map(nodes.map((n) => [n.urn, n]));
  return gpuNodeGroups(nodes, gpuTypes).flatMap((ng): Reserved[] => {
    const pool = String((ng.inputs?.tags as Record<string, string> | undefined)?.["dynamo-efa/pool"] ?? ng.name);
    if (ng.inputs?.capacityType === "CAPACITY_BLOCK") return [{ pool, capacity: "capacity-block" }];
    const lt = ng.dependsOn.map((u) => byUrn.get(u)).find((n) => n?.type === "aws:ec2/launchTemplate:LaunchTemplate");
    return lt?.inputs?.capacityReservationSpecification ? [{ pool, capacity: "odcr" }] : [];
  });
}

/** The registry host of an image reference (`nvcr.io/nvidia/x@sha256:...` -> `nvcr.io`). */
const registryOf = (ref: string): string => ref.split("/")[0]!;

/**
 * The image the workers pull, from the image component's plan: a vendor image from its registry at the vendor
 * image's size; a built image (combined or from source) from the stack's ECR repository at its source's size; a
 * user's `image.ref` from its registry, sized as a vendor runtime image (its own size is not known here).
 */
export function servingImage(p: ImagePlan | undefined): ServingImage {
  const cost = p?.estimate.cost ?? IMAGE_COSTS.prebuilt;
  const sized = { sizeGB: planned(cost.sizeGB), size: `about ${sizeText(cost.sizeGB)}, ${cost.what}` };
  if (p?.kind === "prebuilt") {
    const name = p.resolve ? `${p.resolve.repository}:${p.resolve.tag}` : (p.ref ?? "the image");
    const user = p.backend === undefined;
    return {
      name,
      registry: registryOf(p.resolve?.repository ?? p.ref ?? ""),
      ...sized,
      ...(user ? { size: `assumed ${sized.size}: the size of image.ref is not known here` } : {}),
    };
  }
  return { name: "the stack's built image", registry: "the stack's ECR repository", ...sized };
}

/** The section of one render. */
export function idleOf(
  plan: Plan,
  nodes: readonly GraphNode[],
  pools: readonly GpuPoolFacts[],
  image: { readonly build: boolean; readonly plan?: ImagePlan },
): GpuIdlePlan {
  const imageBuild = image.build;
  const gpuTypes = pools.map((p) => p.instanceType);
  const order = imageVsGpuNodes(nodes, gpuTypes);
  const gpuNodesMinutes = order?.gpuNodesMinutes ?? gpuNodesReadyMinutes(nodes, gpuTypes);
  const each = (name: string) =>
    plan.cost.lines.find((l) => l.item === `GPU pool ${name}`)?.usdPerHourEach ?? undefined;
  return gpuIdlePlan({
    pools,
    ...(plan.modelLoad ? { modelLoad: plan.modelLoad } : {}),
    overlap: downloadOverlap(nodes),
    servingImage: servingImage(image.plan),
    imageBuild,
    nodesWaitForImage: gpuNodesWaitForImage(nodes, gpuTypes),
    ...(order ? { imageMinutes: order.imageMinutes } : {}),
    ...(gpuNodesMinutes !== undefined ? { gpuNodesMinutes } : {}),
    reserved: reservedPools(nodes, gpuTypes),
    usdPerNodeHour: Object.fromEntries(pools.map((p) => [p.name, each(p.name)])),
  });
}
