/**
 * The Frontend's arguments (`inference.frontend`): its Service, the router mode, and the surfaces Dynamo turns on by
 * default and this package leaves off unless asked; and the first-token check that asks it for a token
 * (`inference.firstTokenCheck`). Re-exported by `./args.ts`. Pure.
 */

/** How the Frontend's Service is exposed. */
export const FrontendServiceType = {
  /** In-cluster only. */
  ClusterIP: "ClusterIP",
  /** An internal (VPC-only) AWS load balancer; never internet-facing. */
  InternalLoadBalancer: "InternalLoadBalancer",
} as const;
export type FrontendServiceType = (typeof FrontendServiceType)[keyof typeof FrontendServiceType];

/** The OpenAI-compatible Frontend. */
export interface FrontendArgs {
  /** Frontend pods. @default 1 */
  readonly replicas?: number;
  /** Service exposure. @default "ClusterIP" */
  readonly serviceType?: FrontendServiceType;
  /**
   * CIDRs the internal load balancer accepts (`loadBalancerSourceRanges`; also the NetworkPolicy's allowed
   * sources of the Frontend's port), so only these callers reach it, not everything routed into the VPC.
   * @default - `[vpcCidr]` (required when `vpcCidr` is not given and `serviceType` is "InternalLoadBalancer")
   * @see https://kubernetes.io/docs/reference/kubernetes-api/service-resources/service-v1/#ServiceSpec
   */
  readonly sourceRanges?: readonly string[];
  /**
   * How the Frontend picks a worker (`--router-mode`): "round-robin", or "kv" (the KV-aware router, offered where the
   * release lists it, with one Frontend: it subscribes to the workers' event publishers, a flow the release admits).
   * Workers publish KV cache events only with `--kv-events-config` (opt-in since Dynamo 1.0.0; add it to the roles'
   * `extraArgs`); without it the router scores workers by load alone, as upstream's EKS example runs it.
   * @default "round-robin"
   */
  readonly routerMode?: RouterMode;
  /**
   * Serve the Frontend's admin API (`GET`/`POST /busy_threshold`) on its public port, unauthenticated. Dynamo turns it
   * on by default from 1.3.0; off here unless asked. @default false
   */
  readonly adminApi?: boolean;
  /**
   * Accept the `nvext` request extension and its worker-pinning headers (`x-dynamo-worker-instance-id`, ...), which
   * let a caller choose the worker. Dynamo turns them on by default from 1.3.0; off here unless asked. @default false
   */
  readonly nvext?: boolean;
}

/** The Frontend's router modes this package offers (`frontend.routerMode`). */
export const RouterMode = { RoundRobin: "round-robin", Kv: "kv" } as const;
export type RouterMode = (typeof RouterMode)[keyof typeof RouterMode];

/**
 * The first-token check `pulumi up` waits for after the graph is Ready (`./first-token.ts`): a Job that lists the
 * models and asks the Frontend for a completion and a streamed completion, and fails the deploy naming the step and
 * the likely cause.
 */
export interface FirstTokenCheckArgs {
  /** Run the check. @default true */
  readonly enabled?: boolean;
  /**
   * Digest-pinned image with Python 3 that runs the check's script (standard library only).
   * @default - `versions.prefetchImage` (python:3.12-slim)
   */
  readonly image?: string;
}
