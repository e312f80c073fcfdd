/**
 * The stack config's schema tables: the keys of `dynamo-efa:cluster` and `dynamo-efa:image` with their
 * types, defaults and docs (the README's config reference is generated against them; `dynamo-efa:inference`
 * has its own file, config-inference-fields.ts), and the top-level keys the program reads. Bounds come
 * from the components' limits tables. Pure data.
 */
import { CapacityType } from "../components/cluster/args";
import { CLUSTER_LIMITS } from "../components/cluster/limits";
import { AZ_NAME } from "../components/cluster/partition";
import { CAPACITY_RESERVATION_ID } from "../components/cluster/validate-pool";
import { CUDA_TOOLKITS, DEFAULT_CUDA_TOOLKIT } from "../components/catalog/cuda";
import { CUDA_ARCHS_KEYWORDS } from "../components/catalog/archs";
import { DIGEST_PINNED } from "../components/inference/validate";
import { kubernetes } from "../components/versions";
import { choices, Field, int, str } from "./schema";
import { SKEW_KEYS } from "../components/image/version-pins";
import { IMAGE_SOURCES } from "../components/image/sources";

/** Config namespace (the Pulumi project name). */
export const CONFIG_NAMESPACE = "dynamo-efa";
/** The one GPU pool stack config describes; the program names it `gpu`. */
export const GPU_POOL_NAME = "gpu";

export { CapacityType };

/** `dynamo-efa:cluster`. */
export const CLUSTER_FIELDS: Readonly<Record<string, Field>> = {
  kubernetesVersion: {
    spec: str({ enum: kubernetes.supportedVersions, numberAsString: (n) => n.toFixed(2) }),
    default: kubernetes.defaultVersion,
    doc: "EKS Kubernetes version",
  },
  availabilityZone: {
    spec: str({ pattern: AZ_NAME, patternDoc: 'an availability zone name such as "us-east-2b"' }),
    required: true,
    doc: "the one AZ the GPU nodes live in (EFA needs one AZ); must be in aws:region and offer the instance type",
  },
  availabilityZones: {
    spec: {
      kind: "array",
      items: str({ pattern: AZ_NAME, patternDoc: 'an availability zone name such as "us-east-2a"' }),
    },
    defaultDoc: '- availabilityZone plus the region\'s "a" zone (or "b" when it is "a")',
    doc: "AZs of the VPC (EKS needs 2); must include availabilityZone",
  },
  publicAccessCidrs: {
    spec: { kind: "array", items: str({ example: "203.0.113.0/24" }) },
    default: [],
    doc: "CIDRs allowed to reach the public API endpoint; `pulumi up` must run from one of them (it installs Helm releases through the endpoint). Empty = private endpoint only, which needs deployFromInsideVpc. RFC 5737 documentation ranges render offline but a real preview/up refuses them",
  },
  deployFromInsideVpc: {
    spec: { kind: "boolean" },
    default: false,
    doc: "states that `pulumi up` runs inside the VPC (bastion, VPN, CI in the VPC); required for publicAccessCidrs: []",
  },
  gpuNodes: {
    required: true,
    doc: "the GPU node pool (named `gpu`)",
    spec: {
      kind: "object",
      fields: {
        instanceType: {
          spec: str({ example: "p5en.48xlarge" }),
          required: true,
          doc: "EC2 GPU instance type (from the catalog)",
        },
        count: { spec: int(CLUSTER_LIMITS.nodes), required: true, doc: "number of GPU nodes" },
        capacity: {
          doc: "how the nodes are bought",
          spec: {
            kind: "object",
            fields: {
              type: {
                spec: str({ enum: choices(CapacityType) }),
                default: CapacityType.OnDemand,
                doc: "on-demand, a Capacity Block, or an On-Demand Capacity Reservation",
              },
              reservationId: {
                spec: str({
                  pattern: CAPACITY_RESERVATION_ID,
                  patternDoc: 'a capacity reservation id "cr-" + 17 hex digits, e.g. "cr-0123456789abcdef0"',
                }),
                defaultDoc: "- (required for capacity-block and odcr)",
                doc: "the reservation to launch into",
              },
            },
          },
        },
        placementGroup: {
          spec: { kind: "boolean" },
          defaultDoc: "- true for on-demand EFA pools, false for reserved capacity",
          doc: "launch into a `cluster` placement group",
        },
      },
    },
  },
};

