/**
 * The stack config IS the component arguments: `dynamo-efa:cluster` is `EfaClusterArgs`, `image` `DynamoImageArgs`,
 * `platform` `DynamoPlatformArgs`, `inference` `InferenceSettings`, `observability` `DynamoObservabilityArgs` (or
 * false). This file reads them, walks their keys against the components' key tables (program/keys.ts), wires what
 * one component takes from another, and runs each component's own validator with its paths prefixed by the key the
 * user wrote. Every problem at once; `config` only when there are none. Pure: program/read.ts reads the config through
 * Pulumi, and program/kinds.ts checks the cluster and model stacks.
 */
import type { GpuPoolFacts } from "../components/catalog/pool";
import {
  CLUSTER_KEYS,
  EfaClusterArgs,
  GPU_POOL_KEYS,
  GpuPoolArgs,
  resolveArgs as resolveCluster,
  resolvePool,
} from "../components/cluster/args";
import { poolFacts } from "../components/cluster/derive";
import { REGION_ARG_NOTE, REGION_NAME } from "../components/cluster/partition";
import { documentationCidrProblems } from "../components/cluster/reach";
import { SHARED_STORAGE_CLASS } from "../components/cluster/render";
import { validateClusterArgs } from "../components/cluster/validate";
import { IMAGE_KEYS, DynamoImageArgs } from "../components/image/args";
import { checkImagePlan } from "../components/image/plan";
import {
  Backend,
  INFERENCE_DEFAULTS,
  INFERENCE_KEYS,
  InferenceSettings,
  resolveArgs,
} from "../components/inference/args";
import { validate as validateInference } from "../components/inference/validate";
import * as obs from "../components/observability/args";
import { validate as validateObservability } from "../components/observability/validate";
import { PLATFORM_KEYS, DynamoPlatformArgs, resolveArgs as resolvePlatform } from "../components/platform/args";
import { validate as validatePlatform } from "../components/platform/validate";
import { DEFAULT_GRAPH_NAME, K8S_NAME } from "../components/_shared/names";
import { brief, Problem } from "../components/_shared/problems";
import { closest, didYouMean } from "../components/_shared/suggest";
import {
  isAtOrUnder,
  kindAt,
  ownEntry,
  PROTOTYPE_KEY_REASON,
  PROTOTYPE_KEYS,
  typeName,
  typedByKind,
  walkKeys,
} from "./keys";
import type { AnyKeyShape } from "../components/_shared/keys";
import { releaseImageArgs } from "../components/image/release-image";
import {
  DEFAULT_RELEASE,
  isReleaseId,
  release,
  releaseProblems,
  ReleaseId,
  upgradeProblems,
} from "../components/releases";

/** Config namespace (the Pulumi project name). */
export const CONFIG_NAMESPACE = "dynamo-efa";

/** The object keys of the namespace and the key table each is checked against. */
export const SECTIONS = {
  cluster: CLUSTER_KEYS,
  gpuPool: GPU_POOL_KEYS,
  image: IMAGE_KEYS,
  platform: PLATFORM_KEYS,
  inference: INFERENCE_KEYS,
  observability: obs.OBSERVABILITY_KEYS,
} as const;
/**
 * A `--set` value of the namespace at `path` (`["cluster", "kubernetesVersion"]`) typed by the key's kind in the
 * tables above: a string key takes the text as written where YAML would read a number or a boolean
 * (program/keys.ts `typedByKind`); a key the tables do not know keeps YAML's value.
 */
export const typedOverride = (path: readonly (string | number)[], value: unknown, text: string): unknown =>
  typedByKind(kindAt(SECTIONS as unknown as AnyKeyShape, path), value, text);

/**
 * Every key of the namespace: the sections, the graph's name, the release (given to the platform, the graph and the
 * image), the release a stack moves from, the token (a secret), and a model stack's cluster stack and the recorded
 * output of it the offline render reads.
 */
const STACK_KEYS = [
  ...Object.keys(SECTIONS),
  ...["graphName", "release", "previousRelease", "hfToken", "clusterStack", "clusterOutputs"],
];

/**
 * What a stack deploys, read from which keys it sets (no key of its own): a `model` stack names its cluster stack
 * (`clusterStack`) and brings a GPU pool and a graph; a `cluster` stack has neither a graph (`inference`) nor GPU
 * pools (`cluster.gpuPools`) and serves the model stacks; a `whole` stack (p5en-8gpu) is both in one.
 */
