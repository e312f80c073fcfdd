/**
 * How big a GPU node's root volume must be for the serving image, derived from the image's size and where the AMI
 * keeps images. Pure; no Pulumi import.
 */
import { LARGEST_IMAGE_GB } from "../catalog/images";

/**
 * The serving image a GPU node's disk must hold, GB (10^9): the largest any image source gives
 * (components/catalog/images.ts). The cluster does not know which image the stack will deploy.
 */
export const SERVING_IMAGE_GB = LARGEST_IMAGE_GB;
/** The kubelet's default `imageGCHighThresholdPercent`: above this disk use it starts deleting images. */
export const KUBELET_IMAGE_GC_HIGH_PERCENT = 85;
/** Root volume besides images: the OS, container logs, kubelet state and emptyDirs, GiB (the project's choice). */
const ROOT_BASE_GIB = 100;

/** A GPU node's root volume size and why. */
export interface RootVolumeSize {
  readonly sizeGiB: number;
  readonly basis: string;
}

/**
 * The root volume a GPU node needs for the serving image. With the instance-store RAID0 array, nodeadm's
 * `setup-local-disks` bind-mounts /var/lib/containerd, /var/lib/soci-snapshotter-grpc and /var/lib/kubelet onto it
 * (tests/contracts/facts/nodeadm-nodeconfig.json), so images never land on the root volume. Without it, containerd
 * keeps each layer twice (the compressed blob in its content store and the unpacked snapshot), and the whole must
 * stay under the kubelet's image-GC threshold, or the kubelet deletes the image it is about to run.
 */
export function gpuRootVolume(localNvme: boolean, imageGB = SERVING_IMAGE_GB): RootVolumeSize {
  if (localNvme)
    return {
      sizeGiB: ROOT_BASE_GIB,
      basis: `${ROOT_BASE_GIB} GiB for the OS and logs: images, kubelet and containerd state live on the NVMe array`,
    };
  const imagesGiB = (2 * imageGB * 1e9) / 2 ** 30;
  const sizeGiB = Math.ceil((imagesGiB + ROOT_BASE_GIB) / (KUBELET_IMAGE_GC_HIGH_PERCENT / 100));
  return {
    sizeGiB,
    basis: `(2 x the ${imageGB} GB image (compressed layers + unpacked) = ${imagesGiB.toFixed(1)} GiB + ${ROOT_BASE_GIB} GiB for the OS, logs and emptyDirs) / the kubelet's ${KUBELET_IMAGE_GC_HIGH_PERCENT}% image-GC threshold`,
  };
}
