/**
 * Policies on an image's CUDA arch list (F10): every arch it states is valid for its toolkit (and its
 * torch), and the list covers the SM of every GPU the fleet runs. The lists are read by `_image-archs.ts`.
 */
import type { PolicyResource, ReportViolation, StackValidationPolicy } from "@pulumi/policy";
import { formatArch } from "../../components/catalog/cuda";
import { archCovers, NGC_PYTORCH_TORCH, torchArchProblems } from "../../components/catalog/archs";
import { image as imageVersions } from "../../components/versions";
import { INSTANCES } from "../../components/catalog/instances";
import { resourcePolicy, schemaFor } from "./_policy";
import { dgdName, instanceTypeOf, rawPropsOf, workers } from "./_predicates";
import { isUnknownValue, rawProps } from "./_unknowns";
import { ofType, transitiveDependencies } from "./_stack";
import { show } from "../../components/_shared/problems";
import { ResourceType } from "./_resources";
import { ARCH_ARGS, graphArchs, imageArchs, StatedArchs } from "./_image-archs";
import { Annotation } from "../../components/_shared/annotations";

function reportProblems(subject: string, stated: readonly StatedArchs[], report: ReportViolation): void {
  for (const s of stated) {
    for (const p of s.problems)
      report(`${subject}: ${s.source} ${show(s.text)} is not valid for CUDA ${s.toolkit}: ${p} (F10)`);
  }
}

/** Entries of TORCH_CUDA_ARCH_LIST the image's torch (by PYTORCH_IMAGE_TAG) rejects: nvcc accepting is not enough. */
function reportTorchRejects(
  subject: string,
  buildArgs: Readonly<Record<string, unknown>>,
  lists: readonly StatedArchs[],
  report: ReportViolation,
): void {
  const torchList = lists.find((l) => l.source === `buildArgs.${ARCH_ARGS.torch}`);
  const stated = buildArgs[ARCH_ARGS.pytorchTag];
  const tag = typeof stated === "string" && !isUnknownValue(stated) ? stated : imageVersions.pytorchImageTag;
  const torch = NGC_PYTORCH_TORCH[tag]?.torch;
  if (!torchList?.list || torch === undefined) return;
  for (const p of torchArchProblems(torchList.list, torch, torchList.source))
    report(`${subject}: ${torchList.source} ${show(torchList.text)}: ${p.reason}`);
}

/** 11. Arch tokens are valid for the CUDA toolkit the image compiles with, and for the torch that builds extensions. */
export const imageArchsValidForToolkit = resourcePolicy({
  name: "image-archs-valid-for-toolkit",
  description:
    "Every CUDA arch an image states (build args or graph annotation) is a target its CUDA toolkit's nvcc accepts, and every TORCH_CUDA_ARCH_LIST entry one its torch accepts.",
  types: [ResourceType.Image, ResourceType.Dgd],
  defaults: {},
  check: (r, args, report) => {
    if (r.type === ResourceType.Image) {
      const raw = rawProps(r.props);
      const a = imageArchs(raw);
      if (a.toolkitProblem) report(`image ${show(args.name)}: buildArgs.${ARCH_ARGS.toolkit}: ${a.toolkitProblem}`);
      reportProblems(`image ${show(args.name)}`, a.lists, report);
      reportTorchRejects(`image ${show(args.name)}`, raw?.buildArgs ?? {}, a.lists, report);
      return;
    }
    const raw = rawProps(r.props);
    const g = graphArchs(raw);
    const subject = `DynamoGraphDeployment ${show(dgdName(raw, args.name))}`;
    if (g.toolkitProblem) report(`${subject}: annotation ${Annotation.ImageCudaToolkit}: ${g.toolkitProblem}`);
    if (g.stated) reportProblems(subject, [g.stated], report);
  },
});

/** A GPU SM the fleet runs, and where it comes from. */
interface FleetGpu {
  readonly sm: string;
  readonly where: string;
}

