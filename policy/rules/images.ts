/**
 * Policies on images: what runs is pinned by digest (F5), the image's CUDA arch list is valid for
 * its toolkit and covers every GPU the fleet runs (F10), and the registry scans and keeps tags.
 */
import type { PolicyResource, ReportViolation, StackValidationPolicy } from "@pulumi/policy";
import {
  ArchTarget,
  archCovers,
  CudaToolkit,
  DEFAULT_CUDA_TOOLKIT,
  fatArchs,
  formatArch,
  NGC_PYTORCH_TORCH,
  parseArchList,
  parseCudaToolkit,
  torchArchProblems,
} from "../../components/catalog/cuda";
import { image as imageVersions } from "../../components/versions";
import { INSTANCES } from "../../components/catalog/instances";
import { resourcePolicy, schemaFor } from "./_policy";
import {
  annotation,
  containers,
  dgdName,
  graphServices,
  instanceTypeOf,
  isUnknownValue,
  ofType,
  PlanAnnotation,
  q,
  rawProps,
  ResourceType,
  transitiveDependencies,
  workers,
} from "./_predicates";

const DIGEST = /@sha256:[0-9a-f]{64}$/;

/** Build-arg names of the image's CUDA settings (the image component's contract). */
const ARCH_ARGS = {
  toolkit: "CUDA_VERSION",
  torch: "TORCH_CUDA_ARCH_LIST",
  nvcc: "NVCC_GENCODE",
  flashinfer: "FLASHINFER_CUDA_ARCH_LIST",
  epKernels: "EP_KERNELS_CUDA_ARCH_LIST",
  flashinferAot: "FLASHINFER_AOT",
  pytorchTag: "PYTORCH_IMAGE_TAG",
};

/** 9. Images that run are pinned by digest; images we build carry real tags. */
export const imagePinnedByDigest = resourcePolicy({
  name: "image-pinned-by-digest",
  description:
    "Graph services run images pinned by digest, and images built by the stack are tagged with a real (non-latest) tag.",
  types: [ResourceType.Dgd, ResourceType.Image],
  defaults: {},
  check: (props, args, report) => {
    const raw = rawProps(props);
    if (args.type === ResourceType.Image) {
      const tags: unknown[] = Array.isArray(raw?.tags) ? raw.tags : [];
      for (const t of tags.filter((t): t is string => typeof t === "string" && !isUnknownValue(t))) {
        const tag = /:([^/:]+)$/.exec(t)?.[1];
        if (tag === undefined || tag === "latest")
          report(
            `image ${q(args.name)} is tagged ${q(t)}, which moves on every push (F5); tag it with a content-derived tag and deploy its digest-pinned ref`,
          );
      }
      const ref = raw?.ref;
      if (typeof ref === "string" && !isUnknownValue(ref) && !DIGEST.test(ref))
        report(
          `image ${q(args.name)} has ref ${q(ref)}, which is not pinned by digest (F5); push it and use <repo>@sha256:<digest>`,
        );
      return;
    }
    for (const s of graphServices(raw, args.name)) {
      for (const c of containers(s.svc)) {
        const img = c?.image;
        if (img === undefined || isUnknownValue(img)) continue; // unset (operator default) or not known until the build runs
        if (typeof img !== "string" || !DIGEST.test(img)) {
          report(
            `${s.label} runs image ${q(img)}${c?.name ? ` in container ${q(c.name)}` : ""}, which is not pinned by digest, so a re-push changes what runs without a deploy (F5); use <repo>@sha256:<digest> (the DynamoImage ref output)`,
          );
        }
      }
    }
  },
});

/** Arch tokens in an `NVCC_GENCODE` string: the `code=` targets (`sm_90`, `compute_90`). */
export function gencodeTokens(gencode: string): string[] {
  const out: string[] = [];
  for (const m of gencode.matchAll(/(?:^|[,\s])code=\[?([A-Za-z0-9_,]+)\]?/g))
    out.push(...m[1].split(",").filter((t) => t !== ""));
  return out;
}

/**
 * One arch list an image states: where it comes from, its text, its parse (or the problems), and whether it decides
 * which GPUs the image runs on (`covers`): the EP kernels are Hopper+ only by design (an optional feature, not the
 * image's reach), and the FlashInfer list only matters for an ahead-of-time build (FLASHINFER_AOT=1).
 */
interface StatedArchs {
  readonly source: string;
  readonly text: string;
  readonly toolkit: CudaToolkit;
  readonly list?: ArchTarget[];
  readonly problems: string[];
  readonly covers: boolean;
}

function parseStated(source: string, text: string, tokens: string[], toolkit: CudaToolkit, covers = true): StatedArchs {
  const list = parseArchList(tokens, toolkit, source);
  if (list.ok) return { source, text, toolkit, list: list.value, problems: [], covers };
  return { source, text, toolkit, problems: list.problems.map((p) => p.reason), covers };
}

