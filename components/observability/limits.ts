/**
 * Numeric bounds of `DynamoObservabilityArgs`, read by its validator and by the stack config schema
 * (`observability.*`), so both accept exactly the same values.
 */
import { GP3_MAX_GIB, IntRange } from "../_shared/limits";

export const OBSERVABILITY_LIMITS = {
  /** Prometheus scrape interval, seconds: 1..300 is the project's choice (past 5 min, rate() windows go blind). */
  scrapeIntervalSeconds: { min: 1, max: 300 },
  /** Days Prometheus keeps samples: 1..3650 (ten years) is the project's choice. */
  retentionDays: { min: 1, max: 3650 },
  /** Prometheus volume, GiB: on the cluster's gp3 StorageClass, at most the largest gp3 volume. */
  storageGiB: { min: 1, max: GP3_MAX_GIB },
} as const satisfies Readonly<Record<string, IntRange>>;
