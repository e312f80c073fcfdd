/**
 * Extracts what the EKS AL2023 AMI does about 2 MiB hugepages on an EFA node, and when a user data script runs
 * relative to the kubelet: the EFA installer's flags, every file of the AL2023 templates and of nodeadm (vendored
 * code excluded) that sets `nr_hugepages` (none at the commit read), and the ordering of `nodeadm-run.service` (which
 * starts the kubelet) after cloud-init's final stage. Each with the `path:line` it was read at.
 * Usage: npx tsx tests/contracts/extract/eks-hugepages.ts <awslabs/amazon-eks-ami checkout> --ref main [--commit <sha>]
 */
import { checkoutArgs, filesUnder, matcher, printFacts, readText, today, withNotes } from "./_checkout";

export const PATHS = {
  installEfa: "templates/al2023/provisioners/install-efa.sh",
  nodeadmRun: "templates/al2023/runtime/rootfs/etc/systemd/system/nodeadm-run.service",
  templates: "templates/al2023",
  nodeadm: "nodeadm",
} as const;

const must = matcher("eks-hugepages");

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split("\n").length;
}

/** The facts, read from a checkout. */
export function extract(root: string): Record<string, unknown> {
  const efa = readText(root, PATHS.installEfa);
  const installer = must(/efa_installer\.sh ([^\n]*)/, efa, "the efa_installer.sh call");
  const run = readText(root, PATHS.nodeadmRun);
  const after = must(/^After=(.*)$/m, run, "nodeadm-run's After=");
  const setters = [PATHS.templates, PATHS.nodeadm]
    .flatMap((d) => filesUnder(root, d, /./))
    .filter((p) => !p.includes("/vendor/") && /nr_hugepages/.test(readText(root, p)));
  return {
    efaInstallerArgs: installer[1].trim().split(/\s+/),
    efaInstallerAt: `${PATHS.installEfa}:${lineOf(efa, installer.index)}`,
    nrHugepagesSetBy: setters,
    nodeadmRunAfter: after[1].trim().split(/\s+/),
    nodeadmRunAfterAt: `${PATHS.nodeadmRun}:${lineOf(run, after.index)}`,
  };
}

if (require.main === module) {
  const a = checkoutArgs(process.argv.slice(2), "eks-hugepages.ts");
  printFacts(
    {
      repository: "awslabs/amazon-eks-ami",
      ref: a.ref,
      commit: a.commit,
      paths: Object.values(PATHS),
      extracted: today(),
      extractor: "tests/contracts/extract/eks-hugepages.ts",
      notes: withNotes("", a),
    },
    extract(a.root),
  );
}
