/**
 * Extracts what the EKS AL2023 AMI does about 2 MiB hugepages on an EFA node, and when a user data script runs
 * relative to the kubelet: the EFA installer's flags, every file of the AL2023 templates and of nodeadm (vendored
 * code excluded) that sets `nr_hugepages` (none at the commit read), and the ordering of `nodeadm-run.service` (which
 * starts the kubelet) after cloud-init's final stage; and how a node short of hugepages is registered tainted: the
 * NodeConfig drop-in directory `nodeadm-run.service` reads after the user data, that its config phase re-runs when the
 * drop-ins change the cached config, which file names it reads, that an empty directory is no error, and that every
 * NodeConfig's `kubelet.flags` are appended to the kubelet's command line. Each with the `path:line` it was read at.
 * Usage: npx tsx tests/contracts/extract/eks-hugepages.ts <awslabs/amazon-eks-ami checkout> --ref main [--commit <sha>]
 */
import { checkoutArgs, filesUnder, matcher, printFacts, readText, today, withNotes } from "./_checkout";

export const PATHS = {
  installEfa: "templates/al2023/provisioners/install-efa.sh",
  nodeadmRun: "templates/al2023/runtime/rootfs/etc/systemd/system/nodeadm-run.service",
  templates: "templates/al2023",
  nodeadm: "nodeadm",
  init: "nodeadm/cmd/nodeadm/init/init.go",
  fileProvider: "nodeadm/internal/configprovider/file.go",
  chain: "nodeadm/internal/configprovider/chain.go",
  types: "nodeadm/api/v1alpha1/nodeconfig_types.go",
  merge: "nodeadm/internal/api/merge.go",
  kubeletEnv: "nodeadm/internal/kubelet/environment.go",
  kubeletUnit: "templates/al2023/runtime/rootfs/etc/systemd/system/kubelet.service",
} as const;

const must = matcher("eks-hugepages");

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split("\n").length;
}

const at = (file: string, text: string, m: RegExpExecArray) => `${file}:${lineOf(text, m.index)}`;

/** How nodeadm-run reads NodeConfig drop-ins and passes their kubelet flags on. */
function dropInFacts(root: string, run: string): Record<string, unknown> {
  const exec = must(/^ExecStart=(.*)$/m, run, "nodeadm-run's ExecStart=");
  const sources = [...exec[1].matchAll(/--config-source (\S+)/g)].map((m) => m[1]);
  const skips = [...exec[1].matchAll(/--skip (\S+)/g)].map((m) => m[1]);
  const init = readText(root, PATHS.init);
  const recache = must(/needsRecache := len\(c\.configCache\) > 0 && isChanged/, init, "the recache condition");
  const rerun = must(/if needsRecache \|\| !slices\.Contains\(c\.skipPhases, configPhase\)/, init, "the config phase");
  const file = readText(root, PATHS.fileProvider);
  const exts = must(/\[\]string\{((?:"\.[a-z]+",? ?)+)\}/, file, "the drop-in extensions");
  const chain = readText(root, PATHS.chain);
  const tolerated = must(/errors\.Is\(err, ErrNoConfigInDirectory\) \{\s*continue/, chain, "the empty-directory case");
  const types = readText(root, PATHS.types);
  const flags = must(
    /type KubeletOptions struct \{[^}]*?Flags \[\]string `json:"(\w+),omitempty"`/,
    types,
    "kubelet flags",
  );
  const merge = readText(root, PATHS.merge);
  const append = must(
    /func \(t nodeConfigTransformer\) mergeKubeletFlags[^}]*reflect\.AppendSlice\(dst, src\)/,
    merge,
    "flag merge",
  );
  const env = readText(root, PATHS.kubeletEnv);
  const envName = must(/kubeletArgsEnvironmentName = "(\w+)"/, env, "the kubelet args variable");
  const unit = readText(root, PATHS.kubeletUnit);
  const kubeletExec = must(/^ExecStart=(.*)$/m, unit, "kubelet's ExecStart=");
  return {
    nodeadmRunConfigSources: sources,
    nodeadmRunSkips: skips,
    nodeadmRunExecAt: at(PATHS.nodeadmRun, run, exec),
    configPhaseRerunsWhenCacheDiffers: true,
    configPhaseRerunAt: [at(PATHS.init, init, recache), at(PATHS.init, init, rerun)],
    dropInExtensions: [...exts[1].matchAll(/"([^"]+)"/g)].map((m) => m[1]),
    dropInExtensionsAt: at(PATHS.fileProvider, file, exts),
    emptyDropInDirectoryTolerated: true,
    emptyDropInDirectoryAt: at(PATHS.chain, chain, tolerated),
    kubeletFlagsField: flags[1],
    kubeletFlagsFieldAt: at(PATHS.types, types, flags),
    kubeletFlagsMergeAppends: true,
    kubeletFlagsMergeAt: at(PATHS.merge, merge, append),
    kubeletArgsVariable: envName[1],
    kubeletExecStart: kubeletExec[1].trim(),
  };
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
    ...dropInFacts(root, run),
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
