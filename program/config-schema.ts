/**
 * The stack config of the dynamo-efa program: the object keys `dynamo-efa:cluster`,
 * `dynamo-efa:image`, `dynamo-efa:inference`, the secret `dynamo-efa:hfToken` and the scalars
 * declared in Pulumi.yaml. `checkStackConfig` validates everything at once and maps it to component
 * arguments; semantic rules are the components' own validators (inference) and the catalog's (instance
 * types, CUDA archs and toolkits), with their paths rewritten to the user's config keys. Pure.
 */
import { INSTANCES } from "../components/catalog/instances";
import type { GpuPoolFacts } from "../components/catalog/pool";
import {
  CapacityType,
  EfaClusterArgs,
  resolveArgs as resolveClusterArgs,
  resolvePool,
} from "../components/cluster/args";
import { OBSERVABILITY_DEFAULTS, PrometheusMode } from "../components/observability/args";
import { poolFacts } from "../components/cluster/derive";
import { SHARED_STORAGE_CLASS } from "../components/cluster/render";
import { validateClusterArgs } from "../components/cluster/validate";
import { documentationCidrProblems } from "../components/cluster/reach";
import { NOT_IN_REGION, REGION_ARG_NOTE, REGION_NAME } from "../components/cluster/partition";
import { CudaToolkit, DEFAULT_CUDA_TOOLKIT } from "../components/catalog/cuda";
import type { DynamoImageArgs } from "../components/image/args";
import { imagePlan } from "../components/image/plan";
import type { ImageSource } from "../components/image/sources";
import { INFERENCE_DEFAULTS, InferenceSettings, resolveArgs } from "../components/inference/args";
import { ModelCacheMode } from "../components/inference/model-load";
import { DEFAULT_GRAPH_NAME, K8S_NAME } from "../components/_shared/names";
import { Problem, ValidationError } from "../components/_shared/problems";
import { validate as validateInference } from "../components/inference/validate";
import { DynamoPlatformArgs, resolveArgs as resolvePlatform } from "../components/platform/args";
import { DEFAULT_RELEASE, release as releaseOf, ReleaseId, upgradeProblems } from "../components/releases";
import { validate as validatePlatform } from "../components/platform/validate";
import { check, str } from "./schema";
import { checkObservability, ObservabilityConfig } from "./config-observability";
import { CLUSTER_FIELDS, GPU_POOL_NAME, IMAGE_FIELDS } from "./config-fields";
import { INFERENCE_FIELDS } from "./config-inference-fields";
import { configKeyProblems, RawStackConfig } from "./config-keys";
import { toConfigPath } from "./config-paths";

/** `dynamo-efa:cluster`, checked and defaulted. */
export interface ClusterConfig {
  readonly kubernetesVersion: string;
  readonly availabilityZone: string;
  readonly availabilityZones?: readonly string[];
  readonly publicAccessCidrs: readonly string[];
  readonly deployFromInsideVpc: boolean;
  readonly gpuNodes: {
    readonly instanceType: string;
    readonly count: number;
    readonly capacity: { readonly type: CapacityType; readonly reservationId?: string };
    readonly placementGroup?: boolean;
  };
}

/** `dynamo-efa:image`, checked, with the arch list resolved. */
export interface ImageConfig {
  readonly source?: ImageSource;
  readonly cudaArchs?: "fat" | "auto" | readonly string[];
  readonly cudaToolkit?: CudaToolkit;
  readonly ref?: string;
  readonly versions?: Readonly<Record<string, string>>;
  readonly acceptVersionSkew?: readonly string[];
  readonly builder?: string;
  /** The canonical arch list `cudaArchs` resolves to for this pool (e.g. `["sm_90"]`). */
  readonly resolvedCudaArchs: readonly string[];
}

