/**
 * The pack's policies, listed explicitly in pack order (docs/CONTRIBUTING.md rule 17). Importable by
 * tests and by the offline `render` tool without starting the policy gRPC server (that happens only
 * in `./index.ts`).
 */
import type { EnforcementLevel, Policies, PolicyPackConfig } from "@pulumi/policy";
import { gpuClusterPolicies } from "./rules/gpu-cluster";
import { efaNetworkPolicies } from "./rules/efa-network";
import { launchTemplatePolicies } from "./rules/launch-template";
import { imagePolicies } from "./rules/images";
import { imageArchPolicies } from "./rules/image-archs";
import { inferencePolicies } from "./rules/inference";
import { kvTransferPolicies } from "./rules/kv-transfer";
import { securityPolicies } from "./rules/security";
import { observabilityPolicies } from "./rules/observability";
import { modelFitPolicies } from "./rules/model-fit";
import { placementPolicies } from "./rules/placement";
import { knownIssuePolicies } from "./rules/known-issues";

const byName = new Map(
  [
    ...kvTransferPolicies,
    ...inferencePolicies,
    ...gpuClusterPolicies,
    ...efaNetworkPolicies,
    ...launchTemplatePolicies,
    ...imagePolicies,
    ...imageArchPolicies,
    ...securityPolicies,
    ...observabilityPolicies,
    ...modelFitPolicies,
    ...placementPolicies,
    ...knownIssuePolicies,
  ].map((p) => [p.name, p] as const),
);

/** Policy names in pack order (the order of policy/README.md's table). */
export const POLICY_NAMES = [
  "nixl-libfabric-on-efa",
  "no-noop-nixl-env",
  "worker-probe-budget",
  "one-graph-per-model",
  "efa-per-worker-matches-pool",
  "hugepages-fit-node",
  "no-host-network-workers",
  "anti-affinity-on-operator-labels",
  "prefill-decode-apart-over-efa",
  "no-idle-gpu-nodes",
  "image-pinned-by-digest",
  "image-archs-cover-fleet",
  "image-archs-valid-for-toolkit",
  "efa-security-group-self-referencing",
  "efa-pool-single-az",
  "imdsv2-required",
  "ecr-scan-and-immutable",
  "eks-secrets-encrypted",
  "eks-endpoint-not-world-open",
  "hf-token-is-secret",
  "privileged-only-for-efa-workers",
  "stateful-resources-retained",
  "launch-template-tags-non-empty",
  "trtllm-libfabric-caveat",
  "monitoring-off-gpu-nodes",
  "model-fits-workers",
  "release-known-issues",
  "prefill-tp-within-decode-tp",
] as const;
export type PolicyName = (typeof POLICY_NAMES)[number];

/** The field failures each policy makes impossible to ship (docs/FIELD-FAILURES.md#coverage); [] = general hardening. */
export const FIELD_FAILURES: Readonly<Record<PolicyName, readonly string[]>> = {
  "nixl-libfabric-on-efa": ["F3"],
  "no-noop-nixl-env": ["F3", "F13"],
  "worker-probe-budget": ["F2"],
  "one-graph-per-model": ["F1"],
  "efa-per-worker-matches-pool": ["F8", "F12", "F13"],
  "hugepages-fit-node": ["F14"],
  "no-host-network-workers": ["F6"],
  "anti-affinity-on-operator-labels": ["F7"],
  "prefill-decode-apart-over-efa": [],
  "no-idle-gpu-nodes": [],
  "image-pinned-by-digest": ["F5"],
  "image-archs-cover-fleet": ["F10"],
  "image-archs-valid-for-toolkit": ["F10"],
  "efa-security-group-self-referencing": [],
  "efa-pool-single-az": [],
  "imdsv2-required": [],
  "ecr-scan-and-immutable": ["F5"],
  "eks-secrets-encrypted": [],
  "eks-endpoint-not-world-open": [],
  "hf-token-is-secret": ["F9"],
  "privileged-only-for-efa-workers": [],
  "stateful-resources-retained": [],
  "launch-template-tags-non-empty": [],
  "trtllm-libfabric-caveat": ["F3"],
  "monitoring-off-gpu-nodes": [],
  "model-fits-workers": [],
  "release-known-issues": [],
  "prefill-tp-within-decode-tp": [],
};

/** Every policy of the pack, in pack order. */
export const allPolicies: Policies = POLICY_NAMES.map((n) => {
  const p = byName.get(n);
  if (!p) throw new Error(`policy ${n} is listed but not defined in policy/rules`);
  return p;
});

/**
 * Pack config in the format of `pulumi preview --policy-pack-config <file>` (AWSGuard style):
 * `all` sets every policy's level; a policy's own key (a level, or `{ enforcementLevel?, ...config }`)
 * overrides it. Example: `{ all: "mandatory", "no-noop-nixl-env": "advisory" }`.
 */
export type PolicyPackConfigJson = {
  readonly [policy: string]:
    | EnforcementLevel
    | ({ readonly enforcementLevel?: EnforcementLevel } & { readonly [key: string]: unknown })
    | undefined;
};

/**
 * The same config as `PolicyPack`'s `initialConfig`, with `all` expanded to every policy (the SDK's
 * initial config has no `all` key). For packs that wrap this one with their own defaults.
 */
export function initialConfig(config: PolicyPackConfigJson): PolicyPackConfig {
  const out: PolicyPackConfig = {};
  const all = typeof config.all === "string" ? config.all : undefined;
  for (const name of POLICY_NAMES) {
    const own = config[name];
    if (typeof own === "string") out[name] = own;
    else if (own)
      out[name] = {
        ...own,
        ...((own.enforcementLevel ?? all) ? { enforcementLevel: own.enforcementLevel ?? all } : {}),
      };
    else if (all) out[name] = all;
  }
  return out;
}
