/**
 * The dynamo-efa program: one `EfaCluster` (one GPU pool, `gpu`), one `DynamoImage` compiled for
 * exactly that fleet, the cluster's `DynamoPlatform` and one `DisaggInference` on the pool. Everything is constructed inside
 * `program()`, never at import time, so `index.ts` (a real `pulumi up`) and the offline render
 * (under mocks, once per render) run the same code.
 */
import * as pulumi from "@pulumi/pulumi";
import { EfaCluster } from "../components/cluster/cluster";
import { DynamoImage } from "../components/image/image";
import { DisaggInference } from "../components/inference/inference";
import { DynamoObservability } from "../components/observability/observability";
import { DynamoPlatform } from "../components/platform/platform";
import type { ProgramRun, RenderFacts } from "./run";
import { INFERENCE_DEFAULTS } from "../components/inference/args";
import { ProgramConfig, readStackConfig } from "./config";
import { planSummary } from "./summary";
import { platformMovedFromGraph } from "./moved";

/** Resource name of the cluster and of the image (their children are `dynamo-efa-<role>`). */
export const BASE_NAME = "dynamo-efa";

/** The stack outputs. */
export type ProgramExports = {
  /** In-cluster URL of the OpenAI-compatible Frontend. */
  readonly frontendUrl: pulumi.Output<string>;
  /**
   * URL of the Frontend's internal load balancer; null unless `frontend.serviceType` is "InternalLoadBalancer" (null,
   * not undefined: Pulumi warns on every run about a stack output that is undefined).
   */
  readonly frontendLoadBalancerUrl: pulumi.Output<string> | null;
  /** Digest-pinned image the workers run. */
  readonly imageRef: pulumi.Output<string>;
  /** EKS cluster name. */
  readonly clusterName: pulumi.Output<string>;
  /** Kubeconfig of the cluster (secret). */
  readonly kubeconfig: pulumi.Output<string>;
  /** Served model name clients send. */
  readonly servedModelName: pulumi.Output<string>;
  /** Pools, workers, GPUs/EFA used vs provisioned, image archs. */
  readonly plan: pulumi.Output<ReturnType<typeof planSummary>>;
};

/**
 * The ECR repository of a stack's image (`<project>-<stack>`, and `<project>-<stack>-cache` for the
 * build cache): one account holds many stacks, and the image repository is retained on delete, so a
 * fixed name would collide between stacks and even between a destroy and the next up of one stack.
 */
export function stackRepositoryName(project: string, stack: string): string {
  return `${project}-${stack}`;
}

/** Builds every resource from a checked config. */
export function program(pc: ProgramConfig): ProgramRun<RenderFacts> & { readonly exports: ProgramExports } {
  const c = pc.config;
  // The image first: the GPU node groups wait for its build (below), so it must exist before the cluster does.
  const image = new DynamoImage(BASE_NAME, {
    ...c.imageArgs,
    repositoryName: stackRepositoryName(pulumi.getProject(), pulumi.getStack()),
  });
  // A build takes ~95 min; GPU nodes that joined before it was pushed would be billed idle all that time. A
  // prebuilt `image.ref` has no build to wait for, so the nodes come up with the cluster.
  const cluster = new EfaCluster(BASE_NAME, {
    ...c.clusterArgs,
    ...(image.plan.kind === "build" ? { gpuNodesDependOn: [image] } : {}),
  });
  const pools = Object.values(cluster.gpuPools);
  const inCluster = { providers: { kubernetes: cluster.k8sProvider } };
  // The releases' hooks and volumes need the system nodes, the EBS CSI driver and the default StorageClass.
  const afterNodes = { ...inCluster, dependsOn: [...cluster.workloadPrerequisites] };
  const platform = new DynamoPlatform(BASE_NAME, c.platform, {
    ...afterNodes,
    transformations: [platformMovedFromGraph(c.graphName)],
  });
  const inference = new DisaggInference(
    c.graphName,
    {
      ...c.inference,
      gpuPool: cluster.gpuPools[c.gpuPool.name],
      image: image.ref,
      platform,
      // A vendor image compiled nothing here: it states no list unless the stack states one (image.cudaArchs).
      ...(image.plan.cudaArchs.length > 0 ? { imageCudaArchs: [...image.plan.cudaArchs] } : {}),
      imageCudaToolkit: image.plan.cudaToolkit,
      ...(pc.hfToken ? { hfToken: pc.hfToken } : {}),
    },
    inCluster,
  );
  if (c.observability) {
    const graphNamespace = c.inference.namespace ?? INFERENCE_DEFAULTS.namespace;
    new DynamoObservability(c.graphName, { ...c.observability, graphName: c.graphName, graphNamespace }, afterNodes);
  }
  // Not named `exports`: in the CommonJS that Pulumi's ts-node emits, a local `exports` would shadow
  // the module object that `BASE_NAME` and friends are read through (TDZ error at `pulumi up`).
  const outputs: ProgramExports = {
    frontendUrl: inference.frontendUrl,
    frontendLoadBalancerUrl: inference.frontendLoadBalancerUrl ?? null,
    imageRef: image.ref,
    clusterName: cluster.clusterName,
    kubeconfig: pulumi.secret(cluster.kubeconfig),
    servedModelName: inference.servedModelName,
    plan: inference.workers.apply((w) => planSummary(pools, w, image.plan.cudaArchs, image.plan.cudaToolkit)),
  };
  return { exports: outputs, result: renderFacts(c.region, pools, image, inference) };
}

/** The plain facts the render reads besides the resources: pools, the image's plan, the graph's plan. */
function renderFacts(
  region: string,
  gpuPools: RenderFacts["gpuPools"],
  image: DynamoImage,
  inference: DisaggInference,
): RenderFacts {
  const p = image.plan;
  return {
    region,
    gpuPools,
    image: { cudaArchs: [...p.cudaArchs], cudaToolkit: p.cudaToolkit, build: p.kind === "build", plan: p },
    inference: inference.plan,
  };
}

/**
 * Reads and checks the stack config, then builds the program (what `index.ts` and the render run). Only the render
 * passes `offline: true` (it runs this under mocks); `index.ts` is a real preview/up.
 */
export function runProgram(opts: { readonly offline?: boolean } = {}): ProgramRun<RenderFacts> & {
  readonly exports: ProgramExports;
} {
  return program(readStackConfig(opts.offline ?? false));
}
