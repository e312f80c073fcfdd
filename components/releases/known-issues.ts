/**
 * Known defects a release carries, as data: each release lists the ones that apply to it, and a policy rule
 * (policy/rules/known-issues.ts) refuses or advises with the fix. Sources are the vendors' known-issues pages and the
 * engines' own code. Pure data.
 */
import { KnownIssue } from "./types";

/** Dynamo's known-issues page (ai-dynamo/dynamo docs/fern/pages/reference/general/releases/known-issues.mdx). */
const KNOWN_ISSUES_PAGE = "ai-dynamo/dynamo@2ff968ff:docs/fern/pages/reference/general/releases/known-issues.mdx";

/** NIXL 0.10.1's LIBFABRIC backend lacks two EFA fixes that NVIDIA lists as Dynamo known issues (fixed in NIXL 1.1.0). */
export const NIXL_0_10_1_EFA: KnownIssue = {
  id: "nixl-0.10.1-efa",
  summary:
    "NIXL 0.10.1 on EFA: concurrent I/O can crash the worker (no endpoint lock, nixl#1457) and reposted transfers can " +
    "corrupt the KV cache (notification override, nixl#1433); both fixed in NIXL 1.1.0",
  fix:
    "use release dynamo-1.6 (NIXL 1.4.1 for vLLM, 1.3.1 for TensorRT-LLM), or keep one request in flight per worker " +
    "pair and accept the risk in policy config",
  source: `${KNOWN_ISSUES_PAGE} (v1.1.0: "Missing EFA Fixes"); ai-dynamo/nixl PRs #1457, #1433 (first tag 1.1.0)`,
};

/** NIXL's FI_MORE batching (#1626, NIXL 1.2.0+) can deadlock small write-based transfers on EFA; nixl#1862 is open. */
export const NIXL_FI_MORE_DEADLOCK: KnownIssue = {
  id: "nixl-fi-more-deadlock",
  summary:
    "NIXL >= 1.2.0 batches LIBFABRIC posts with FI_MORE (nixl#1626); small write-based transfers can hang on EFA " +
    "(nixl#1862, open; Dynamo 1.3.0 known issue: H100/P5 remain affected pending an AWS EFA release). NIXL 1.4.0's " +
    "per-rail flush (#1966) is a fix attempt, not a confirmed fix",
  fix:
    "watch decode for transfers that never complete (verify gate G, nixl_num_failed_transfers); on p5 prefer " +
    "release seed's NIXL 0.10.1 only with its own defects in mind; no configuration switch disables FI_MORE",
  source: `${KNOWN_ISSUES_PAGE} (v1.3.0: FI_MORE multi-rail deadlock on EFA); ai-dynamo/nixl#1862, PRs #1626 (1.2.0), #1966 (1.4.0)`,
};

/**
 * Workers given part of a node's EFA devices through the EFA device plugin may get devices on another PCIe switch
 * than their GPUs, and disaggregated KV transfer fails (Dynamo 1.3.1). AWS documents the plugin's GPU-EFA alignment as
 * automatic on the EKS AL2023 accelerated AMIs only (the AMI of every pool here) by a mechanism it does not publish
 * (tests/contracts/facts/eks-device-management.json, efa-device-plugin.json), so which of the two holds on a node
 * only the node can tell. Under `cluster.deviceAllocation: dra` the claim pairs them by construction and the issue
 * does not apply (policy/rules/known-issues.ts).
 */
export const PARTIAL_EFA_PCIE: KnownIssue = {
  id: "partial-efa-pcie-switch",
  summary:
    "a worker given fewer than all EFA devices of a node by the EFA device plugin may get devices on another PCIe " +
    "switch than its GPUs; KV transfer then fails (empty HTTP 200, 'Lost connection with prefill instance'). AWS " +
    "documents the plugin's GPU-EFA alignment on the EKS AL2023 accelerated AMIs (these pools' AMI) by a mechanism " +
    "it does not publish, so only the node can tell which holds",
  fix:
    "set cluster.deviceAllocation: dra (Kubernetes >= 1.34): each worker claims every GPU together with that GPU's " +
    "EFA devices on one PCIe root; or give each worker all of a node's EFA devices (one worker per node); and run " +
    "verify --check-locality after deploy",
  source:
    `${KNOWN_ISSUES_PAGE} (v1.3.1: partial EFA allocation, fix "EFA DRA with NVIDIA DRA (pcieRoot match)"); ` +
    "awsdocs/amazon-eks-user-guide@43d79bd latest/ug/ml/device-management-efa.adoc",
};
