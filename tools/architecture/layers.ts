/**
 * The import directions between the repository's folders, as data: tests/unit/layering.spec.ts enforces them on
 * every import, and docs/ARCHITECTURE.md's "Import rules" table is generated from them
 * (tools/architecture/architecture.ts), so the rule and its description are one.
 */

/**
 * Folder -> the folders (ending in `/`) or modules (no extension) it may import from. Packages from
 * node_modules are always allowed.
 */
export const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  components: ["components/"],
  program: ["components/", "program/"],
  policy: ["components/", "policy/"],
  serving: ["components/", "serving/"],
  tools: ["components/", "program/", "policy/", "serving/", "tools/"],
};

/** The base of components/: what the catalog and every component folder may import besides itself. */
export const BASE = ["components/_shared/", "components/versions", "components/releases/"];
export const CATALOG = "components/catalog/";
/** The component folders (one Pulumi component each). */
export const COMPONENT_FOLDERS = ["cluster", "image", "inference", "observability", "platform"];

/**
 * The only imports from one component folder into another's files, each of a constant that must be the same in
 * both (a copy could drift). Anything else a component needs from another crosses as plain data in its args
 * (`DisaggInference` takes `GpuPoolFacts`, not an `EfaCluster`).
 */
export const CROSS_COMPONENT: readonly { from: string; to: string; why: string }[] = [
  {
    from: "components/observability/",
    to: "components/cluster/render",
    why: "the DCGM exporter tolerates the GPU taint EfaCluster puts on GPU nodes (gpuToleration), and Prometheus and Grafana claim the block StorageClass it creates (BLOCK_STORAGE_CLASS)",
  },
  {
    from: "components/inference/limits.ts",
    to: "components/cluster/limits",
    why: "the replica bound is the GPUs of the largest pool EfaCluster makes (CLUSTER_LIMITS.nodes.max GPU nodes)",
  },
  {
    from: "components/inference/inference.ts",
    to: "components/image/image-digest",
    why: "the release's Frontend image is resolved to a digest and kept in state the way DynamoImage resolves the vendor runtime images: one ImageDigest resource",
  },
  {
    from: "components/inference/inference.ts",
    to: "components/image/ref",
    why: "a Frontend image the release pins by digest becomes repository@digest by the one reference helper DynamoImage uses",
  },
  {
    from: "components/inference/validate.ts",
    to: "components/image/ref",
    why: "the prefetch image and the serving image are references a registry must pull: one parser (distribution/reference's grammar) for DynamoImage.ref and DisaggInference's images",
  },
];
