/**
 * The stack config IS the component arguments: `dynamo-efa:cluster` is `EfaClusterArgs`, `image` `DynamoImageArgs`,
 * `platform` `DynamoPlatformArgs`, `inference` `InferenceSettings`, `observability` `DynamoObservabilityArgs` (or
 * false). This file reads them, walks their keys against the components' key tables (program/keys.ts), wires what
 * one component takes from another, and runs each component's own validator with its paths prefixed by the key the
 * user wrote. Every problem at once; `config` only when there are none. Pure but for `readStackConfig`.
 */
import * as pulumi from "@pulumi/pulumi";
import type { GpuPoolFacts } from "../components/catalog/pool";
import {
  CLUSTER_KEYS,
  EfaClusterArgs,
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
import { brief, Problem, throwIfAny } from "../components/_shared/problems";
import { closest, didYouMean } from "../components/_shared/suggest";
import { isAtOrUnder, ownEntry, PROTOTYPE_KEY_REASON, PROTOTYPE_KEYS, typeName, walkKeys } from "./keys";
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
const SECTIONS = {
  cluster: CLUSTER_KEYS,
  image: IMAGE_KEYS,
  platform: PLATFORM_KEYS,
  inference: INFERENCE_KEYS,
  observability: obs.OBSERVABILITY_KEYS,
} as const;
/**
 * Every key of the namespace: the sections, the graph's name, the release (given to the platform, the graph and the
 * image), the release a stack moves from, and the token (a secret).
 */
const STACK_KEYS = [...Object.keys(SECTIONS), "graphName", "release", "previousRelease", "hfToken"];
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
function newClusterProblems(o: { prometheus?: unknown } | undefined): Problem[] {
  return o?.prometheus === obs.PrometheusMode.Existing
    ? [
        {
          propertyPath: "observability.prometheus",
          reason: `"existing" needs a Prometheus Operator already on the cluster, but this program always creates a new EKS cluster: the PodMonitors would have no CRD and the dashboard ConfigMap no namespace. Use "install" (the default), or compose DynamoObservability onto your own cluster`,
        },
      ]
    : [];
}

/** Checks the whole stack config and wires it into component arguments. */
export function checkStackConfig(raw: RawStackConfig): { config?: StackConfig; problems: Problem[] } {
  const problems: Problem[] = [...configKeyProblems(raw.keys ?? [])];
  const region = typeof raw.region === "string" && REGION_NAME.test(raw.region) ? raw.region : undefined;
  if (!region)
    problems.push({
      propertyPath: "aws:region",
      reason: `must be an AWS region such as "us-east-2"; got ${brief(raw.region)}`,
    });
  const graphName = raw.graphName ?? DEFAULT_GRAPH_NAME;
  if (typeof graphName !== "string" || !K8S_NAME.test(graphName))
    problems.push({ propertyPath: "graphName", reason: `must be a lower-case RFC 1123 name; got ${brief(graphName)}` });
  // The walker refuses wrong-typed values and drops them, so the validators never see them; their own problems at
  // (or under) a refused key would only restate it ("required", "must be a whole number"), so they are left out.
  const refused: string[] = [];
  const walked = (k: keyof typeof SECTIONS, v: unknown) => {
    const w = walkKeys(k, v ?? {}, SECTIONS[k], RENAMES);
    problems.push(...w.problems);
    refused.push(...w.problems.map((p) => p.propertyPath));
    return (w.value ?? {}) as Record<string, unknown>;
  };
  const o = raw.observability;
  const monitoring =
    o === false
      ? undefined
      : typeof o === "string" || typeof o === "number" || Array.isArray(o)
        ? void problems.push({
            propertyPath: "observability",
            reason: `must be false (no monitoring) or an object of its settings; got ${brief(o)} (${typeName(o)})${/^\s*false\s*$/i.test(String(o)) ? "; write false without quotes" : ""}`,
          })
        : walked("observability", o === true ? {} : o);
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
  return { problems, config: { ...wired, region, gpuPool: wired.gpuPool } as StackConfig };
}

type Wired = Omit<StackConfig, "gpuPool" | "region"> & {
  gpuPool?: GpuPoolFacts;
  poolName?: string;
  /** What the release makes of `image.source` (a source the release cannot build). */
  releaseProblems: Problem[];
};

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
  const np = s.inference.networkPolicy ?? {};
  const inference: Omit<InferenceSettings, "gpuPool"> = {
    ...s.inference,
    release: rel,
    graphName,
    platformNamespace: resolvePlatform(s.platform).namespace,
    vpcCidr: s.inference.vpcCidr ?? resolveCluster(clusterArgs).vpcCidr,
    networkPolicy: {
      ...np,
      metricsNamespaces: [...(np.metricsNamespaces ?? []), ...(observability ? [observability.namespace] : [])],
    },
    ...(cache ? { modelCache: { ...cache, storageClassName: cache.storageClassName ?? SHARED_STORAGE_CLASS } } : {}),
  };
  // The image the release implies for the graph's backend: its vendor images, and the default source. A backend
  // that is not one is reported once, at inference.backend; the image is wired with the default meanwhile, so its
  // own checks do not restate the typo as problems at keys the user never wrote (image.backend, image.source).
  const known = Object.values(Backend) as unknown[];
  const backend = known.includes(inference.backend) ? inference.backend! : INFERENCE_DEFAULTS.backend;
  const fromRelease = releaseImageArgs(release(rel), { ...s.image, backend });
  return {
    graphName,
    release: rel,
    releaseProblems: fromRelease.problems,
    clusterArgs,
    imageArgs: { ...s.image, ...fromRelease.args, backend, instanceTypes: pools.map(([, p]) => p?.instanceType) },
    platform: { ...s.platform, release: rel },
    inference,
    ...(poolName !== undefined && poolArgs ? { poolName, pool: poolArgs } : {}),
    ...(monitoring ? { observability: monitoring } : {}),
  } as Wired & { pool?: unknown };
}

