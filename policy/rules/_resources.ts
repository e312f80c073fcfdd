/**
 * The resource types the policies match on and, per type, the props fields they read. Props arrive as
 * plain JSON (a hand-written plan, another program, a preview with unknown values), so each view lists
 * only the fields read, all optional, and types as `unknown` every leaf the readers narrow with
 * `typeof` / `Array.isArray` / `isUnknownValue`. Field names are the Pulumi SDK's input names:
 * tests/policy/resource-props.spec.ts checks that each SDK input type is assignable to its view (the
 * views stay small so the policy server's type-checked load does not parse the whole AWS SDK).
 */
import { DGD_TYPE_TOKEN } from "../../components/inference/dgd";
import { DGD_V1BETA1_TYPE_TOKEN, graphModel } from "../../components/inference/dgd-v1beta1";
import type { PlanDgd } from "./_dgd";

/** Resource type tokens the policies match on (CustomResources by their type string: docs/ARCHITECTURE.md#pulumi-without-the-cli). */
export const ResourceType = {
  Dgd: DGD_TYPE_TOKEN,
  LaunchTemplate: "aws:ec2/launchTemplate:LaunchTemplate",
  NodeGroup: "aws:eks/nodeGroup:NodeGroup",
  SecurityGroup: "aws:ec2/securityGroup:SecurityGroup",
  SgIngressRule: "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
  SgEgressRule: "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule",
  SgRule: "aws:ec2/securityGroupRule:SecurityGroupRule",
  Subnet: "aws:ec2/subnet:Subnet",
  EcrRepository: "aws:ecr/repository:Repository",
  Image: "docker-build:index:Image",
  EksCluster: "eks:index:Cluster",
  AwsEksCluster: "aws:eks/cluster:Cluster",
  Secret: "kubernetes:core/v1:Secret",
  ConfigMap: "kubernetes:core/v1:ConfigMap",
  Pvc: "kubernetes:core/v1:PersistentVolumeClaim",
  EfsFileSystem: "aws:efs/fileSystem:FileSystem",
  HelmRelease: "kubernetes:helm.sh/v3:Release",
} as const;

/** A list field as read from props: the list (of values still to narrow). */
type List = readonly unknown[];

/** `aws.ec2.LaunchTemplate` (`id` and `name` are outputs a stack policy may see). */
export interface LaunchTemplateProps {
  readonly id?: unknown;
  readonly name?: unknown;
  readonly instanceType?: unknown;
  readonly vpcSecurityGroupIds?: List;
  readonly networkInterfaces?: readonly { readonly interfaceType?: unknown; readonly securityGroups?: List }[];
  readonly metadataOptions?: { readonly httpTokens?: unknown; readonly httpPutResponseHopLimit?: unknown };
  readonly tagSpecifications?: readonly { readonly resourceType?: unknown; readonly tags?: unknown }[];
}

/** One inline rule of `aws.ec2.SecurityGroup`. */
export interface InlineSgRuleProps {
  readonly protocol?: unknown;
  readonly self?: unknown;
  readonly securityGroups?: List;
}

/** `aws.ec2.SecurityGroup` (`id` is an output). */
export interface SecurityGroupProps {
  readonly id?: unknown;
  readonly ingress?: readonly InlineSgRuleProps[];
  readonly egress?: readonly InlineSgRuleProps[];
}

/** `aws.ec2.SecurityGroupRule`. */
export interface SgRuleProps {
  readonly type?: unknown;
  readonly securityGroupId?: unknown;
  readonly sourceSecurityGroupId?: unknown;
  readonly self?: unknown;
  readonly protocol?: unknown;
}

/** `aws.vpc.SecurityGroupIngressRule` / `SecurityGroupEgressRule`. */
export interface VpcSgRuleProps {
  readonly securityGroupId?: unknown;
  readonly referencedSecurityGroupId?: unknown;
  readonly ipProtocol?: unknown;
}

/** `aws.eks.NodeGroup`. */
export interface NodeGroupProps {
  readonly launchTemplate?: { readonly id?: unknown; readonly name?: unknown };
  readonly subnetIds?: List;
  readonly instanceTypes?: List;
  readonly scalingConfig?: { readonly desiredSize?: unknown };
  readonly labels?: Readonly<Record<string, unknown>>;
}