/** The whole stack config, checked, defaulted and mapped to component arguments. */
export interface StackConfig {
  readonly region: string;
  readonly graphName: string;
  /** The supported release (`dynamo-efa:release`), given to both `DynamoPlatform` and `DisaggInference`. */
  readonly release: ReleaseId;
  readonly cluster: ClusterConfig;
  /** `EfaCluster` arguments the cluster config maps to (one pool, named `gpu`). */
  readonly clusterArgs: EfaClusterArgs;
  readonly image: ImageConfig;
  /** `DynamoImage` arguments the image config maps to. */
  readonly imageArgs: DynamoImageArgs;
  /** Inference settings, ready for `DisaggInference` (plus image, platform, token). */
  readonly inference: Omit<InferenceSettings, "gpuPool">;
  /** `DynamoPlatform` arguments (from `inference.platform`); undefined when `install` is false (the cluster runs it). */
  readonly platform?: DynamoPlatformArgs;
  /** The GPU pool's facts, as `EfaCluster` derives them from the catalog. */
  readonly gpuPool: GpuPoolFacts;
  /** Monitoring of the graph; undefined when `observability` is off. */
  readonly observability?: ObservabilityConfig;
}

/** The VPC's AZs when the config lists none: the GPU AZ plus the region's "a" zone ("b" when it is "a"). */
export function defaultVpcZones(az: string): string[] {
  const region = az.slice(0, -1);
  return [...new Set([az, az.endsWith("a") ? `${region}b` : `${region}a`])].sort();
}

/** `EfaCluster` arguments for the cluster config. */
export function clusterArgsOf(c: Partial<ClusterConfig>, efs = false, region?: string): EfaClusterArgs {
  const n = c.gpuNodes;
  const cap = n?.capacity;
  return {
    gpuPools: {
      [GPU_POOL_NAME]: {
        instanceType: n?.instanceType as string,
        nodes: n?.count as number,
        ...(c.availabilityZone ? { availabilityZone: c.availabilityZone } : {}),
        ...(cap?.type ? { capacity: cap.type } : {}),
        ...(cap?.reservationId !== undefined ? { capacityReservationId: cap.reservationId } : {}),
        ...(n?.placementGroup !== undefined ? { placementGroup: n.placementGroup } : {}),
      },
    },
    ...(c.kubernetesVersion ? { kubernetesVersion: c.kubernetesVersion } : {}),
    ...((c.availabilityZones ?? c.availabilityZone)
      ? { availabilityZones: c.availabilityZones ?? defaultVpcZones(c.availabilityZone!) }
      : {}),
    publicAccessCidrs: c.publicAccessCidrs ?? [],
    ...(c.deployFromInsideVpc ? { deployFromInsideVpc: true } : {}),
    ...(efs ? { efs: true } : {}),
    ...(region ? { region } : {}),
  };
}

/** `inference.platform`: the cluster's `DynamoPlatform`, kept under `inference` where the stack files have it. */
interface PlatformConfig {
  readonly install?: boolean;
  readonly version?: string;
}

/** `dynamo-efa:inference` as read: the component's settings plus config-only shorthands. */
type RawInference = Omit<InferenceSettings, "gpuPool" | "modelCache"> & {
  readonly modelCacheGiB?: number;
  readonly platform?: PlatformConfig;
};

/** `DynamoPlatform` arguments for `inference.platform`; undefined when `install` is false. */
export function platformArgsOf(
  p: PlatformConfig | undefined,
  release: ReleaseId = DEFAULT_RELEASE,
): DynamoPlatformArgs | undefined {
  if (p?.install === false) return undefined;
  return p?.version !== undefined ? { release, version: p.version } : { release };
}

/**
 * The inference settings for the config: `modelCacheMode` defaults to "efs" with `modelCacheGiB`, else
 * "local-nvme": every catalogued GPU type has instance-store NVMe, and the cluster makes it a RAID0 array), and
 * `modelCacheGiB` becomes a model-cache volume on the cluster's shared (EFS) StorageClass, the only class here
 * that serves ReadWriteMany.
 */
