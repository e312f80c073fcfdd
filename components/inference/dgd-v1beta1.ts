/**
 * The graph in `nvidia.com/v1beta1` form (Dynamo 1.2.0+ serves it; from 1.5.0 it is the storage version and the
 * v1alpha1 webhooks are gone): `spec.components[]`, each with a Kubernetes `podTemplate` whose container `main` is the
 * engine, instead of v1alpha1's `spec.services{}` with Dynamo-form resources and `extraPodSpec.mainContainer`.
 * The renderer and every reader keep one model (the v1alpha1-shaped `DynamoGraphDeployment` of ./dgd.ts); this module
 * converts it to the wire form a release deploys and back, so policies, the plan and `verify` read either.
 * Field names: tests/contracts/facts/dgd-crd-v1beta1.json. Pure.
 */
import {
  DGD_TYPE_TOKEN,
  DgdContainer,
  DgdResourceItem,
  DgdService,
  DynamoGraphDeployment,
  EnvVar,
  K8sResources,
  K8sVolume,
  K8sVolumeMount,
  StringMap,
} from "./dgd";

export const DGD_V1BETA1 = "nvidia.com/v1beta1" as const;
/** The GPU resource name a Dynamo-form `gpu` becomes in a Kubernetes container (the operator's own mapping). */
export const GPU_RESOURCE = "nvidia.com/gpu" as const;
/** The container of a component's pod template that runs the engine (v1beta1 admission requires it). */
export const MAIN_CONTAINER = "main" as const;

/** A component's type in v1beta1: prefill and decode are first-class values (no subComponentType). */
export type V1beta1ComponentType = "frontend" | "worker" | "prefill" | "decode" | "planner";

/** One component of a v1beta1 graph (the fields this package writes). */
export interface V1beta1Component {
  readonly name: string;
  readonly type: V1beta1ComponentType;
  readonly replicas?: number;
  readonly sharedMemorySize?: string;
  readonly runtimeVersionOverride?: string;
  readonly multinode?: { readonly nodeCount: number };
  readonly podTemplate: {
    readonly metadata?: { readonly annotations?: StringMap; readonly labels?: StringMap };
    readonly spec: Readonly<Record<string, unknown>> & { readonly containers: readonly DgdContainer[] };
  };
}

/** A v1beta1 graph. */
export interface V1beta1Graph {
  readonly apiVersion: typeof DGD_V1BETA1;
  readonly kind: "DynamoGraphDeployment";
  readonly metadata: DynamoGraphDeployment["metadata"];
  readonly spec: {
    readonly backendFramework?: string;
    readonly env?: readonly EnvVar[];
    readonly components: readonly V1beta1Component[];
  };
}

/** Dynamo-form resources (`gpu`, `custom`) as a Kubernetes container's `requests`/`limits`. */
function k8sItem(i: DgdResourceItem | undefined): StringMap | undefined {
  if (!i) return undefined;
  const out: Record<string, string> = {};
  if (i.cpu !== undefined) out.cpu = i.cpu;
  if (i.memory !== undefined) out.memory = i.memory;
  if (i.gpu !== undefined) out[GPU_RESOURCE] = i.gpu;
  Object.assign(out, i.custom ?? {});
  return out;
}

/** A Kubernetes `requests`/`limits` map back in Dynamo form. */
function dynamoItem(m: StringMap | undefined): DgdResourceItem | undefined {
  if (!m) return undefined;
  const { cpu, memory, [GPU_RESOURCE]: gpu, ...custom } = m;
  return {
    ...(cpu !== undefined ? { cpu } : {}),
    ...(memory !== undefined ? { memory } : {}),
    ...(gpu !== undefined ? { gpu } : {}),
    ...(Object.keys(custom).length > 0 ? { custom } : {}),
  };
}

/** What a v1alpha1 service cannot say in v1beta1 (a renderer bug if it ever shows up). */
function unconvertible(name: string, s: DgdService): string[] {
  const out: string[] = [];
  if (s.sharedMemory?.disabled) out.push(`services.${name}.sharedMemory.disabled`);
  if (s.resources?.requests?.gpuType || s.resources?.limits?.gpuType) out.push(`services.${name}.resources.gpuType`);
  if (s.annotations || s.labels) out.push(`services.${name}.annotations/labels`);
  return out;
}

