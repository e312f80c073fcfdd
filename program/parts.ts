/**
 * The parts every kind of stack is composed of (program/program.ts): the cluster part (`clusterPart`: EfaCluster and
 * DynamoPlatform) and the model part (`imagePart` + `graphPart`: the image for the pool's fleet and the graph on the
 * pool), the outputs of a stack that serves a graph and the facts the render reads. One wiring, called by a whole
 * stack, a cluster stack and a model stack.
 */
import * as pulumi from "@pulumi/pulumi";
import { EfaCluster } from "../components/cluster/cluster";
import { EfaClusterArgs } from "../components/cluster/args";
import { DynamoImage } from "../components/image/image";
import { DynamoImageArgs } from "../components/image/args";
import { DisaggInference } from "../components/inference/inference";
import { InferenceSettings } from "../components/inference/args";
import { DynamoPlatform } from "../components/platform/platform";
import { DynamoPlatformArgs } from "../components/platform/args";
import type { GpuPoolFacts } from "../components/catalog/pool";
import type { ProgramRun, RenderFacts } from "./run";
import { StackKind } from "./config";
import { planSummary } from "./summary";
import { platformMovedFromGraph } from "./moved";

/** Resource name of the cluster and of the image (their children are `dynamo-efa-<role>`). */
export const BASE_NAME = "dynamo-efa";

/** The stack outputs of a stack that serves a graph (a whole stack or a model stack). */
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

/** What one run hands back: the stack outputs and the render's facts. */
export type Run = ProgramRun<RenderFacts> & { readonly exports: Record<string, unknown> };

/**
 * The ECR repository of a stack's image (`<project>-<stack>`, and `<project>-<stack>-cache` for the
 * build cache): one account holds many stacks, and the image repository is retained on delete, so a
 * fixed name would collide between stacks and even between a destroy and the next up of one stack.
 */
export function stackRepositoryName(project: string, stack: string): string {
  return `${project}-${stack}`;
}

/** The model part's image: compiled for (or, from a vendor, chosen for) exactly the pool's fleet. */
export function imagePart(imageArgs: DynamoImageArgs): DynamoImage {
  return new DynamoImage(BASE_NAME, {
    ...imageArgs,
    repositoryName: stackRepositoryName(pulumi.getProject(), pulumi.getStack()),
  });
}

/** The cluster part: the EKS cluster with its system nodes and add-ons, and the Dynamo platform on it. */
export function clusterPart(
  c: { readonly clusterArgs: EfaClusterArgs; readonly platform: DynamoPlatformArgs },
  o: { readonly gpuNodesDependOn?: pulumi.Resource[]; readonly platformAliasesFromGraph?: string } = {},
) {
  const cluster = new EfaCluster(BASE_NAME, {
    ...c.clusterArgs,
    ...(o.gpuNodesDependOn ? { gpuNodesDependOn: o.gpuNodesDependOn } : {}),
  });
  const inCluster = { providers: { kubernetes: cluster.k8sProvider } };
  // The releases' hooks and volumes need the system nodes, the EBS CSI driver and the default StorageClass.
  const afterNodes = { ...inCluster, dependsOn: [...cluster.workloadPrerequisites] };
  const platform = new DynamoPlatform(BASE_NAME, c.platform, {
    ...afterNodes,
    ...(o.platformAliasesFromGraph ? { transformations: [platformMovedFromGraph(o.platformAliasesFromGraph)] } : {}),
  });
  return { cluster, platform, inCluster, afterNodes };
}

/** The model part's graph: one `DisaggInference` on `gpuPool`, running `image`. */
export function graphPart(
  graphName: string,
  settings: Omit<InferenceSettings, "gpuPool">,
  gpuPool: GpuPoolFacts,
  image: DynamoImage,
  o: { readonly platform?: pulumi.Resource; readonly hfToken?: pulumi.Output<string> },
  opts: pulumi.ComponentResourceOptions,
): DisaggInference {
  return new DisaggInference(
    graphName,
    {
      ...settings,
      gpuPool,
      image: image.ref,
      ...(o.platform ? { platform: o.platform } : {}),
      // A vendor image compiled nothing here: it states no list unless the stack states one (image.cudaArchs).
      ...(image.plan.cudaArchs.length > 0 ? { imageCudaArchs: [...image.plan.cudaArchs] } : {}),
      imageCudaToolkit: image.plan.cudaToolkit,
      ...(o.hfToken ? { hfToken: o.hfToken } : {}),
    },
    opts,
  );
}

/** The outputs of a stack that serves a graph. */
export function graphExports(
  inference: DisaggInference,
  image: DynamoImage,
  pools: readonly GpuPoolFacts[],
  cluster: { readonly clusterName: pulumi.Output<string>; readonly kubeconfig: pulumi.Output<string> },
): ProgramExports {
  return {
    frontendUrl: inference.frontendUrl,
    frontendLoadBalancerUrl: inference.frontendLoadBalancerUrl ?? null,
    imageRef: image.ref,
    clusterName: cluster.clusterName,
    kubeconfig: pulumi.secret(cluster.kubeconfig),
    servedModelName: inference.servedModelName,
    plan: inference.workers.apply((w) => planSummary(pools, w, image.plan.cudaArchs, image.plan.cudaToolkit)),
  };
}

/** The plain facts the render reads besides the resources: pools, the image's plan, the graph's plan. */
export function renderFacts(
  kind: StackKind,
  region: string,
  gpuPools: RenderFacts["gpuPools"],
  image?: DynamoImage,
  inference?: DisaggInference,
  extra: Pick<RenderFacts, "sharedCluster"> = {},
): RenderFacts {
  const p = image?.plan;
  return {
    kind,
    region,
    gpuPools,
    ...(p
      ? { image: { cudaArchs: [...p.cudaArchs], cudaToolkit: p.cudaToolkit, build: p.kind === "build", plan: p } }
      : {}),
    ...(inference ? { inference: inference.plan } : {}),
    ...extra,
  };
}