export const StackKind = { Whole: "whole", Cluster: "cluster", Model: "model" } as const;
export type StackKind = (typeof StackKind)[keyof typeof StackKind];

/** The kind of stack a raw config describes. */
export function stackKindOf(raw: RawStackConfig): StackKind {
  if (raw.clusterStack !== undefined) return StackKind.Model;
  const pools = (raw.cluster as { gpuPools?: unknown } | undefined)?.gpuPools;
  return raw.inference === undefined && pools === undefined ? StackKind.Cluster : StackKind.Whole;
}

const MODEL_KEYS =
  "a model stack takes the cluster, its platform and its monitoring from its cluster stack (clusterStack)";
const NO_GRAPH = "a cluster stack serves no graph (model stacks bring theirs)";
const OWN_CLUSTER = "a stack with a cluster of its own writes its pools in cluster.gpuPools";

/** Keys each kind refuses, and why. */
const REFUSED: Readonly<Record<StackKind, Readonly<Record<string, string>>>> = {
  [StackKind.Model]: { cluster: MODEL_KEYS, platform: MODEL_KEYS, previousRelease: MODEL_KEYS },
  [StackKind.Cluster]: {
    image: NO_GRAPH,
    graphName: NO_GRAPH,
    gpuPool: `${NO_GRAPH}; its pools come with the model stacks (cluster.poolInstanceTypes lists their types)`,
    clusterOutputs: "only a model stack reads a cluster stack's outputs",
    hfToken: `${NO_GRAPH}: set the token on each model stack (pulumi config rm dynamo-efa:hfToken here)`,
  },
  [StackKind.Whole]: {
    gpuPool: `${OWN_CLUSTER}; gpuPool is a model stack's own pool (with dynamo-efa:clusterStack)`,
    clusterOutputs: "only a model stack (with dynamo-efa:clusterStack) reads a cluster stack's outputs",
  },
};

/** A problem for each key the stack's kind refuses (`cluster` in a model stack). */
export function kindKeyProblems(kind: StackKind, raw: RawStackConfig): Problem[] {
  const set = new Set((raw.keys ?? []).map((k) => k.slice(k.indexOf(":") + 1)));
  const written: Record<string, unknown> = { ...raw, ...(raw.hfTokenSet ? { hfToken: true } : {}) };
  return Object.entries(REFUSED[kind])
    .filter(([k]) => written[k] !== undefined || set.has(k))
    .map(([k, why]) => ({ propertyPath: k, reason: `not a key of a ${kind} stack: ${why}; remove it` }));
}
/** Keys of other namespaces the program reads; near misses of these (`aws:regoin`) are problems. */
const FOREIGN_KEYS: readonly string[] = ["aws:region"];

/**
 * Keys of earlier versions, each failing with the key it became (Dynamo's chart does the same for removed values).
 * The one GPU pool is written `gpuPools.gpu` here; any pool name works.
 */
export const RENAMES: Readonly<Record<string, string>> = {
  "cluster.availabilityZone": "cluster.gpuPools.gpu.availabilityZone (and list it in cluster.availabilityZones)",
  "cluster.gpuNodes": "cluster.gpuPools.gpu",
  "cluster.gpuNodes.instanceType": "cluster.gpuPools.gpu.instanceType",
  "cluster.gpuNodes.count": "cluster.gpuPools.gpu.nodes",
  "cluster.gpuNodes.capacity": "cluster.gpuPools.gpu.capacity and .capacityReservationId",
  "cluster.gpuNodes.capacity.type": "cluster.gpuPools.gpu.capacity",
  "cluster.gpuNodes.capacity.reservationId": "cluster.gpuPools.gpu.capacityReservationId",
  "cluster.gpuNodes.placementGroup": "cluster.gpuPools.gpu.placementGroup",
  "inference.modelCacheGiB": 'inference.modelCache.sizeGiB (with modelCacheMode "efs")',
  "inference.platform": "platform (dynamo-efa:platform, the cluster's DynamoPlatform)",
  "inference.platform.version": "platform.version (dynamo-efa:platform)",
  "inference.platform.install": "nothing: the program always installs the platform; remove it",
  "observability.enabled": "observability: false to turn monitoring off (remove enabled: true)",
};

