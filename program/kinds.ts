/**
 * The two stack kinds besides a whole stack (program/config.ts `StackKind`): a **cluster** stack (VPC, EKS, system
 * nodes, platform, monitoring, device plugins; no pool, no graph) and a **model** stack (one GPU pool and one graph on
 * a cluster stack, taken through a StackReference). Their configs are checked here with the same key tables and
 * component validators as a whole stack's, every problem at the key the user wrote. A model stack is checked in two
 * steps: what its own config says (`checkModelStack`, before anything runs), then against the cluster it names
 * (`wireModelStack`, once the cluster stack's output is read): the guards a shared cluster needs. Pure.
 */
import type { GpuPoolFacts } from "../components/catalog/pool";
import { efaPerGpu, INSTANCES } from "../components/catalog/instances";
import { DeviceAllocation, EfaClusterArgs, GpuPoolArgs, resolvePool } from "../components/cluster/args";
import { poolFacts } from "../components/cluster/derive";
import { documentationCidrProblems } from "../components/cluster/reach";
import { validateClusterArgs } from "../components/cluster/validate";
import { gpuPoolArgsProblems } from "../components/cluster/validate-pool";
import { DynamoImageArgs } from "../components/image/args";
import { checkImagePlan } from "../components/image/plan";
import { InferenceSettings, resolveArgs as resolveInference } from "../components/inference/args";
import { validate as validateInference } from "../components/inference/validate";
import * as obs from "../components/observability/args";
import { validate as validateObservability } from "../components/observability/validate";
import { DynamoPlatformArgs, resolveArgs as resolvePlatform } from "../components/platform/args";
import { validate as validatePlatform } from "../components/platform/validate";
import { K8S_NAME } from "../components/_shared/names";
import { brief, Problem } from "../components/_shared/problems";
import { DEFAULT_RELEASE, isReleaseId, releaseProblems, ReleaseId, upgradeProblems } from "../components/releases";
import {
  atStackKey,
  checkStackConfig,
  configKeyProblems,
  kindKeyProblems,
  newClusterProblems,
  RawStackConfig,
  regionOf,
  sectionWalker,
  StackConfig,
  StackKind,
  stackKindOf,
  wireGraph,
} from "./config";
import { ClusterHandoff } from "./handoff";
import { isAtOrUnder } from "./keys";

/** The labels a cluster stack's Prometheus selects model stacks' monitors by (kube-prometheus-stack's own). */
export const CLUSTER_MONITOR_LABELS: Readonly<Record<string, string>> = { release: "kube-prometheus-stack" };
/** The namespace where model stacks claim their names. */
export const CLAIMS_NAMESPACE = "dynamo-efa-claims";

/** A cluster stack's config, checked. */
export interface ClusterStackConfig {
  readonly kind: typeof StackKind.Cluster;
  readonly region: string;
  readonly release: ReleaseId;
  readonly clusterArgs: EfaClusterArgs;
  readonly platform: DynamoPlatformArgs;
  /** The shared monitoring (no graph); undefined when `observability: false`. */
  readonly observability?: Omit<obs.DynamoObservabilityArgs, "graphName" | "graphNamespace">;
}

/** A model stack's own config, checked (before its cluster stack is read). */
export interface ModelStackConfig {
  readonly kind: typeof StackKind.Model;
  readonly region: string;
  readonly release: ReleaseId;
  /** The graph's name; also the pool's name and, by default, the graph's namespace. @default - the stack name */
  readonly graphName: string;
  /** The cluster stack (StackReference name: `<stack>`, `<project>/<stack>` or `<org>/<project>/<stack>`). */
  readonly clusterStack: string;
  /** The cluster stack's recorded outputs (a JSON file), read by the offline render only. */
  readonly clusterOutputs?: string;
  /** The model's GPU pool. */
  readonly pool: GpuPoolArgs;
  readonly imageArgs: DynamoImageArgs;
  /** The graph's settings as written (wired once the cluster is known). */
  readonly inference: Omit<InferenceSettings, "gpuPool">;
  /** The graph's monitors and dashboard on the cluster's monitoring; undefined when `observability: false`. */
  readonly observability?: Record<string, unknown>;
  /** Whether the token is set (its value is never needed to validate). */
  readonly hfTokenSet: boolean;
}

