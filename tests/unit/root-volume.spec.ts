/**
 * The GPU root volume is sized from the serving image and from where the AMI keeps images: on the NVMe array
 * (bind mounts, facts/nodeadm-nodeconfig.json) the root holds only the OS; without it, the image twice (compressed +
 * unpacked) under the kubelet's image-GC threshold, and a smaller explicit value is refused with the arithmetic.
 */
import { strict as assert } from "assert";
import { resolvePool } from "../../components/cluster/args";
import { validateClusterArgs } from "../../components/cluster/validate";
import { gpuRootVolume, KUBELET_IMAGE_GC_HIGH_PERCENT, SERVING_IMAGE_GB } from "../../components/cluster/root-volume";
import { loadFacts } from "../contracts/facts";

const P5EN = { instanceType: "p5en.48xlarge", nodes: 2, availabilityZone: "us-east-2a" };
const cluster = (pool: Record<string, unknown>) =>
  validateClusterArgs({
    availabilityZones: ["us-east-2a", "us-east-2b"],
    // A public address: EKS refuses reserved blocks (198.18.0.0/15 benchmarking, the documentation ranges).
    publicAccessCidrs: ["3.5.140.2/32"],
    gpuPools: { gpu: { ...P5EN, ...pool } },
  });

describe("cluster: GPU root volume from the image size", () => {
  it("the NVMe array holds containerd, SOCI and kubelet state (the AMI's bind mounts), so the root needs no image room", () => {
    const binds = loadFacts<{ raidBindMounts: string[] }>("nodeadm-nodeconfig").facts.raidBindMounts;
    for (const dir of ["/var/lib/containerd", "/var/lib/soci-snapshotter-grpc", "/var/lib/kubelet"])
      assert.ok(binds.includes(dir), dir);
    assert.equal(resolvePool("gpu", P5EN).rootVolumeSizeGiB, gpuRootVolume(true).sizeGiB);
    assert.ok(gpuRootVolume(true).sizeGiB < gpuRootVolume(false).sizeGiB);
  });

  it("without the array: the image twice plus 100 GiB stays under the image-GC threshold", () => {
    const r = gpuRootVolume(false);
    const imageGiB = (SERVING_IMAGE_GB * 1e9) / 2 ** 30;
    assert.ok((2 * imageGiB + 100) / r.sizeGiB <= KUBELET_IMAGE_GC_HIGH_PERCENT / 100);
    assert.ok((2 * imageGiB + 100) / (r.sizeGiB - 1) > KUBELET_IMAGE_GC_HIGH_PERCENT / 100, "the smallest such size");
    assert.equal(resolvePool("gpu", { ...P5EN, localNvme: false }).rootVolumeSizeGiB, r.sizeGiB);
    assert.ok(gpuRootVolume(false, 70).sizeGiB > r.sizeGiB, "a bigger image needs a bigger root");
  });

  it("refuses a root too small for the image without the array, naming the key, the need and the fix", () => {
    const need = gpuRootVolume(false).sizeGiB;
    const [p, ...rest] = cluster({ localNvme: false, rootVolumeSizeGiB: 120 });
    assert.deepEqual(rest, []);
    assert.equal(p.propertyPath, "gpuPools.gpu.rootVolumeSizeGiB");
    assert.match(p.reason, new RegExp(`120 GiB .* at least ${need} GiB .* set rootVolumeSizeGiB to ${need}`));
    assert.deepEqual(cluster({ localNvme: false, rootVolumeSizeGiB: need }), []);
    assert.deepEqual(cluster({ rootVolumeSizeGiB: 120 }), [], "with the array 120 GiB is plenty");
  });
});
