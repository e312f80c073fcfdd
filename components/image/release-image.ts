/**
 * The image arguments a release implies (`release` + `image.source`): which vendor images `DynamoImage` gets and the
 * source a stack gets by default. Pure; the program calls it once the stack's release is known.
 */
import { Problem, show } from "../_shared/problems";
import { Release, ReleaseId } from "../releases";
import { DynamoImageArgs } from "./args";
import { ImageBackend, ImageSource, VendorImage } from "./sources";

/**
 * The release's vendor images and default source, for `given` (what the stack wrote):
 * - `dynamo-1.6`: both vendor runtime images; default "prebuilt" (what NVIDIA built and tested for the release).
 *   "source" is refused: the from-source Dockerfile builds the seed's versions (Dynamo `DYNAMO_REF`, vLLM 0.17.1),
 *   which the release's operator and graph do not pair with.
 * - `seed`: default "combined", the seed's one image for both backends, which is its from-source build: the seed's
 *   vendor images (1.0.1) carry other engine versions, so they are passed only for an explicit "prebuilt".
 */
export function releaseImageArgs(
  rel: Release,
  given: { readonly source?: ImageSource; readonly backend?: ImageBackend },
  path = "image.source",
): { readonly args: Pick<DynamoImageArgs, "source" | "vendorImages">; readonly problems: Problem[] } {
  const vendor: Partial<Record<ImageBackend, VendorImage>> = {};
  for (const b of ["vllm", "trtllm"] as const) {
    const v = rel.engines[b].vendorImage;
    if (v !== undefined) vendor[b] = v;
  }
  if (rel.id === ReleaseId.Seed) {
    const source = given.source ?? ImageSource.Combined;
    return { args: { source, ...(source === ImageSource.Prebuilt ? { vendorImages: vendor } : {}) }, problems: [] };
  }
  const problems: Problem[] =
    given.source === ImageSource.Source
      ? [
          {
            propertyPath: path,
            reason: `${show(given.source)} builds the seed's versions (dockerfiles/Dockerfile.dynamo-combined-efa), not release ${show(rel.id)}'s; use "prebuilt" or "combined" with release ${show(rel.id)}, or set release "seed" to build from source`,
          },
        ]
      : [];
  return { args: { source: given.source ?? ImageSource.Prebuilt, vendorImages: vendor }, problems };
}