/** A StackReference name: a stack, or a project and a stack, or an organization, a project and a stack. */
const STACK_REF = /^([A-Za-z0-9_.-]+\/){0,2}[A-Za-z0-9_.-]+$/;

/** Checks a cluster stack's config: the cluster, the platform and the shared monitoring. */
export function checkClusterStack(raw: RawStackConfig): { config?: ClusterStackConfig; problems: Problem[] } {
  const problems: Problem[] = [...configKeyProblems(raw.keys ?? []), ...kindKeyProblems(StackKind.Cluster, raw)];
  const region = regionOf(raw, problems);
  const { refused, walked, monitoring } = sectionWalker(problems);
  const o = monitoring(raw.observability);
  const cluster = { ...(walked("cluster", raw.cluster) as unknown as EfaClusterArgs), region: region ?? "" };
  const platformArgs = walked("platform", raw.platform) as DynamoPlatformArgs;
  problems.push(...releaseProblems(raw.release ?? DEFAULT_RELEASE));
  const rel = isReleaseId(raw.release) ? raw.release : DEFAULT_RELEASE;
  const platform = { ...platformArgs, release: rel };
  const own: Problem[] = [
    ...validateClusterArgs(cluster).map((p) => atStackKey("EfaCluster", p)),
    ...(raw.offline ? [] : documentationCidrProblems(cluster.publicAccessCidrs ?? [], "cluster.")),
    ...validatePlatform(resolvePlatform(platform), "platform"),
    ...(o ? monitoringProblems(o) : []),
  ];
  problems.push(...own.filter((p) => !refused.some((r) => isAtOrUnder(p.propertyPath, r))));
  problems.push(...upgradeProblems(raw.previousRelease, resolvePlatform(platform).version));
  if (problems.length > 0 || !region) return { problems };
  const config = { kind: StackKind.Cluster, region, release: rel, clusterArgs: cluster, platform };
  return { problems, config: o ? { ...config, observability: o } : config };
}

/** The shared monitoring's own problems: no graph, installed here (an existing Prometheus is refused). */
function monitoringProblems(o: Record<string, unknown>): Problem[] {
  const r = obs.resolveArgs({ ...o, monitorLabels: { ...CLUSTER_MONITOR_LABELS, ...(o.monitorLabels ?? {}) } });
  return [
    ...validateObservability(r)
      .filter((p) => !p.propertyPath.startsWith("graph"))
      .map((p) => atStackKey("DynamoObservability", p)),
    ...newClusterProblems(o),
  ];
}

/** The graph's name: `graphName`, else the stack's name (unique among the project's stacks). */
function modelGraphName(raw: RawStackConfig, problems: Problem[]): string {
  const given = raw.graphName !== undefined;
  const name = raw.graphName ?? raw.stack ?? "";
  if (typeof name !== "string" || !K8S_NAME.test(name))
    problems.push({
      propertyPath: "graphName",
      reason: given
        ? `must be a lower-case RFC 1123 name; got ${brief(name)}`
        : `defaults to the stack name ${brief(name)}, which is not a lower-case RFC 1123 name (it names the graph, its namespace and its GPU pool); set dynamo-efa:graphName`,
    });
  return String(name);
}

