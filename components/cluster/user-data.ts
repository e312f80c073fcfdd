/**
 * User data of a GPU node group: an AL2023 `nodeadm` NodeConfig in a MIME multipart document, asking nodeadm to
 * turn the instance-store NVMe disks into one RAID0 array and, on EFA pools, to raise the containers'
 * RLIMIT_MEMLOCK; and on EFA pools a cloud-init script reserving the 2 MiB hugepages the workers request
 * (`hugepagesScript`), which registers the node tainted when the kernel reserves fewer. Pure; no Pulumi import.
 *
 * Facts (awslabs/amazon-eks-ami@81fec2e895854f599974fe4d3d72f61c0a9aaffa, held by
 * `tests/contracts/nodeadm-user-data.spec.ts` against facts/nodeadm-nodeconfig.json): nodeadm reads every part of
 * media type `application/node.eks.aws` and merges them in order; `spec.instance.localStorage.strategy` is one of
 * RAID0 | RAID10 | Mount; `setup-local-disks raid0` builds `/dev/md/kubernetes`, formats it XFS, mounts it at
 * `/mnt/k8s-disks/0` and bind-mounts /var/lib/kubelet, /var/lib/containerd, /var/lib/soci-snapshotter-grpc and
 * /var/log/pods onto it (so images and emptyDirs also live on the array).
 *
 * Memlock (same commit, same spec): `spec.containerd.baseRuntimeSpec` is merged by nodeadm over its own
 * `base-runtime-spec.json` (whose only rlimit is RLIMIT_NOFILE) into `/etc/containerd/base-runtime-spec.json`, which
 * containerd's config gives the default runtime (nvidia on GPU AMIs, else runc); the AMI's only containerd drop-in is
 * `00-runtime-slice.conf`, so without this a container inherits containerd's own (systemd default) limit.
 *
 * The rest of the NodeConfig the AMI needs (cluster name, API endpoint, CA, service CIDR) is NOT repeated here:
 * for a managed node group on an EKS AMI type with no image id in the launch template, EKS appends its own
 * NodeConfig part with those fields to this user data, and nodeadm merges the two.
 */
import { stringify } from "yaml";
import { GPU_POOL_TAINTS, Taint } from "../catalog/pool";

/** nodeadm's API and the AMI's local-disk layout. */
export const NODEADM = {
  apiVersion: "node.eks.aws/v1alpha1",
  kind: "NodeConfig",
  /** MIME media type of a NodeConfig part of user data. */
  mediaType: "application/node.eks.aws",
  /** Where `setup-local-disks` mounts the RAID0/RAID10 array (its default `--dir` plus `/0`). */
  raidMountPoint: "/mnt/k8s-disks/0",
} as const;

/** `spec.instance.localStorage.strategy` of a NodeConfig. */
export const LocalStorageStrategy = { Raid0: "RAID0", Raid10: "RAID10", Mount: "Mount" } as const;
export type LocalStorageStrategy = (typeof LocalStorageStrategy)[keyof typeof LocalStorageStrategy];

/** One OCI `process.rlimits` entry (bytes for RLIMIT_MEMLOCK). */
export interface Rlimit {
  readonly type: string;
  readonly soft: number;
  readonly hard: number;
}

/** A NodeConfig object (only the fields this package sets). */
export interface NodeConfig {
  readonly apiVersion: typeof NODEADM.apiVersion;
  readonly kind: typeof NODEADM.kind;
  readonly spec: {
    readonly instance?: { readonly localStorage: { readonly strategy: LocalStorageStrategy } };
    readonly containerd?: { readonly baseRuntimeSpec: { readonly process: { readonly rlimits: readonly Rlimit[] } } };
    /** Flags nodeadm appends to the kubelet's command line (NodeConfigs merged: every part's flags, in order). */
    readonly kubelet?: { readonly flags: readonly string[] };
  };
}

/**
 * The rlimits of nodeadm's own base runtime spec (`nodeadm/internal/containerd/base-runtime-spec.json`). nodeadm
 * merges a user's `baseRuntimeSpec` over it with mergo's override, which replaces an array whole, so every entry
 * kept must be restated beside ours.
 */
export const NODEADM_DEFAULT_RLIMITS: readonly Rlimit[] = [{ type: "RLIMIT_NOFILE", soft: 65536, hard: 1048576 }];

/**
 * RLIMIT_MEMLOCK of every container on an EFA node: 2^53 bytes (8 PiB), in effect no limit. Not "unlimited"
 * (2^64-1): nodeadm decodes the spec into float64 before writing it, which turns 2^64-1 into 2^64, a number
 * containerd cannot read back into the spec's uint64. 2^53 is the largest integer float64 (and JavaScript) hold
 * exactly. Memory a container locks still counts against its memory cgroup, so its limit still bounds it.
 */
export const EFA_MEMLOCK_BYTES = 2 ** 53;