/** `dynamo-efa:image`. */
export const IMAGE_FIELDS: Readonly<Record<string, Field>> = {
  source: {
    spec: str({ enum: IMAGE_SOURCES }),
    defaultDoc: '`"prebuilt"` when the release has a vendor runtime image for the backend, else `"source"`',
    doc: '"prebuilt" (the vendor\'s per-backend runtime image, nothing built), "combined" (one image for both backends, from the vendor images; the seed\'s: its from-source build) or "source" (the multi-stage build; docs/IMAGE.md)',
  },
  cudaArchs: {
    spec: { kind: "keywordOrList", keywords: CUDA_ARCHS_KEYWORDS, items: str() },
    defaultDoc: '`"fat"` (state it explicitly with ref)',
    doc: '"fat" (broad default), "auto" (exactly the GPU pool\'s SM archs) or a list of arch tokens such as ["sm_90"]',
  },
  cudaToolkit: {
    spec: str({ enum: CUDA_TOOLKITS, numberAsString: (n) => (Number.isInteger(n) ? n.toFixed(1) : String(n)) }),
    defaultDoc: `\`"${DEFAULT_CUDA_TOOLKIT}"\``,
    doc: "CUDA toolkit of the image's compile stages",
  },
  versions: {
    spec: { kind: "map", keyDoc: "Dockerfile version keys (see dockerfiles/README.md)", values: str() },
    defaultDoc: "- components/versions.ts",
    doc: "overrides of the image's component versions, e.g. { vllm: v0.17.1 }",
  },
  acceptVersionSkew: {
    spec: { kind: "array", items: str({ enum: SKEW_KEYS }) },
    defaultDoc: "`[]`",
    doc: "versions keys (vllm, tensorrtLlm, nixl, dynamo) whose override may differ from what the Dynamo commit's pyproject.toml pins; without it such an override is an error naming both versions",
  },
  ref: {
    spec: str({
      pattern: DIGEST_PINNED,
      patternDoc: 'a digest-pinned image reference "<repository>@sha256:<64 hex digits>"',
    }),
    defaultDoc: "- (build the image)",
    doc: "use this prebuilt image instead of building; then list cudaArchs explicitly",
  },
  builder: {
    spec: str({ example: "dynamo-builder" }),
    defaultDoc: "- the default buildx builder",
    doc: 'name of an existing buildx builder (linux/amd64; README "Building the image")',
  },
};

/**
 * Top-level keys of the `dynamo-efa:` namespace the program reads, with what each holds. A key not
 * listed here is a problem with "did you mean" (a typo must not be silently ignored): add a row
 * when the program reads a new top-level key.
 */
export const STACK_KEYS: Readonly<Record<string, string>> = {
  cluster: "the EKS cluster and its GPU pool (object)",
  image: "the Dynamo runtime image (object)",
  inference: "the disaggregated inference graph (object)",
  observability: "monitoring: false, or an object (absent = on)",
  graphName: "name of the DynamoGraphDeployment (string)",
  release: 'the supported release to deploy: "dynamo-1.6" (default) or "seed" (docs/RELEASES.md)',
  previousRelease: "the release the stack runs now, when moving it to another (docs/RELEASES.md#upgrading)",
  hfToken: "Hugging Face token (secret: pulumi config set --secret)",
};

/** Keys of other namespaces the program reads; near misses of these (`aws:regoin`) are problems. */
export const FOREIGN_KEYS: readonly string[] = ["aws:region"];