/** Checks a model stack's own config: the cluster stack it names, its pool, image and graph settings. */
export function checkModelStack(raw: RawStackConfig): { config?: ModelStackConfig; problems: Problem[] } {
  const problems: Problem[] = [...configKeyProblems(raw.keys ?? []), ...kindKeyProblems(StackKind.Model, raw)];
  const region = regionOf(raw, problems);
  const graphName = modelGraphName(raw, problems);
  const ref = raw.clusterStack;
  if (typeof ref !== "string" || !STACK_REF.test(ref))
    problems.push({
      propertyPath: "clusterStack",
      reason: `must name the cluster stack as pulumi stack select does (p5en-cluster, or <org>/<project>/<stack>); got ${brief(ref)}`,
    });
  if (raw.clusterOutputs !== undefined && typeof raw.clusterOutputs !== "string")
    problems.push({ propertyPath: "clusterOutputs", reason: `must be a file path; got ${brief(raw.clusterOutputs)}` });
  const { refused, walked, monitoring } = sectionWalker(problems);
  if (raw.gpuPool === undefined)
    problems.push({
      propertyPath: "gpuPool",
      reason:
        "required in a model stack: its own GPU pool on the shared cluster, e.g. { instanceType: p5en.48xlarge, nodes: 2, availabilityZone: us-east-2b }",
    });
  const pool = walked("gpuPool", raw.gpuPool) as unknown as GpuPoolArgs;
  const image = walked("image", raw.image) as DynamoImageArgs;
  const inference = walked("inference", raw.inference) as unknown as Omit<InferenceSettings, "gpuPool">;
  const o = monitoring(raw.observability);
  problems.push(...releaseProblems(raw.release ?? DEFAULT_RELEASE));
  const rel = isReleaseId(raw.release) ? raw.release : DEFAULT_RELEASE;
  const own =
    raw.gpuPool === undefined
      ? []
      : gpuPoolArgsProblems(resolvePool(graphName, pool), { kubernetesVersion: "", efaSecurityGroupId: "" })
          .filter((p) => p.propertyPath !== "pool.amiReleaseVersion") // against the cluster's version, once read
          .filter((p) => !(p.propertyPath === "pool" && p.reason.startsWith("pool name"))) // graphName's problem
          .map((p) => ({ ...p, propertyPath: p.propertyPath.replace(/^pool\b/, "gpuPool") }));
  problems.push(...own.filter((p) => !refused.some((r) => isAtOrUnder(p.propertyPath, r))));
  if (problems.length > 0 || !region) return { problems };
  return {
    problems,
    config: {
      kind: StackKind.Model,
      region,
      release: rel,
      graphName,
      clusterStack: ref as string,
      ...(typeof raw.clusterOutputs === "string" ? { clusterOutputs: raw.clusterOutputs } : {}),
      pool,
      imageArgs: image,
      inference,
      ...(o ? { observability: o } : {}),
      hfTokenSet: raw.hfTokenSet,
    },
  };
}

/**
 * The names a model stack takes on its cluster: the graph's, the pool's (the same: one graph per pool, so the node
 * label names the model) and the namespace's (`inference.namespace`, else the graph's name).
 */
export function modelNames(c: ModelStackConfig): { graphName: string; poolName: string; namespace: string } {
  return { graphName: c.graphName, poolName: c.graphName, namespace: c.inference.namespace ?? c.graphName };
}

/** A model stack wired to its cluster: what its pool, image, graph and monitors take. */
export interface WiredModel {
  readonly poolName: string;
  readonly pool: GpuPoolArgs;
  /** The pool's facts as the cluster serves it (its device allocation). */
  readonly gpuPool: GpuPoolFacts;
  /** The private subnet of the pool's AZ. */
  readonly subnetId: string;
  readonly imageArgs: DynamoImageArgs;
  readonly inference: Omit<InferenceSettings, "gpuPool">;
  /** Monitors and dashboard on the cluster's Prometheus; undefined when off. */
  readonly observability?: obs.DynamoObservabilityArgs;
}

/**
 * What the pool needs from the cluster, and the release they share: the guards of a model stack, each at the key the
 * user wrote and with the fix (the cluster stack named in `clusterStack`).
 */
