/**
 * Policies on what an image is and where it is kept: what runs is pinned by digest and what the stack
 * builds carries a real tag (F5), and the registry scans on push and keeps tags immutable. The CUDA
 * arch checks (F10) live in `image-archs.ts`.
 */
import { resourcePolicy } from "./_policy";
import { containers, graphServices } from "./_predicates";
import { isUnknownValue, rawProps } from "./_unknowns";
import { show } from "../../components/_shared/problems";
import { ResourceType } from "./_resources";

const DIGEST = /@sha256:[0-9a-f]{64}$/;

/** 9. Images that run are pinned by digest; images we build carry real tags. */
export const imagePinnedByDigest = resourcePolicy({
  name: "image-pinned-by-digest",
  description:
    "Graph services run images pinned by digest, and images built by the stack are tagged with a real (non-latest) tag.",
  types: [ResourceType.Dgd, ResourceType.Image],
  defaults: {},
  check: (r, args, report) => {
    if (r.type === ResourceType.Image) {
      const raw = rawProps(r.props);
      const tags: readonly unknown[] = Array.isArray(raw?.tags) ? raw.tags : [];
      for (const t of tags.filter((t): t is string => typeof t === "string" && !isUnknownValue(t))) {
        const tag = /:([^/:]+)$/.exec(t)?.[1];
        if (tag === undefined || tag === "latest")
          report(
            `image ${show(args.name)} is tagged ${show(t)}, which moves on every push (F5); tag it with a content-derived tag and deploy its digest-pinned ref`,
          );
      }
      const ref = raw?.ref;
      if (typeof ref === "string" && !isUnknownValue(ref) && !DIGEST.test(ref))
        report(
          `image ${show(args.name)} has ref ${show(ref)}, which is not pinned by digest (F5); push it and use <repo>@sha256:<digest>`,
        );
      return;
    }
    for (const s of graphServices(rawProps(r.props), args.name)) {
      for (const c of containers(s.svc)) {
        const img = c?.image;
        if (img === undefined || isUnknownValue(img)) continue; // unset (operator default) or not known until the build runs
        if (typeof img !== "string" || !DIGEST.test(img)) {
          report(
            `${s.label} runs image ${show(img)}${c?.name ? ` in container ${show(c.name)}` : ""}, which is not pinned by digest, so a re-push changes what runs without a deploy (F5); use <repo>@sha256:<digest> (the DynamoImage ref output)`,
          );
        }
      }
    }
  },
});

/** 15. ECR repositories scan on push and keep tags immutable (build-cache repositories excepted). */
export const ecrScanAndImmutable = resourcePolicy({
  name: "ecr-scan-and-immutable",
  description:
    "ECR repositories scan images on push and have immutable tags; only a build-cache repository may keep mutable tags.",
  types: [ResourceType.EcrRepository],
  defaults: { mutableAllowedPattern: "(^|[-_/])(build-?)?cache$" },
  schema: { properties: { mutableAllowedPattern: { type: "string", default: "(^|[-_/])(build-?)?cache$" } } },
  check: ({ props }, args, report, cfg) => {
    const raw = rawProps(props);
    const name = typeof raw?.name === "string" && !isUnknownValue(raw.name) ? raw.name : args.name;
    const isCache =
      new RegExp(cfg.mutableAllowedPattern).test(name) || new RegExp(cfg.mutableAllowedPattern).test(args.name);
    if (!isCache && raw?.imageScanningConfiguration?.scanOnPush !== true) {
      report(
        `ECR repository ${show(name)} does not scan images on push (imageScanningConfiguration.scanOnPush is ${show(raw?.imageScanningConfiguration?.scanOnPush)}); set imageScanningConfiguration: { scanOnPush: true }`,
      );
    }
    const mut = raw?.imageTagMutability;
    if (!isCache && mut !== "IMMUTABLE" && mut !== "IMMUTABLE_WITH_EXCLUSION") {
      report(
        `ECR repository ${show(name)} has mutable tags (imageTagMutability ${show(mut ?? "MUTABLE")}), so a pushed tag can be replaced under a running deployment (F5); set imageTagMutability: "IMMUTABLE" and keep the build cache in its own repository`,
      );
    }
  },
});

/** Policies of this module, in pack order. */
export const imagePolicies = [imagePinnedByDigest, ecrScanAndImmutable];
