/**
 * `dynamo-efa/components/releases`: the supported releases as data (`seed`, `dynamo-1.6`), one module each, the
 * registry the stack key `release` selects from, and the upgrade path between them. See docs/RELEASES.md.
 */
export * from "./types";
export { DEFAULT_RELEASE, isReleaseId, release, releaseProblems, RELEASES } from "./registry";
export { NIXL_0_10_1_EFA, NIXL_FI_MORE_DEADLOCK, PARTIAL_EFA_PCIE } from "./known-issues";
export { COMMON_FLOWS, DNS_PORT, HTTPS_PORT, NATS_PORT } from "./flows";
export { OPERATOR_PATH, operatorVersionOf, upgradePath, upgradeProblems } from "./upgrade";
