/**
 * Shared predicates of the policy pack: how a DynamoGraphDeployment, a worker's env/command/resources
 * and the AWS resources around them are read from plan properties. One module, so no policy
 * re-implements (or `as any`-guesses) a shape another one already reads.
 *
 * The one import point for rule modules; command-line parsing (`_command.ts`), the stack graph
 * (`_stack.ts`) and preview unknowns (`_unknowns.ts`) live beside it and are re-exported here.
 */
import { INSTANCE_TYPE_LABEL, POOL_LABEL } from "../../components/catalog/pool";
import { DynamoPort, OperatorLabel } from "../../components/_shared/names";
import { show } from "../../components/_shared/problems";
import { Annotation } from "../../components/_shared/annotations";
import { EFA_RESOURCE, HUGEPAGES_2MI_RESOURCE, type DgdProbe } from "../../components/inference/dgd";
import { mainContainer } from "./_command";
import type { Loose, PlanContainer, PlanDgd, PlanPodAffinity, PlanService } from "./_dgd";
import { KnownType, PropsByType, typed } from "./_resources";
import { rawProps } from "./_unknowns";

// `show` quotes a value in a message exactly as the components' problems do.
export { DynamoPort, OperatorLabel, INSTANCE_TYPE_LABEL, POOL_LABEL, EFA_RESOURCE, show };
export type { PlanContainer, PlanDgd, PlanPodAffinity, PlanService };

/** A probe as a plan may hold it. */
export type PlanProbe = Loose<DgdProbe>;

/** Bytes in one 2 MiB hugepage. */
export const HUGEPAGE_BYTES = 2 * 1024 * 1024;

/** Policy config with the schema defaults filled in (the engine may send none). */
export function configOf<T extends object>(args: { getConfig<C extends object>(): C }, defaults: T): T {
  return { ...defaults, ...(args.getConfig<Partial<T>>() ?? {}) };
}

// ---------------------------------------------------------------------------------------------
// DynamoGraphDeployment

/** One service of a DynamoGraphDeployment, with how to name it in a message. */
export interface GraphService {
  /** Service key inside `spec.services` (e.g. `PrefillWorker`). */
  readonly key: string;
  /** The service spec. */
  readonly svc: PlanService;
  /** `DynamoGraphDeployment "<name>" service "<key>"`, for messages. */
  readonly label: string;
}

/** The DGD's Kubernetes name (falls back to the Pulumi resource name). */
export function dgdName(props: PlanDgd | undefined, resourceName: string): string {
  const n = props?.metadata?.name;
  return typeof n === "string" && n !== "" ? n : resourceName;
}

/** The DGD's Kubernetes namespace (`default` when unset). */
export function dgdNamespace(props: PlanDgd | undefined): string {
  const n = props?.metadata?.namespace;
  return typeof n === "string" && n !== "" ? n : "default";
}

/** Every service of a DGD, sorted by key. */
export function graphServices(props: PlanDgd | undefined, resourceName: string): GraphService[] {
  const raw: unknown = props?.spec?.services;
  const services: Readonly<Record<string, PlanService | undefined>> =
    raw !== null && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, PlanService>) : {};
  const name = dgdName(props, resourceName);
  return Object.keys(services)
    .sort()
    .map((key) => ({
      key,
      svc: services[key] ?? {},
      label: `DynamoGraphDeployment ${show(name)} service ${show(key)}`,
    }));
}

/** True for a prefill/decode/aggregated worker service. */
export function isWorker(svc: PlanService | undefined): boolean {
  const sub = svc?.subComponentType;
  return svc?.componentType === "worker" || sub === "prefill" || sub === "decode";
}

/** True for a Frontend service. */
export function isFrontend(svc: PlanService | undefined): boolean {
  return svc?.componentType === "frontend";
}

/** Worker services of a DGD. */
export function workers(props: PlanDgd | undefined, resourceName: string): GraphService[] {
  return graphServices(props, resourceName).filter((s) => isWorker(s.svc));
}

