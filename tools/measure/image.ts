/**
 * Which image the benchmark Job runs: one the release ships with AIPerf on its PATH (its frontend image, which
 * installs Dynamo's benchmarks package; Dynamo's own in-cluster benchmark Job runs on it), so nothing is built and no
 * Docker is needed. Pinned by digest, never a tag: the digest the cluster already runs it at (the graph's Frontend,
 * once the Frontend runs the release's frontend image), else the digest the release data gives, else the user's
 * `--aiperf-image`. Pure.
 */
import type { Release } from "../../components/releases/types";
import { DIGEST_PINNED } from "../../components/inference/validate";

/** The image chosen and why, or why there is none. */
export type BenchImage = { readonly ref: string; readonly why: string } | { readonly problem: string };

/**
 * A container's image as a digest-pinned reference: the spec's image when it names a digest, else the image ID the
 * kubelet reports (`repo@sha256:...`, possibly prefixed `docker-pullable://`). Undefined when neither pins one.
 */
export function pinnedImageOf(specImage: string | undefined, imageID: string | undefined): string | undefined {
  if (specImage && DIGEST_PINNED.test(specImage)) return specImage;
  const id = imageID?.replace(/^[a-z-]+:\/\//, "");
  return id && DIGEST_PINNED.test(id) ? id : undefined;
}

/**
 * The Job's image. `override` is `--aiperf-image` (already checked to be digest-pinned); `running` the
 * digest-pinned images the graph's pods run now.
 */
export function benchImage(release: Release, running: readonly string[], override?: string): BenchImage {
  if (override) return { ref: override, why: "--aiperf-image" };
  const image = release.frontendImage;
  if (!image?.aiperf)
    return {
      problem: `release ${release.id} names no image that ships AIPerf; pass --aiperf-image <repository>@sha256:<digest> of an image with aiperf on its PATH`,
    };
  const ships = `${image.repository}:${image.tag} ships AIPerf ${image.aiperf.version} (${image.aiperf.source})`;
  const live = running.find((r) => r.startsWith(`${image.repository}@sha256:`));
  if (live) return { ref: live, why: `the image the graph's Frontend runs: ${ships}` };
  if (image.digest) return { ref: `${image.repository}@${image.digest}`, why: `release ${release.id}: ${ships}` };
  return {
    problem:
      `${ships}, but no digest of it is known here: no pod of the graph runs it and release ${release.id} gives ` +
      `none. Pass --aiperf-image ${image.repository}@sha256:<digest> (the digest of ${image.repository}:${image.tag})`,
  };
}
