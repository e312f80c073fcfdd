/**
 * Node-level children of `EfaCluster` as plain `@pulumi/aws` resources (visible to the offline plan
 * and to policies, unlike the inside of `@pulumi/eks`'s remote components): the node role, the EFA
 * security group, and per pool a placement group, a launch template and a managed node group.
 */
import * as pulumi from "@pulumi/pulumi";
import * as aws from "@pulumi/aws";
import { valueOf } from "../_shared/problems";
import { instance } from "../catalog/instances";
import { ResolvedClusterArgs, ResolvedPool } from "./args";
import {
  capacitySettings,
  efaInterfaceLayout,
  efaSecurityGroupRules,
  ignoresDesiredSize,
  poolLabels,
  poolScaling,
  poolTaints,
  poolFacts,
} from "./derive";
import { ec2TrustPolicy, nodePolicies } from "./render";
import { AwsPartition } from "./partition";
import { gpuUserData } from "./user-data";

/** The node role and what must exist before a node group uses it. */
export interface NodeRole {
  readonly role: aws.iam.Role;
  readonly attachments: aws.iam.RolePolicyAttachment[];
}

/** IAM role of every node (GPU and system). */
export function nodeRole(
  name: string,
  partition: AwsPartition,
  tags: Record<string, string>,
  parent: pulumi.Resource,
): NodeRole {
  const role = new aws.iam.Role(
    `${name}-node`,
    { assumeRolePolicy: ec2TrustPolicy(partition), description: "EKS nodes of the dynamo-efa cluster", tags },
    { parent },
  );
  const attachments = Object.entries(nodePolicies(partition)).map(
    ([key, arn]) =>
      new aws.iam.RolePolicyAttachment(`${name}-node-${key}`, { role: role.name, policyArn: arn }, { parent }),
  );
  return { role, attachments };
}

/** The EFA security group: all traffic among its members, ingress and egress. */
export function efaSecurityGroup(
  name: string,
  vpcId: pulumi.Input<string>,
  tags: Record<string, string>,
  parent: pulumi.Resource,
): aws.ec2.SecurityGroup {
  const sg = new aws.ec2.SecurityGroup(
    `${name}-efa`,
    {
      vpcId,
      description: "EFA: all traffic between EFA interfaces of the cluster",
      tags: { ...tags, Name: `${name}-efa` },
    },
    { parent },
  );
  for (const r of efaSecurityGroupRules()) {
    new aws.ec2.SecurityGroupRule(
      `${name}-efa-${r.type}`,
      {
        securityGroupId: sg.id,
        type: r.type,
        protocol: r.protocol,
        fromPort: r.fromPort,
        toPort: r.toPort,
        self: r.self,
        description: r.description,
      },
      { parent },
    );
  }
  return sg;
}

/** IMDSv2 only; hop limit 1 keeps non-host-network pods away from the node role (see `podImdsAccess`). */
export function metadataOptions(hopLimit: number): aws.types.input.ec2.LaunchTemplateMetadataOptions {
  return {
    httpEndpoint: "enabled",
    httpTokens: "required",
    httpPutResponseHopLimit: hopLimit,
    instanceMetadataTags: "disabled",
  };
}

/** Encrypted gp3 root volume (`/dev/xvda` on the EKS AL2023 AMIs). */
export function rootVolume(sizeGiB: number): aws.types.input.ec2.LaunchTemplateBlockDeviceMapping[] {
  return [
    {
      deviceName: "/dev/xvda",
      ebs: { volumeSize: sizeGiB, volumeType: "gp3", encrypted: "true", deleteOnTermination: "true" },
    },
  ];
}

/**
 * Tag specifications of a launch template, each carrying at least a `Name` tag: EC2 rejects a
 * specification whose tag list is empty (`InvalidTagSpecification.Malformed`,
 * hashicorp/terraform-provider-aws#13155), and with no user tags that is what a plain copy would send.
 */
export function launchTagSpecifications(
  resourceTypes: readonly string[],
  name: string,
  tags: Readonly<Record<string, string>>,
): { resourceType: string; tags: Record<string, string> }[] {
  return resourceTypes.map((resourceType) => ({ resourceType, tags: { Name: name, ...tags } }));
}

/** Inputs shared by every pool's children. */
export interface PoolContext {
  readonly name: string;
  readonly args: ResolvedClusterArgs;
  readonly clusterName: pulumi.Input<string>;
  readonly clusterSecurityGroupId: pulumi.Input<string>;
  readonly efaSecurityGroupId?: pulumi.Input<string>;
  readonly nodeRole: NodeRole;
  readonly subnetIds: pulumi.Input<pulumi.Input<string>[]>;
  readonly parent: pulumi.Resource;
}

/** The children of one GPU pool. */
export interface GpuPoolResources {
  readonly placementGroup?: aws.ec2.PlacementGroup;
  readonly launchTemplate: aws.ec2.LaunchTemplate;
  readonly nodeGroup: aws.eks.NodeGroup;
}