/** The toolkit an image states (build arg or annotation), or the problem with it. */
function statedToolkit(value: unknown, source: string): { toolkit: CudaToolkit } | { problem: string } {
  if (value === undefined || isUnknownValue(value)) return { toolkit: DEFAULT_CUDA_TOOLKIT };
  const toolkit = parseCudaToolkit(value, source);
  return toolkit.ok ? { toolkit: toolkit.value } : { problem: toolkit.problems.map((p) => p.reason).join("; ") };
}

/** Arch lists stated by a docker-build Image's build args (none stated = the Dockerfile's fat default). */
export function imageArchs(raw: any): { toolkit?: CudaToolkit; toolkitProblem?: string; lists: StatedArchs[] } {
  const ba = raw?.buildArgs ?? {};
  const tk = statedToolkit(ba[ARCH_ARGS.toolkit], `buildArgs.${ARCH_ARGS.toolkit}`);
  if ("problem" in tk) return { toolkitProblem: tk.problem, lists: [] };
  const lists: StatedArchs[] = [];
  const add = (arg: string, split: (s: string) => string[], covers = true) => {
    const v = ba[arg];
    if (typeof v === "string" && !isUnknownValue(v) && v.trim() !== "")
      lists.push(parseStated(`buildArgs.${arg}`, v, split(v), tk.toolkit, covers));
  };
  const semi = (s: string) => s.split(/[;\s]+/).filter((t) => t !== "");
  add(ARCH_ARGS.torch, semi);
  add(ARCH_ARGS.nvcc, gencodeTokens);
  add(ARCH_ARGS.flashinfer, (s) => s.split(/\s+/).filter((t) => t !== ""), ba[ARCH_ARGS.flashinferAot] === "1");
  add(ARCH_ARGS.epKernels, semi, false);
  if (!lists.some((l) => l.covers))
    lists.push({
      source: "the Dockerfile's default (fat)",
      text: "fat",
      toolkit: tk.toolkit,
      list: fatArchs(tk.toolkit),
      problems: [],
      covers: true,
    });
  return { toolkit: tk.toolkit, lists };
}

/** The arch list a DGD states through its annotations, if any. */
export function graphArchs(raw: any): { toolkitProblem?: string; stated?: StatedArchs } {
  const text = annotation(raw, PlanAnnotation.ImageCudaArchs);
  const tk = statedToolkit(
    annotation(raw, PlanAnnotation.ImageCudaToolkit),
    `annotation ${PlanAnnotation.ImageCudaToolkit}`,
  );
  if ("problem" in tk) return { toolkitProblem: tk.problem };
  if (text === undefined) return {};
  return {
    stated: parseStated(
      `annotation ${PlanAnnotation.ImageCudaArchs}`,
      text,
      text.split(/[\s,;]+/).filter((t) => t !== ""),
      tk.toolkit,
    ),
  };
}

function reportProblems(subject: string, stated: readonly StatedArchs[], report: ReportViolation): void {
  for (const s of stated) {
    for (const p of s.problems)
      report(`${subject}: ${s.source} ${q(s.text)} is not valid for CUDA ${s.toolkit}: ${p} (F10)`);
  }
}

/** Entries of TORCH_CUDA_ARCH_LIST the image's torch (by PYTORCH_IMAGE_TAG) rejects: nvcc accepting is not enough. */
function reportTorchRejects(
  subject: string,
  buildArgs: any,
  lists: readonly StatedArchs[],
  report: ReportViolation,
): void {
  const torchList = lists.find((l) => l.source === `buildArgs.${ARCH_ARGS.torch}`);
  const tag =
    typeof buildArgs[ARCH_ARGS.pytorchTag] === "string" && !isUnknownValue(buildArgs[ARCH_ARGS.pytorchTag])
      ? buildArgs[ARCH_ARGS.pytorchTag]
      : imageVersions.pytorchImageTag;
  const torch = NGC_PYTORCH_TORCH[tag]?.torch;
  if (!torchList?.list || torch === undefined) return;
  for (const p of torchArchProblems(torchList.list, torch, torchList.source))
    report(`${subject}: ${torchList.source} ${q(torchList.text)}: ${p.reason}`);
}

