/**
 * A model stack (`p5en-llama-8b`): one GPU pool and one graph on a cluster stack it did not create. It reads the
 * cluster stack's handoff through a StackReference (the same resource at `pulumi up` and under the render's mocks,
 * which answer it from the recorded outputs the stack names), checks itself against it (./kinds.ts
 * `wireModelStack`: release, region, the pool's AZ subnet, the EFA security group, the served instance types), claims
 * its names (./claims.ts), and then builds the model part: its image, its `EfaGpuPool` and its graph, with the graph's
 * monitors on the cluster's Prometheus. It creates no VPC, cluster or platform release.
 */
import * as pulumi from "@pulumi/pulumi";
import * as k8s from "@pulumi/kubernetes";
import { EfaGpuPool } from "../components/cluster/gpu-pool";
import { DynamoObservability } from "../components/observability/observability";
import { throwIfAny } from "../components/_shared/problems";
import { CONFIG_NAMESPACE, StackKind } from "./config";
import { ClusterHandoff, HANDOFF_OUTPUT, readClusterHandoff } from "./handoff";
import { ModelStackConfig, modelNames, wireModelStack } from "./kinds";
import { claimObjects } from "./claims";
import { BASE_NAME, graphExports, graphPart, imagePart, renderFacts, Run } from "./parts";
import { qualifiedStack } from "./cluster-stack";
import type { ProgramConfig } from "./read";

/** The cluster stack's handoff, read through a StackReference and checked (every problem at `clusterStack`). */
async function readHandoff(c: ModelStackConfig): Promise<ClusterHandoff> {
  const ref = new pulumi.StackReference(`${BASE_NAME}-cluster`, { name: c.clusterStack });
  // The output holds a secret (the kubeconfig), so it comes back as `secretValue`: plain data to check, whose
  // kubeconfig is wrapped as a secret again before anything uses it (the provider below).
  const details = await ref.getOutputDetails(HANDOFF_OUTPUT);
  const { handoff, problems } = readClusterHandoff(details.value ?? details.secretValue, "clusterStack");
  throwIfAny(`${CONFIG_NAMESPACE} cluster stack ${c.clusterStack}`, problems);
  return handoff!;
}

/** Adds `deps` to the `dependsOn` of every resource a component creates (Pulumi hands a component's to none). */
function after(deps: pulumi.Resource[]): pulumi.ResourceTransformation {
  return (a) => ({ props: a.props, opts: pulumi.mergeOptions(a.opts, { dependsOn: deps }) });
}

/** The model stack: its claims, image, pool, graph and the graph's monitors, on the cluster stack's cluster. */
export async function modelProgram(pc: ProgramConfig<ModelStackConfig>): Promise<Run> {
  const c = pc.config;
  const h = await readHandoff(c);
  const { model, problems } = wireModelStack(c, h);
  throwIfAny(`${CONFIG_NAMESPACE} stack config`, problems);
  const m = model!;
  // A create of an object that exists fails instead of adopting it (the provider's default since 4.x, set here
  // because the claims rely on it): a second stack taking a claimed name stops at the claim.
  const provider = new k8s.Provider(`${BASE_NAME}-k8s`, {
    kubeconfig: pulumi.secret(h.kubeconfig),
    enableServerSideApply: true,
    upsertExistingObjects: false,
  });
  const inCluster = { providers: { kubernetes: provider } };
  const names = { stack: qualifiedStack(), ...modelNames(c) };
  const claims = claimObjects(names, h.claimsNamespace).map(
    ({ key, object }) => new k8s.core.v1.ConfigMap(`${BASE_NAME}-claim-${key}`, object, { provider }),
  );
  const image = imagePart(m.imageArgs);
  const pool = new EfaGpuPool(m.poolName, {
    poolName: m.poolName,
    pool: m.pool,
    clusterName: h.clusterName,
    kubernetesVersion: h.kubernetesVersion,
    nodeRoleArn: h.nodeRoleArn,
    subnetIds: [m.subnetId],
    clusterSecurityGroupId: h.clusterSecurityGroupId,
    ...(h.efaSecurityGroupId !== undefined ? { efaSecurityGroupId: h.efaSecurityGroupId } : {}),
    podImdsAccess: h.podImdsAccess,
    deviceAllocation: h.deviceAllocation,
    tags: h.tags,
    // GPU nodes are billed from launch: they wait for the claims and for an image build, when there is one.
    nodeGroupDependsOn: [...claims, ...(image.plan.kind === "build" ? [image] : [])],
  });
  const inference = graphPart(c.graphName, m.inference, pool.facts, image, pc.hfToken ? { hfToken: pc.hfToken } : {}, {
    ...inCluster,
    transformations: [after(claims)],
  });
  if (m.observability)
    new DynamoObservability(c.graphName, m.observability, { ...inCluster, transformations: [after(claims)] });
  const outputs = graphExports(inference, image, [pool.facts], {
    clusterName: pulumi.output(h.clusterName),
    kubeconfig: pulumi.secret(h.kubeconfig),
  });
  const sharedCluster = { stack: h.stack, clusterName: h.clusterName, systemNodes: h.systemNodes };
  return {
    exports: outputs,
    result: renderFacts(StackKind.Model, c.region, [pool.facts], image, inference, { sharedCluster }),
  };
}
