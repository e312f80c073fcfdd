/**
 * The DynamoGraphDeployment as the policies read it from a plan: the project's typed model
 * (components/inference/dgd.ts) with every field optional at every depth, because a plan may be
 * hand-written or come from another program, plus the pod fields the CRD accepts in `extraPodSpec` that
 * the renderer never writes but a hand-written graph may (host network, extra containers, node affinity,
 * preferred and expression-based pod affinity): the policies exist to catch those.
 */
import type {
  DgdContainer,
  DgdExtraPodSpec,
  DgdService,
  DgdSpec,
  DynamoGraphDeployment,
} from "../../components/inference/dgd";

/** `T` with every field optional, at every depth: what a plan may hold of a rendered shape. */
export type Loose<T> = T extends readonly (infer E)[]
  ? readonly Loose<E>[]
  : T extends object
    ? { readonly [K in keyof T]?: Loose<T[K]> }
    : T;

/** A Kubernetes label selector (the renderer writes `matchLabels` only). */
interface PlanLabelSelector {
  readonly matchLabels?: Readonly<Record<string, unknown>>;
  readonly matchExpressions?: readonly {
    readonly key?: unknown;
    readonly operator?: unknown;
    readonly values?: readonly unknown[];
  }[];
}

/** One pod (anti-)affinity term. */
interface PlanPodAffinityTerm {
  readonly labelSelector?: PlanLabelSelector;
  readonly topologyKey?: unknown;
}

/** Pod affinity or anti-affinity, required and preferred terms. */
export interface PlanPodAffinity {
  readonly requiredDuringSchedulingIgnoredDuringExecution?: readonly PlanPodAffinityTerm[];
  readonly preferredDuringSchedulingIgnoredDuringExecution?: readonly {
    readonly podAffinityTerm?: PlanPodAffinityTerm;
  }[];
}

/** A node selector requirement (`key In [values]`). */
interface PlanNodeSelectorRequirement {
  readonly key?: unknown;
  readonly operator?: unknown;
  readonly values?: readonly unknown[];
}

/** Pod affinity as Kubernetes accepts it (the renderer writes required pod (anti-)affinity only). */
interface PlanAffinity {
  readonly nodeAffinity?: {
    readonly requiredDuringSchedulingIgnoredDuringExecution?: {
      readonly nodeSelectorTerms?: readonly { readonly matchExpressions?: readonly PlanNodeSelectorRequirement[] }[];
    };
  };
  readonly podAffinity?: PlanPodAffinity;
  readonly podAntiAffinity?: PlanPodAffinity;
}

/** A container of a service's pod. */
export type PlanContainer = Loose<DgdContainer>;

/** `extraPodSpec` as a plan may hold it. */
export interface PlanPodSpec extends Omit<Loose<DgdExtraPodSpec>, "affinity"> {
  readonly hostNetwork?: unknown;
  readonly containers?: readonly PlanContainer[];
  readonly affinity?: PlanAffinity;
}

/** One service of the graph as a plan may hold it. */
export interface PlanService extends Omit<Loose<DgdService>, "extraPodSpec"> {
  readonly extraPodSpec?: PlanPodSpec;
}

/** The graph's spec as a plan may hold it. */
export interface PlanDgdSpec extends Omit<Loose<DgdSpec>, "services"> {
  readonly services?: Readonly<Record<string, PlanService>>;
}

/** The graph as a plan may hold it. */
export interface PlanDgd extends Omit<Loose<DynamoGraphDeployment>, "spec"> {
  readonly spec?: PlanDgdSpec;
}
