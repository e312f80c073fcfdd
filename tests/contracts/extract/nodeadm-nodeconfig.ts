/**
 * Extracts the nodeadm NodeConfig facts the GPU node group's user data relies on, from awslabs/amazon-eks-ami:
 * the API group and version (`nodeadm/api/core.go`, `nodeadm/api/v1alpha1/groupversion_info.go`), the MIME media
 * type of a NodeConfig part in user data (`nodeadm/internal/configprovider/userdata.go`), the
 * `spec.instance.localStorage` fields and strategy enum (`nodeadm/api/v1alpha1/nodeconfig_types.go`), and where
 * `setup-local-disks` mounts a RAID array by default (`templates/al2023/runtime/bin/setup-local-disks`).
 * Usage: npx tsx tests/contracts/extract/nodeadm-nodeconfig.ts <amazon-eks-ami checkout> --ref main [--commit <sha>] > tests/contracts/facts/nodeadm-nodeconfig.json
 */
import { checkoutArgs, printFacts, readText, today, withNotes } from "./_checkout";

export const PATHS = {
  core: "nodeadm/api/core.go",
  groupVersion: "nodeadm/api/v1alpha1/groupversion_info.go",
  types: "nodeadm/api/v1alpha1/nodeconfig_types.go",
  userData: "nodeadm/internal/configprovider/userdata.go",
  localDisk: "nodeadm/internal/system/local_disk.go",
  setupLocalDisks: "templates/al2023/runtime/bin/setup-local-disks",
} as const;

function must(re: RegExp, text: string, what: string): RegExpExecArray {
  const m = re.exec(text);
  if (!m) throw new Error(`nodeadm extractor: ${what} not found (pattern ${re})`);
  return m;
}

/** The facts, from the text of each file in `PATHS`. */
export function extract(read: (p: string) => string) {
  const group = must(/GroupName\s*=\s*"([^"]+)"/, read(PATHS.core), "GroupName")[1];
  const version = must(/Version:\s*"([^"]+)"/, read(PATHS.groupVersion), "GroupVersion.Version")[1];
  const media = must(
    /nodeConfigMediaType\s*=\s*"([^"]+)"\s*\+\s*api\.GroupName/,
    read(PATHS.userData),
    "nodeConfigMediaType",
  )[1];
  const types = read(PATHS.types);
  const strategies = must(
    /\+kubebuilder:validation:Enum=\{([^}]+)\}\s*\ntype LocalStorageStrategy/,
    types,
    "LocalStorageStrategy enum",
  )[1]
    .split(",")
    .map((s) => s.trim());
  const localStorageFields = [
    ...must(/type LocalStorageOptions struct \{([\s\S]*?)\n\}/, types, "LocalStorageOptions")[1].matchAll(
      /json:"([a-zA-Z]+)/g,
    ),
  ].map((m) => m[1]);
  const instanceField = must(
    /LocalStorage\s+LocalStorageOptions\s+`json:"([a-zA-Z]+)/,
    types,
    "InstanceOptions.LocalStorage",
  )[1];
  const instanceSpec = must(/Instance\s+InstanceOptions\s+`json:"([a-zA-Z]+)/, types, "NodeConfigSpec.Instance")[1];
  const disks = read(PATHS.setupLocalDisks);
  const mntDir = must(/^MNT_DIR="([^"]+)"/m, disks, "MNT_DIR default")[1];
  const arraySub = must(/local array_mount_point="\$\{MNT_DIR\}\/([^"]+)"/, disks, "array_mount_point")[1];
  const binds = [...disks.matchAll(/BIND_MOUNTS\+=\("([^"]+)"\)/g)].map((m) => m[1]);
  const lowercased = /strings\.ToLower\(string\(cfg\.Spec\.Instance\.LocalStorage\.Strategy\)\)/.test(
    read(PATHS.localDisk),
  );
  return {
    apiVersion: `${group}/${version}`,
    kind: "NodeConfig",
    userDataMediaType: `${media}${group}`,
    specPath: [instanceSpec, instanceField],
    localStorageFields,
    strategies,
    setupLocalDisksArgIsLowercasedStrategy: lowercased,
    defaultMountDir: mntDir,
    raidArrayMountPoint: `${mntDir}/${arraySub}`,
    raidBindMounts: binds,
  };
}

if (require.main === module) {
  const args = checkoutArgs(process.argv.slice(2), "nodeadm-nodeconfig.ts");
  printFacts(
    {
      repository: "awslabs/amazon-eks-ami",
      ref: args.ref,
      commit: args.commit,
      paths: Object.values(PATHS),
      extracted: today(),
      extractor: "tests/contracts/extract/nodeadm-nodeconfig.ts",
      notes: withNotes(
        "Read by hand at the same commit: nodeadm merges every application/node.eks.aws part of a MIME multipart user data in order (nodeadm/doc/examples.md 'Merging multiple configuration objects'); for a managed node group on an EKS AMI type (no image id in the launch template) EKS adds the cluster part (name, endpoint, CA, CIDR) itself (eksctl docs 'Node bootstrapping': 'the default NodeConfig is being added by EKS MNG under the hood'), so our part carries only spec.instance.localStorage.",
        args,
      ),
    },
    extract((p) => readText(args.root, p)),
  );
}
