/**
 * An in-memory plan and the validation args the policy server would build from it: props behind the
 * unknown-checking proxy, `notApplicable` thrown, stack resources linked by parent / dependencies /
 * property dependencies. Split from `run.ts` (which runs policies and scores them) so the plan's
 * shape and its translation to the SDK's args are read in one place.
 */
import type {
  PolicyResource,
  PolicyResourceOptions,
  ResourceValidationArgs,
  StackValidationArgs,
} from "@pulumi/policy";
import { unknownCheckingProxy } from "./rules/_unknowns";

/** Resource options as the plan records them; `retainOnDelete` is visible offline only (CrossGuard does not send it). */
export interface PlanResourceOptions extends Partial<PolicyResourceOptions> {
  /** The resource (and its data) is kept in the cloud when Pulumi deletes it. */
  retainOnDelete?: boolean;
  /**
   * Offline only: dotted input paths whose values were Pulumi secrets (the render's capture records
   * them), e.g. `stringData`. The policy server has no such field; it sends `additionalSecretOutputs`.
   */
  secretPaths?: readonly string[];
}

/** One resource of an in-memory plan (what `render` captures from the program). */
export interface PlanResource {
  /** Type token, e.g. `aws:ec2/launchTemplate:LaunchTemplate`. */
  readonly type: string;
  /** Pulumi resource name. */
  readonly name: string;
  /** URN; the key `parent` / `dependencies` refer to. */
  readonly urn: string;
  /** Resource inputs as plain JSON (Outputs resolved). */
  readonly props: Readonly<Record<string, unknown>>;
  /** URN of the parent resource. */
  readonly parent?: string;
  /** URNs this resource depends on (explicit `dependsOn` and implicit, through Output inputs). */
  readonly dependencies?: readonly string[];
  /** URNs behind each input property (top-level key -> URNs). */
  readonly propertyDependencies?: Readonly<Record<string, readonly string[]>>;
  /** Resource options (`protect`, `retainOnDelete`, `additionalSecretOutputs`, ...). */
  readonly opts?: PlanResourceOptions;
}

/** Thrown by `notApplicable()`; caught by the runner like the policy server does. */
export class NotApplicable extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

const throwNotApplicable = (reason?: string): never => {
  throw new NotApplicable(reason ?? "not applicable");
};

const NO_TAGS: ReadonlyMap<string, string> = new Map();

/** `isType` as the policy server answers it: the class's Pulumi type token equals the resource's. */
const typeMatcher = (type: string) => ({
  isType: (cls: unknown) => typeof cls === "function" && "__pulumiType" in cls && cls.__pulumiType === type,
});

/** Full resource options as the policy server builds them (missing lists become empty). */
function fullOpts(
  o: PlanResourceOptions | undefined,
  parent?: string,
): PolicyResourceOptions & { retainOnDelete?: boolean; secretPaths?: readonly string[] } {
  return {
    protect: o?.protect ?? false,
    ignoreChanges: [...(o?.ignoreChanges ?? [])],
    aliases: [...(o?.aliases ?? [])],
    customTimeouts: o?.customTimeouts ?? { createSeconds: 0, updateSeconds: 0, deleteSeconds: 0 },
    additionalSecretOutputs: [...(o?.additionalSecretOutputs ?? [])],
    ...(o?.deleteBeforeReplace !== undefined ? { deleteBeforeReplace: o.deleteBeforeReplace } : {}),
    // The offline plan always knows retainOnDelete (absent = false); the policy server never sends it.
    retainOnDelete: o?.retainOnDelete ?? false,
    ...(o?.secretPaths ? { secretPaths: [...o.secretPaths] } : {}),
    ...((o?.parent ?? parent) ? { parent: o?.parent ?? parent } : {}),
  };
}

/** `ResourceValidationArgs` for one plan resource, as the policy server would build them. */
export function resourceValidationArgs(r: PlanResource, getConfig: () => object = () => ({})): ResourceValidationArgs {
  const props = unknownCheckingProxy(r.props);
  const m = typeMatcher(r.type);
  return {
    type: r.type,
    props,
    urn: r.urn,
    name: r.name,
    opts: fullOpts(r.opts, r.parent),
    stackTags: NO_TAGS,
    isType: m.isType,
    asType: ((cls: unknown) => (m.isType(cls) ? props : undefined)) as ResourceValidationArgs["asType"],
    getConfig: getConfig as ResourceValidationArgs["getConfig"],
    notApplicable: throwNotApplicable,
  };
}

/** `StackValidationArgs` for a whole plan: resources linked to their parent and dependencies by URN. */
export function stackValidationArgs(
  plan: readonly PlanResource[],
  getConfig: () => object = () => ({}),
): StackValidationArgs {
  const byUrn = new Map<string, PolicyResource>();
  const nodes = plan.map((r) => {
    const props = unknownCheckingProxy(r.props);
    const m = typeMatcher(r.type);
    const node: PolicyResource = {
      type: r.type,
      props,
      urn: r.urn,
      name: r.name,
      opts: fullOpts(r.opts, r.parent),
      dependencies: [],
      propertyDependencies: {},
      isType: m.isType,
      asType: ((cls: unknown) => (m.isType(cls) ? props : undefined)) as PolicyResource["asType"],
    };
    byUrn.set(r.urn, node);
    return node;
  });
  const resolve = (urns: readonly string[] | undefined) =>
    (urns ?? []).map((u) => byUrn.get(u)).filter((x): x is PolicyResource => x !== undefined);
  plan.forEach((r, i) => {
    const node = nodes[i];
    const parent = r.parent ? byUrn.get(r.parent) : undefined;
    if (parent) node.parent = parent;
    node.dependencies = resolve(r.dependencies);
    for (const [k, urns] of Object.entries(r.propertyDependencies ?? {})) node.propertyDependencies[k] = resolve(urns);
  });
  return {
    resources: nodes,
    stackTags: NO_TAGS,
    getConfig: getConfig as StackValidationArgs["getConfig"],
    notApplicable: throwNotApplicable,
  };
}