/** The whole stack config, checked: each component's arguments, wired. */
export interface StackConfig {
  /** A whole stack: its own cluster and one graph. */
  readonly kind: typeof StackKind.Whole;
  readonly region: string;
  readonly graphName: string;
  /** The supported release (`dynamo-efa:release`), given to the platform, the graph and the image. */
  readonly release: ReleaseId;
  readonly clusterArgs: EfaClusterArgs;
  readonly imageArgs: DynamoImageArgs;
  readonly platform: DynamoPlatformArgs;
  /** The graph's settings, wired (vpcCidr, namespaces, model cache class); the pool is `gpuPool`. */
  readonly inference: Omit<InferenceSettings, "gpuPool">;
  /** The one GPU pool's facts and its name in `cluster.gpuPools`. */
  readonly gpuPool: GpuPoolFacts;
  /** Monitoring; undefined when `observability: false`. */
  readonly observability?: Omit<obs.DynamoObservabilityArgs, "graphName" | "graphNamespace">;
}

/** Raw values as read from config (objects already parsed from JSON). */
export interface RawStackConfig {
  readonly region?: unknown;
  readonly graphName?: unknown;
  /** `dynamo-efa:release`: the supported release (components/releases). */
  readonly release?: unknown;
  /** `dynamo-efa:previousRelease`: the release the stack runs now, when moving it to `release`. */
  readonly previousRelease?: unknown;
  readonly cluster?: unknown;
  /** `dynamo-efa:gpuPool`: a model stack's own GPU pool. */
  readonly gpuPool?: unknown;
  /** `dynamo-efa:clusterStack`: the cluster stack a model stack runs on (a StackReference name). */
  readonly clusterStack?: unknown;
  /** `dynamo-efa:clusterOutputs`: the cluster stack's recorded outputs, which the offline render reads. */
  readonly clusterOutputs?: unknown;
  /** The stack's name (a model stack's names default to it). @default - none */
  readonly stack?: string;
  readonly image?: unknown;
  readonly platform?: unknown;
  readonly inference?: unknown;
  /** `false`, or an object (absent = monitoring on). */
  readonly observability?: unknown;
  /** Whether `dynamo-efa:hfToken` is set (its value is never needed to validate). */
  readonly hfTokenSet: boolean;
  /** Every full config key of the stack (`ns:key`), to catch typos. @default [] */
  readonly keys?: readonly string[];
  /** The offline render (under mocks): documentation CIDRs are accepted with a note. @default false */
  readonly offline?: boolean;
}

/** The raw config from a getter of full keys returning the runtime's strings; object keys are JSON-parsed. */
export function rawStackConfig(
  get: (fullKey: string) => string | undefined,
  keys: readonly string[],
  hfTokenSet: boolean,
  offline = false,
): RawStackConfig {
  const parsed = (key: string): unknown => {
    const text = get(`${CONFIG_NAMESPACE}:${key}`);
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text); // own keys only: JSON.parse keeps "__proto__" as a key
    } catch {
      return text; // a scalar where an object belongs: the walker names the key and the type
    }
  };
  const sections = Object.fromEntries(Object.keys(SECTIONS).map((k) => [k, parsed(k)]));
  return {
    region: get("aws:region"),
    graphName: get(`${CONFIG_NAMESPACE}:graphName`),
    release: get(`${CONFIG_NAMESPACE}:release`),
    previousRelease: get(`${CONFIG_NAMESPACE}:previousRelease`),
    clusterStack: get(`${CONFIG_NAMESPACE}:clusterStack`),
    clusterOutputs: get(`${CONFIG_NAMESPACE}:clusterOutputs`),
    ...sections,
    hfTokenSet,
    keys,
    offline,
  };
}

const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, "");
const letters = (s: string) => [...s.toLowerCase()].sort().join("");
/** `a` is a near miss of `b`: case, separators, one edit per 4 characters, or swapped letters. */
const lookAlike = (a: string, b: string) =>
  a !== b && (squash(a) === squash(b) || closest(a, [b]).length > 0 || (a.length > 3 && letters(a) === letters(b)));

