/**
 * The cluster's VPC: an awsx `Vpc` with one private and one public subnet per AZ, or the user's own.
 * Returns the VPC id, all private/public subnet ids, and a lookup of the private subnet of one AZ.
 */
import * as pulumi from "@pulumi/pulumi";
import * as awsx from "@pulumi/awsx";
import { ResolvedClusterArgs } from "./args";
import { azIndex } from "./derive";

/** What the rest of the component needs from the network. */
export interface ClusterNetwork {
  readonly vpcId: pulumi.Output<string>;
  readonly privateSubnetIds: pulumi.Output<string[]>;
  readonly publicSubnetIds: pulumi.Output<string[]>;
  /** The private subnet in `az`. */
  readonly privateSubnetIn: (az: string) => pulumi.Output<string>;
}

/**
 * Creates (or adopts) the VPC. Why awsx and index-by-AZ: the GPU node group needs "the private subnet
 * in the pool's AZ" without an AWS invoke (invokes would make the plan differ offline). awsx creates
 * subnets AZ by AZ in the order of `availabilityZoneNames` and lists private subnet ids in that order
 * (pulumi-awsx `awsx/ec2/vpc.ts`); with exactly one private spec per AZ, `privateSubnetIds[i]` is in
 * `availabilityZones[i]`. A bring-your-own VPC names the mapping explicitly (a map AZ -> subnet id).
 */
export function clusterNetwork(name: string, a: ResolvedClusterArgs, parent: pulumi.Resource): ClusterNetwork {
  if (a.existingVpc) {
    const byAz = a.existingVpc.privateSubnetIds;
    const azs = Object.keys(byAz).sort();
    return {
      vpcId: pulumi.output(a.existingVpc.vpcId),
      privateSubnetIds: pulumi.output(azs.map((az) => byAz[az])),
      publicSubnetIds: pulumi.output([...(a.existingVpc.publicSubnetIds ?? [])]),
      privateSubnetIn: (az) => pulumi.output(byAz[az]),
    };
  }
  const azs = [...a.availabilityZones];
  const vpc = new awsx.ec2.Vpc(
    `${name}-vpc`,
    {
      cidrBlock: a.vpcCidr,
      availabilityZoneNames: azs,
      subnetStrategy: "Auto",
      subnetSpecs: [
        // Role tags let the AWS Load Balancer Controller find subnets for internal / internet-facing LBs.
        { type: "Private", tags: { "kubernetes.io/role/internal-elb": "1" } },
        { type: "Public", tags: { "kubernetes.io/role/elb": "1" } },
      ],
      natGateways: { strategy: a.natGateways },
      enableDnsHostnames: true,
      enableDnsSupport: true,
      tags: { ...a.tags },
    },
    { parent },
  );
  return {
    vpcId: vpc.vpcId,
    privateSubnetIds: vpc.privateSubnetIds,
    publicSubnetIds: vpc.publicSubnetIds,
    privateSubnetIn: (az) => {
      const i = azIndex(azs, az);
      return vpc.privateSubnetIds.apply((ids) => {
        if (ids.length !== azs.length)
          throw new Error(
            `${name}: the VPC returned ${ids.length} private subnets for ${azs.length} AZs; cannot map AZ ${az} to a subnet`,
          );
        return ids[i];
      });
    },
  };
}
