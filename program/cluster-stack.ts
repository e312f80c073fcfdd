/**
 * A cluster stack (`p5en-cluster`): the cluster part (EfaCluster with no GPU pool of its own, the Dynamo platform),
 * the shared monitoring (kube-prometheus-stack and the DCGM exporter, no graph), the namespace where model stacks
 * claim their names, and the handoff (./handoff.ts) exported as ONE typed stack output, `cluster`, with the
 * kubeconfig a secret inside it.
 */
import * as pulumi from "@pulumi/pulumi";
import * as k8s from "@pulumi/kubernetes";
import { resolveArgs as resolveCluster } from "../components/cluster/args";
import { DynamoObservability } from "../components/observability/observability";
import { resolveArgs as resolveObservability } from "../components/observability/args";
import { resolveArgs as resolvePlatform } from "../components/platform/args";
import { StackKind } from "./config";
import { ClusterHandoff, HANDOFF_OUTPUT, HANDOFF_VERSION } from "./handoff";
import { CLAIMS_NAMESPACE, CLUSTER_MONITOR_LABELS, ClusterStackConfig } from "./kinds";
import { BASE_NAME, clusterPart, renderFacts, Run } from "./parts";
import type { ProgramConfig } from "./read";

/** The handoff as the stack exports it: each field an input (the cluster's outputs), the kubeconfig a secret. */
export type HandoffInputs = { readonly [K in keyof ClusterHandoff]: pulumi.Input<ClusterHandoff[K]> };

/** This stack's name as a StackReference names it. */
export function qualifiedStack(): string {
  return `${pulumi.getOrganization()}/${pulumi.getProject()}/${pulumi.getStack()}`;
}

/** The cluster stack: cluster, platform, shared monitoring, the claims namespace; the handoff as its output. */
export function clusterProgram(pc: ProgramConfig<ClusterStackConfig>): Run {
  const c = pc.config;
  const { cluster, afterNodes } = clusterPart(c);
  const monitoring = c.observability
    ? resolveObservability({
        ...c.observability,
        monitorLabels: { ...CLUSTER_MONITOR_LABELS, ...c.observability.monitorLabels },
      })
    : undefined;
  // No graph: kube-prometheus-stack and the DCGM exporter only; each model stack adds its monitors and dashboard.
  if (monitoring)
    new DynamoObservability(BASE_NAME, { ...c.observability, monitorLabels: monitoring.monitorLabels }, afterNodes);
  // Model stacks claim their graph, pool and namespace names here (program/claims.ts): owned by this stack, so a
  // model stack's destroy removes its claims, never the namespace the others' claims live in.
  new k8s.core.v1.Namespace(
    `${BASE_NAME}-claims`,
    { metadata: { name: CLAIMS_NAMESPACE, labels: { "app.kubernetes.io/managed-by": "dynamo-efa" } } },
    { provider: cluster.k8sProvider },
  );
  const a = resolveCluster(c.clusterArgs);
  const platform = resolvePlatform(c.platform);
  const handoff: HandoffInputs = {
    version: HANDOFF_VERSION,
    stack: qualifiedStack(),
    region: c.region,
    clusterName: cluster.clusterName,
    kubernetesVersion: a.kubernetesVersion,
    kubeconfig: pulumi.secret(cluster.kubeconfig),
    vpcCidr: a.vpcCidr,
    privateSubnetIds: cluster.privateSubnetIdsByAz,
    clusterSecurityGroupId: cluster.clusterSecurityGroupId,
    efaSecurityGroupId: cluster.efaSecurityGroupId,
    nodeRoleArn: cluster.nodeRoleArn,
    podImdsAccess: a.imdsHopLimit === 2,
    tags: a.tags,
    deviceAllocation: a.deviceAllocation,
    poolInstanceTypes: a.poolInstanceTypes,
    systemNodes: { instanceType: a.systemInstanceType, count: a.systemNodeCount },
    sharedStorageClass: cluster.storageClassNames.shared,
    platform: { release: platform.release, namespace: platform.namespace, version: platform.version },
    monitoring: monitoring && {
      namespace: monitoring.namespace,
      monitorLabels: monitoring.monitorLabels,
      dcgmExporter: monitoring.dcgmExporter,
    },
    claimsNamespace: CLAIMS_NAMESPACE,
  };
  // Not named `exports` (see wholeProgram in ./program.ts).
  const outputs = {
    [HANDOFF_OUTPUT]: handoff,
    clusterName: cluster.clusterName,
    kubeconfig: pulumi.secret(cluster.kubeconfig),
  };
  return { exports: outputs, result: renderFacts(StackKind.Cluster, c.region, []) };
}