/** The main container of a service: its `mainContainer` plus the service-level env, secret, resources and probes. */
function mainContainer(s: DgdService, pvcMounts: readonly K8sVolumeMount[]): DgdContainer & Record<string, unknown> {
  const mc = s.extraPodSpec?.mainContainer ?? {};
  const env = [...(s.envs ?? []), ...(mc.env ?? [])];
  const requests = k8sItem(s.resources?.requests);
  const limits = k8sItem(s.resources?.limits);
  // A DRA claim is the container's own (`mainContainer.resources.claims`); the counts come from the service.
  const claims = mc.resources?.claims;
  const resources: K8sResources | undefined =
    requests || limits
      ? { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}), ...(claims ? { claims } : {}) }
      : mc.resources;
  const mounts = [...(mc.volumeMounts ?? []), ...pvcMounts];
  return {
    name: MAIN_CONTAINER,
    ...mc,
    ...(env.length > 0 ? { env } : {}),
    ...(s.envFromSecret ? { envFrom: [{ secretRef: { name: s.envFromSecret } }] } : {}),
    ...(resources ? { resources } : {}),
    ...(mounts.length > 0 ? { volumeMounts: mounts } : {}),
    ...(s.readinessProbe ? { readinessProbe: s.readinessProbe } : {}),
    ...(s.livenessProbe ? { livenessProbe: s.livenessProbe } : {}),
  };
}

/** One v1alpha1 service as a v1beta1 component. */
function toComponent(name: string, s: DgdService, runtimeVersionOverride: string | undefined): V1beta1Component {
  const { mainContainer: _mc, volumes, ...podSpec } = s.extraPodSpec ?? {};
  const pvcVolumes: K8sVolume[] = (s.volumeMounts ?? []).map((m) => ({
    name: m.name,
    persistentVolumeClaim: { claimName: m.name },
  }));
  const pvcMounts = (s.volumeMounts ?? []).map((m) => ({ name: m.name, mountPath: m.mountPoint }));
  const allVolumes = [...(volumes ?? []), ...pvcVolumes];
  const type: V1beta1ComponentType = s.subComponentType ?? s.componentType;
  return {
    name,
    type,
    ...(s.replicas !== undefined ? { replicas: s.replicas } : {}),
    ...(s.sharedMemory?.size ? { sharedMemorySize: s.sharedMemory.size } : {}),
    ...(runtimeVersionOverride ? { runtimeVersionOverride } : {}),
    ...(s.multinode ? { multinode: s.multinode } : {}),
    podTemplate: {
      ...(s.extraPodMetadata ? { metadata: s.extraPodMetadata } : {}),
      spec: {
        ...podSpec,
        ...(allVolumes.length > 0 ? { volumes: allVolumes } : {}),
        containers: [mainContainer(s, pvcMounts)],
      },
    },
  };
}

/**
 * The model graph in v1beta1 form. `runtimeVersionOverride` (a bare version) goes on every component whose main
 * image the operator cannot read a version from (`needsRuntimeVersionOverride`). Throws on a field v1beta1 cannot
 * express, naming it: the renderer never writes one, so that is a bug, not bad input.
 */
export function toV1beta1(g: DynamoGraphDeployment, runtimeVersion: string | undefined): V1beta1Graph {
  const bad = Object.entries(g.spec.services).flatMap(([n, s]) => unconvertible(n, s));
  if (bad.length > 0) throw new Error(`the graph has fields v1beta1 cannot express: ${bad.join(", ")}`);
  return {
    apiVersion: DGD_V1BETA1,
    kind: g.kind,
    metadata: g.metadata,
    spec: {
      ...(g.spec.backendFramework ? { backendFramework: g.spec.backendFramework } : {}),
      ...(g.spec.envs ? { env: g.spec.envs } : {}),
      components: Object.entries(g.spec.services).map(([n, s]) => {
        const image = s.extraPodSpec?.mainContainer?.image;
        const override = runtimeVersion && image && needsRuntimeVersionOverride(image) ? runtimeVersion : undefined;
        return toComponent(n, s, override);
      }),
    },
  };
}

/** One v1beta1 component back as a model service (for readers: policies, plan, verify). */
function fromComponent(c: V1beta1Component): DgdService {
  const { containers, ...podSpec } = c.podTemplate.spec;
  const main = containers.find((x) => x.name === MAIN_CONTAINER) ?? containers[0] ?? {};
  const {
    env,
    resources,
    readinessProbe,
    livenessProbe,
    name: _n,
    ...rest
  } = main as DgdContainer & Record<string, unknown>;
  const { envFrom, ...base } = rest as { envFrom?: { secretRef?: { name: string } }[] } & DgdContainer;
  const mc: DgdContainer = resources?.claims ? { ...base, resources: { claims: resources.claims } } : base;
  const secret = envFrom?.find((e) => e.secretRef)?.secretRef?.name;
  const requests = dynamoItem(resources?.requests);
  const limits = dynamoItem(resources?.limits);
  const role = c.type === "prefill" || c.type === "decode" ? c.type : undefined;
  return {
    componentType: role ? "worker" : (c.type as DgdService["componentType"]),
    ...(role ? { subComponentType: role } : {}),
    ...(c.replicas !== undefined ? { replicas: c.replicas } : {}),
    ...(secret ? { envFromSecret: secret } : {}),
    ...(env && env.length > 0 ? { envs: env } : {}),
    ...(requests || limits ? { resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) } } : {}),
    ...(c.sharedMemorySize ? { sharedMemory: { size: String(c.sharedMemorySize) } } : {}),
    ...(c.podTemplate.metadata ? { extraPodMetadata: c.podTemplate.metadata } : {}),
    ...(readinessProbe ? { readinessProbe } : {}),
    ...(livenessProbe ? { livenessProbe } : {}),
    ...(c.multinode ? { multinode: c.multinode } : {}),
    extraPodSpec: { ...podSpec, mainContainer: mc },
  } as DgdService;
}

