/**
 * Extracts two facts of the EKS AL2023 NVIDIA AMI that DRA and the workers' privileges rest on, from
 * awslabs/amazon-eks-ami: from which Kubernetes version nodeadm labels a node with NVIDIA devices
 * `nvidia.com/gpu.present=true` (the label NVIDIA's GPU DRA driver's kubelet plugin selects nodes by, when NFD is not
 * installed), and that the EFA installer's `efa-nv-peermem` package (the EFA peer-memory module for GPUDirect RDMA)
 * is removed only from AMIs without the NVIDIA driver, so the NVIDIA AMI keeps it; and from which Kubernetes version
 * nodeadm turns on CDI in containerd (`enable_cdi`, in both its containerd 1.x and 2.x templates): NVIDIA's GPU DRA
 * driver hands a claimed GPU to the container as a CDI device, so DRA needs it on every GPU node.
 * Usage: npx tsx tests/contracts/extract/eks-ami-gpu-nodes.ts <amazon-eks-ami checkout> --ref main [--commit <sha>] > tests/contracts/facts/eks-ami-gpu-nodes.json
 */
import { checkoutArgs, matcher, printFacts, readText, today, withNotes } from "./_checkout";

export const PATHS = {
  kubelet: "nodeadm/internal/kubelet/config.go",
  installEfa: "templates/al2023/provisioners/install-efa.sh",
  containerd: "nodeadm/internal/containerd/config.go",
  containerdTemplate: "nodeadm/internal/containerd/config.template.toml",
  containerd2Template: "nodeadm/internal/containerd/config2.template.toml",
} as const;

const must = matcher("eks-ami-gpu-nodes");

/** The facts, from nodeadm's kubelet config and the EFA provisioner. */
export function extract(read: (p: string) => string) {
  const label = must(
    /semver\.Compare\(cfg\.Status\.KubeletVersion, "v(\d+\.\d+)\.0"\) >= 0 \{[^}]*nodeLabelFuncs\["(nvidia\.com\/gpu\.present)"\]/,
    read(PATHS.kubelet),
    "gpu.present label",
  );
  const efa = read(PATHS.installEfa);
  const cdi = must(
    /EnableCDI:\s+semver\.Compare\(cfg\.Status\.KubeletVersion, "v(\d+\.\d+)\.0"\) >= 0/,
    read(PATHS.containerd),
    "EnableCDI",
  );
  return {
    gpuPresentLabel: label[2],
    gpuPresentLabelFromKubernetes: label[1],
    efaNvPeermemRemovedOnlyWithoutNvidia:
      /if \[ "\$\{ENABLE_ACCELERATOR:-\}" != "nvidia" \]; then\n\s+sudo rpm -e --nodeps efa-nv-peermem/.test(efa),
    containerdCdiFromKubernetes: cdi[1],
    containerdCdiInEveryTemplate: [PATHS.containerdTemplate, PATHS.containerd2Template].every((t) =>
      /^enable_cdi = \{\{\.EnableCDI\}\}$/m.test(read(t)),
    ),
  };
}

if (require.main === module) {
  const usage = "npx tsx tests/contracts/extract/eks-ami-gpu-nodes.ts";
  const args = checkoutArgs(process.argv.slice(2), usage);
  printFacts(
    {
      repository: "awslabs/amazon-eks-ami",
      ref: args.ref,
      commit: args.commit,
      paths: Object.values(PATHS),
      extracted: today(),
      extractor: "tests/contracts/extract/eks-ami-gpu-nodes.ts",
      notes: withNotes("nodeadm sets no topologyManagerPolicy (no match for it in nodeadm at this commit).", args),
    },
    extract((p) => readText(args.root, p)),
  );
}