function nodeGroupGpus(resources: readonly PolicyResource[]): FleetGpu[] {
  const out: FleetGpu[] = [];
  for (const ng of ofType(resources, ResourceType.NodeGroup)) {
    const lts = [...(ng.propertyDependencies?.launchTemplate ?? []), ...(ng.dependencies ?? [])].filter(
      (d) => d.type === ResourceType.LaunchTemplate,
    );
    const types = [
      ...(rawPropsOf(ng, ResourceType.NodeGroup)?.instanceTypes ?? []),
      ...lts.map((lt) => rawPropsOf(lt, ResourceType.LaunchTemplate)?.instanceType),
    ];
    for (const t of types) {
      const row = typeof t === "string" ? INSTANCES.get(t) : undefined;
      if (row) out.push({ sm: row.smArch, where: `${row.name} in node group ${show(ng.name)}` });
    }
  }
  return out;
}

function graphGpus(dgd: PolicyResource): FleetGpu[] {
  return workers(rawPropsOf(dgd, ResourceType.Dgd), dgd.name).flatMap((w) => {
    const row = INSTANCES.get(instanceTypeOf(w.svc) ?? "");
    return row ? [{ sm: row.smArch, where: `${row.name}, service ${show(w.key)}` }] : [];
  });
}

function reportUncovered(
  subject: string,
  stated: StatedArchs,
  fleet: readonly FleetGpu[],
  urn: string,
  report: ReportViolation,
): void {
  if (!stated.list) return;
  const seen = new Set<string>();
  for (const g of fleet) {
    if (seen.has(g.sm) || archCovers(stated.list, g.sm)) continue;
    seen.add(g.sm);
    report(
      `${subject} (${stated.source} ${show(stated.text)}: ${stated.list.map(formatArch).join(" ")}) has no kernels for ${g.sm} (${g.where}) and no PTX that can JIT to it (F10); add ${g.sm} to the image's cudaArchs or use "auto"`,
      urn,
    );
  }
}

/** Whether `r` depends, transitively, on an image built in the stack (directly or through a component holding one). */
function dependsOnImage(r: PolicyResource, resources: readonly PolicyResource[]): boolean {
  const deps = new Set(transitiveDependencies(r).map((d) => d.urn));
  const under = (x: PolicyResource): boolean => (x.parent ? deps.has(x.parent.urn) || under(x.parent) : false);
  return ofType(resources, ResourceType.Image).some((img) => deps.has(img.urn) || under(img));
}

/** 10. (stack) The image's arch list covers every GPU the fleet runs; a prebuilt ref states its archs. */
export const imageArchsCoverFleet: StackValidationPolicy = {
  name: "image-archs-cover-fleet",
  description:
    "The CUDA arch list of every image covers the SM of every GPU pool it can run on, and a prebuilt image states its arch list.",
  configSchema: schemaFor({}),
  validateStack: (args, report) => {
    const images = ofType(args.resources, ResourceType.Image);
    const graphs = ofType(args.resources, ResourceType.Dgd);
    if (images.length + graphs.length === 0) args.notApplicable("no image and no DynamoGraphDeployment in the stack");
    const pools = nodeGroupGpus(args.resources);
    const fleet = [...pools, ...graphs.flatMap(graphGpus)];
    for (const img of images) {
      for (const s of imageArchs(rawPropsOf(img, ResourceType.Image)).lists.filter((l) => l.covers))
        reportUncovered(`image ${show(img.name)}`, s, fleet, img.urn, report);
    }
    for (const dgd of graphs) {
      const raw = rawPropsOf(dgd, ResourceType.Dgd);
      const subject = `DynamoGraphDeployment ${show(dgdName(raw, dgd.name))}`;
      const own = graphGpus(dgd);
      const g = graphArchs(raw);
      if (g.stated) {
        reportUncovered(subject, g.stated, own.length > 0 ? own : pools, dgd.urn, report);
      } else if (!dependsOnImage(dgd, args.resources)) {
        report(
          `${subject} runs an image not built in this stack and states no CUDA arch list, so nothing proves it runs on ${[...new Set((own.length > 0 ? own : pools).map((x) => x.sm))].join(", ") || "the fleet"} (F10); state the prebuilt image's archs (image.cudaArchs with image.ref), recorded as annotation ${Annotation.ImageCudaArchs}`,
          dgd.urn,
        );
      }
    }
  },
};

/** Policies of this module, in pack order. */
export const imageArchPolicies = [imageArchsCoverFleet, imageArchsValidForToolkit];