/** The DGD's annotation `key`, or undefined. */
export function annotation(props: PlanDgd | undefined, key: string): string | undefined {
  const v: unknown = props?.metadata?.annotations?.[key];
  return typeof v === "string" ? v : undefined;
}

/** Every container spec of a service's pod: main, extra and init containers. */
export function containers(svc: PlanService | undefined): PlanContainer[] {
  const pod = svc?.extraPodSpec ?? {};
  return [mainContainer(svc), ...(pod.containers ?? []), ...(pod.initContainers ?? [])];
}

/** One env var as the worker will see it, and where it was set. */
export interface EnvSetting {
  readonly name: string;
  readonly value?: unknown;
  readonly valueFrom?: unknown;
  /** Path of the list it came from, e.g. `spec.services.DecodeWorker.envs`. */
  readonly where: string;
}

/** An env entry as a plan may hold it (the fields read; values still to narrow). */
interface EnvEntry {
  readonly name?: unknown;
  readonly value?: unknown;
  readonly valueFrom?: unknown;
}

/** Env vars a service's main container gets: `spec.envs`, then the service's `envs`, then `mainContainer.env`. */
export function envOf(props: PlanDgd | undefined, s: GraphService): EnvSetting[] {
  const lists: [string, unknown][] = [
    ["spec.envs", props?.spec?.envs],
    [`spec.services.${s.key}.envs`, s.svc?.envs],
    [`spec.services.${s.key}.extraPodSpec.mainContainer.env`, mainContainer(s.svc).env],
  ];
  return lists.flatMap(([where, list]) =>
    (Array.isArray(list) ? (list as unknown[]) : [])
      .filter((e): e is Loose<EnvEntry> & { name: string } => typeof (e as EnvEntry | null)?.name === "string")
      .map((e) => ({ name: e.name, value: e.value, valueFrom: e.valueFrom, where })),
  );
}

/** The effective literal value of env var `name` (the last definition wins), or undefined. */
export function envValue(env: readonly EnvSetting[], name: string): string | undefined {
  const hits = env.filter((e) => e.name === name);
  const last = hits[hits.length - 1];
  return last && last.value !== undefined ? String(last.value) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Resources (Dynamo form: `resources.limits.{gpu, custom}`; Kubernetes form on the main container)

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50 };
const DECIMAL: Record<string, number> = { k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, m: 1e-3 };

