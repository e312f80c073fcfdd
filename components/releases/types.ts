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

/**
 * One Dynamo setting the render states on a pod instead of leaving it to the release's default (docs/CONTRIBUTING.md
 * rule 21): the env var, its value, why this value, and where the variable and its default were read.
 */
export interface RuntimeSetting {
  readonly name: string;
  readonly value: string;
  readonly why: string;
  readonly source: string;
}

/** Where the Frontend reads the files (config, tokenizer, template) of the model card each worker publishes. */
export const ModelCards = {
  /**
   * Each worker serves its card's files on its system port and publishes `http://<pod>:<port>/v1/metadata/...` URLs
   * (`DYN_SELF_HOST_METADATA` on); the Frontend fetches them from the workers and needs no copy, volume or token.
   */
  SelfHosted: "self-hosted",
  /** Workers publish their own disk paths (self-hosting off); the Frontend needs the same files at the same paths. */
  FrontendCopy: "frontend-copy",
} as const;
export type ModelCards = (typeof ModelCards)[keyof typeof ModelCards];

/** The Frontend's switches that are on by default in a release and off here unless the stack asks for them. */
export interface FrontendSwitches {
  /** The env var that turns the admin API (`GET`/`POST /busy_threshold`) off, with its source. */
  readonly adminApiOff?: RuntimeSetting;
  /**
   * The env var that turns the `nvext` request extension off, and with it the worker-pinning request headers
   * (`x-dynamo-worker-instance-id`, `x-dynamo-prefill-instance-id`, ...).
   */
  readonly nvextOff?: RuntimeSetting;
}

/** How a release's runtime is told to run: every setting that decides whether a deploy answers, stated. */
export interface RuntimeFacts {
  /** The release's decision on model cards, and why. */
  readonly modelCards: { readonly mode: ModelCards; readonly why: string; readonly source: string };
  /** Env every worker states (the planes, discovery, system port, model cards, canary health checks). */
  readonly workerEnv: readonly RuntimeSetting[];
  /** Env the Frontend states (the planes and discovery it must share with the workers). */
  readonly frontendEnv: readonly RuntimeSetting[];
  /** Frontend surfaces the release turns on by default: off here unless the stack's `frontend` asks. */
  readonly frontendSwitches: FrontendSwitches;
  /** The Frontend's `--router-mode` values this package offers for the release, with where they were read. */
  readonly routerModes: { readonly modes: readonly string[]; readonly source: string };
}

/** The ends of a network flow of a graph: its own pods, and what is outside them. */
export const FlowPeer = {
  /** Pods of `networkPolicy.clientNamespaces`, and the internal load balancer's `sourceRanges`. */
  Clients: "clients",
  /** Pods of `networkPolicy.metricsNamespaces` (a Prometheus). */
  Metrics: "metrics",
  /** The Dynamo operator (the platform namespace). */
  Operator: "operator",
  /** NATS in the platform namespace (only where the release's platform runs it). */
  Nats: "nats",
  Frontend: "frontend",
  Workers: "workers",
  /** The `local-nvme` prefetch DaemonSet's pods. */
  Prefetch: "prefetch",
  /** The first-token check's Job pod. */
  FirstTokenCheck: "first-token-check",
  /** The cluster DNS (kube-system). */
  Dns: "dns",
  /** Any address on TCP 443: the Kubernetes API (discovery) and the Hugging Face hub (no published ranges). */
  Https: "https",
} as const;
export type FlowPeer = (typeof FlowPeer)[keyof typeof FlowPeer];

/**
 * One network flow a graph needs: who connects to whom, on which port and protocol, why, and where that was read.
 * `port: "any"` is a port chosen at run time (an OS-assigned listener whose address travels in discovery, or a
 * caller's own response server); `portWhy` says which.
 */
export interface Flow {
  readonly id: string;
  readonly from: FlowPeer;
  readonly to: FlowPeer;
  readonly protocol: "TCP" | "UDP";
  readonly port: number | "any";
  readonly portWhy?: string;
  readonly why: string;
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
  /** The Dynamo settings the render states on every pod, and the release's model-card decision. */
  readonly runtime: RuntimeFacts;
  /** Every network flow the release's graph needs: the NetworkPolicies are generated from these. */
  readonly flows: readonly Flow[];
}
