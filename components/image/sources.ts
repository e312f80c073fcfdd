/**
 * The three ways to get the serving image (`image.source`) and what each costs: build time, image size, and what its
 * CUDA arch list applies to. Pure data; docs/IMAGE.md says which to pick and why.
 */
import type { ImagePin } from "../releases/types";

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

/** What getting an image this way costs, as the plan states it. */
export interface SourceEstimate {
  /** Wall-clock time before the image exists, e.g. "0 min (nothing is built)". */
  readonly buildTime: string;
  /** Uncompressed image size (what a node pulls, before compression). */
  readonly imageSize: string;
  /** What the CUDA arch list (`cudaArchs`) applies to: which steps are compiled here, for which archs. */
  readonly gencode: string;
  /** Where the numbers come from. */
  readonly basis: string;
}

/**
 * Minutes a cold build takes, for the plan's critical path: the from-source build about 2-2.5 h on 16 cores (135, the
 * middle), the vendor-combined image about 10-20 min of pulls and copies (15). The seed's "~95 min on CodeBuild" was a
 * one-venv image; the two-venv build is longer (image audit section 7).
 */
export const BUILD_MINUTES = { source: 135, vendorCombined: 15 } as const;

/** Size of one vendor runtime image: the field's combined overlay of both is ~35-40 GB (IMAGE-AUDIT section 7). */
const AUDIT = "docs/IMAGE.md (image audit section 7: sizes from the stored wheels and pull logs, times reasoned)";

/** The cost of each source; `archs` is the list the from-source build compiles for ("sm_90"). */
export function sourceEstimate(source: ImageSource, vendor: boolean, archs: readonly string[]): SourceEstimate {
  const compiled = `the from-source build compiles nccl-tests, LMCache and DeepEP (and FlashInfer with flashinferAot) for ${archs.join(", ") || "the arch list"}; vLLM's, FlashInfer's and TensorRT-LLM's kernels come prebuilt in their wheels for the vendors' own arch lists`;
  if (source === ImageSource.Prebuilt)
    return {
      buildTime: "0 min (nothing is built; the node pulls the vendor image)",
      imageSize: "about 20-25 GB (one engine's vendor runtime image)",
      gencode: "nothing is compiled in this stack: the vendor's prebuilt kernels carry the vendor's own arch lists",
      basis: AUDIT,
    };
  if (source === ImageSource.Combined && vendor)
    return {
      buildTime: "about 10-20 min (two image pulls and layer copies; no compile step)",
      imageSize: "about 35-40 GB (both engines' environments, each whole)",
      gencode:
        "nothing is compiled in this stack: both environments are the vendor's, with the vendor's own arch lists",
      basis: AUDIT,
    };
  return {
    buildTime:
      "about 2-2.5 h cold on a 16-core builder (the critical path: Dynamo's Rust runtime, two NIXL builds, the final copies and export)",
    imageSize: "about 40-46 GB uncompressed (two environments, two CUDA user spaces), about 20 GB compressed",
    gencode: compiled,
    basis: AUDIT,
  };
}

/** `repository:tag@digest` where the digest is known, else undefined (resolved at `pulumi up`). */
export function pinnedRef(v: VendorImage): string | undefined {
  return v.digest !== undefined ? `${v.repository}@${v.digest}` : undefined;
}