/** 11. Arch tokens are valid for the CUDA toolkit the image compiles with, and for the torch that builds extensions. */
export const imageArchsValidForToolkit = resourcePolicy({
  name: "image-archs-valid-for-toolkit",
  description:
    "Every CUDA arch an image states (build args or graph annotation) is a target its CUDA toolkit's nvcc accepts, and every TORCH_CUDA_ARCH_LIST entry one its torch accepts.",
  types: [ResourceType.Image, ResourceType.Dgd],
  defaults: {},
  check: (props, args, report) => {
    const raw = rawProps(props);
    if (args.type === ResourceType.Image) {
      const a = imageArchs(raw);
      if (a.toolkitProblem) report(`image ${q(args.name)}: buildArgs.${ARCH_ARGS.toolkit}: ${a.toolkitProblem}`);
      reportProblems(`image ${q(args.name)}`, a.lists, report);
      reportTorchRejects(`image ${q(args.name)}`, raw?.buildArgs ?? {}, a.lists, report);
      return;
    }
    const g = graphArchs(raw);
    const subject = `DynamoGraphDeployment ${q(dgdName(raw, args.name))}`;
    if (g.toolkitProblem) report(`${subject}: annotation ${PlanAnnotation.ImageCudaToolkit}: ${g.toolkitProblem}`);
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
    const types = [...(rawProps(ng.props)?.instanceTypes ?? []), ...lts.map((lt) => rawProps(lt.props)?.instanceType)];
    for (const t of types) {
      const row = typeof t === "string" ? INSTANCES.get(t) : undefined;
      if (row) out.push({ sm: row.smArch, where: `${row.name} in node group ${q(ng.name)}` });
    }
  }
  return out;
}

function graphGpus(dgd: PolicyResource): FleetGpu[] {
  const raw = rawProps(dgd.props);
  return workers(raw, dgd.name).flatMap((w) => {
    const row = INSTANCES.get(instanceTypeOf(w.svc) ?? "");
    return row ? [{ sm: row.smArch, where: `${row.name}, service ${q(w.key)}` }] : [];
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
      `${subject} (${stated.source} ${q(stated.text)}: ${stated.list.map(formatArch).join(" ")}) has no kernels for ${g.sm} (${g.where}) and no PTX that can JIT to it (F10); add ${g.sm} to the image's cudaArchs or use "auto"`,
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
      for (const s of imageArchs(rawProps(img.props)).lists.filter((l) => l.covers))
        reportUncovered(`image ${q(img.name)}`, s, fleet, img.urn, report);
    }
    for (const dgd of graphs) {
      const raw = rawProps(dgd.props);
      const subject = `DynamoGraphDeployment ${q(dgdName(raw, dgd.name))}`;
      const own = graphGpus(dgd);
      const g = graphArchs(raw);
      if (g.stated) {
        reportUncovered(subject, g.stated, own.length > 0 ? own : pools, dgd.urn, report);
      } else if (!dependsOnImage(dgd, args.resources)) {
        report(
          `${subject} runs an image not built in this stack and states no CUDA arch list, so nothing proves it runs on ${[...new Set((own.length > 0 ? own : pools).map((x) => x.sm))].join(", ") || "the fleet"} (F10); state the prebuilt image's archs (image.cudaArchs with image.ref), recorded as annotation ${PlanAnnotation.ImageCudaArchs}`,
          dgd.urn,
        );
      }
    }
  },
};

/** 15. ECR repositories scan on push and keep tags immutable (build-cache repositories excepted). */
export const ecrScanAndImmutable = resourcePolicy({
  name: "ecr-scan-and-immutable",
  description:
    "ECR repositories scan images on push and have immutable tags; only a build-cache repository may keep mutable tags.",
  types: [ResourceType.EcrRepository],
  defaults: { mutableAllowedPattern: "(^|[-_/])(build-?)?cache$" },
  schema: { properties: { mutableAllowedPattern: { type: "string", default: "(^|[-_/])(build-?)?cache$" } } },
  check: (props, args, report, cfg) => {
    const raw = rawProps(props);
    const name = typeof raw?.name === "string" && !isUnknownValue(raw.name) ? raw.name : args.name;
    const isCache =
      new RegExp(cfg.mutableAllowedPattern).test(name) || new RegExp(cfg.mutableAllowedPattern).test(args.name);
    if (!isCache && raw?.imageScanningConfiguration?.scanOnPush !== true) {
      report(
        `ECR repository ${q(name)} does not scan images on push (imageScanningConfiguration.scanOnPush is ${q(raw?.imageScanningConfiguration?.scanOnPush)}); set imageScanningConfiguration: { scanOnPush: true }`,
      );
    }
    const mut = raw?.imageTagMutability;
    if (!isCache && mut !== "IMMUTABLE" && mut !== "IMMUTABLE_WITH_EXCLUSION") {
      report(
        `ECR repository ${q(name)} has mutable tags (imageTagMutability ${q(mut ?? "MUTABLE")}), so a pushed tag can be replaced under a running deployment (F5); set imageTagMutability: "IMMUTABLE" and keep the build cache in its own repository`,
      );
    }
  },
});

/** Policies of this module, in pack order. */
export const imagePolicies = [
  imagePinnedByDigest,
  imageArchsCoverFleet,
  imageArchsValidForToolkit,
  ecrScanAndImmutable,
];
