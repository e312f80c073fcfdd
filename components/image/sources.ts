/**
 * The three ways to get the serving image (`image.source`) and what each costs: build time, image size, and what its
 * CUDA arch list applies to. Pure data; docs/IMAGE.md says which to pick and why.
 */
import type { ImagePin } from "../releases/types";
import { IMAGE_COSTS, minutesText, planned, sizeText, type ImageCost } from "../catalog/images";

/** Where the serving image comes from. */
export const ImageSource = {
  /** A vendor per-backend runtime image with EFA (NGC `ai-dynamo/<backend>-runtime:<ver>-efa`): nothing is built. */
  Prebuilt: "prebuilt",
  /**
   * One image serving both backends, selected at run time. With the release's vendor images: the TensorRT-LLM
   * runtime image's environment copied whole beside the vLLM runtime image's (the field's passing layout), nothing
   * compiled. Without vendor images (the seed): the from-source combined build.
   */
  Combined: "combined",
  /** The multi-stage build from source (dockerfiles/Dockerfile.dynamo-combined-efa), with per-arch gencode. */
  Source: "source",
} as const;
export type ImageSource = (typeof ImageSource)[keyof typeof ImageSource];
export const IMAGE_SOURCES: readonly ImageSource[] = Object.values(ImageSource);

/** The backends a prebuilt image can serve (one per image). */
export const IMAGE_BACKENDS = ["vllm", "trtllm"] as const;
export type ImageBackend = (typeof IMAGE_BACKENDS)[number];

/**
 * A vendor image, as a release pins it (`ImagePin`: repository, tag, digest where a readable source gives one, the
 * archs and CUDA toolkit its vendor states). Without a digest the tag is resolved to one at `pulumi up` and that
 * digest deploys.
 */
export type VendorImage = ImagePin;

/** What getting an image this way costs, as the plan states it (words generated from `cost`). */
export interface SourceEstimate {
  /** Wall-clock time before the image exists, e.g. "0 min (nothing is built)". */
  readonly buildTime: string;
  /** Uncompressed image size (what a node pulls, before compression). */
  readonly imageSize: string;
  /** What the CUDA arch list (`cudaArchs`) applies to: which steps are compiled here, for which archs. */
  readonly gencode: string;
  /** Where the numbers come from. */
  readonly basis: string;
  /** The numbers (components/catalog/images.ts). */
  readonly cost: ImageCost;
}

/** Minutes a cold build takes, for the plan's critical path: the middle of each build's range. */
export const BUILD_MINUTES = {
  source: planned(IMAGE_COSTS.source.buildMinutes),
  vendorCombined: planned(IMAGE_COSTS.vendorCombined.buildMinutes),
} as const;

const AUDIT =
  "components/catalog/images.ts (image audit, docs/IMAGE.md: sizes from the stored wheels and pull logs, times reasoned)";

/** The cost of each source; `archs` is the list the from-source build compiles for ("sm_90"). */
export function sourceEstimate(source: ImageSource, vendor: boolean, archs: readonly string[]): SourceEstimate {
  const compiled = `the from-source build compiles nccl-tests, LMCache and DeepEP (and FlashInfer with flashinferAot) for ${archs.join(", ") || "the arch list"}; vLLM's, FlashInfer's and TensorRT-LLM's kernels come prebuilt in their wheels for the vendors' own arch lists`;
  if (source === ImageSource.Prebuilt) {
    const c = IMAGE_COSTS.prebuilt;
    return {
      buildTime: `${minutesText(c.buildMinutes)} (nothing is built; the node pulls the vendor image)`,
      imageSize: `about ${sizeText(c.sizeGB)} (${c.what})`,
      gencode: "nothing is compiled in this stack: the vendor's prebuilt kernels carry the vendor's own arch lists",
      basis: AUDIT,
      cost: c,
    };
  }
  if (source === ImageSource.Combined && vendor) {
    const c = IMAGE_COSTS.vendorCombined;
    return {
      buildTime: `about ${minutesText(c.buildMinutes)} (two image pulls and layer copies; no compile step)`,
      imageSize: `about ${sizeText(c.sizeGB)} (${c.what})`,
      gencode:
        "nothing is compiled in this stack: both environments are the vendor's, with the vendor's own arch lists",
      basis: AUDIT,
      cost: c,
    };
  }
  const c = IMAGE_COSTS.source;
  return {
    buildTime: `about ${minutesText(c.buildMinutes)} cold on a 16-core builder (the critical path: Dynamo's Rust runtime, two NIXL builds, the final copies and export)`,
    imageSize: `about ${sizeText(c.sizeGB)} uncompressed (${c.what}), about ${c.compressedGB} GB compressed`,
    gencode: compiled,
    basis: AUDIT,
    cost: c,
  };
}

/** `repository:tag@digest` where the digest is known, else undefined (resolved at `pulumi up`). */
export function pinnedRef(v: VendorImage): string | undefined {
  return v.digest !== undefined ? `${v.repository}@${v.digest}` : undefined;
}
