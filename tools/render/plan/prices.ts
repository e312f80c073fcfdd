/**
 * A dated, rough on-demand price table for the plan's `$/hour` estimate. Pure data.
 *
 * Source: the AWS "Amazon EC2 On-Demand Pricing" page (https://aws.amazon.com/ec2/pricing/on-demand/),
 * Linux, shared tenancy, US East (N. Virginia) us-east-1; US East (Ohio) us-east-2 lists the same
 * price for every type below. P4d/P4de/P5/P5e/P5en rows are the prices after AWS's June 2025
 * reduction for P4 and P5 instances (announced 2025-06-05, "up to 45%"); they were transcribed by
 * hand and are marked `verified: false` where we could not re-check the exact figure when this table
 * was reviewed. EKS: $0.10 per cluster-hour (standard support). NAT gateway: $0.045 per hour.
 *
 * These numbers are for orientation only ("is this a $10 or a $100 hour?"). Savings Plans and data
 * transfer are not modelled. Reserved GPU capacity is billed differently from on-demand, and the cost
 * lines say how (`RESERVATION_BILLING`); check the pricing page before you spend money; update
 * `PRICES_REVIEWED` when you change a row.
 */

/** Date the table below was last reviewed. */
export const PRICES_REVIEWED = "2026-11-29";
/** Where the prices come from (printed in plan.md). */
export const PRICE_SOURCE =
  "AWS EC2 On-Demand pricing page, Linux, us-east-1 (us-east-2 lists the same price for these types); P4/P5 rows after the June 2025 price reduction";
/** Regions whose list prices the table holds. */
export const PRICED_REGIONS: readonly string[] = ["us-east-1", "us-east-2"];

/** One price row. */
export interface Price {
  /** USD per instance-hour, on demand. */
  readonly usdPerHour: number;
  /** False where the figure was transcribed but not re-checked at the last review. */
  readonly verified: boolean;
}

const p = (usdPerHour: number, verified = true): Price => ({ usdPerHour, verified });

/** On-demand USD/hour per EC2 instance type. */
export const ON_DEMAND_USD_PER_HOUR: Readonly<Record<string, Price>> = {
  // P family (after the June 2025 reduction).
  "p4d.24xlarge": p(21.96, false),
  "p4de.24xlarge": p(27.45, false),
  "p5.4xlarge": p(6.88, false),
  "p5.48xlarge": p(55.04, false),
  "p5e.48xlarge": p(61.3, false),
  "p5en.48xlarge": p(63.3, false),
  "p6-b200.48xlarge": p(113.93, false),
  "p6-b300.48xlarge": p(142.42, false),
  // G family.
  "g5.xlarge": p(1.006),
  "g5.2xlarge": p(1.212),
  "g5.4xlarge": p(1.624),
  "g5.8xlarge": p(2.448),
  "g5.12xlarge": p(5.672),
  "g5.16xlarge": p(4.096),
  "g5.24xlarge": p(8.144),
  "g5.48xlarge": p(16.288),
  "g6.xlarge": p(0.8048),
  "g6.2xlarge": p(0.9776),
  "g6.4xlarge": p(1.3232),
  "g6.8xlarge": p(2.0144),
  "g6.12xlarge": p(4.6016),
  "g6.16xlarge": p(3.3968),
  "g6.24xlarge": p(6.6752),
  "g6.48xlarge": p(13.3504),
  "g6e.xlarge": p(1.861),
  "g6e.2xlarge": p(2.24208),
  "g6e.4xlarge": p(3.00424),
  "g6e.8xlarge": p(4.52856),
  "g6e.12xlarge": p(10.49264),
  "g6e.16xlarge": p(7.57719),
  "g6e.24xlarge": p(15.06559),
  "g6e.48xlarge": p(30.13118),
  // CPU types a system node group typically uses.
  "t3.medium": p(0.0416),
  "t3.large": p(0.0832),
  "m5.large": p(0.096),
  "m5.xlarge": p(0.192),
  "m5.2xlarge": p(0.384),
  "m6i.large": p(0.096),
  "m6i.xlarge": p(0.192),
  "m6i.2xlarge": p(0.384),
  "m7i.large": p(0.1008),
  "m7i.xlarge": p(0.2016),
  "m7i.2xlarge": p(0.4032),
  "c6i.xlarge": p(0.17),
  "c6i.2xlarge": p(0.34),
};

/**
 * How reserved GPU capacity is billed, for the cost lines (Amazon EC2 User Guide, read 2026-12-01):
 * - Capacity Block for ML: "The price of a Capacity Block offering is charged up front" (capacity-blocks-extend.html,
 *   Billing); the offering's `upfrontFee` is "The total price to be paid up front" (API reference,
 *   CapacityBlockOffering); "You can't modify or cancel a Capacity Block" (capacity-reservations-release.html). So
 *   the block is paid for every hour of its duration, whether instances run or not, at the block's own price.
 * - On-Demand Capacity Reservation: "Capacity Reservations are charged at the equivalent On-Demand rate whether you
 *   run instances in reserved capacity or not. If you do not use the reservation, this shows up as unused
 *   reservation on your Amazon EC2 bill" (capacity-reservations-pricing-billing.html), until it is cancelled.
 */
export const RESERVATION_BILLING = {
  capacityBlock:
    "Capacity Block: prepaid up front at the block's own price (upfrontFee when you buy it) for every hour of the block, used or not, and it cannot be cancelled; not an on-demand rate, so not priced here",
  odcr: "ODCR: billed at the on-demand rate for every reserved instance whether an instance runs in it or not (unused capacity shows as unused reservation), until you cancel it",
} as const;

/** EKS control plane, USD per cluster-hour (standard support). */
export const EKS_CLUSTER_USD_PER_HOUR = 0.1;
/** One NAT gateway, USD per hour (data processing not included). */
export const NAT_GATEWAY_USD_PER_HOUR = 0.045;

/** One line of a cost estimate. */
export interface CostLine {
  readonly item: string;
  readonly count: number;
  readonly usdPerHourEach: number | null;
  readonly usdPerHour: number | null;
  readonly note?: string;
}

/** The price of `instanceType`, or undefined when the table has none. */
export function priceOf(instanceType: string): Price | undefined {
  return ON_DEMAND_USD_PER_HOUR[instanceType];
}

/** A cost line for `count` instances of `instanceType` (null price when the table has none). */
export function instanceLine(item: string, instanceType: string, count: number): CostLine {
  const price = priceOf(instanceType);
  if (!price)
    return { item, count, usdPerHourEach: null, usdPerHour: null, note: `no price for ${instanceType} in the table` };
  return {
    item,
    count,
    usdPerHourEach: price.usdPerHour,
    usdPerHour: round2(price.usdPerHour * count),
    ...(price.verified ? {} : { note: "price transcribed, not re-checked at the last review" }),
  };
}

/** Sum of the priced lines, rounded to cents. */
export function totalUsdPerHour(lines: readonly CostLine[]): number {
  return round2(lines.reduce((sum, l) => sum + (l.usdPerHour ?? 0), 0));
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