function clusterFitProblems(c: ModelStackConfig, h: ClusterHandoff): Problem[] {
  const out: Problem[] = [];
  const from = `the cluster stack ${h.stack}`;
  if (h.region !== c.region)
    out.push({
      propertyPath: "aws:region",
      reason: `is ${c.region}, but ${from} is in ${h.region}: a pool joins its cluster in the cluster's region; set aws:region: ${h.region}`,
    });
  if (h.platform.release !== c.release)
    out.push({
      propertyPath: "release",
      reason: `is ${brief(c.release)}, but ${from} runs the Dynamo platform of release ${brief(h.platform.release)} (chart ${h.platform.version}): a graph must be written for the operator that serves it. Set dynamo-efa:release: ${h.platform.release} here, or move the cluster stack to ${c.release} first (its dynamo-efa:release, then pulumi up there)`,
    });
  const az = c.pool.availabilityZone;
  if (az !== undefined && h.privateSubnetIds[az] === undefined)
    out.push({
      propertyPath: "gpuPool.availabilityZone",
      reason: `${brief(az)} has no private subnet in ${from} (its AZs: ${Object.keys(h.privateSubnetIds).join(", ")}); pick one of them, or add the AZ to the cluster's availabilityZones`,
    });
  const row = INSTANCES.get(c.pool.instanceType);
  const efa = resolvePool(c.graphName, c.pool).efa;
  if (efa && h.efaSecurityGroupId === undefined)
    out.push({
      propertyPath: "gpuPool.efa",
      reason: `an EFA pool joins the cluster's EFA security group, and ${from} has none (it serves no EFA type); add ${c.pool.instanceType} to its cluster.poolInstanceTypes, or set efa: false`,
    });
  if (row && !h.poolInstanceTypes.includes(row.name))
    out.push({
      propertyPath: "gpuPool.instanceType",
      reason: `${brief(row.name)} is not one of the types ${from} serves (cluster.poolInstanceTypes: ${h.poolInstanceTypes.join(", ") || "none"}): its device plugins would give this pool's nodes no EFA devices. Add it there and pulumi up the cluster stack first`,
    });
  if (row && efa && h.deviceAllocation === DeviceAllocation.Dra && !Number.isInteger(efaPerGpu(row)))
    out.push({
      propertyPath: "gpuPool.instanceType",
      reason: `${from} allocates devices with DRA, which pairs each GPU with its own EFA devices, but ${row.name} has ${row.efaDevices} EFA devices for ${row.gpuCount} GPUs; pick a type with a whole number of EFA devices per GPU`,
    });
  return out;
}