export function inferenceSettingsOf(raw: RawInference): Omit<InferenceSettings, "gpuPool"> {
  // `platform` is the cluster's DynamoPlatform (platformArgsOf), not a setting of the graph.
  const { modelCacheGiB, platform: _platform, ...settings } = raw;
  const modelCacheMode =
    settings.modelCacheMode ?? (modelCacheGiB !== undefined ? ModelCacheMode.Efs : ModelCacheMode.LocalNvme);
  if (modelCacheGiB === undefined) return { ...settings, modelCacheMode };
  return {
    ...settings,
    modelCacheMode,
    modelCache: { storageClassName: SHARED_STORAGE_CLASS, sizeGiB: modelCacheGiB },
  };
}

/**
 * Options that need a cluster that already runs something, refused here because this program always creates a new
 * EKS cluster with nothing else on it (the components keep them, for use on a cluster of one's own):
 * `inference.platform.install: false` leaves the cluster without the DynamoGraphDeployment CRD (the graph is
 * refused at `pulumi up`), and `observability.prometheus: existing` sends PodMonitors to a cluster without the
 * Prometheus Operator's CRDs and a dashboard ConfigMap into a namespace nothing creates.
 */
export function newClusterProblems(platform: PlatformConfig | undefined, observability: unknown): Problem[] {
  const prometheus = (observability as { prometheus?: unknown } | undefined)?.prometheus;
  const out: Problem[] = [];
  if (platform?.install === false)
    out.push({
      propertyPath: "inference.platform.install",
      reason:
        "false needs a cluster that already runs the Dynamo operator and its CRDs, but this program always creates a new EKS cluster, where nothing else would install the DynamoGraphDeployment CRD; leave it true (the default), or compose DisaggInference onto your own cluster",
    });
  if (prometheus === PrometheusMode.Existing)
    out.push({
      propertyPath: "observability.prometheus",
      reason: `"existing" needs a Prometheus Operator already on the cluster, but this program always creates a new EKS cluster: the PodMonitors would have no CRD and the dashboard ConfigMap no namespace. Use "install" (the default), or compose DynamoObservability onto your own cluster`,
    });
  return out;
}

/**
 * The facts of the cluster the program creates that the graph's network needs: the VPC's CIDR (the internal load
 * balancer's default source range) and, with monitoring on, the namespace of the Prometheus it installs (allowed
 * to scrape through the NetworkPolicies).
 */
function withClusterNetwork(
  inf: Omit<InferenceSettings, "gpuPool">,
  vpcCidr: string,
  monitored: boolean,
): Omit<InferenceSettings, "gpuPool"> {
  const np = inf.networkPolicy ?? {};
  const metricsNamespaces = [...(np.metricsNamespaces ?? []), ...(monitored ? [OBSERVABILITY_DEFAULTS.namespace] : [])];
  return { ...inf, vpcCidr: inf.vpcCidr ?? vpcCidr, networkPolicy: { ...np, metricsNamespaces } };
}

/**
 * The cluster's own validation at config paths; the component checks every AZ against its region (aws:region here).
 * When the config lists no availabilityZones they are derived from availabilityZone, so a region
 * mismatch there is already reported at cluster.availabilityZone and not repeated for derived zones.
 */
function clusterProblems(c: Partial<ClusterConfig>, region: string | undefined, efs: boolean): Problem[] {
  const atKey = (p: Problem) => ({ ...p, reason: p.reason.replace(REGION_ARG_NOTE, "(aws:region)") });
  const out = validateClusterArgs(clusterArgsOf(c, efs, region)).map((p) => atKey(toConfigPath(p, true)));
  const derived = (p: Problem) =>
    c.availabilityZones === undefined &&
    p.propertyPath.startsWith("cluster.availabilityZones") &&
    p.reason.includes(NOT_IN_REGION);
  return out.filter((p) => !derived(p));
}

