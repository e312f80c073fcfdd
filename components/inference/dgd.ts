/**
 * The DynamoGraphDeployment (nvidia.com/v1alpha1) as TypeScript types: the fields this project renders and reads
 * back, so the renderer, the plan and the policy pack share one model and tsc checks what is rendered against it.
 * Pure types and constants (no Pulumi, no devDependency). Field list: docs/ARCHITECTURE.md#the-dynamographdeployment-schema
 * (the CRD's `dynamographdeployment_types.go` / `common.go`); the embedded Kubernetes types (PodSpec, Container,
 * Probe, EnvVar) are narrowed to the fields the renderer uses. The strict runtime check of a rendered object
 * (unknown fields, quantities, the Kubernetes types in full) lives with the tests: tests/helpers/dgd-model.ts.
 * Apart from the graph (`./graph.ts`) so that the node cache (`./cache.ts`) and the policy pack use these types
 * without importing the renderer.
 */

/** API version and kind of the graph. */
export const DGD_API_VERSION = "nvidia.com/v1alpha1" as const;
export const DGD_KIND = "DynamoGraphDeployment" as const;
/** The graph's Pulumi type token (a CustomResource's type is `kubernetes:<apiVersion>:<kind>`). */
export const DGD_TYPE_TOKEN = `kubernetes:${DGD_API_VERSION}:${DGD_KIND}` as const;
/** The EFA extended resource the AWS EFA device plugin advertises; a worker asks for it under `limits.custom` (F8). */
export const EFA_RESOURCE = "vpc.amazonaws.com/efa" as const;
/** The 2 MiB hugepages resource (F14). */
export const HUGEPAGES_2MI_RESOURCE = "hugepages-2Mi" as const;

/** A string map (labels, annotations, node selectors). */
export type StringMap = Readonly<Record<string, string>>;

/** A container env var: a literal value, or one read from a pod field or a Secret key. */
export interface EnvVar {
  readonly name: string;
  readonly value?: string;
  readonly valueFrom?: {
    readonly fieldRef?: { readonly fieldPath: string };
    readonly secretKeyRef?: { readonly name: string; readonly key: string };
  };
}

/** A Kubernetes probe (the handlers and timings the renderer uses). */
export interface DgdProbe {
  readonly httpGet?: { readonly path: string; readonly port: string | number };
  readonly exec?: { readonly command: readonly string[] };
  readonly tcpSocket?: { readonly port: string | number };
  readonly initialDelaySeconds?: number;
  readonly periodSeconds?: number;
  readonly timeoutSeconds?: number;
  readonly failureThreshold?: number;
  readonly successThreshold?: number;
}

/** A container's security context. */
export interface DgdSecurityContext {
  readonly privileged?: boolean;
  readonly runAsNonRoot?: boolean;
  readonly runAsUser?: number;
  readonly runAsGroup?: number;
  readonly allowPrivilegeEscalation?: boolean;
  readonly readOnlyRootFilesystem?: boolean;
  readonly capabilities?: { readonly add?: readonly string[]; readonly drop?: readonly string[] };
  readonly seccompProfile?: { readonly type: "RuntimeDefault" | "Localhost" | "Unconfined" };
}

/** A Kubernetes volume mount (inside a container). */
export interface K8sVolumeMount {
  readonly name: string;
  readonly mountPath: string;
  readonly readOnly?: boolean;
}

/** A pod volume (the sources the renderer uses). */
export interface K8sVolume {
  readonly name: string;
  readonly emptyDir?: { readonly medium?: string; readonly sizeLimit?: string };
  readonly hostPath?: { readonly path: string; readonly type?: string };
  readonly configMap?: { readonly name: string; readonly defaultMode?: number };
  readonly persistentVolumeClaim?: { readonly claimName: string; readonly readOnly?: boolean };
}

/** Kubernetes-form resources (`requests`/`limits` maps), as in a plain container. */
export interface K8sResources {
  readonly requests?: StringMap;
  readonly limits?: StringMap;
  /** The pod's ResourceClaims (by their name in the pod's `resourceClaims`) this container uses. */
  readonly claims?: readonly { readonly name: string }[];
}

/** A pod's reference to a ResourceClaim made for it from a ResourceClaimTemplate. */
export interface PodResourceClaim {
  readonly name: string;
  readonly resourceClaimTemplateName: string;
}

/** A container in Kubernetes form. In `mainContainer` the operator supplies the name and merges the rest. */
export interface DgdContainer {
  readonly name?: string;
  readonly image?: string;
  readonly command?: readonly string[];
  readonly args?: readonly string[];
  readonly env?: readonly EnvVar[];
  readonly resources?: K8sResources;
  readonly securityContext?: DgdSecurityContext;
  readonly volumeMounts?: readonly K8sVolumeMount[];
  readonly startupProbe?: DgdProbe;
  readonly livenessProbe?: DgdProbe;
  readonly readinessProbe?: DgdProbe;
}