function poolLaunchTemplate(
  c: PoolContext,
  pool: ResolvedPool,
  pg: aws.ec2.PlacementGroup | undefined,
): aws.ec2.LaunchTemplate {
  const row = instance(pool.instanceType, `gpuPools.${pool.name}.instanceType`);
  const cap = capacitySettings(pool);
  const sgs = pool.efa ? [c.clusterSecurityGroupId, c.efaSecurityGroupId!] : [c.clusterSecurityGroupId];
  // No subnetId anywhere: EKS rejects a managed node group whose launch template names a subnet.
  // Validation already reported any layout problem, so a failure here is a bug (valueOf throws it with its path).
  const nics = pool.efa
    ? valueOf("EfaCluster", efaInterfaceLayout(row, pool.efaLayout, `gpuPools.${pool.name}`)).map((s) => ({
        ...s,
        securityGroups: sgs,
        deleteOnTermination: "true",
      }))
    : undefined;
  const tags = { ...c.args.tags, "dynamo-efa/pool": pool.name };
  // The same per-node count the cluster hands the graph (gpuPools), whose workers' hugepages-2Mi requests divide it.
  const userData = gpuUserData(pool, poolFacts(pool).hugepages2MiPerNode);
  return new aws.ec2.LaunchTemplate(
    `${c.name}-gpu-lt-${pool.name}`,
    {
      description: `dynamo-efa GPU pool ${pool.name}: ${pool.instanceType}${pool.efa ? `, ${row.efaDevices} EFA (${pool.efaLayout} layout)` : ""}`,
      instanceType: pool.instanceType,
      updateDefaultVersion: true,
      metadataOptions: metadataOptions(c.args.imdsHopLimit),
      blockDeviceMappings: rootVolume(pool.rootVolumeSizeGiB),
      ...(nics ? { networkInterfaces: nics } : { vpcSecurityGroupIds: sgs }),
      ...(pg ? { placement: { groupName: pg.name } } : {}),
      ...(cap.instanceMarketOptions ? { instanceMarketOptions: cap.instanceMarketOptions } : {}),
      ...(cap.capacityReservationSpecification
        ? { capacityReservationSpecification: cap.capacityReservationSpecification }
        : {}),
      // EC2 takes user data base64-encoded; EKS appends its own NodeConfig part (cluster coordinates) to it.
      ...(userData !== undefined ? { userData: Buffer.from(userData, "utf8").toString("base64") } : {}),
      tagSpecifications: launchTagSpecifications(
        ["instance", "volume", "network-interface"],
        `${c.name}-gpu-${pool.name}`,
        tags,
      ),
      tags,
    },
    { parent: c.parent },
  );
}

/** Placement group, launch template and managed node group of one GPU pool. */
export function gpuPool(c: PoolContext, pool: ResolvedPool): GpuPoolResources {
  const pg = pool.placementGroup
    ? new aws.ec2.PlacementGroup(
        `${c.name}-placement-${pool.name}`,
        { strategy: "cluster", tags: { ...c.args.tags, "dynamo-efa/pool": pool.name } },
        { parent: c.parent },
      )
    : undefined;
  const lt = poolLaunchTemplate(c, pool, pg);
  const nodeGroup = new aws.eks.NodeGroup(
    `${c.name}-gpu-ng-${pool.name}`,
    {
      clusterName: c.clusterName,
      nodeRoleArn: c.nodeRole.role.arn,
      subnetIds: c.subnetIds,
      scalingConfig: poolScaling(pool),
      amiType: "AL2023_x86_64_NVIDIA",
      version: c.args.kubernetesVersion,
      ...(pool.amiReleaseVersion !== undefined ? { releaseVersion: pool.amiReleaseVersion } : {}),
      capacityType: capacitySettings(pool).nodeGroupCapacityType,
      launchTemplate: { id: lt.id, version: lt.latestVersion.apply(String) },
      labels: poolLabels(pool),
      taints: poolTaints(),
      updateConfig: { maxUnavailable: 1 },
      tags: { ...c.args.tags, "dynamo-efa/pool": pool.name },
    },
    {
      parent: c.parent,
      // The GPU nodes wait for what the caller names (the image build): billed from launch, they join when it exists.
      dependsOn: [...c.nodeRole.attachments, ...c.args.gpuNodesDependOn],
      ...(ignoresDesiredSize(pool) ? { ignoreChanges: ["scalingConfig.desiredSize"] } : {}),
    },
  );
  return { ...(pg ? { placementGroup: pg } : {}), launchTemplate: lt, nodeGroup };
}

/** The CPU system node group (operator, frontend, controllers), on its own hardened launch template. */
export function systemNodeGroup(c: PoolContext): aws.eks.NodeGroup {
  const lt = new aws.ec2.LaunchTemplate(
    `${c.name}-system-lt`,
    {
      description: "dynamo-efa CPU system nodes",
      instanceType: c.args.systemInstanceType,
      updateDefaultVersion: true,
      metadataOptions: metadataOptions(c.args.imdsHopLimit),
      blockDeviceMappings: rootVolume(100),
      vpcSecurityGroupIds: [c.clusterSecurityGroupId],
      tagSpecifications: launchTagSpecifications(["instance", "volume"], `${c.name}-system`, c.args.tags),
      tags: { ...c.args.tags },
    },
    { parent: c.parent },
  );
  const n = c.args.systemNodeCount;
  return new aws.eks.NodeGroup(
    `${c.name}-system-ng`,
    {
      clusterName: c.clusterName,
      nodeRoleArn: c.nodeRole.role.arn,
      subnetIds: c.subnetIds,
      scalingConfig: { desiredSize: n, minSize: n, maxSize: Math.max(n, 2 * n) },
      amiType: "AL2023_x86_64_STANDARD",
      version: c.args.kubernetesVersion,
      capacityType: "ON_DEMAND",
      launchTemplate: { id: lt.id, version: lt.latestVersion.apply(String) },
      labels: { "dynamo-efa/role": "system" },
      updateConfig: { maxUnavailable: 1 },
      tags: { ...c.args.tags },
    },
    { parent: c.parent, dependsOn: c.nodeRole.attachments },
  );
}