/** `DynamoImage` arguments for the image config (the pool's instance type feeds "auto"). */
export function imageArgsOf(
  im: Partial<ImageConfig>,
  instanceType: string | undefined,
  backend?: string,
): DynamoImageArgs {
  return {
    // The engine a prebuilt (one-backend) image must serve: the graph's backend.
    ...(backend === "vllm" || backend === "trtllm" ? { backend } : {}),
    ...(im.source !== undefined ? { source: im.source } : {}),
    ...(im.cudaArchs !== undefined ? { cudaArchs: im.cudaArchs } : {}),
    ...(im.cudaToolkit !== undefined ? { cudaToolkit: im.cudaToolkit } : {}),
    ...(im.ref !== undefined ? { ref: im.ref } : {}),
    ...(im.versions !== undefined ? { versions: im.versions } : {}),
    ...(im.acceptVersionSkew !== undefined ? { acceptVersionSkew: im.acceptVersionSkew } : {}),
    ...(im.builder !== undefined ? { builder: im.builder } : {}),
    instanceTypes: instanceType ? [instanceType] : [],
  };
}

/** The image's own validation (`imagePlan`), at config paths; and the arch list it resolves to. */
function imageProblems(args: DynamoImageArgs): { archs: string[]; toolkit?: string; problems: Problem[] } {
  try {
    const plan = imagePlan(args);
    return { archs: [...plan.cudaArchs], toolkit: plan.cudaToolkit, problems: [] };
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e;
    const problems = e.problems.map((p) =>
      p.propertyPath.startsWith("instanceTypes")
        ? { ...p, propertyPath: "cluster.gpuNodes.instanceType" }
        : { ...p, propertyPath: `image.${p.propertyPath}` },
    );
    return { archs: [], problems };
  }
}

/** Drops a semantic problem when a type problem already explains it (same path, parent or child). */
function dedupe(typeProblems: readonly Problem[], semantic: readonly Problem[]): Problem[] {
  const related = (a: string, b: string) =>
    a === b || a.startsWith(`${b}.`) || a.startsWith(`${b}[`) || b.startsWith(`${a}.`) || b.startsWith(`${a}[`);
  const seen = new Set<string>();
  const out: Problem[] = [...typeProblems];
  for (const p of semantic) {
    const key = `${p.propertyPath}\n${p.reason}`;
    if (seen.has(key) || typeProblems.some((t) => related(t.propertyPath, p.propertyPath))) continue;
    seen.add(key);
    out.push(p);
  }
  return out;
}

/** Every key checked against its schema table: the values as checked (defaults filled), and the type problems. */
function typeCheck(raw: RawStackConfig) {
  const region = check(
    "aws:region",
    raw.region ?? "",
    str({ pattern: REGION_NAME, patternDoc: 'an AWS region such as "us-east-2"' }),
  );
  const graphName = check(
    "graphName",
    raw.graphName ?? DEFAULT_GRAPH_NAME,
    str({ pattern: K8S_NAME, patternDoc: "a lower-case RFC 1123 name" }),
  );
  const rel = check("release", raw.release ?? DEFAULT_RELEASE, str({ enum: Object.values(ReleaseId) }));
  const cluster = check("cluster", raw.cluster ?? {}, { kind: "object", fields: CLUSTER_FIELDS });
  const image = check("image", raw.image ?? {}, { kind: "object", fields: IMAGE_FIELDS });
  const inference = check("inference", raw.inference ?? {}, { kind: "object", fields: INFERENCE_FIELDS });
  return {
    problems: [
      ...configKeyProblems(raw.keys ?? []),
      ...[region, graphName, rel, cluster, image, inference].flatMap((c) => c.problems),
    ],
    region: region.problems.length === 0 ? (region.value as string | undefined) : undefined,
    graphName: graphName.value as string | undefined,
    release: (rel.problems.length === 0 ? rel.value : DEFAULT_RELEASE) as ReleaseId,
    cluster: (cluster.value ?? {}) as Partial<ClusterConfig>,
    image: (image.value ?? {}) as Partial<ImageConfig>,
    /** The inference settings; undefined when the key is not an object. */
    inference: inference.value as RawInference | undefined,
  };
}