/** What the graph takes from the cluster's storage and monitoring, when it asks for them; a namespace of its own. */
function graphFitProblems(c: ModelStackConfig, h: ClusterHandoff): Problem[] {
  const out: Problem[] = [];
  const { namespace } = modelNames(c);
  // The platform's and the monitoring's namespaces are refused by the graph's own checks (they are wired in); the
  // claims namespace is the cluster stack's alone: a graph there would fence the claims with its default-deny policy.
  if (namespace === h.claimsNamespace)
    out.push({
      propertyPath: c.inference.namespace === undefined ? "graphName" : "inference.namespace",
      reason: `${brief(namespace)} is the cluster stack ${h.stack}'s claims namespace, where every model stack claims its names; the graph needs a namespace of its own. ${c.inference.namespace === undefined ? "Set another graphName (it names the graph, its pool and, by default, its namespace)" : `Choose another (the default is the graph's name, ${brief(c.graphName)})`}`,
    });
  if (c.inference.modelCache && h.sharedStorageClass === undefined)
    out.push({
      propertyPath: "inference.modelCache",
      reason: `needs a ReadWriteMany (EFS) StorageClass, and the cluster stack ${h.stack} has none; use the local NVMe cache (remove modelCache: modelCacheMode local-nvme is the default on p5en)`,
    });
  if (c.observability && !h.monitoring)
    out.push({
      propertyPath: "observability",
      reason: `the cluster stack ${h.stack} runs no monitoring to add this graph's monitors to; set observability: false here, or turn monitoring on in the cluster stack`,
    });
  return out;
}

/** The graph's monitors and dashboard, on the cluster's Prometheus and Grafana. */
function modelMonitoring(c: ModelStackConfig, h: ClusterHandoff, namespace: string) {
  if (!c.observability || !h.monitoring) return undefined;
  return {
    ...c.observability,
    graphName: c.graphName,
    graphNamespace: namespace,
    namespace: h.monitoring.namespace,
    prometheus: obs.PrometheusMode.Existing,
    monitorLabels: { ...h.monitoring.monitorLabels },
    // The cluster runs the exporter (one DaemonSet per cluster): its metrics are this dashboard's GPU panels.
    dcgmExporter: false,
    gpuPanels: h.monitoring.dcgmExporter,
  } as obs.DynamoObservabilityArgs;
}

/** A model stack against its cluster: every guard and every component check, then the wired arguments. */
export function wireModelStack(c: ModelStackConfig, h: ClusterHandoff): { model?: WiredModel; problems: Problem[] } {
  const problems = [...clusterFitProblems(c, h), ...graphFitProblems(c, h)];
  const { namespace, poolName } = modelNames(c);
  const monitoring = modelMonitoring(c, h, namespace);
  const graph = wireGraph({ ...c.inference, namespace }, c.imageArgs, {
    release: c.release,
    graphName: c.graphName,
    platformNamespace: h.platform.namespace,
    vpcCidr: h.vpcCidr,
    ...(monitoring ? { monitoringNamespace: h.monitoring!.namespace } : {}),
    sharedStorageClass: h.sharedStorageClass ?? "",
  });
  problems.push(...graph.releaseProblems);
  const pool = resolvePool(c.graphName, c.pool);
  problems.push(
    ...gpuPoolArgsProblems(pool, { kubernetesVersion: h.kubernetesVersion, efaSecurityGroupId: "" })
      .filter((p) => p.propertyPath === "pool.amiReleaseVersion")
      .map((p) => ({ ...p, propertyPath: "gpuPool.amiReleaseVersion" })),
  );
  const gpuPool = poolFacts(pool, h.deviceAllocation);
  const imageArgs = { ...graph.imageArgs, instanceTypes: [pool.instanceType] };
  const image = checkImagePlan(imageArgs);
  if (!image.ok) problems.push(...image.problems.map((p) => atStackKey("DynamoImage", p)));
  const ref = imageArgs.ref ?? `placeholder.invalid/dynamo@sha256:${"0".repeat(64)}`;
  const r = resolveInference(c.graphName, { ...graph.inference, gpuPool }, ref);
  problems.push(...validateInference(r, c.hfTokenSet, "inference").map(atModelKey));
  if (monitoring)
    problems.push(
      ...validateObservability(obs.resolveArgs(monitoring)).map((p) => atStackKey("DynamoObservability", p)),
    );
  if (problems.length > 0) return { problems };
  return {
    problems,
    model: {
      poolName,
      pool: c.pool,
      gpuPool,
      subnetId: h.privateSubnetIds[pool.availabilityZone ?? ""] ?? "",
      imageArgs,
      inference: graph.inference,
      ...(monitoring ? { observability: monitoring } : {}),
    },
  };
}

/** A graph problem at the key a model stack wrote: its pool is `gpuPool`, not a whole stack's `cluster.gpuPools`. */
function atModelKey(p: Problem): Problem {
  const q = atStackKey("DisaggInference", p);
  return { ...q, propertyPath: q.propertyPath.replace(/^cluster\.gpuPools\.gpu\b/, "gpuPool") };
}

/** Any stack's checked config. */
export type AnyStackConfig = StackConfig | ClusterStackConfig | ModelStackConfig;

/** Checks a stack config of any kind (`stackKindOf`): the whole stack's, the cluster stack's or the model stack's. */
export function checkAnyStackConfig(raw: RawStackConfig): { config?: AnyStackConfig; problems: Problem[] } {
  switch (stackKindOf(raw)) {
    case StackKind.Model:
      return checkModelStack(raw);
    case StackKind.Cluster:
      return checkClusterStack(raw);
    default:
      return checkStackConfig(raw);
  }
}
