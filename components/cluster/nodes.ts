/**
 * Node-level children of `EfaCluster` as plain `@pulumi/aws` resources (visible to the offline plan
 * and to policies, unlike the inside of `@pulumi/eks`'s remote components): the node role, the EFA
 * security group and the system node group, and the launch-template parts the GPU pools share (`EfaGpuPool`,
 * `./gpu-pool.ts`, makes each pool's placement group, launch template and node group).
 */
import * as pulumi from "@pulumi/pulumi";
import * as aws from "@pulumi/aws";
import { SYSTEM_NODE_LABELS } from "../_shared/names";
import { ResolvedClusterArgs } from "./args";
import { efaSecurityGroupRules } from "./derive";
import { ec2TrustPolicy, nodePolicies } from "./render";
import { AwsPartition } from "./partition";

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

/** What the system node group takes from the cluster. */
export interface PoolContext {
  readonly name: string;
  readonly args: ResolvedClusterArgs;
  readonly clusterName: pulumi.Input<string>;
  readonly clusterSecurityGroupId: pulumi.Input<string>;
  readonly nodeRole: NodeRole;
  readonly subnetIds: pulumi.Input<pulumi.Input<string>[]>;
  readonly parent: pulumi.Resource;
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
      labels: { ...SYSTEM_NODE_LABELS },
      updateConfig: { maxUnavailable: 1 },
      tags: { ...c.args.tags },
    },
    { parent: c.parent, dependsOn: c.nodeRole.attachments },
  );
}
