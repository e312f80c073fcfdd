/**
 * Policies on a launch template's own fields (instance metadata, tag specifications): each is decided
 * by one resource, unlike the stack-wide EFA network checks in `efa-network.ts`.
 */
import { resourcePolicy } from "./_policy";
import { isUnknownValue, rawProps } from "./_unknowns";
import { LaunchTemplateProps, ResourceType } from "./_resources";
import { show } from "../../components/_shared/problems";

/** 14. Launch templates require IMDSv2. */
export const imdsv2Required = resourcePolicy({
  name: "imdsv2-required",
  description: "Launch templates require IMDSv2 session tokens and keep the metadata hop limit low.",
  types: [ResourceType.LaunchTemplate],
  defaults: { maxHopLimit: 2 },
  check: ({ props }, args, report, cfg) => {
    const m = props?.metadataOptions ?? {};
    if (m.httpTokens !== "required")
      report(
        `launch template ${show(args.name)} does not require IMDSv2 (metadataOptions.httpTokens is ${show(m.httpTokens)}); set metadataOptions: { httpTokens: "required" }`,
      );
    if (typeof m.httpPutResponseHopLimit === "number" && m.httpPutResponseHopLimit > cfg.maxHopLimit) {
      report(
        `launch template ${show(args.name)} sets metadataOptions.httpPutResponseHopLimit ${m.httpPutResponseHopLimit}, letting containers reach instance credentials; set it to ${cfg.maxHopLimit} or less`,
      );
    }
  },
});

/**
 * 21. Launch-template tag specifications carry at least one tag: EC2 rejects an empty one with
 * `InvalidTagSpecification.Malformed` (hashicorp/terraform-provider-aws#13155), failing every launch.
 */
export const launchTemplateTagsNonEmpty = resourcePolicy({
  name: "launch-template-tags-non-empty",
  description:
    "Every tag specification of a launch template carries at least one tag (EC2 rejects an empty one, so no instance launches).",
  types: [ResourceType.LaunchTemplate],
  defaults: {},
  check: ({ props }, args, report) => {
    const specs: unknown = rawProps(props)?.tagSpecifications;
    if (!Array.isArray(specs)) return; // absent (no spec is valid) or unknown in preview
    (specs as NonNullable<LaunchTemplateProps["tagSpecifications"]>).forEach((spec, i) => {
      const tags = spec?.tags;
      if (isUnknownValue(spec) || isUnknownValue(tags)) return;
      const empty = tags === undefined || tags === null || (typeof tags === "object" && Object.keys(tags).length === 0);
      if (empty)
        report(
          `launch template ${show(args.name)} has tagSpecifications[${i}] (resourceType ${show(spec?.resourceType)}) with no tags; EC2 rejects it with InvalidTagSpecification.Malformed and no node launches: give it at least a Name tag, or drop the specification`,
        );
    });
  },
});

/** Policies of this module, in pack order. */
export const launchTemplatePolicies = [imdsv2Required, launchTemplateTagsNonEmpty];
