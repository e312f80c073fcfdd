/**
 * What each way of getting the serving image costs, as numbers: the one place a build time or an image size is
 * written. The image component's estimate (image/sources.ts), the GPU root volume (cluster/root-volume.ts), the
 * plan's node timeline and every doc that states one (tools/doc-facts) read them here. Pure data.
 *
 * Basis: the image audit (docs/IMAGE.md, "The three sources"): sizes from the stored wheels and the field's pull
 * logs; build times reasoned from the build's critical path (Dynamo's Rust runtime, two NIXL builds, the final copies
 * and export) on a 16-core builder, not timed here. The seed's "~95 min on CodeBuild" was a one-venv image.
 */

/** A range an estimate states. */
export interface Span {
  readonly low: number;
  readonly high: number;
}

/** The cost of one way of getting the image. */
export interface ImageCost {
  /** Wall-clock minutes before the image exists; 0: nothing is built. */
  readonly buildMinutes: Span;
  /** Uncompressed size, GB (10^9): what a node pulls and unpacks. */
  readonly sizeGB: Span;
  /** Compressed size in the registry, GB, where it was read. @default - not read */
  readonly compressedGB?: number;
  /** What the image is, in a few words. */
  readonly what: string;
}

/** The costs, by way of getting the image (`image.source`; the combined image with or without vendor images). */
export const IMAGE_COSTS = {
  /** A vendor's per-backend runtime image: nothing is built, one engine's environment. */
  prebuilt: {
    buildMinutes: { low: 0, high: 0 },
    sizeGB: { low: 20, high: 25 },
    what: "one engine's vendor runtime image",
  },
  /** Both vendor runtime images' environments, each whole: pulls and layer copies, nothing compiled. */
  vendorCombined: {
    buildMinutes: { low: 10, high: 20 },
    sizeGB: { low: 35, high: 40 },
    what: "both engines' environments, each whole",
  },
  /** The multi-stage build from source: two environments, two CUDA user spaces. */
  source: {
    buildMinutes: { low: 120, high: 150 },
    sizeGB: { low: 40, high: 46 },
    compressedGB: 20,
    what: "two environments, two CUDA user spaces",
  },
} as const satisfies Readonly<Record<string, ImageCost>>;

/** The one number of a span the plan computes with: its middle. */
export const planned = (s: Span): number => (s.low + s.high) / 2;

/** The largest image any source gives, uncompressed, GB: what a node's disk must hold when nothing else is known. */
export const LARGEST_IMAGE_GB = Math.max(...Object.values(IMAGE_COSTS).map((c) => c.sizeGB.high));

const range = (s: Span, unit: string, per = 1): string => {
  const [lo, hi] = [s.low / per, s.high / per];
  return lo === hi ? `${lo} ${unit}` : `${lo}-${hi} ${unit}`;
};

/** "2-2.5 h", "10-20 min", "0 min": minutes in hours from an hour up. */
export const minutesText = (s: Span): string => (s.low >= 60 ? range(s, "h", 60) : range(s, "min"));

/** "20-25 GB". */
export const sizeText = (s: Span): string => range(s, "GB");