/** Problems with the full config keys (`ns:key`): typos, dotted keys, look-alike namespaces. */
export function configKeyProblems(keys: readonly string[]): Problem[] {
  return keys.flatMap((full): Problem[] => {
    const colon = full.indexOf(":");
    const [ns, key] = colon < 0 ? [CONFIG_NAMESPACE, full] : [full.slice(0, colon), full.slice(colon + 1)];
    const at = brief(full).slice(1, -1);
    if (ns === CONFIG_NAMESPACE) {
      if (STACK_KEYS.includes(key)) return [];
      const [head, ...rest] = key.split(".");
      if (rest.length > 0 && STACK_KEYS.includes(head))
        return [
          {
            propertyPath: at,
            reason: `a dotted key is one literal key to Pulumi, not a path; nest it: ${CONFIG_NAMESPACE}:${head}: { ${rest.join(".")}: ... } (or --set ${key}=...)`,
          },
        ];
      if (PROTOTYPE_KEYS.includes(key)) return [{ propertyPath: at, reason: PROTOTYPE_KEY_REASON }];
      const to = ownEntry(RENAMES, key);
      if (to) return [{ propertyPath: at, reason: `was renamed: write ${to} (docs/CONFIG.md)` }];
      return [
        {
          propertyPath: at,
          reason: `unknown key${didYouMean(key, STACK_KEYS) || `; the ${CONFIG_NAMESPACE} keys are ${STACK_KEYS.join(", ")}`}`,
        },
      ];
    }
    if (lookAlike(ns, CONFIG_NAMESPACE))
      return [
        {
          propertyPath: at,
          reason: `namespace ${JSON.stringify(ns)} is not the project's; did you mean "${CONFIG_NAMESPACE}:${key}"?`,
        },
      ];
    const near = FOREIGN_KEYS.find(
      (f) => f !== full && f.startsWith(`${ns}:`) && lookAlike(key, f.slice(ns.length + 1)),
    );
    return near ? [{ propertyPath: at, reason: `not a key this program reads; did you mean "${near}"?` }] : [];
  });
}

/** Where each component's arguments sit in the stack config, and the arguments the program wires from elsewhere. */
const PLACES: Readonly<Record<string, { section: string; wired: Readonly<Record<string, string>> }>> = {
  EfaCluster: { section: "cluster", wired: { region: "aws:region" } },
  DynamoImage: { section: "image", wired: { instanceTypes: "cluster.gpuPools.gpu.instanceType" } },
  DynamoPlatform: { section: "platform", wired: {} },
  DisaggInference: {
    section: "inference",
    wired: {
      "gpuPool.cpuArch": "cluster.gpuPools.gpu.instanceType",
      "gpuPool.deviceAllocation": "cluster.deviceAllocation",
      gpuPool: "cluster.gpuPools.gpu",
      image: "image.ref",
      hfToken: "hfToken",
    },
  },
  DynamoObservability: { section: "observability", wired: {} },
};

/** A component's problem at the key the user wrote: the section prefixed, or the key a wired argument comes from. */
export function atStackKey(component: string, p: Problem, pool = "gpu"): Problem {
  const place = PLACES[component];
  if (!place) return p;
  const own = p.propertyPath.startsWith(`${place.section}.`)
    ? p.propertyPath.slice(place.section.length + 1)
    : p.propertyPath;
  const from = Object.keys(place.wired).find((w) => own === w || own.startsWith(`${w}.`) || own.startsWith(`${w}[`));
  const propertyPath = from
    ? place.wired[from].replace(".gpu.", `.${pool}.`).replace(/\.gpu$/, `.${pool}`)
    : `${place.section}.${own}`;
  return { ...p, propertyPath, reason: p.reason.replace(REGION_ARG_NOTE, "(aws:region)") };
}

/** `atStackKey` for a list (what the render calls when a component throws). */
export function componentProblemsAtConfig(component: string | undefined, problems: readonly Problem[]): Problem[] {
  return problems.map((p) => (component ? atStackKey(component, p) : p));
}

/**
 * Options that need a cluster that already runs something, refused because this program always creates a new EKS
 * cluster (the components keep them for a cluster of one's own): an existing Prometheus Operator.
 */
export function newClusterProblems(o: { prometheus?: unknown } | undefined): Problem[] {
  return o?.prometheus === obs.PrometheusMode.Existing
    ? [
        {
          propertyPath: "observability.prometheus",
          reason: `"existing" needs a Prometheus Operator already on the cluster, but this program always creates a new EKS cluster: the PodMonitors would have no CRD and the dashboard ConfigMap no namespace. Use "install" (the default), or compose DynamoObservability onto your own cluster`,
        },
      ]
    : [];
}

