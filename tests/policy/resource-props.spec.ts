/**
 * The props views of policy/rules/_resources.ts and _dgd.ts against the real types: each SDK input type
 * (resolved by `Unwrap`) and the renderer's DynamoGraphDeployment must be assignable to the view the
 * policies read it through, so a view cannot name a field the SDK does not have or type it narrower
 * than the SDK does. tsc (run by `npm test`) is the check; the table below makes a type token without
 * a checked view a compile error too.
 */
import { strict as assert } from "assert";
import type * as aws from "@pulumi/aws";
import type * as dockerBuild from "@pulumi/docker-build";
import type * as eks from "@pulumi/eks";
import type * as k8s from "@pulumi/kubernetes";
import type { Unwrap } from "@pulumi/pulumi";
import type { DynamoGraphDeployment } from "../../components/inference/dgd";
import { KnownType, PropsByType, ResourceType } from "../../policy/rules/_resources";

/** Compiles only when the SDK's (or renderer's) type `Sdk` is assignable to the policies' view of `K`. */
type Reads<K extends KnownType, Sdk extends PropsByType[K]> = Sdk;

/** Where each view's field names come from; a token missing here does not compile. */
const SOURCES: { readonly [K in KnownType]: string } = {
  [ResourceType.Dgd]: "components/inference/dgd DynamoGraphDeployment",
  [ResourceType.LaunchTemplate]: "aws.ec2.LaunchTemplateArgs",
  [ResourceType.NodeGroup]: "aws.eks.NodeGroupArgs",
  [ResourceType.SecurityGroup]: "aws.ec2.SecurityGroupArgs",
  [ResourceType.SgIngressRule]: "aws.vpc.SecurityGroupIngressRuleArgs",
  [ResourceType.SgEgressRule]: "aws.vpc.SecurityGroupEgressRuleArgs",
  [ResourceType.SgRule]: "aws.ec2.SecurityGroupRuleArgs",
  [ResourceType.Subnet]: "aws.ec2.SubnetArgs",
  [ResourceType.EcrRepository]: "aws.ecr.RepositoryArgs",
  [ResourceType.Image]: "docker-build ImageArgs",
  [ResourceType.EksCluster]: "@pulumi/eks ClusterArgs",
  [ResourceType.AwsEksCluster]: "aws.eks.ClusterArgs",
  [ResourceType.Secret]: "kubernetes.core.v1.SecretArgs",
  [ResourceType.ConfigMap]: "kubernetes.core.v1.ConfigMapArgs",
  // Neither has a top-level `name` input: stateful-resources-retained names them by their resource name.
  [ResourceType.Pvc]: "none (named by the Pulumi resource name)",
  [ResourceType.EfsFileSystem]: "none (named by the Pulumi resource name)",
  [ResourceType.HelmRelease]: "kubernetes.helm.v3.ReleaseArgs",
};

/** The compile-time checks (a type error here is a view that disagrees with the SDK). */
export type ViewChecks = [
  Reads<typeof ResourceType.Dgd, DynamoGraphDeployment>,
  Reads<typeof ResourceType.LaunchTemplate, Unwrap<aws.ec2.LaunchTemplateArgs>>,
  Reads<typeof ResourceType.NodeGroup, Unwrap<aws.eks.NodeGroupArgs>>,
  Reads<typeof ResourceType.SecurityGroup, Unwrap<aws.ec2.SecurityGroupArgs>>,
  Reads<typeof ResourceType.SgIngressRule, Unwrap<aws.vpc.SecurityGroupIngressRuleArgs>>,
  Reads<typeof ResourceType.SgEgressRule, Unwrap<aws.vpc.SecurityGroupEgressRuleArgs>>,
  Reads<typeof ResourceType.SgRule, Unwrap<aws.ec2.SecurityGroupRuleArgs>>,
  Reads<typeof ResourceType.Subnet, Unwrap<aws.ec2.SubnetArgs>>,
  Reads<typeof ResourceType.EcrRepository, Unwrap<aws.ecr.RepositoryArgs>>,
  Reads<typeof ResourceType.Image, Unwrap<dockerBuild.ImageArgs>>,
  Reads<typeof ResourceType.EksCluster, Unwrap<eks.ClusterArgs>>,
  Reads<typeof ResourceType.AwsEksCluster, Unwrap<aws.eks.ClusterArgs>>,
  Reads<typeof ResourceType.Secret, Unwrap<k8s.core.v1.SecretArgs>>,
  Reads<typeof ResourceType.ConfigMap, Unwrap<k8s.core.v1.ConfigMapArgs>>,
  Reads<typeof ResourceType.HelmRelease, Unwrap<k8s.helm.v3.ReleaseArgs>>,
];

describe("policy props views", () => {
  it("every resource type token the policies match has a view with a stated source", () => {
    assert.deepEqual(Object.keys(SOURCES).sort(), Object.values(ResourceType).sort());
  });
});
