/**
 * AWS partitions and regions, as pure data: which partition a region belongs to, the ARN prefix and
 * service DNS suffix of each, and the problems of AZs outside the region. The partition follows from
 * the region name exactly as AWS assigns them (`cn-*` -> `aws-cn`, `us-gov-*` -> `aws-us-gov`), so the
 * plan is the same offline and online and no ARN is hard-coded to `arn:aws:`. No Pulumi import.
 */
import { Problem, show } from "../_shared/problems";
import { zonesOf, ZONES_REVIEWED } from "./region-zones";

/** A partition this package supports. */
export interface AwsPartition {
  /** Partition id, the second field of every ARN (`arn:<id>:...`). */
  readonly id: string;
  /** DNS suffix of its service principals and endpoints (`ec2.<dnsSuffix>`). */
  readonly dnsSuffix: string;
  /** Region names of the partition. */
  readonly regionPattern: RegExp;
}

/**
 * The partitions the component supports. Source: AWS General Reference "ARN format" (partition ids)
 * and terraform-aws-eks, which builds every ARN from `data.aws_partition` (`arn:${partition}:iam::aws:policy/...`)
 * and the EC2 principal from its `dns_suffix`. ISO partitions (`aws-iso*`) and the European Sovereign
 * Cloud are refused: EKS/EFA GPU capacity and this package's facts are unverified there.
 */
export const AWS_PARTITIONS: readonly AwsPartition[] = [
  { id: "aws-cn", dnsSuffix: "amazonaws.com.cn", regionPattern: /^cn-[a-z]+-\d+$/ },
  { id: "aws-us-gov", dnsSuffix: "amazonaws.com", regionPattern: /^us-gov-[a-z]+-\d+$/ },
  {
    id: "aws",
    dnsSuffix: "amazonaws.com",
    regionPattern: /^(?!cn-|us-gov-|us-iso|eu-isoe-|eusc-)[a-z]{2}-[a-z]+-\d+$/,
  },
];

/** The commercial partition (what every render and test without a region uses). */
export const DEFAULT_PARTITION: AwsPartition = AWS_PARTITIONS[2];

/** An AWS region name such as `us-east-2`, `cn-north-1` or `us-gov-west-1`. */
export const REGION_NAME = /^[a-z]{2}(-[a-z]+)+-\d+$/;
/** An AWS availability zone name such as `us-east-2a` or `us-gov-west-1b`: a region name and one letter. */
export const AZ_NAME = /^[a-z]{2}(-[a-z]+)+-\d+[a-z]$/;

/** The partition of `region`, or undefined for a region this package does not support. */
export function partitionOf(region: string): AwsPartition | undefined {
  return AWS_PARTITIONS.find((p) => p.regionPattern.test(region));
}

/** Region of an AZ name (`us-east-2a` -> `us-east-2`). */
export function regionOfAz(az: string): string {
  return az.replace(/[a-z]$/, "");
}

/** Problems with `region` itself: its form and its partition. */
export function regionProblems(path: string, region: unknown): Problem[] {
  if (typeof region !== "string" || !REGION_NAME.test(region)) {
    return [{ propertyPath: path, reason: `must be an AWS region name such as "us-east-2"; got ${show(region)}` }];
  }
  if (partitionOf(region)) return [];
  return [
    {
      propertyPath: path,
      reason: `${show(region)} is in a partition this package does not support; use a region of ${AWS_PARTITIONS.map((p) => show(p.id)).join(", ")} (e.g. "us-east-2", "cn-north-1", "us-gov-west-1")`,
    },
  ];
}

/** The words of an AZ-outside-the-region problem (the program recognises its own duplicates by them). */
export const NOT_IN_REGION = "is not in region";
/** How that problem names a region the args gave; the stack program shows its own key (`aws:region`) instead. */
export const REGION_ARG_NOTE = "(the `region` arg)";

/**
 * One problem per AZ (with its path) that is not in `region`, or that `region` does not have (the zone table of
 * `./region-zones.ts`, where it lists the region). `derivedFrom` is the AZ the region was taken from when no
 * `region` was given; the message names it, since "the first" AZ of a sorted list need not be the one written first.
 */
export function zoneProblems(
  region: string,
  zones: readonly (readonly [path: string, az: string])[],
  derivedFrom?: string,
): Problem[] {
  const known = zonesOf(region);
  const from =
    derivedFrom === undefined ? REGION_ARG_NOTE : `(the region of ${show(derivedFrom)}, the first availability zone)`;
  return zones
    .filter(([, az]) => typeof az === "string")
    .flatMap(([path, az]): Problem[] => {
      if (regionOfAz(az) !== region)
        return [
          {
            propertyPath: path,
            reason: `${show(az)} ${NOT_IN_REGION} ${show(region)} ${from}; use a zone of that region such as "${region}a", or change the region`,
          },
        ];
      if (!known || known.includes(az)) return [];
      return [
        {
          propertyPath: path,
          reason: `${show(az)} is not an availability zone of ${region}, which has ${known.join(", ")} (AWS Availability Zones, read ${ZONES_REVIEWED}); use one of them`,
        },
      ];
    });
}

/** ARN of an AWS managed IAM policy in `partition` (`arn:<id>:iam::aws:policy/<name>`). */
export function managedPolicyArn(partition: AwsPartition, name: string): string {
  return `arn:${partition.id}:iam::aws:policy/${name}`;
}

/**
 * The message when the AWS provider's region is not the cluster's (`region`, or the region the AZs name), with the
 * three fixes; undefined when they agree. The AZs are checked against the cluster's region before any child, with
 * plain values; the provider's region is known only once its invoke answers, so this is the one check that runs later.
 */
export function providerRegionMismatch(
  name: string,
  cluster: { readonly region: string; readonly regionGiven: boolean },
  providerRegion: string,
): string | undefined {
  if (providerRegion === cluster.region) return undefined;
  const whose = cluster.regionGiven ? "its `region` arg is" : "its availability zones are in";
  return (
    `EfaCluster ${show(name)}: the AWS provider's region is ${show(providerRegion)}, but ${whose} ${show(cluster.region)}. ` +
    `Pass an AWS provider for ${cluster.region} in the resource options ` +
    `({ providers: { aws: new aws.Provider("${cluster.region}", { region: "${cluster.region}" }) } }), ` +
    `set aws:region to ${cluster.region} for the default provider, ` +
    `or choose availability zones of ${providerRegion} (e.g. "${providerRegion}a")` +
    (cluster.regionGiven ? ` and region ${show(providerRegion)}` : "")
  );
}