/** The region a stack is in (`aws:region`), checked; undefined (and a problem) when it is not a region name. */
export function regionOf(raw: RawStackConfig, problems: Problem[]): string | undefined {
  const region = typeof raw.region === "string" && REGION_NAME.test(raw.region) ? raw.region : undefined;
  if (!region)
    problems.push({
      propertyPath: "aws:region",
      reason: `must be an AWS region such as "us-east-2"; got ${brief(raw.region)}`,
    });
  return region;
}

/**
 * A walker of the namespace's object keys into `problems`. The walker refuses wrong-typed values and drops them, so
 * the validators never see them; their own problems at (or under) a refused key would only restate it ("required",
 * "must be a whole number"), so `refused` lists those keys for the caller to leave such problems out.
 */
export function sectionWalker(problems: Problem[]) {
  const refused: string[] = [];
  const walked = (k: keyof typeof SECTIONS, v: unknown) => {
    const w = walkKeys(k, v ?? {}, SECTIONS[k], RENAMES);
    problems.push(...w.problems);
    refused.push(...w.problems.map((p) => p.propertyPath));
    return (w.value ?? {}) as Record<string, unknown>;
  };
  /** `observability`: false (off), or its settings (absent = on, with the defaults). */
  const monitoring = (o: unknown): Record<string, unknown> | undefined =>
    o === false
      ? undefined
      : typeof o === "string" || typeof o === "number" || Array.isArray(o)
        ? void problems.push({
            propertyPath: "observability",
            reason: `must be false (no monitoring) or an object of its settings; got ${brief(o)} (${typeName(o)})${/^\s*false\s*$/i.test(String(o)) ? "; write false without quotes" : ""}`,
          })
        : walked("observability", o === true ? {} : o);
  return { refused, walked, monitoring };
}

/** Checks the whole stack config and wires it into component arguments. */
export function checkStackConfig(raw: RawStackConfig): { config?: StackConfig; problems: Problem[] } {
  const problems: Problem[] = [...configKeyProblems(raw.keys ?? []), ...kindKeyProblems(StackKind.Whole, raw)];
  const region = regionOf(raw, problems);
  const graphName = raw.graphName ?? DEFAULT_GRAPH_NAME;
  if (typeof graphName !== "string" || !K8S_NAME.test(graphName))
    problems.push({ propertyPath: "graphName", reason: `must be a lower-case RFC 1123 name; got ${brief(graphName)}` });
  const { refused, walked, monitoring: monitoringOf } = sectionWalker(problems);
  const monitoring = monitoringOf(raw.observability);
  // The casts hold: the walker checked every value against its argument's kind and dropped what it refused.
  const s = {
    cluster: walked("cluster", raw.cluster) as unknown as EfaClusterArgs,
    image: walked("image", raw.image) as DynamoImageArgs,
    platform: walked("platform", raw.platform) as DynamoPlatformArgs,
    inference: walked("inference", raw.inference) as unknown as Omit<InferenceSettings, "gpuPool">,
  };
  problems.push(...releaseProblems(raw.release ?? DEFAULT_RELEASE));
  const rel = isReleaseId(raw.release) ? raw.release : DEFAULT_RELEASE;
  const wired = wire(s, monitoring, region ?? "", graphName as string, rel);
  problems.push(...wired.releaseProblems);
  problems.push(...componentProblems(wired, raw).filter((p) => !refused.some((r) => isAtOrUnder(p.propertyPath, r))));
  // The operator moves one minor at a time: a stack that states what it runs now may only step to the next.
  problems.push(...upgradeProblems(raw.previousRelease, resolvePlatform(wired.platform).version));
  if (problems.length > 0 || !wired.gpuPool || !region) return { problems };
  return { problems, config: { ...wired, kind: StackKind.Whole, region, gpuPool: wired.gpuPool } as StackConfig };
}

type Wired = Omit<StackConfig, "gpuPool" | "region" | "kind"> & {
  gpuPool?: GpuPoolFacts;
  poolName?: string;
  /** What the release makes of `image.source` (a source the release cannot build). */
  releaseProblems: Problem[];
};

/** What a graph takes from the cluster it runs on (its own, or the cluster stack's handoff). */
export interface GraphWiring {
  readonly release: ReleaseId;
  readonly graphName: string;
  /** The platform's namespace (the graph's NetworkPolicies let the operator in). */
  readonly platformNamespace: string;
  /** The cluster VPC's CIDR (an internal load balancer's default source range). */
  readonly vpcCidr: string;
  /** Prometheus's namespace, when the graph is monitored (its NetworkPolicies let it scrape). */
  readonly monitoringNamespace?: string;
  /** The cluster's ReadWriteMany class for a shared model cache. */
  readonly sharedStorageClass: string;
}

