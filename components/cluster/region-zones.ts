/**
 * The availability zones of the regions this package's GPU capacity is usually bought in, as pure data, so a
 * zone the region does not have (`us-east-2d`) is a config error at render time instead of a subnet that fails
 * to create in the middle of `pulumi up`. No Pulumi import.
 *
 * Source: AWS "AWS Regions and Availability Zones" guide, page "AWS Availability Zones"
 * (https://docs.aws.amazon.com/global-infrastructure/latest/regions/aws-availability-zones.html: one row per AZ
 * ID per region; its own example: "us-east-2a, us-east-2b, and us-east-2c are the Availability Zones in the
 * us-east-2 Region") and the Amazon EFS guide's "Supported Availability Zones for One Zone file systems"
 * (https://docs.aws.amazon.com/efs/latest/ug/OneZoneAZs.html: AZ IDs per region), read 2026-12-01. No
 * repository publishes a per-region AZ list with a commit to pin (botocore's endpoint data has regions, not
 * zones), so this table is dated like the price table. AZ IDs counted: us-east-1 use1-az1..az6 (the AZ page lists
 * az1-az3, the EFS page az1, az2, az4, az5, az6), us-east-2 use2-az1..az3, us-west-1 usw1-az1 and usw1-az3,
 * us-west-2 usw2-az1..az4. A region has as many zone names as AZ IDs, lettered from "a"; us-west-1 maps its two
 * zones to letters per account (accounts see two of a, b, c), so all three letters are accepted there. A region
 * outside the table is checked only for the region prefix (`zoneProblems` in `./partition.ts`).
 */

/** Date the table was last read against the AWS pages above. */
export const ZONES_REVIEWED = "2026-12-01";

/** Zone letters per region. */
export const REGION_ZONE_LETTERS: Readonly<Record<string, readonly string[]>> = {
  "us-east-1": ["a", "b", "c", "d", "e", "f"],
  "us-east-2": ["a", "b", "c"],
  "us-west-1": ["a", "b", "c"],
  "us-west-2": ["a", "b", "c", "d"],
};

/** The zone names of `region`, or undefined when the table does not list it. */
export function zonesOf(region: string): readonly string[] | undefined {
  return REGION_ZONE_LETTERS[region]?.map((l) => `${region}${l}`);
}