function resolveObservability(o: Record<string, unknown>, graphName: string, ns: string | undefined) {
  return obs.resolveArgs({ ...o, graphName, graphNamespace: ns ?? INFERENCE_DEFAULTS.namespace });
}

/** Each component's own validator on the wired arguments, at the keys the user wrote. */
function componentProblems(w: Wired & { pool?: unknown }, raw: RawStackConfig): Problem[] {
  const pool = w.poolName ?? "gpu";
  const at = (component: string) => (p: Problem) => atStackKey(component, p, pool);
  const out = validateClusterArgs(w.clusterArgs).map(at("EfaCluster"));
  const pools = Object.keys(w.clusterArgs.gpuPools ?? {});
  if (typeof w.clusterArgs.gpuPools === "object" && pools.length > 1)
    out.push({
      propertyPath: "cluster.gpuPools",
      reason: `this program serves one graph on one GPU pool; got ${pools.length} (${pools.join(", ")}). Keep one, or compose the components for more`,
    });
  if (!raw.offline) out.push(...documentationCidrProblems(w.clusterArgs.publicAccessCidrs ?? [], "cluster."));
  // The image's arch list ("auto") is derived from the pool's instance type: with that type unknown, its problem is
  // the cluster's, reported once at cluster.gpuPools.<name>.instanceType.
  const typeWrong = out.some((p) => /^cluster\.gpuPools\.[^.]+\.instanceType$/.test(p.propertyPath));
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

/** The checked config plus the HF token (a secret), when set. */
export interface ProgramConfig {
  readonly config: StackConfig;
  readonly hfToken?: pulumi.Output<string>;
}

/**
 * The stack config through Pulumi, checked: one `ValidationError` listing every problem at its key. `offline` is true
 * only under the render's mocks, which accept placeholders a real preview/up refuses (documentation CIDRs).
 */
export function readStackConfig(offline = false): ProgramConfig {
  const hfToken = new pulumi.Config(CONFIG_NAMESPACE).getSecret("hfToken");
  const keys = Object.keys(pulumi.runtime.allConfig());
  const raw = rawStackConfig((k) => pulumi.runtime.getConfig(k), keys, hfToken !== undefined, offline);
  const { config, problems } = checkStackConfig(raw);
  throwIfAny(`${CONFIG_NAMESPACE} stack config`, problems);
  return { config: config!, ...(hfToken ? { hfToken } : {}) };
}
