/** Numeric bounds of `DynamoImageArgs`, read by its validator. */
import type { IntRange } from "../_shared/limits";

export const IMAGE_LIMITS = {
  /** Parallel compile jobs in the image build: 1..1024 is the project's choice (a cap on a typo, not on hardware). */
  maxJobs: { min: 1, max: 1024 },
} as const satisfies Readonly<Record<string, IntRange>>;
