/**
 * Extracts how the EKS AL2023 AMI pulls images, which the per-node timeline in `plan.md` and the prefetch
 * DaemonSet rely on, from awslabs/amazon-eks-ami: the kubelet config nodeadm writes (`serializeImagePulls`, and
 * whether it sets `maxParallelImagePulls`; `nodeadm/internal/kubelet/config.go`), that the AMI installs the SOCI
 * snapshotter (`templates/al2023/provisioners/install-worker.sh`), that containerd uses it only behind the
 * `FastImagePull` feature gate, off by default (`nodeadm/internal/api/featuregates.go`,
 * `nodeadm/internal/containerd/config.go`), and which SOCI pull modes nodeadm configures
 * (`nodeadm/internal/containerd/snapshotter/soci-snapshotter.config.toml`: parallel pull + unpack, no lazy loading).
 * Usage: npx tsx tests/contracts/extract/eks-node-image-pull.ts <amazon-eks-ami checkout> --ref main [--commit <sha>] > tests/contracts/facts/eks-node-image-pull.json
 */
import { checkoutArgs, matcher, printFacts, readText, today, withNotes } from "./_checkout";

export const PATHS = {
  kubelet: "nodeadm/internal/kubelet/config.go",
  installWorker: "templates/al2023/provisioners/install-worker.sh",
  featureGates: "nodeadm/internal/api/featuregates.go",
  containerd: "nodeadm/internal/containerd/config.go",
  soci: "nodeadm/internal/containerd/snapshotter/soci-snapshotter.config.toml",
} as const;

const must = matcher("eks-node-image-pull");

/** The facts, from the text of each file in `PATHS`. */
export function extract(read: (p: string) => string) {
  const kubelet = read(PATHS.kubelet);
  const serialize = must(/\n\s*SerializeImagePulls:\s*(true|false),/, kubelet, "SerializeImagePulls default")[1];
  const soci = read(PATHS.soci);
  const modes = [...soci.matchAll(/^\[pull_modes\.([a-z_]+)\]/gm)].map((m) => m[1]);
  const perImage = Number(must(/max_concurrent_downloads_per_image\s*=\s*(-?\d+)/, soci, "downloads per image")[1]);
  return {
    kubeletSerializeImagePulls: serialize === "true",
    kubeletSetsMaxParallelImagePulls: /MaxParallelImagePulls:/.test(kubelet),
    amiInstallsSociSnapshotter: /dnf install -y soci-snapshotter/.test(read(PATHS.installWorker)),
    fastImagePullDefault: must(/FastImagePull:\s*(DefaultTrue|DefaultFalse)/, read(PATHS.featureGates), "gate")[1],
    sociOnlyWithFastImagePull: /if !api\.IsFeatureEnabled\(api\.FastImagePull, cfg\.Spec\.FeatureGates\)/.test(
      read(PATHS.containerd),
    ),
    sociPullModes: modes,
    sociMaxConcurrentDownloadsPerImage: perImage,
    sociDiscardsUnpackedLayers: /discard_unpacked_layers\s*=\s*true/.test(soci),
  };
}

if (require.main === module) {
  const args = checkoutArgs(process.argv.slice(2), "eks-node-image-pull.ts");
  printFacts(
    {
      repository: "awslabs/amazon-eks-ami",
      ref: args.ref,
      commit: args.commit,
      paths: Object.values(PATHS),
      extracted: today(),
      extractor: "tests/contracts/extract/eks-node-image-pull.ts",
      notes: withNotes(
        "Read by hand at the same commit: nodeadm/doc/examples.md 'Enabling fast image pull (experimental)' says FastImagePull pulls and unpacks in parallel at the cost of CPU, memory and EBS I/O, recommends >= 600 MiB/s root-volume throughput, and is ignored below 4 vCPU / 7 GiB (UseSOCISnapshotter). The only SOCI pull mode nodeadm configures is parallel_pull_unpack: SOCI lazy loading (which needs SOCI index artifacts pushed beside the image) is not set up by this AMI. With localStorage RAID0, setup-local-disks bind-mounts /var/lib/containerd and /var/lib/soci-snapshotter-grpc onto the NVMe array (facts/nodeadm-nodeconfig.json raidBindMounts).",
        args,
      ),
    },
    extract((p) => readText(args.root, p)),
  );
}
