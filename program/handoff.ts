/**
 * What a cluster stack hands the model stacks that run on it: ONE typed stack output (`cluster`), defined here once,
 * written by the cluster stack (./cluster-stack.ts) and read by each model stack through a
 * StackReference and `readClusterHandoff`, which checks every field (kind, presence, version) and reports every
 * problem at once, at `clusterStack:<field>`. Pure: the kubeconfig is a plain string here, and a Pulumi secret in
 * the stack output and in the model stack's provider.
 */
import { bool, int, KeyShape, mapOf, listOf, str } from "../components/_shared/keys";
import { brief, joinPath, Problem } from "../components/_shared/problems";
import { DeviceAllocation } from "../components/catalog/pool";
import { isReleaseId, ReleaseId } from "../components/releases";
import { walkKeys } from "./keys";

/** The stack output the handoff is exported as (`pulumi stack output cluster`). */
export const HANDOFF_OUTPUT = "cluster";
/** The handoff's format version: a reader refuses any other (a field's meaning changed). */
export const HANDOFF_VERSION = 1;

/** The Dynamo platform the cluster runs: a model stack's graph must be written for its release. */
export interface HandoffPlatform {
  /** The supported release of the operator (`dynamo-efa:release` of the cluster stack). */
  readonly release: ReleaseId;
  /** Namespace of the operator (the graphs' NetworkPolicies let it in). */
  readonly namespace: string;
  /** The dynamo-platform chart version installed. */
  readonly version: string;
}

/** The cluster's monitoring: a model stack adds its graph's monitors and dashboard to it. */
export interface HandoffMonitoring {
  /** Namespace of Prometheus and Grafana (the graphs' NetworkPolicies let it scrape; dashboards go here). */
  readonly namespace: string;
  /** Labels the cluster's Prometheus selects monitors by; every model stack's monitors carry them. */
  readonly monitorLabels: Readonly<Record<string, string>>;
  /** The cluster runs the DCGM exporter on every GPU node (the dashboards' GPU panels). */
  readonly dcgmExporter: boolean;
}

/** Everything a model stack needs from the cluster it runs on. */
export interface ClusterHandoff {
  /** The format version (`HANDOFF_VERSION`). */
  readonly version: number;
  /** The cluster stack (`<org>/<project>/<stack>`), for messages and claims. */
  readonly stack: string;
  /** AWS region of the cluster. */
  readonly region: string;
  /** EKS cluster name. */
  readonly clusterName: string;
  /** The cluster's Kubernetes version (a pool's node group runs at it). */
  readonly kubernetesVersion: string;
  /** Kubeconfig (JSON) of the cluster; a secret in the stack output. */
  readonly kubeconfig: string;
  /** CIDR of the cluster's VPC (an internal load balancer's default source range). */
  readonly vpcCidr: string;
  /** The private subnet of each AZ of the VPC, by AZ: where a pool can be placed (an EFA pool takes its AZ's). */
  readonly privateSubnetIds: Readonly<Record<string, string>>;
  /** The EKS cluster security group (on every node interface). */
  readonly clusterSecurityGroupId: string;
  /** The EFA security group an EFA pool's interfaces join. @default - absent: the cluster serves no EFA type */
  readonly efaSecurityGroupId?: string;
  /** ARN of the node role (EKS maps it to nodes). */
  readonly nodeRoleArn: string;
  /** Pods may reach IMDS (hop limit 2); a pool's launch template follows the cluster. */
  readonly podImdsAccess: boolean;
  /** Tags on every AWS resource of the cluster; a pool carries them too. */
  readonly tags: Readonly<Record<string, string>>;
  /** How pods get GPUs and EFA devices (`device-plugin` or `dra`). */
  readonly deviceAllocation: DeviceAllocation;
  /** The instance types the cluster's device plugins (or DRA drivers) serve for pools other stacks add. */
  readonly poolInstanceTypes: readonly string[];
  /** The CPU system node group (the shared cluster's cost). */
  readonly systemNodes: { readonly instanceType: string; readonly count: number };
  /** The ReadWriteMany (EFS) StorageClass for a shared model cache. @default - absent: no EFS on the cluster */
  readonly sharedStorageClass?: string;
  /** The Dynamo platform. */
  readonly platform: HandoffPlatform;
  /** The monitoring. @default - absent: the cluster runs none */
  readonly monitoring?: HandoffMonitoring;
  /** Namespace where model stacks claim their names (ConfigMaps a second claim of one name collides on). */
  readonly claimsNamespace: string;
}

