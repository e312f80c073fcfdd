/**
 * The CrossGuard entry point: `pulumi preview --policy-pack policy`. Only assembles the pack
 * (constructing it starts the policy gRPC server); the policies live in `./policies.ts`.
 * Enforcement levels are overridable per policy with `--policy-pack-config` (`{ "all": ..., "<policy>": ... }`).
 */
import { PolicyPack } from "@pulumi/policy";
import { allPolicies } from "./policies";

new PolicyPack("dynamo-efa", {
  policies: allPolicies,
  enforcementLevel: "mandatory",
  description: "Makes the field failures of hand-written Dynamo-on-EFA deployments (F1-F14) impossible to ship.",
});