/** An init container (named, unlike `mainContainer`). */
export interface DgdInitContainer extends DgdContainer {
  readonly name: string;
}

/** A toleration of a node taint. */
export interface DgdToleration {
  readonly key?: string;
  readonly operator?: "Equal" | "Exists";
  readonly value?: string;
  readonly effect?: string;
}

/** One required (anti-)affinity term: pods matching the labels, per topology domain. */
export interface PodAffinityTerm {
  readonly labelSelector: { readonly matchLabels: StringMap };
  readonly topologyKey: string;
}

/** A preferred (scored, never required) pod affinity term. */
export interface WeightedPodAffinityTerm {
  /** 1-100, added to a node's score where the term matches. */
  readonly weight: number;
  readonly podAffinityTerm: PodAffinityTerm;
}

/** Inter-pod affinity: preferred terms only (packing); anti-affinity: required terms only (F7). */
export interface DgdAffinity {
  readonly podAffinity?: {
    readonly preferredDuringSchedulingIgnoredDuringExecution: readonly WeightedPodAffinityTerm[];
  };
  readonly podAntiAffinity?: { readonly requiredDuringSchedulingIgnoredDuringExecution: readonly PodAffinityTerm[] };
}

/** `extraPodSpec`: PodSpec fields merged into the pods the operator creates, plus the main container. */
export interface DgdExtraPodSpec {
  readonly nodeSelector?: StringMap;
  readonly tolerations?: readonly DgdToleration[];
  readonly affinity?: DgdAffinity;
  readonly volumes?: readonly K8sVolume[];
  readonly initContainers?: readonly DgdInitContainer[];
  /** DRA claims of the pod (`cluster.deviceAllocation: dra`): the worker's GPUs and EFA devices. */
  readonly resourceClaims?: readonly PodResourceClaim[];
  readonly mainContainer?: DgdContainer;
}

/** Dynamo's resource item: Kubernetes quantities as strings, extended resources under `custom` (F8). */
export interface DgdResourceItem {
  readonly cpu?: string;
  readonly memory?: string;
  readonly gpu?: string;
  readonly gpuType?: string;
  readonly custom?: StringMap;
}

/** A service's resources in Dynamo's form. */
export interface DgdResources {
  readonly requests?: DgdResourceItem;
  readonly limits?: DgdResourceItem;
}

/** Dynamo's volume mount of a graph PVC (`spec.pvcs`). */
export interface DgdVolumeMount {
  readonly name: string;
  readonly mountPoint: string;
  readonly useAsCompilationCache?: boolean;
}

/** The roles a service plays. */
export type DgdComponentType = "frontend" | "worker" | "planner";
export type DgdSubComponentType = "prefill" | "decode";

/** One service of the graph. */
export interface DgdService {
  readonly componentType: DgdComponentType;
  readonly subComponentType?: DgdSubComponentType;
  readonly replicas?: number;
  readonly resources?: DgdResources;
  readonly envs?: readonly EnvVar[];
  readonly envFromSecret?: string;
  readonly volumeMounts?: readonly DgdVolumeMount[];
  readonly sharedMemory?: { readonly disabled?: boolean; readonly size?: string };
  readonly extraPodSpec?: DgdExtraPodSpec;
  readonly extraPodMetadata?: { readonly annotations?: StringMap; readonly labels?: StringMap };
  readonly livenessProbe?: DgdProbe;
  readonly readinessProbe?: DgdProbe;
  readonly multinode?: { readonly nodeCount: number };
  readonly annotations?: StringMap;
  readonly labels?: StringMap;
}

/** A graph PVC. */
export interface DgdPvc {
  readonly name: string;
  readonly create?: boolean;
  readonly storageClass?: string;
  readonly size?: string;
  readonly volumeAccessMode?: string;
}

/** The backends the CRD knows. */
export type DgdBackendFramework = "vllm" | "sglang" | "trtllm";

/** The graph's metadata. */
export interface DgdMetadata {
  readonly name: string;
  readonly namespace?: string;
  readonly annotations?: StringMap;
  readonly labels?: StringMap;
}

/** The graph's spec. */
export interface DgdSpec {
  readonly backendFramework?: DgdBackendFramework;
  readonly envs?: readonly EnvVar[];
  readonly pvcs?: readonly DgdPvc[];
  readonly services: Readonly<Record<string, DgdService>>;
}

/** The graph. */
export interface DynamoGraphDeployment {
  readonly apiVersion: typeof DGD_API_VERSION;
  readonly kind: typeof DGD_KIND;
  readonly metadata: DgdMetadata;
  readonly spec: DgdSpec;
}