/**
 * The inference component's own validation, once the pool is known, at config paths. An image not yet
 * built is validated as a digest-pinned placeholder (only `ref`'s own shape is the schema's).
 */
function inferenceProblems(
  inf: Omit<InferenceSettings, "gpuPool">,
  pool: GpuPoolFacts,
  graphName: string | undefined,
  ref: string | undefined,
  hfTokenSet: boolean,
): Problem[] {
  const settings: InferenceSettings = { ...inf, gpuPool: pool, graphName };
  const image = ref ?? `placeholder.invalid/dynamo@sha256:${"0".repeat(64)}`;
  return validateInference(resolveArgs("llm", settings, image), hfTokenSet, "inference").map((p) => toConfigPath(p));
}

/**
 * Checks the whole stack config and maps it to component arguments. Returns every problem (key path,
 * bad value, allowed values, fix); `config` is set only when there are none.
 */
export function checkStackConfig(raw: RawStackConfig): { config?: StackConfig; problems: Problem[] } {
  const typed = typeCheck(raw);
  const { cluster: c, image: im, region } = typed;
  const written = { ...inferenceSettingsOf(typed.inference ?? ({} as RawInference)), release: typed.release };
  const efs = written.modelCache !== undefined;
  const semantic: Problem[] = [...clusterProblems(c, region, efs)];
  if (!raw.offline) semantic.push(...documentationCidrProblems(c.publicAccessCidrs ?? [], "cluster."));
  const instanceType = c.gpuNodes?.instanceType;
  const resolved = imageProblems(imageArgsOf(im, instanceType, written.backend));
  semantic.push(...resolved.problems);
  const graphName = typed.graphName ?? DEFAULT_GRAPH_NAME;
  const obs = checkObservability(raw.observability, graphName, written.namespace ?? INFERENCE_DEFAULTS.namespace);

  const clusterArgs = clusterArgsOf(c, efs, region);
  const inf = withClusterNetwork(written, resolveClusterArgs(clusterArgs).vpcCidr, obs.value !== undefined);
  const clusterOk = semantic.every((p) => !p.propertyPath.startsWith("cluster.gpuNodes"));
  const pool =
    clusterOk && instanceType && INSTANCES.has(instanceType) && c.gpuNodes?.count
      ? poolFacts(resolvePool(GPU_POOL_NAME, clusterArgs.gpuPools[GPU_POOL_NAME]))
      : undefined;
  if (pool && typed.inference) semantic.push(...inferenceProblems(inf, pool, typed.graphName, im.ref, raw.hfTokenSet));
  const platform = platformArgsOf(typed.inference?.platform, typed.release);
  if (platform) semantic.push(...validatePlatform(resolvePlatform(platform), "inference.platform"));
  semantic.push(...newClusterProblems(typed.inference?.platform, raw.observability));
  semantic.push(
    ...upgradeProblems(
      raw.previousRelease,
      typed.inference?.platform?.version ?? releaseOf(typed.release).platform.chart.version,
    ),
  );
  const problems = dedupe(typed.problems, [...semantic, ...obs.problems]);
  if (problems.length > 0 || !pool) return { problems };
  return {
    problems,
    config: {
      region: region as string,
      graphName: typed.graphName as string,
      release: typed.release,
      cluster: c as ClusterConfig,
      clusterArgs,
      image: { ...(im as Omit<ImageConfig, "resolvedCudaArchs">), resolvedCudaArchs: resolved.archs },
      imageArgs: imageArgsOf(im, instanceType, written.backend),
      inference: {
        ...inf,
        graphName: typed.graphName as string,
        imageCudaArchs: resolved.archs,
        imageCudaToolkit: resolved.toolkit ?? DEFAULT_CUDA_TOOLKIT,
      },
      gpuPool: pool,
      ...(platform ? { platform } : {}),
      ...(obs.value ? { observability: obs.value } : {}),
    },
  };
}