/** A Kubernetes quantity (`5120Mi`, `10Gi`, `2`, `500m`) as a number, or undefined when malformed. */
export function parseQuantity(v: unknown): number | undefined {
  if (typeof v === "number") return Number.isFinite(v) ? v : undefined;
  if (typeof v !== "string") return undefined;
  const m = /^([0-9]+(?:\.[0-9]+)?)([KMGTP]i|[kMGTPm])?$/.exec(v.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  return m[2] ? n * (BINARY[m[2]] ?? DECIMAL[m[2]]) : n;
}

/** A Dynamo-form resource (`gpu`, `cpu`, `memory`) of a service: limits, else requests. */
export function dynamoResource(svc: PlanService | undefined, key: "gpu" | "cpu" | "memory"): unknown {
  return svc?.resources?.limits?.[key] ?? svc?.resources?.requests?.[key];
}

/** A Dynamo-form custom resource (`resources.limits.custom[key]`, else requests). */
export function dynamoCustom(svc: PlanService | undefined, key: string): unknown {
  return svc?.resources?.limits?.custom?.[key] ?? svc?.resources?.requests?.custom?.[key];
}

/** A Kubernetes-form resource on the main container (`mainContainer.resources.limits[key]`, else requests). */
export function containerResource(svc: PlanService | undefined, key: string): unknown {
  const r = mainContainer(svc).resources;
  return r?.limits?.[key] ?? r?.requests?.[key];
}

/** True when a worker's main container uses a DRA claim of its pod (`cluster.deviceAllocation: dra`). */
export function claimsDevices(svc: PlanService | undefined): boolean {
  const claims = (mainContainer(svc).resources as { claims?: readonly unknown[] } | undefined)?.claims;
  return Array.isArray(claims) && claims.length > 0 && (svc?.extraPodSpec?.resourceClaims?.length ?? 0) > 0;
}

/** A DRA worker's claim count as its pod says it (components/inference/device-claims.ts); undefined otherwise. */
function claimed(svc: PlanService | undefined, key: string): number | undefined {
  return claimsDevices(svc) ? parseQuantity(svc?.extraPodMetadata?.annotations?.[key]) : undefined;
}

/** GPUs of a worker in Dynamo form (what the operator sees), else what its DRA claim requests; 0 when absent. */
export function gpusOf(svc: PlanService | undefined): number {
  return parseQuantity(dynamoResource(svc, "gpu")) ?? claimed(svc, Annotation.ClaimGpus) ?? 0;
}

/** EFA devices a worker requests in Dynamo form, else what its DRA claim requests; 0 when absent. */
export function efaOf(svc: PlanService | undefined): number {
  const perGpu = claimed(svc, Annotation.ClaimEfaPerGpu);
  return parseQuantity(dynamoCustom(svc, EFA_RESOURCE)) ?? (perGpu !== undefined ? perGpu * gpusOf(svc) : 0);
}

/** True when a worker requests EFA in either form (the policies judge the form separately). */
export function requestsEfa(svc: PlanService | undefined): boolean {
  return efaOf(svc) > 0 || (parseQuantity(containerResource(svc, EFA_RESOURCE)) ?? 0) > 0;
}

/** 2 MiB hugepages a service requests (Dynamo custom or main-container form), in pages; 0 when none. */
export function hugepagesOf(svc: PlanService | undefined): number {
  const q2 = dynamoCustom(svc, HUGEPAGES_2MI_RESOURCE) ?? containerResource(svc, HUGEPAGES_2MI_RESOURCE);
  const bytes = parseQuantity(q2) ?? 0;
  return Math.ceil(bytes / HUGEPAGE_BYTES);
}

/**
 * The EC2 instance type a service is pinned to: its `node.kubernetes.io/instance-type` node
 * selector, or a required node-affinity term `In` exactly one type. Undefined when not pinned.
 */
export function instanceTypeOf(svc: PlanService | undefined): string | undefined {
  const pod = svc?.extraPodSpec ?? {};
  const sel: unknown = pod.nodeSelector?.[INSTANCE_TYPE_LABEL];
  if (typeof sel === "string") return sel;
  const terms = pod.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  for (const t of terms) {
    for (const e of t?.matchExpressions ?? []) {
      const v: unknown = Array.isArray(e?.values) && e.values.length === 1 ? e.values[0] : undefined;
      if (e?.key === INSTANCE_TYPE_LABEL && e?.operator === "In" && typeof v === "string") return v;
    }
  }
  return undefined;
}

/** Seconds a probe tolerates failing before it gives up: initialDelay + period x failureThreshold (k8s defaults 0, 10, 3). */
export function probeBudgetSeconds(probe: PlanProbe | undefined): number {
  const delay = Number(probe?.initialDelaySeconds ?? 0);
  const period = Number(probe?.periodSeconds ?? 10);
  const failures = Number(probe?.failureThreshold ?? 3);
  return delay + period * failures;
}

/** The raw props (preview sentinels in place: `isUnknownValue`) of a stack resource of `type`, typed by it; else undefined. */
export function rawPropsOf<K extends KnownType>(
  r: { readonly type: string; readonly props: unknown },
  type: K,
): PropsByType[K] | undefined {
  const t = typed(r, [type]);
  return t ? rawProps(t.props as PropsByType[K]) : undefined;
}
