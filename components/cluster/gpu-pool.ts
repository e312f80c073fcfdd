/**
 * `EfaGpuPool`: one GPU pool (a cluster placement group, an EFA launch template and a managed node group) on an EKS
 * cluster it did not create, as pulumi-eks's `ManagedNodeGroup` takes a cluster it did not create. `EfaCluster`
 * makes its own pools with it, and a stack that only adds a model to a shared cluster makes its pool with it from
 * what the cluster's stack exports. Thin class: validation in `validate-pool.ts`, derivations in `derive.ts`, user
 * data in `user-data.ts`.
 */
import * as pulumi from "@pulumi/pulumi";
import * as aws from "@pulumi/aws";
import { GpuPoolFacts } from "../catalog/pool";
import { instance } from "../catalog/instances";
import { assertValid } from "../_shared/pulumi-errors";
import { valueOf } from "../_shared/problems";
import { EfaGpuPoolArgs, ResolvedPool, resolvePool } from "./args";
import {
  capacitySettings,
  efaInterfaceLayout,
  ignoresDesiredSize,
  poolFacts,
  poolLabels,
  poolScaling,
  poolTaints,
} from "./derive";
import { launchTagSpecifications, metadataOptions, rootVolume } from "./nodes";
import { gpuUserData } from "./user-data";
import { gpuPoolArgsProblems } from "./validate-pool";

/** Pulumi type token. */
export const EFA_GPU_POOL_TYPE = "dynamo-efa:cluster:EfaGpuPool";

/**
 * One GPU pool on an existing EKS cluster: a `cluster` placement group (on-demand EFA pools), a launch template whose
 * network interfaces carry the instance type's EFA devices (from the instance catalog, never typed by hand), the
 * cluster and EFA security groups, IMDSv2 and an encrypted root volume, and a managed node group labelled and
 * tainted for the graph. The arguments are resolved and every problem reported in one error before any child.
 * `facts` is the pool's plain description (what `DisaggInference` takes as `gpuPool`).
 *
 * @example
 * const pool = new EfaGpuPool("llama-8b", {
 *   poolName: "llama-8b",
 *   pool: { instanceType: "p5en.48xlarge", nodes: 2, availabilityZone: "us-east-2b" },
 *   clusterName, kubernetesVersion: "1.35", nodeRoleArn, subnetIds: [subnetOfUsEast2b],
 *   clusterSecurityGroupId, efaSecurityGroupId,
 * });
 * // pool.facts: { instanceType: "p5en.48xlarge", gpusPerNode: 8, efaPerNode: 16, ... }
 */
export class EfaGpuPool extends pulumi.ComponentResource {
  /** The pool's plain facts, known before any resource exists. */
  public readonly facts: GpuPoolFacts;
  /** The managed node group's name. */
  public readonly nodeGroupName: pulumi.Output<string>;
  /** The managed node group. */
  public readonly nodeGroup: aws.eks.NodeGroup;
  /** The cluster placement group; undefined unless the pool launches into one. */
  public readonly placementGroup: aws.ec2.PlacementGroup | undefined;

  constructor(name: string, args: EfaGpuPoolArgs, opts?: pulumi.ComponentResourceOptions) {
    super(EFA_GPU_POOL_TYPE, name, {}, opts);
    const pool = resolvePool(args.poolName, args.pool ?? ({} as EfaGpuPoolArgs["pool"]));
    assertValid("EfaGpuPool", gpuPoolArgsProblems(pool, args));
    this.facts = poolFacts(pool, args.deviceAllocation);
    const tags = { ...(args.tags ?? {}), "dynamo-efa/pool": pool.name };
    this.placementGroup = pool.placementGroup
      ? new aws.ec2.PlacementGroup(`${name}-placement`, { strategy: "cluster", tags }, { parent: this })
      : undefined;
    const lt = this.launchTemplate(name, args, pool, tags);
    this.nodeGroup = new aws.eks.NodeGroup(
      `${name}-ng`,
      {
        clusterName: args.clusterName,
        nodeRoleArn: args.nodeRoleArn,
        subnetIds: args.subnetIds,
        scalingConfig: poolScaling(pool),
        amiType: "AL2023_x86_64_NVIDIA",
        version: args.kubernetesVersion,
        ...(pool.amiReleaseVersion !== undefined ? { releaseVersion: pool.amiReleaseVersion } : {}),
        capacityType: capacitySettings(pool).nodeGroupCapacityType,
        launchTemplate: { id: lt.id, version: lt.latestVersion.apply(String) },
        labels: poolLabels(pool),
        taints: poolTaints(),
        updateConfig: { maxUnavailable: 1 },
        tags,
      },
      {
        parent: this,
        // GPU nodes are billed from launch: they wait for what the caller names (the role's policies, an image build).
        dependsOn: [...(args.nodeGroupDependsOn ?? [])],
        ...(ignoresDesiredSize(pool) ? { ignoreChanges: ["scalingConfig.desiredSize"] } : {}),
      },
    );
    this.nodeGroupName = this.nodeGroup.nodeGroupName;
    this.registerOutputs({ facts: this.facts, nodeGroupName: this.nodeGroupName });
  }

  /** The EFA launch template: interfaces from the catalog row, security groups, placement, capacity, user data. */
  private launchTemplate(
    name: string,
    args: EfaGpuPoolArgs,
    pool: ResolvedPool,
    tags: Record<string, string>,
  ): aws.ec2.LaunchTemplate {
    const row = instance(pool.instanceType, "pool.instanceType");
    const cap = capacitySettings(pool);
    const sgs = pool.efa ? [args.clusterSecurityGroupId, args.efaSecurityGroupId!] : [args.clusterSecurityGroupId];
    // No subnetId anywhere: EKS rejects a managed node group whose launch template names a subnet.
    // Validation already reported any layout problem, so a failure here is a bug (valueOf throws it with its path).
    const nics = pool.efa
      ? valueOf("EfaGpuPool", efaInterfaceLayout(row, pool.efaLayout, "pool")).map((s) => ({
          ...s,
          securityGroups: sgs,
          deleteOnTermination: "true",
        }))
      : undefined;
    // The same per-node count the pool hands the graph (facts), whose workers' hugepages-2Mi requests divide it.
    const userData = gpuUserData(pool, this.facts.hugepages2MiPerNode);
    return new aws.ec2.LaunchTemplate(
      `${name}-lt`,
      {
        description: `dynamo-efa GPU pool ${pool.name}: ${pool.instanceType}${pool.efa ? `, ${row.efaDevices} EFA (${pool.efaLayout} layout)` : ""}`,
        instanceType: pool.instanceType,
        updateDefaultVersion: true,
        metadataOptions: metadataOptions(args.podImdsAccess ? 2 : 1),
        blockDeviceMappings: rootVolume(pool.rootVolumeSizeGiB),
        ...(nics ? { networkInterfaces: nics } : { vpcSecurityGroupIds: sgs }),
        ...(this.placementGroup ? { placement: { groupName: this.placementGroup.name } } : {}),
        ...(cap.instanceMarketOptions ? { instanceMarketOptions: cap.instanceMarketOptions } : {}),
        ...(cap.capacityReservationSpecification
          ? { capacityReservationSpecification: cap.capacityReservationSpecification }
          : {}),
        // EC2 takes user data base64-encoded; EKS appends its own NodeConfig part (cluster coordinates) to it.
        ...(userData !== undefined ? { userData: Buffer.from(userData, "utf8").toString("base64") } : {}),
        tagSpecifications: launchTagSpecifications(["instance", "volume", "network-interface"], name, tags),
        tags,
      },
      { parent: this },
    );
  }
}