/** The kind of every field (components/_shared/keys.ts), checked by the key walker. */
const HANDOFF_KEYS = {
  version: int({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  ...{ stack: str, region: str, clusterName: str, kubernetesVersion: str, kubeconfig: str, vpcCidr: str },
  ...{ clusterSecurityGroupId: str, efaSecurityGroupId: str, nodeRoleArn: str, deviceAllocation: str },
  ...{ sharedStorageClass: str, claimsNamespace: str },
  privateSubnetIds: mapOf(str),
  podImdsAccess: bool,
  tags: mapOf(str),
  poolInstanceTypes: listOf(str),
  systemNodes: { instanceType: str, count: int({ min: 0, max: Number.MAX_SAFE_INTEGER }) },
  platform: { release: str, namespace: str, version: str },
  monitoring: { namespace: str, monitorLabels: mapOf(str), dcgmExporter: bool },
} as const satisfies KeyShape<ClusterHandoff>;

/**
 * The fields that must be present (nested: those of a present object); a required field of the type without an
 * entry here fails `tsc`.
 */
const REQUIRED = {
  version: true,
  stack: true,
  region: true,
  clusterName: true,
  kubernetesVersion: true,
  kubeconfig: true,
  vpcCidr: true,
  privateSubnetIds: true,
  clusterSecurityGroupId: true,
  nodeRoleArn: true,
  podImdsAccess: true,
  tags: true,
  deviceAllocation: true,
  poolInstanceTypes: true,
  claimsNamespace: true,
  systemNodes: { instanceType: true, count: true },
  platform: { release: true, namespace: true, version: true },
  monitoring: { namespace: true, monitorLabels: true, dcgmExporter: true },
} as const satisfies Required<Record<RequiredKeys<ClusterHandoff>, unknown>> & Record<string, unknown>;

/** The keys of `T` that are not optional. */
type RequiredKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? never : K }[keyof T];

type RequiredSpec = { readonly [key: string]: true | RequiredSpec };

/** A required field absent, at each level of a present object. */
function missing(value: Record<string, unknown>, spec: RequiredSpec, at: string): Problem[] {
  return Object.entries(spec).flatMap(([k, sub]) => {
    const v = value[k];
    if (v === undefined || v === null)
      return sub === true || REQUIRED_TOP_OBJECTS.has(k)
        ? [{ propertyPath: joinPath(at, k), reason: "is missing from the cluster stack's output" }]
        : [];
    return sub === true || typeof v !== "object" ? [] : missing(v as Record<string, unknown>, sub, joinPath(at, k));
  });
}
/** Nested objects that are themselves required (`monitoring` is optional, its fields required when present). */
const REQUIRED_TOP_OBJECTS = new Set(["systemNodes", "platform"]);

/** What a field's value means beyond its kind: the version, the closed choices, the release. */
function meaningProblems(h: ClusterHandoff, at: string): Problem[] {
  const out: Problem[] = [];
  if (h.version !== undefined && h.version !== HANDOFF_VERSION)
    out.push({
      propertyPath: joinPath(at, "version"),
      reason: `is ${h.version}; this program reads version ${HANDOFF_VERSION}. Run the same dynamo-efa version in the cluster stack and the model stack (pulumi up the one that is behind)`,
    });
  const choices: readonly string[] = Object.values(DeviceAllocation);
  if (h.deviceAllocation !== undefined && !choices.includes(h.deviceAllocation))
    out.push({
      propertyPath: joinPath(at, "deviceAllocation"),
      reason: `must be one of ${choices.map((c) => JSON.stringify(c)).join(", ")}; got ${brief(h.deviceAllocation)}`,
    });
  if (h.platform?.release !== undefined && !isReleaseId(h.platform.release))
    out.push({
      propertyPath: joinPath(at, "platform.release"),
      reason: `is not a release this program supports; got ${brief(h.platform.release)}. Run the same dynamo-efa version in both stacks`,
    });
  return out;
}

/**
 * The cluster stack's output, checked: the handoff when every field is present and of its kind, and every problem
 * at `<at>.<field>` (`at` is the config key naming the stack, `clusterStack`). An absent output (the stack was
 * never deployed, or is not a cluster stack) is one problem that says so.
 */
export function readClusterHandoff(value: unknown, at: string): { handoff?: ClusterHandoff; problems: Problem[] } {
  if (value === undefined || value === null)
    return {
      problems: [
        {
          propertyPath: at,
          reason: `the stack has no "${HANDOFF_OUTPUT}" output: deploy the cluster stack first (pulumi up -s <cluster stack>), and name a cluster stack (one without inference and gpuPools), not a model or whole stack`,
        },
      ],
    };
  const walked = walkKeys(at, value, HANDOFF_KEYS);
  // The walker's hints are about YAML a person wrote (quoting); this JSON was written by a program.
  const problems = walked.problems.map((p) => ({
    ...p,
    reason: p.reason.replace(/\)(; (quote it|write|did you mean).*)$/, ")"),
  }));
  if (typeof value === "object" && !Array.isArray(value))
    problems.push(...missing(value as Record<string, unknown>, REQUIRED, at));
  const h = (walked.value ?? {}) as ClusterHandoff;
  problems.push(...meaningProblems(h, at));
  return problems.length > 0 ? { problems } : { handoff: h, problems };
}