/**
 * The graph's settings and image arguments wired from the cluster (release, names, namespaces, VPC CIDR, the EFS
 * class) and the image the release implies for the graph's backend: its vendor images, and the default source.
 * One wiring for a whole stack's graph and a model stack's.
 */
export function wireGraph(
  inf: Omit<InferenceSettings, "gpuPool">,
  image: DynamoImageArgs,
  w: GraphWiring,
): { inference: Omit<InferenceSettings, "gpuPool">; imageArgs: DynamoImageArgs; releaseProblems: Problem[] } {
  const cache = inf.modelCache;
  const np = inf.networkPolicy ?? {};
  const inference: Omit<InferenceSettings, "gpuPool"> = {
    ...inf,
    release: w.release,
    graphName: w.graphName,
    platformNamespace: w.platformNamespace,
    vpcCidr: inf.vpcCidr ?? w.vpcCidr,
    networkPolicy: {
      ...np,
      metricsNamespaces: [...(np.metricsNamespaces ?? []), ...(w.monitoringNamespace ? [w.monitoringNamespace] : [])],
    },
    ...(cache ? { modelCache: { ...cache, storageClassName: cache.storageClassName ?? w.sharedStorageClass } } : {}),
  };
  // A backend that is not one is reported once, at inference.backend; the image is wired with the default meanwhile,
  // so its own checks do not restate the typo as problems at keys the user never wrote (image.backend, image.source).
  const known = Object.values(Backend) as unknown[];
  const backend = known.includes(inference.backend) ? inference.backend! : INFERENCE_DEFAULTS.backend;
  const fromRelease = releaseImageArgs(release(w.release), { ...image, backend });
  return { inference, imageArgs: { ...image, ...fromRelease.args, backend }, releaseProblems: fromRelease.problems };
}

/** What one component takes from another: pool, region, instance types, VPC CIDR, namespaces, the EFS class. */
function wire(
  s: {
    cluster: EfaClusterArgs;
    image: DynamoImageArgs;
    platform: DynamoPlatformArgs;
    inference: Omit<InferenceSettings, "gpuPool">;
  },
  monitoring: Record<string, unknown> | undefined,
  region: string,
  graphName: string,
  rel: ReleaseId,
): Wired {
  const cache = s.inference.modelCache;
  const clusterArgs: EfaClusterArgs = { ...s.cluster, region, ...(cache ? { efs: true } : {}) };
  const pools = Object.entries(typeof s.cluster.gpuPools === "object" ? (s.cluster.gpuPools ?? {}) : {});
  const [poolName, poolArgs] = pools.length === 1 ? pools[0] : [];
  const observability = monitoring && resolveObservability(monitoring, graphName, s.inference.namespace);
  const graph = wireGraph(s.inference, s.image, {
    release: rel,
    graphName,
    platformNamespace: resolvePlatform(s.platform).namespace,
    vpcCidr: resolveCluster(clusterArgs).vpcCidr,
    ...(observability ? { monitoringNamespace: observability.namespace } : {}),
    sharedStorageClass: SHARED_STORAGE_CLASS,
  });
  return {
    graphName,
    release: rel,
    releaseProblems: graph.releaseProblems,
    clusterArgs,
    imageArgs: { ...graph.imageArgs, instanceTypes: pools.map(([, p]) => p?.instanceType) },
    platform: { ...s.platform, release: rel },
    inference: graph.inference,
    ...(poolName !== undefined && poolArgs ? { poolName, pool: poolArgs } : {}),
    ...(monitoring ? { observability: monitoring } : {}),
  } as Wired & { pool?: unknown };
}

export function resolveObservability(o: Record<string, unknown>, graphName: string, ns: string | undefined) {
  return obs.resolveArgs({ ...o, graphName, graphNamespace: ns ?? INFERENCE_DEFAULTS.namespace });
}

/**
 * More than one GPU pool, which this program refuses: one problem. A second pool is most often a typo in the pool's
 * name (`--set cluster.gpuPools.gpux.nodes=4`), so the problem names the near pool, and the half-written pools after
 * the first report nothing of their own. Replaces `out`'s contents.
 */
