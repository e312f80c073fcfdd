/**
 * Extracts the nodeadm NodeConfig facts the GPU node group's user data relies on, from awslabs/amazon-eks-ami:
 * the API group and version (`nodeadm/api/core.go`, `nodeadm/api/v1alpha1/groupversion_info.go`), the MIME media
 * type of a NodeConfig part in user data (`nodeadm/internal/configprovider/userdata.go`), the
 * `spec.instance.localStorage` fields and strategy enum (`nodeadm/api/v1alpha1/nodeconfig_types.go`), and where
 * `setup-local-disks` mounts a RAID array by default (`templates/al2023/runtime/bin/setup-local-disks`), and how
 * containerd's base runtime spec is built from `spec.containerd.baseRuntimeSpec` (`nodeadm/internal/containerd/`).
 * Usage: npx tsx tests/contracts/extract/nodeadm-nodeconfig.ts <amazon-eks-ami checkout> --ref main [--commit <sha>] > tests/contracts/facts/nodeadm-nodeconfig.json
 */
import * as fs from "fs";
import * as path from "path";
import { checkoutArgs, matcher, printFacts, readText, today, withNotes } from "./_checkout";

export const PATHS = {
  core: "nodeadm/api/core.go",
  groupVersion: "nodeadm/api/v1alpha1/groupversion_info.go",
  types: "nodeadm/api/v1alpha1/nodeconfig_types.go",
  userData: "nodeadm/internal/configprovider/userdata.go",
  localDisk: "nodeadm/internal/system/local_disk.go",
  setupLocalDisks: "templates/al2023/runtime/bin/setup-local-disks",
  baseRuntimeSpec: "nodeadm/internal/containerd/base-runtime-spec.json",
  baseRuntimeSpecGo: "nodeadm/internal/containerd/base_runtime_spec.go",
  containerdConfig2: "nodeadm/internal/containerd/config2.template.toml",
  containerdConfig: "nodeadm/internal/containerd/config.template.toml",
  nvidiaRuntime: "nodeadm/internal/containerd/runtime_config_nvidia.go",
  utilMerge: "nodeadm/internal/util/merge.go",
  containerdDropIns: "templates/al2023/runtime/rootfs/etc/systemd/system/containerd.service.d",
} as const;

const must = matcher("nodeadm");

/**
 * How nodeadm builds containerd's base runtime spec (the OCI spec every container starts from, rlimits included):
 * the `spec.containerd` fields a NodeConfig may set, the file written and its default rlimits, whether every
 * runtime containerd is configured with (runc, and nvidia on GPU AMIs) reads that file, how a user spec is merged
 * (mergo override: an array replaces the default's whole), and the numbers' round trip (JSON into
 * `map[string]interface{}`: float64).
 */
function baseRuntimeSpecFacts(read: (p: string) => string, types: string, list: (dir: string) => string[]) {
  const containerdFields = [
    ...must(/type ContainerdOptions struct \{([\s\S]*?)\n\}/, types, "ContainerdOptions")[1].matchAll(
      /json:"([a-zA-Z]+)/g,
    ),
  ].map((m) => m[1]);
  const go = read(PATHS.baseRuntimeSpecGo);
  const file = must(/containerdBaseRuntimeSpecFile\s*=\s*"([^"]+)"/, go, "containerdBaseRuntimeSpecFile")[1];
  const spec = JSON.parse(read(PATHS.baseRuntimeSpec)) as { process: { rlimits: unknown[] } };
  const runtimeReads = (toml: string) =>
    new RegExp(
      `runtimes\\.\\{\\{\\.RuntimeName\\}\\}\\]\\s*\\nruntime_type = "[^"]+"\\s*\\nbase_runtime_spec = "${file}"`,
    ).test(toml);
  const merge = read(PATHS.utilMerge);
  return {
    containerdSpecField: must(
      /Containerd\s+ContainerdOptions\s+`json:"([a-zA-Z]+)/,
      types,
      "NodeConfigSpec.Containerd",
    )[1],
    containerdFields,
    baseRuntimeSpecFile: file,
    defaultRlimits: spec.process.rlimits,
    userSpecMergedOverDefault: /util\.Merge\(defaultBaseRuntimeSpecMap, cfg\.Spec\.Containerd\.BaseRuntimeSpec/.test(
      go,
    ),
    mergeOverridesArraysWhole:
      /opts = append\(opts, mergo\.WithOverride\)/.test(merge) && !/WithAppendSlice/.test(merge),
    mergeDecodesNumbersAsFloat64: /map\[string\]interface\{\}/.test(merge) && /json\.Unmarshal/.test(go),
    everyRuntimeReadsBaseSpec:
      runtimeReads(read(PATHS.containerdConfig2)) && runtimeReads(read(PATHS.containerdConfig)),
    nvidiaRuntimeName: must(/nvidiaRuntimeName\s*=\s*"([^"]+)"/, read(PATHS.nvidiaRuntime), "nvidiaRuntimeName")[1],
    containerdDropIns: list(PATHS.containerdDropIns),
  };
}

/** The facts, from the text of each file in `PATHS` (`list` names the files of a directory). */
export function extract(read: (p: string) => string, list: (dir: string) => string[] = () => []) {
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
    ...baseRuntimeSpecFacts(read, types, list),
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
        "Read by hand at the same commit: nodeadm merges every application/node.eks.aws part of a MIME multipart user data in order (nodeadm/doc/examples.md 'Merging multiple configuration objects'); for a managed node group on an EKS AMI type (no image id in the launch template) EKS adds the cluster part (name, endpoint, CA, CIDR) itself (eksctl docs 'Node bootstrapping': 'the default NodeConfig is being added by EKS MNG under the hood'), so our part carries only spec.instance.localStorage and spec.containerd.baseRuntimeSpec. nodeadm/doc/examples.md 'Modifying container RLIMITs' documents baseRuntimeSpec.process.rlimits as the way to change container rlimits; nodeadm/internal/api/merge.go merges the baseRuntimeSpec of several NodeConfig parts (mergeInlineDocument, same util.Merge). No containerd drop-in sets LimitMEMLOCK and the default spec has no RLIMIT_MEMLOCK, so a container inherits containerd's own limit. Not read here: containerd's CRI code (that it keeps base-spec rlimits; its docs say the base spec is what every container is created from) and the AL2023 containerd RPM's unit.",
        args,
      ),
    },
    extract(
      (p) => readText(args.root, p),
      (d) => fs.readdirSync(path.join(args.root, d)).sort(),
    ),
  );
}
