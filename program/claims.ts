/**
 * The names a model stack takes on a shared cluster, claimed as ConfigMaps in the cluster's claims namespace
 * (`graph-<graph>`, `pool-<pool>`, `namespace-<namespace>`), each naming the stack that holds it. The model stack's
 * Kubernetes provider refuses to adopt an object that exists (`upsertExistingObjects: false`: pulumi-kubernetes
 * 4.34.2 creates with a client-side create, which fails with AlreadyExists), and the pool and graph wait for the
 * claims, so a second stack that takes a name already held fails at its claim, before any GPU node launches. The
 * claims belong to the stack that made them: its destroy frees the names and touches nothing else. Pure.
 */
/** What one model stack claims. */
export interface ModelNames {
  /** The stack claiming (`<org>/<project>/<stack>`). */
  readonly stack: string;
  readonly graphName: string;
  readonly poolName: string;
  readonly namespace: string;
}

/** One claim: a ConfigMap whose name is the thing claimed. */
export interface ClaimObject {
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly labels: Readonly<Record<string, string>>;
  };
  readonly data: Readonly<Record<string, string>>;
}

/** Label on every claim: what kind of name it holds. */
export const CLAIM_KIND_LABEL = "dynamo-efa/claim";

/**
 * The claims of `n` in `claimsNamespace`. Each name is at most 63 characters of a DNS label already (validated), so
 * `<kind>-<name>` fits a ConfigMap name (253).
 */
export function claimObjects(n: ModelNames, claimsNamespace: string): { key: string; object: ClaimObject }[] {
  const claim = (kind: "graph" | "pool" | "namespace", name: string) => ({
    key: `${kind}-${name}`,
    object: {
      metadata: {
        name: `${kind}-${name}`,
        namespace: claimsNamespace,
        labels: { "app.kubernetes.io/managed-by": "dynamo-efa", [CLAIM_KIND_LABEL]: kind },
      },
      data: { stack: n.stack, [kind]: name },
    },
  });
  return [claim("graph", n.graphName), claim("pool", n.poolName), claim("namespace", n.namespace)];
}

/** The names two model stacks share, each a collision a claim would refuse at `pulumi up`. */
export function sharedNames(a: ModelNames, b: ModelNames): string[] {
  const names = (n: ModelNames) => [`graph ${n.graphName}`, `pool ${n.poolName}`, `namespace ${n.namespace}`];
  const theirs = new Set(names(b));
  return names(a).filter((x) => theirs.has(x));
}