/**
 * The rlimits an EFA node's containers start with. The workers run as a non-root UID, so `IPC_LOCK` in their
 * capabilities is never effective (Kubernetes sets no ambient capabilities) and libfabric's memory registration
 * (`fi_mr_reg` of host buffers) counts against RLIMIT_MEMLOCK; runc applies these limits before the process
 * starts, whatever its UID, so the worker stays unprivileged.
 */
export function efaRlimits(): Rlimit[] {
  return [
    ...NODEADM_DEFAULT_RLIMITS.filter((r) => r.type !== "RLIMIT_MEMLOCK"),
    { type: "RLIMIT_MEMLOCK", soft: EFA_MEMLOCK_BYTES, hard: EFA_MEMLOCK_BYTES },
  ];
}

/**
 * The NodeConfig of a GPU node: instance-store NVMe as one RAID0 array at `NODEADM.raidMountPoint` (`localNvme`),
 * and on EFA pools containerd's base runtime spec with the raised memlock limit (`efa`).
 */
export function gpuNodeConfig(pool: { readonly localNvme: boolean; readonly efa: boolean }): NodeConfig {
  return {
    apiVersion: NODEADM.apiVersion,
    kind: NODEADM.kind,
    spec: {
      ...(pool.localNvme ? { instance: { localStorage: { strategy: LocalStorageStrategy.Raid0 } } } : {}),
      ...(pool.efa ? { containerd: { baseRuntimeSpec: { process: { rlimits: efaRlimits() } } } } : {}),
    },
  };
}

/** One part of a MIME multipart document. */
export interface MimePart {
  readonly contentType: string;
  readonly body: string;
}

/** Boundary of the user data document (a string no YAML body here contains). */
export const USER_DATA_BOUNDARY = "==DYNAMO-EFA-BOUNDARY==";

/** A `multipart/mixed` document (RFC 2046), the form EKS requires for managed node group user data. */
export function mimeMultipart(parts: readonly MimePart[], boundary = USER_DATA_BOUNDARY): string {
  for (const p of parts)
    if (p.body.includes(`--${boundary}`)) throw new Error(`a user data part contains the MIME boundary ${boundary}`);
  const lines = ["MIME-Version: 1.0", `Content-Type: multipart/mixed; boundary="${boundary}"`, ""];
  for (const p of parts) lines.push(`--${boundary}`, `Content-Type: ${p.contentType}`, "", p.body.trimEnd(), "");
  lines.push(`--${boundary}--`, "");
  return lines.join("\n");
}

/** MIME media type of a cloud-init shell script part (run by cloud-init's scripts-user, in cloud-final). */
export const SHELL_SCRIPT_MEDIA_TYPE = "text/x-shellscript";
/** Where the reservation is kept for later boots. */
export const HUGEPAGES_SYSCTL_FILE = "/etc/sysctl.d/90-dynamo-efa-hugepages.conf";
/**
 * nodeadm's drop-in directory: `nodeadm-run.service` (after cloud-init) reads every `.yaml`/`.yml`/`.json`
 * NodeConfig there after the user data, and re-runs its config phase when they change the config it cached
 * (tests/contracts/facts/eks-hugepages.json).
 */
export const NODEADM_DROP_IN_DIR = "/etc/eks/nodeadm.d";
/** The drop-in the hugepages script writes when the kernel reserved too few pages. */
export const HUGEPAGES_DROP_IN = `${NODEADM_DROP_IN_DIR}/90-dynamo-efa-hugepages.yaml`;

/**
 * The taint a GPU node registers with when the kernel reserved fewer 2 MiB hugepages than its EFA workers request:
 * no worker can schedule there (their `hugepages-2Mi` requests exceed the node's allocatable), and the taint says
 * why in `kubectl describe node` and in `verify`, where a Pending pod's event only says "Insufficient hugepages-2Mi".
 * Its value, `reserved-<got>-of-<asked>`, is a label value (the kubelet parses it so).
 */
export const HUGEPAGES_TAINT = { key: "dynamo-efa/hugepages", effect: "NoSchedule" } as const;

/** `reserved-<got>-of-<asked>`: the value of the hugepages taint (`got`, `asked` may be shell variables). */
export const hugepagesTaintValue = (got: string | number, asked: string | number): string =>
  `reserved-${got}-of-${asked}`;

/** The pages a hugepages taint's value says were reserved and asked for, or undefined when it is not one. */
export function parseHugepagesTaintValue(value: string): { got: number; asked: number } | undefined {
  const m = /^reserved-(\d+)-of-(\d+)$/.exec(value);
  return m ? { got: Number(m[1]), asked: Number(m[2]) } : undefined;
}

/** A taint as `--register-with-taints` writes it: `key=value:Effect`. */
const taintFlagItem = (t: Taint): string => `${t.key}=${t.value}:${t.effect}`;