/** `aws.ec2.Subnet`. */
export interface SubnetProps {
  readonly availabilityZone?: unknown;
}

/** `docker-build.Image` (`ref` is an output: the digest-pinned reference). */
export interface ImageProps {
  readonly tags?: List;
  readonly ref?: unknown;
  readonly buildArgs?: Readonly<Record<string, unknown>>;
}

/** `aws.ecr.Repository`. */
export interface RepositoryProps {
  readonly name?: unknown;
  readonly imageScanningConfiguration?: { readonly scanOnPush?: unknown };
  readonly imageTagMutability?: unknown;
}

/** The endpoint settings both EKS cluster shapes share. */
export interface EksEndpointProps {
  readonly endpointPublicAccess?: unknown;
  readonly publicAccessCidrs?: List;
}

/** `eks.Cluster` (@pulumi/eks `ClusterArgs`). */
export interface EksClusterProps extends EksEndpointProps {
  readonly encryptionConfigKeyArn?: unknown;
}

/** `aws.eks.Cluster`. */
export interface AwsEksClusterProps {
  readonly encryptionConfig?: { readonly resources?: List; readonly provider?: { readonly keyArn?: unknown } };
  readonly vpcConfig?: EksEndpointProps;
}

/** `kubernetes.core.v1.Secret` / `ConfigMap`: the key maps the token may sit in. */
export interface KeyMapProps {
  readonly data?: unknown;
  readonly stringData?: unknown;
  readonly binaryData?: unknown;
}

/** `kubernetes.helm.v3.Release`. */
export interface HelmReleaseProps {
  readonly chart?: unknown;
  readonly values?: unknown;
}

/** A resource whose props the policies read only for its name (`aws.efs.FileSystem`, a PVC). */
export interface NamedProps {
  readonly name?: unknown;
}

/** The props view of each resource type. */
export interface PropsByType {
  readonly [ResourceType.Dgd]: PlanDgd;
  readonly [ResourceType.LaunchTemplate]: LaunchTemplateProps;
  readonly [ResourceType.NodeGroup]: NodeGroupProps;
  readonly [ResourceType.SecurityGroup]: SecurityGroupProps;
  readonly [ResourceType.SgIngressRule]: VpcSgRuleProps;
  readonly [ResourceType.SgEgressRule]: VpcSgRuleProps;
  readonly [ResourceType.SgRule]: SgRuleProps;
  readonly [ResourceType.Subnet]: SubnetProps;
  readonly [ResourceType.EcrRepository]: RepositoryProps;
  readonly [ResourceType.Image]: ImageProps;
  readonly [ResourceType.EksCluster]: EksClusterProps;
  readonly [ResourceType.AwsEksCluster]: AwsEksClusterProps;
  readonly [ResourceType.Secret]: KeyMapProps;
  readonly [ResourceType.ConfigMap]: KeyMapProps;
  readonly [ResourceType.Pvc]: NamedProps;
  readonly [ResourceType.EfsFileSystem]: NamedProps;
  readonly [ResourceType.HelmRelease]: HelmReleaseProps;
}

/** A type token the policies know. */
export type KnownType = keyof PropsByType;

/** A resource of one of the types `K`, its props typed by its type (narrow with `r.type === ...`). */
export type TypedResource<K extends KnownType> = {
  readonly [T in K]: { readonly type: T; readonly props: PropsByType[T] };
}[K];

/**
 * `r` as a resource of one of `types`, or undefined. The one place plain props get their view: the type
 * token decides the view, and the views only promise optional fields the readers still narrow.
 */
export function typed<K extends KnownType>(
  r: { readonly type: string; readonly props: unknown },
  types: readonly K[],
): TypedResource<K> | undefined {
  // A v1beta1 graph (releases from Dynamo 1.5) is read in the model's shape, under the one graph type the rules name.
  if (r.type === DGD_V1BETA1_TYPE_TOKEN && (types as readonly string[]).includes(ResourceType.Dgd))
    return { ...r, type: ResourceType.Dgd, props: graphModel(r.props) } as unknown as TypedResource<K>;
  return (types as readonly string[]).includes(r.type) ? (r as TypedResource<K>) : undefined;
}
