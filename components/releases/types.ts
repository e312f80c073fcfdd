/**
 * A release: every pin one supported Dynamo release deploys, each with where it was read, and the facts that differ
 * between releases (graph API, chart values, engine flags, known issues). Pure data types; no Pulumi.
 * docs/RELEASES.md says how to choose one and how to move a stack between them.
 */

/** Identifiers of the supported releases (the stack key `release`). */
export const ReleaseId = { Dynamo16: "dynamo-1.6", Seed: "seed" } as const;
export type ReleaseId = (typeof ReleaseId)[keyof typeof ReleaseId];

/** A version with where it was read (repo@commit:path:line, or a doc URL and what it says). */
export interface Pin {
  readonly version: string;
  /** Where the value was read; "[verify]" marks a value only one source gives. */
  readonly source: string;
}

/** A container image: repository and tag, and its digest where a readable source gives one. */
export interface ImagePin {
  /** Repository without tag or digest (`nvcr.io/nvidia/ai-dynamo/vllm-runtime`). */
  readonly repository: string;
  readonly tag: string;
  /**
   * `sha256:<64 hex>` where a readable source gives it. Absent: no source here gives it, so the tag is resolved to a
   * digest at `pulumi up` and that digest is deployed, never the moving tag.
   */
  readonly digest?: string;
  readonly source: string;
  /**
   * The SM archs the vendor states its image runs on (its prebuilt kernels), with where that is written; what the
   * plan and the arch policies read for an image nothing compiled here. @default - none stated
   */
  readonly cudaArchs?: { readonly archs: readonly string[]; readonly source: string };
  /**
   * The CUDA toolkit the vendor built the image with, and where that is written: what the plan states and the arch
   * lists are read against for an image nothing compiled here (not the engine's `cuda`, which for a release that
   * builds from source is the build's). @default - none stated: the image component's `cudaToolkit`
   */
  readonly cudaToolkit?: Pin;
  /**
   * The AIPerf the image ships on its PATH, and where that is read: `measure` runs its benchmark Job on such an
   * image, so nothing is built. @default - none: the image carries no benchmark tooling
   */
  readonly aiperf?: Pin;
}

/** The engine a backend runs and the NIXL it carries, as one release pins them (they differ per backend). */
export interface EnginePins {
  /** vLLM or TensorRT-LLM version. */
  readonly engine: Pin;
  /** NIXL version inside that backend's runtime image (or build). */
  readonly nixl: Pin;
  /** CUDA toolkit of that backend's runtime image (or of the build). */
  readonly cuda: Pin;
  /** The vendor's per-backend runtime image with EFA (the `prebuilt` image source), if the release has one. */
  readonly vendorImage?: ImagePin;
}

/** DynamoGraphDeployment API versions this package renders. */
export const GraphApiVersion = { V1alpha1: "nvidia.com/v1alpha1", V1beta1: "nvidia.com/v1beta1" } as const;
export type GraphApiVersion = (typeof GraphApiVersion)[keyof typeof GraphApiVersion];

/** How a release's graph is written and checked. */
export interface GraphFacts {
  readonly apiVersion: GraphApiVersion;
  /** The contract fact holding this release's CRD schema (tests/contracts/facts/<name>.json). */
  readonly crdFact: string;
  /**
   * The operator's admission needs `spec.components[i].runtimeVersionOverride` (a bare version such as `1.6.2`) when a
   * component's image is given by digest or a non-semver tag (Dynamo 1.5.0+, #10494). Absent: no such rule.
   */
  readonly runtimeVersionOverride?: Pin;
  readonly source: string;
}

/** The operator chart and what its values must say for this release. */
export interface PlatformFacts {
  /** `dynamo-platform` chart version (its NGC tarball). */
  readonly chart: Pin;
  /** Whether the chart installs NATS unless told otherwise (true up to 1.3.x; false from 1.4.0, #11951). */
  readonly natsInstalledByDefault: boolean;
  /**
   * Whether the platform this package installs runs NATS, and so whether graphs may reach it (NetworkPolicy egress
   * to TCP 4222). Only where the release's planes need it: NATS is the chart's default event plane up to 1.3.x; from
   * 1.4.0 the request and event planes default to TCP and ZMQ and NATS is optional.
   */
  readonly nats: boolean;
  /** The chart's values this package sets for the release. */
  readonly values: Readonly<Record<string, unknown>>;
  /** Contract fact holding the chart's value keys (tests/contracts/facts/<name>.json). */
  readonly valuesFact: string;
}

/**
 * `dynamo-platform` values every release sets: the operator runs cluster-wide (`namespaceRestriction.enabled: false`,
 * the chart's default, pinned because the graphs live in other namespaces than the operator and a
 * namespace-restricted operator would never reconcile them). Everything else keeps the chart's defaults (discovery
 * through the Kubernetes API). Source: ai-dynamo/dynamo `deploy/helm/charts/platform/values.yaml`.
 */
export const CLUSTER_WIDE_OPERATOR = { "dynamo-operator": { namespaceRestriction: { enabled: false } } } as const;

/** A defect a release is known to carry, and what to do about it; a policy rule reads it. */
export interface KnownIssue {
  /** Stable id the policy and docs cite (`nixl-0.10.1-efa`). */
  readonly id: string;
  readonly summary: string;
  /** What the user does: the fix text a policy prints. */
  readonly fix: string;
  readonly source: string;
}

/** One supported release: every pin and every fact that differs between releases. */
export interface Release {
  readonly id: ReleaseId;
  /** One line for the plan and docs. */
  readonly title: string;
  /** Dynamo runtime version (a release, or the seed's commit; `commit` where known). */
  readonly dynamo: Pin & { readonly commit?: string };
  readonly platform: PlatformFacts;
  readonly graph: GraphFacts;
  readonly engines: { readonly vllm: EnginePins; readonly trtllm: EnginePins };
  /**
   * The Frontend's image where the vendor ships one apart from the runtime images; with `aiperf`, also the image
   * `measure`'s benchmark Job runs.
   */
  readonly frontendImage?: ImagePin;
  readonly ucx: Pin;
  readonly libfabric: Pin;
  readonly efaInstaller: Pin;
  readonly knownIssues: readonly KnownIssue[];
}