/**
 * The NodeConfig drop-in of a node short of hugepages: the kubelet registers with the pool's own taints and the
 * hugepages taint. The pool's taints are restated because the kubelet's `--register-with-taints` keeps only its last
 * occurrence's list (kubernetes pkg/util/taints taintsVar.Set replaces it) and nodeadm appends every NodeConfig's
 * flags, the drop-in's last: a node group whose own NodeConfig passed its taints the same way keeps them.
 */
export function hugepagesDropIn(got: string | number, asked: string | number): NodeConfig {
  const taints = [
    ...GPU_POOL_TAINTS,
    { key: HUGEPAGES_TAINT.key, value: hugepagesTaintValue(got, asked), effect: HUGEPAGES_TAINT.effect },
  ];
  return {
    apiVersion: NODEADM.apiVersion,
    kind: NODEADM.kind,
    spec: { kubelet: { flags: [`--register-with-taints=${taints.map(taintFlagItem).join(",")}`] } },
  };
}

/**
 * A shell script part reserving `pages` 2 MiB hugepages, before the kubelet starts. Why a script: the EKS AL2023 AMI
 * sets no `vm.nr_hugepages` (its EFA install is `efa_installer.sh --minimal -y`, awslabs/amazon-eks-ami@81fec2e
 * templates/al2023/provisioners/install-efa.sh:53; nothing in templates/al2023 or nodeadm sets nr_hugepages), and
 * NodeConfig has no sysctl field. The kubelet reads the node's hugepages when it starts and advertises them as
 * allocatable; nodeadm starts it in `nodeadm-run.service`, ordered `After=... cloud-final.service` "in order to pickup
 * changes the user may have applied via cloud-init scripts" (same
 * commit, templates/al2023/runtime/rootfs/etc/systemd/system/nodeadm-run.service:6). It only raises the count (a larger
 * reservation already made stays) and keeps it for later boots. When the kernel reserves less (memory too
 * fragmented), it writes the NodeConfig drop-in that registers the node tainted (`HUGEPAGES_TAINT`, naming both
 * counts) and fails loudly; the node still joins, so the shortfall is visible on the node, not only in its log.
 * Facts: tests/contracts/facts/eks-hugepages.json.
 */
export function hugepagesScript(pages: number): string {
  // The drop-in's text, with the counts left to the shell: an unquoted heredoc expands $got and $pages only (the
  // YAML holds no other `$`, backquote or backslash; tests/unit/hugepages-script.spec.ts runs it in bash).
  const dropIn = `---\n${stringify(hugepagesDropIn("$got", "$pages"))}`;
  return [
    "#!/bin/bash",
    "# dynamo-efa: reserve the 2 MiB hugepages the EFA workers request (resources hugepages-2Mi), before the kubelet starts",
    "set -euo pipefail",
    `pages=${pages}`,
    "current=$(cat /proc/sys/vm/nr_hugepages)",
    'if [ "$current" -lt "$pages" ]; then',
    `  echo "vm.nr_hugepages = $pages" > ${HUGEPAGES_SYSCTL_FILE}`,
    '  sysctl -q -w vm.nr_hugepages="$pages"',
    "fi",
    "got=$(cat /proc/sys/vm/nr_hugepages)",
    'if [ "$got" -lt "$pages" ]; then',
    `  echo "dynamo-efa: the kernel reserved only $got of $pages 2 MiB hugepages; the node registers tainted ${HUGEPAGES_TAINT.key}=${hugepagesTaintValue("$got", "$pages")}:${HUGEPAGES_TAINT.effect} and EFA workers will not schedule on it" >&2`,
    `  mkdir -p ${NODEADM_DROP_IN_DIR}`,
    `  cat > ${HUGEPAGES_DROP_IN} <<EOF`,
    dropIn.trimEnd(),
    "EOF",
    "  exit 1",
    "fi",
    "",
  ].join("\n");
}

/**
 * The user data of a GPU pool, as text; undefined when it needs no NVMe array, memlock limit or hugepages.
 * `hugepages2MiPerNode`: 2 MiB hugepages to reserve per node on an EFA pool, the pool's own count (`poolFacts`), which
 * the workers' `hugepages-2Mi` requests divide.
 */
export function gpuUserData(
  pool: { readonly localNvme: boolean; readonly efa: boolean },
  hugepages2MiPerNode: number,
): string | undefined {
  const huge = pool.efa && hugepages2MiPerNode > 0;
  if (!pool.localNvme && !pool.efa && !huge) return undefined;
  return mimeMultipart([
    { contentType: NODEADM.mediaType, body: `---\n${stringify(gpuNodeConfig(pool))}` },
    ...(huge ? [{ contentType: SHELL_SCRIPT_MEDIA_TYPE, body: hugepagesScript(hugepages2MiPerNode) }] : []),
  ]);
}
