/**
 * User data of a GPU node group: an AL2023 `nodeadm` NodeConfig in a MIME multipart document, asking nodeadm to
 * turn the instance-store NVMe disks into one RAID0 array. Pure; no Pulumi import.
 *
 * Facts (awslabs/amazon-eks-ami@81fec2e895854f599974fe4d3d72f61c0a9aaffa, held by
 * `tests/contracts/nodeadm-user-data.spec.ts` against facts/nodeadm-nodeconfig.json): nodeadm reads every part of
 * media type `application/node.eks.aws` and merges them in order; `spec.instance.localStorage.strategy` is one of
 * RAID0 | RAID10 | Mount; `setup-local-disks raid0` builds `/dev/md/kubernetes`, formats it XFS, mounts it at
 * `/mnt/k8s-disks/0` and bind-mounts /var/lib/kubelet, /var/lib/containerd, /var/lib/soci-snapshotter-grpc and
 * /var/log/pods onto it (so images and emptyDirs also live on the array).
 *
 * The rest of the NodeConfig the AMI needs (cluster name, API endpoint, CA, service CIDR) is NOT repeated here:
 * for a managed node group on an EKS AMI type with no image id in the launch template, EKS appends its own
 * NodeConfig part with those fields to this user data, and nodeadm merges the two.
 */
import { stringify } from "yaml";

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

/** A NodeConfig object (only the fields this package sets). */
export interface NodeConfig {
  readonly apiVersion: typeof NODEADM.apiVersion;
  readonly kind: typeof NODEADM.kind;
  readonly spec: { readonly instance: { readonly localStorage: { readonly strategy: LocalStorageStrategy } } };
}

/** The NodeConfig of a GPU node whose instance-store NVMe becomes one RAID0 array at `NODEADM.raidMountPoint`. */
export function localNvmeNodeConfig(): NodeConfig {
  return {
    apiVersion: NODEADM.apiVersion,
    kind: NODEADM.kind,
    spec: { instance: { localStorage: { strategy: LocalStorageStrategy.Raid0 } } },
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

/** The user data of a GPU pool, as text; undefined when the pool keeps its instance store unused. */
export function gpuUserData(pool: { readonly localNvme: boolean }): string | undefined {
  if (!pool.localNvme) return undefined;
  return mimeMultipart([{ contentType: NODEADM.mediaType, body: `---\n${stringify(localNvmeNodeConfig())}` }]);
}