/** A v1beta1 graph read back as the model (`apiVersion` stays what was deployed). */
export function fromV1beta1(g: V1beta1Graph): DynamoGraphDeployment {
  return {
    apiVersion: g.apiVersion as unknown as DynamoGraphDeployment["apiVersion"],
    kind: g.kind,
    metadata: g.metadata,
    spec: {
      ...(g.spec.backendFramework ? { backendFramework: g.spec.backendFramework as "vllm" } : {}),
      ...(g.spec.env ? { envs: g.spec.env } : {}),
      services: Object.fromEntries(g.spec.components.map((c) => [c.name, fromComponent(c)])),
    },
  };
}

/**
 * A semantic-version image tag as the operator's admission reads it: the tag before any `@digest`, an optional
 * leading v, MAJOR.MINOR.PATCH with optional pre-release and build. ai-dynamo/dynamo main 2a6da14c8
 * deploy/operator/internal/runtimeversion/runtimeversion.go `imageTagPattern` and `imageTag` (fact:
 * tests/contracts/facts/dgd-runtime-version.json).
 */
export const SEMVER_TAG =
  /^[vV]?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(?:-((?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

/** The tag of an image reference (before `@digest`), or "" when it has none. */
export function imageTag(image: string): string {
  const ref = image.trim().split("@")[0];
  const slash = ref.lastIndexOf("/");
  const colon = ref.lastIndexOf(":");
  return colon > slash ? ref.slice(colon + 1) : "";
}

/** Whether the operator needs `runtimeVersionOverride` for this main image: its tag is absent or not a semver. */
export function needsRuntimeVersionOverride(image: string): boolean {
  return !SEMVER_TAG.test(imageTag(image).trim());
}

/** The override's own pattern: a bare MAJOR.MINOR.PATCH (api/v1beta1/dynamocomponentdeployment_types.go:115). */
export const RUNTIME_VERSION_OVERRIDE = /^(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})$/;

/** Admission problems of a v1beta1 graph: a main image without a version needs a well-formed override. */
export function admissionProblems(g: V1beta1Graph): string[] {
  return g.spec.components.flatMap((c, i) => {
    const at = `spec.components[${i}]`;
    const main = c.podTemplate.spec.containers.find((x) => x.name === MAIN_CONTAINER);
    if (!main?.image) return [`${at}.podTemplate.spec.containers: needs a container "main" with an image`];
    if (c.runtimeVersionOverride !== undefined && !RUNTIME_VERSION_OVERRIDE.test(c.runtimeVersionOverride))
      return [
        `${at}.runtimeVersionOverride: ${JSON.stringify(c.runtimeVersionOverride)} is not a bare MAJOR.MINOR.PATCH`,
      ];
    if (c.runtimeVersionOverride === undefined && needsRuntimeVersionOverride(main.image))
      return [
        `${at}.runtimeVersionOverride: is required when the specified main container image has no parseable semantic-version tag (${main.image})`,
      ];
    return [];
  });
}

/** The Pulumi type token of a v1beta1 graph (a CustomResource's type is `kubernetes:<apiVersion>:<kind>`). */
export const DGD_V1BETA1_TYPE_TOKEN = `kubernetes:${DGD_V1BETA1}:DynamoGraphDeployment` as const;

/** Whether a resource type token is a DynamoGraphDeployment of either API version. */
export function isDgdType(type: string): boolean {
  return type === DGD_TYPE_TOKEN || type === DGD_V1BETA1_TYPE_TOKEN;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * A graph as read back from a plan or a cluster, in the model's (v1alpha1) shape whatever its API version: readers
 * (policies, the plan) keep one vocabulary. Tolerates a partial or hand-written v1beta1 graph (missing fields stay
 * missing); anything that is not a v1beta1 graph is returned unchanged.
 */
export function graphModel<T>(obj: T): T {
  if (!isObject(obj) || !isObject(obj.spec) || !Array.isArray(obj.spec.components)) return obj;
  const components = obj.spec.components.filter(isObject).map((c) => {
    const pt = isObject(c.podTemplate) ? c.podTemplate : {};
    const spec = isObject(pt.spec) ? pt.spec : {};
    const containers = Array.isArray(spec.containers) ? spec.containers.filter(isObject) : [];
    return { ...c, name: String(c.name), podTemplate: { ...pt, spec: { ...spec, containers } } };
  });
  const model = fromV1beta1({ ...obj, spec: { ...obj.spec, components } } as unknown as V1beta1Graph);
  return model as unknown as T;
}
