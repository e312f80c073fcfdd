/**
 * The dynamo-efa program, for the three kinds of stack (program/config.ts `StackKind`), composed from the parts in
 * ./parts.ts: the cluster part (EfaCluster, DynamoPlatform) and the model part (DynamoImage, DisaggInference):
 * - a **whole** stack (p5en-8gpu) is both on its own cluster, the graph's pool being the cluster's `EfaGpuPool`;
 * - a **cluster** stack (./cluster-stack.ts) is the cluster part with the shared monitoring, exporting the handoff;
 * - a **model** stack (./model-stack.ts) is the model part with its own `EfaGpuPool` on a cluster stack it reads
 *   through a StackReference.
 * Everything is constructed inside the run, never at import time, so `index.ts` (a real `pulumi up`) and the offline
 * render (under mocks, once per render) run the same code.
 */
import { INFERENCE_DEFAULTS } from "../components/inference/args";
import { DynamoObservability } from "../components/observability/observability";
import { StackConfig, StackKind } from "./config";
import { ProgramConfig, readStackConfig } from "./read";
import { ClusterStackConfig, ModelStackConfig } from "./kinds";
import { clusterPart, graphExports, graphPart, imagePart, renderFacts, Run } from "./parts";
import { clusterProgram } from "./cluster-stack";
import { modelProgram } from "./model-stack";

export { BASE_NAME, stackRepositoryName } from "./parts";
export type { ProgramExports, Run } from "./parts";

/** A whole stack: its own cluster (with the graph's pool), platform, image, graph and monitoring. */
export function wholeProgram(pc: ProgramConfig<StackConfig>): Run {
  const c = pc.config;
  // The image first: the GPU node groups wait for its build (below), so it must exist before the cluster does.
  const image = imagePart(c.imageArgs);
  // A build takes ~95 min; GPU nodes that joined before it was pushed would be billed idle all that time. A
  // prebuilt `image.ref` has no build to wait for, so the nodes come up with the cluster.
  const { cluster, platform, inCluster, afterNodes } = clusterPart(c, {
    ...(image.plan.kind === "build" ? { gpuNodesDependOn: [image] } : {}),
    platformAliasesFromGraph: c.graphName,
  });
  const pools = Object.values(cluster.gpuPools);
  const inference = graphPart(
    c.graphName,
    c.inference,
    cluster.gpuPools[c.gpuPool.name],
    image,
    { platform, ...(pc.hfToken ? { hfToken: pc.hfToken } : {}) },
    inCluster,
  );
  if (c.observability) {
    const graphNamespace = c.inference.namespace ?? INFERENCE_DEFAULTS.namespace;
    new DynamoObservability(c.graphName, { ...c.observability, graphName: c.graphName, graphNamespace }, afterNodes);
  }
  // Not named `exports`: in the CommonJS that Pulumi's ts-node emits, a local `exports` would shadow
  // the module object that `BASE_NAME` and friends are read through (TDZ error at `pulumi up`).
  const outputs = graphExports(inference, image, pools, cluster);
  return { exports: outputs, result: renderFacts(StackKind.Whole, c.region, pools, image, inference) };
}

/**
 * Reads and checks the stack config, then builds the program of the stack's kind (what `index.ts` and the render
 * run). Only the render passes `offline: true` (it runs this under mocks); `index.ts` is a real preview/up. Async: a
 * model stack reads its cluster stack's output before it creates anything.
 */
export async function runProgram(opts: { readonly offline?: boolean } = {}): Promise<Run> {
  const pc = readStackConfig(opts.offline ?? false);
  switch (pc.config.kind) {
    case StackKind.Cluster:
      return clusterProgram(pc as ProgramConfig<ClusterStackConfig>);
    case StackKind.Model:
      return modelProgram(pc as ProgramConfig<ModelStackConfig>);
    default:
      return wholeProgram(pc as ProgramConfig<StackConfig>);
  }
}
