/**
 * The aggregated twin of a disaggregated graph: the same model, engine, settings and image on the same number of
 * GPUs, served by aggregated workers (each runs prefill and decode of its own requests). Rendered by the inference
 * component's own renderers (`renderGraph`, `renderNetworkPolicies`) from the stack's resolved settings under another
 * graph name, then turned aggregated: the PrefillWorker service dropped, the decode workers told
 * `--disaggregation-mode agg` and given no KV connector (aggregated vLLM moves no KV between workers) and no EFA
 * devices (nothing for them to carry). So the two layouts differ only in what the comparison is about. Pure.
 */
import { GraphService, graphNames, K8S_NAME } from "../../components/_shared/names";
import {
  Backend,
  KvTransport,
  KvTransportChoice,
  Placement,
  type ResolvedInference,
} from "../../components/inference/args";
import { renderGraph } from "../../components/inference/graph";
import type { DgdService, DynamoGraphDeployment } from "../../components/inference/dgd";
import { renderNetworkPolicies, type NetworkPolicyObject } from "../../components/inference/network";

/** The suffix of the twin's graph name. */
export const TWIN_SUFFIX = "-agg";

/** The twin, ready to apply. */
export interface Twin {
  readonly name: string;
  /** The aggregated DynamoGraphDeployment (its `pulumi.com/*` annotations removed: Pulumi does not manage it). */
  readonly graph: DynamoGraphDeployment;
  /** Its Frontend's and workers' NetworkPolicies (the namespace's default deny already exists). */
  readonly policies: readonly NetworkPolicyObject[];
  readonly workers: number;
  readonly gpus: number;
  /** Whether the pool has `gpus` GPUs free beside the disaggregated graph. */
  readonly fitsBeside: boolean;
}

/** The GPUs the disaggregated graph holds. */
export function graphGpus(r: Pick<ResolvedInference, "prefill" | "decode">): number {
  return r.prefill.replicas * r.prefill.gpusPerWorker + r.decode.replicas * r.decode.gpusPerWorker;
}

/** An aggregated worker from a rendered decode worker: mode `agg`, no KV connector, no sub-component type. */
export function aggregatedWorker(w: DgdService): DgdService {
  const main = w.extraPodSpec?.mainContainer;
  const args = [...(main?.args ?? [])];
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--kv-transfer-config") i++;
    else if (args[i] === "--disaggregation-mode") {
      out.push(args[i]!, "agg");
      i++;
    } else out.push(args[i]!);
  }
  const { subComponentType: _role, ...rest } = w;
  return { ...rest, extraPodSpec: { ...w.extraPodSpec, mainContainer: { ...main, args: out } } };
}

/** The twin of `r` with `workers` aggregated workers of the decode workers' size, or why there is none. */
export function aggregatedTwin(r: ResolvedInference, image: string, workers: number): Twin | { why: string } {
  const name = `${r.graphName}${TWIN_SUFFIX}`;
  if (r.backend !== Backend.Vllm)
    return {
      why: `the aggregated twin is rendered for vLLM only: ${r.backend}'s aggregated worker reads an engine file of its own`,
    };
  if (!K8S_NAME.test(name))
    return { why: `the twin's name ${name} is not a valid Kubernetes name (graph name too long)` };
  const twin: ResolvedInference = {
    ...r,
    graphName: name,
    createNamespace: false,
    createHfSecret: false,
    hfSecretName: r.hfSecretName ?? graphNames(r.graphName, r.namespace).hfSecret,
    decode: { ...r.decode, replicas: workers },
    placement: Placement.Any,
    kvTransportChoice: KvTransportChoice.Ucx,
    kvTransport: KvTransport.Ucx,
  };
  const g = renderGraph(twin, image);
  const annotations = Object.fromEntries(
    Object.entries(g.metadata.annotations).filter(([k]) => !k.startsWith("pulumi.com/")),
  );
  const graph: DynamoGraphDeployment = {
    ...g,
    metadata: { ...g.metadata, annotations },
    spec: {
      ...g.spec,
      services: {
        [GraphService.Frontend]: g.spec.services[GraphService.Frontend],
        [GraphService.Decode]: aggregatedWorker(g.spec.services[GraphService.Decode]),
      },
    },
  };
  const policies = renderNetworkPolicies(twin).filter(
    (p) => p.metadata.name === `${name}-frontend` || p.metadata.name === `${name}-workers`,
  );
  const gpus = workers * r.decode.gpusPerWorker;
  return {
    name,
    graph,
    policies,
    workers,
    gpus,
    fitsBeside: r.pool.nodes * r.pool.gpusPerNode - graphGpus(r) >= gpus,
  };
}