function keepOnePool(out: Problem[], pools: readonly string[]): void {
  const [first, ...extra] = pools as [string, ...string[]];
  const near = extra.flatMap((n) => closest(n, [first]).map(() => `; "${n}" looks like a typo of "${first}"`));
  const kept = out.filter((p) => !extra.some((n) => isAtOrUnder(p.propertyPath, `cluster.gpuPools.${n}`)));
  out.splice(0, out.length, ...kept, {
    propertyPath: "cluster.gpuPools",
    reason: `this program serves one graph on one GPU pool; got ${pools.length} (${pools.join(", ")})${near.join("")}. Keep one, or compose the components for more`,
  });
}

/** Each component's own validator on the wired arguments, at the keys the user wrote. */
function componentProblems(w: Wired & { pool?: unknown }, raw: RawStackConfig): Problem[] {
  const pool = w.poolName ?? "gpu";
  const at = (component: string) => (p: Problem) => atStackKey(component, p, pool);
  const pools = Object.keys(w.clusterArgs.gpuPools ?? {});
  const out = validateClusterArgs(w.clusterArgs)
    .map(at("EfaCluster"))
    // A stack without pools but with a graph is told what it misses below, in its own terms.
    .filter((p) => w.clusterArgs.gpuPools !== undefined || p.propertyPath !== "cluster.gpuPools");
  if (w.clusterArgs.gpuPools === undefined)
    out.push({
      propertyPath: "cluster.gpuPools",
      reason: `required in a stack that serves a graph (inference): the graph's GPU pool, e.g. gpu: { instanceType: p5en.48xlarge, nodes: 2, availabilityZone: us-east-2b }. To run the graph on a shared cluster instead, make this a model stack: name the cluster stack in dynamo-efa:clusterStack and write the pool in dynamo-efa:gpuPool`,
    });
  if (typeof w.clusterArgs.gpuPools === "object" && pools.length > 1) keepOnePool(out, pools);
  if (!raw.offline) out.push(...documentationCidrProblems(w.clusterArgs.publicAccessCidrs ?? [], "cluster."));
  // The image's arch list ("auto") is derived from the pool's instance type: with that type unknown, its problem is
  // the cluster's, reported once at cluster.gpuPools.<name>.instanceType.
  // So is a second pool's (its problems are dropped above).
  const typeWrong =
    pools.length > 1 || out.some((p) => /^cluster\.gpuPools\.[^.]+\.instanceType$/.test(p.propertyPath));
  const image = checkImagePlan(w.imageArgs);
  if (!image.ok)
    out.push(
      ...image.problems
        .filter((p) => !typeWrong || !/^(cudaArchs|instanceTypes)\b/.test(p.propertyPath))
        .map(at("DynamoImage")),
    );
  out.push(...validatePlatform(resolvePlatform(w.platform), "platform"));
  if (w.observability) {
    const r = resolveObservability(w.observability, w.graphName, w.inference.namespace);
    out.push(
      ...validateObservability(r)
        .filter((p) => !p.propertyPath.startsWith("graph"))
        .map(at("DynamoObservability")),
    );
    out.push(...newClusterProblems(w.observability));
  }
  // With the pool's count or AZ wrong, the graph is still checked on the pool's type (one node stands in), so every
  // problem is reported at once; what depends on the pool's size waits for a valid pool (its problems say so).
  const poolBad = out.some((p) => /^cluster\.(gpuPools|region)/.test(p.propertyPath));
  const typeBad = out.some((p) => /^cluster\.gpuPools(\.[^.]+\.instanceType)?$/.test(p.propertyPath));
  if (w.pool && !typeBad) {
    const args = w.pool as GpuPoolArgs;
    const facts = poolFacts(
      resolvePool(pool, poolBad ? { ...args, nodes: 1 } : args),
      resolveCluster(w.clusterArgs).deviceAllocation,
    );
    if (!poolBad) w.gpuPool = facts;
    const settings: InferenceSettings = { ...w.inference, gpuPool: facts };
    const ref = w.imageArgs.ref ?? `placeholder.invalid/dynamo@sha256:${"0".repeat(64)}`;
    const problems = validateInference(resolveArgs("llm", settings, ref), raw.hfTokenSet, "inference");
    out.push(...problems.filter((p) => !poolBad || !/\bnodes?\b|pool/.test(p.reason)).map(at("DisaggInference")));
  }
  return out;
}
