/**
 * Pure renderers of `EfaCluster`: Helm values, StorageClass specs and IAM policy documents, as plain
 * objects. No Pulumi import; Output values are passed in already resolved.
 */
import { GPU_TAINT, POOL_LABEL } from "../catalog/pool";
import { EFA_LABEL } from "./derive";
import { EFA_DEVICE_CLASS } from "../_shared/dra";
import { AwsPartition, managedPolicyArn } from "./partition";

/** A parsed `[v]MAJOR.MINOR.PATCH[-suffix]` version. */
export type Version = readonly [number, number, number];

/** Parses `0.19.3`, `v0.5.30` or `v1.20.4-eksbuild.1`; undefined when it is not such a version. */
export function parseVersion(v: string): Version | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+)?$/.exec(v);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

/** Negative, zero or positive as `a` is older than, equal to or newer than `b`. */
export function compareVersions(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** Toleration of the GPU taint, in Kubernetes form. */
export function gpuToleration(): { key: string; operator: "Exists"; effect: string } {
  return { key: GPU_TAINT.key, operator: "Exists", effect: GPU_TAINT.effect };
}

/** Pod affinity that requires a GPU pool node (any node carrying the pool label), in Kubernetes form. */
export function gpuPoolAffinity(): Record<string, unknown> {
  return {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: POOL_LABEL, operator: "Exists" }] }],
      },
    },
  };
}

/**
 * Values of `aws-efa-k8s-device-plugin`: tolerate the GPU taint, run only on EFA nodes (our
 * `dynamo-efa/efa` label), and replace the chart's instance-type allow-list with the pools' types so a
 * type newer than the chart (p6-b300 in older charts) is never silently skipped.
 */
export function efaDevicePluginValues(efaInstanceTypes: readonly string[]): Record<string, unknown> {
  return {
    tolerations: [gpuToleration()],
    nodeSelector: { [EFA_LABEL]: "true" },
    supportedInstanceLabels: {
      keys: ["node.kubernetes.io/instance-type"],
      values: [...new Set(efaInstanceTypes)].sort(),
    },
  };
}

/** First `nvidia-device-plugin` chart with the `mofedEnabled` value (and the MOFED-on default until 0.19.3). */
const MOFED_FIRST: Version = [0, 19, 0];

/**
 * Values of `nvidia-device-plugin`: tolerate the GPU taint, run on GPU pool nodes (the chart's
 * default affinity needs NFD labels these nodes do not have), and keep MOFED mode off: v0.19.0-0.19.2
 * turned it on by default and it takes `/dev/infiniband/uverbs*`, the EFA plugin's devices
 * (NVIDIA/k8s-device-plugin#1692). Set explicitly for every chart that knows the value.
 */
export function nvidiaDevicePluginValues(chartVersion: string): Record<string, unknown> {
  const v = parseVersion(chartVersion);
  const knowsMofed = v !== undefined && compareVersions(v, MOFED_FIRST) >= 0;
  return {
    tolerations: [gpuToleration()],
    affinity: gpuPoolAffinity(),
    ...(knowsMofed ? { mofedEnabled: false } : {}),
  };
}

/**
 * Values of `aws-dranet` (the EFA DRA driver, `deviceAllocation: dra`): like the EFA device plugin's, tolerate the GPU
 * taint, run only on EFA nodes and list the pools' types; and create the DeviceClass the workers' claims name.
 */
export function efaDraDriverValues(efaInstanceTypes: readonly string[]): Record<string, unknown> {
  return {
    tolerations: [gpuToleration()],
    nodeSelector: { [EFA_LABEL]: "true" },
    supportedInstanceLabels: {
      keys: ["node.kubernetes.io/instance-type"],
      values: [...new Set(efaInstanceTypes)].sort(),
    },
    deviceClass: { create: true, name: EFA_DEVICE_CLASS },
  };
}

/**
 * Values of `dra-driver-nvidia-gpu` (`deviceAllocation: dra`). GPUs only: ComputeDomains serve multi-node NVLink
 * (GB200/GB300), which no pool here has, and with them off the chart deploys no controller. The chart refuses to
 * install GPU allocation unless told the NVIDIA device plugin is not on the same nodes (`gpuResourcesEnabledOverride`):
 * under `dra` the cluster installs no device plugin at all. The kubelet plugin's default affinity wants NFD's labels
 * or `nvidia.com/gpu.present`, which nodeadm sets only from Kubernetes 1.35 on (amazon-eks-ami@81fec2e
 * nodeadm/internal/kubelet/config.go), so it runs on the GPU pools by our pool label instead, tolerating their taint.
 */
export function gpuDraDriverValues(): Record<string, unknown> {
  return {
    gpuResourcesEnabledOverride: true,
    resources: { gpus: { enabled: true }, computeDomains: { enabled: false } },
    kubeletPlugin: { tolerations: [gpuToleration()], affinity: gpuPoolAffinity() },
  };
}

/** Values of the AWS Load Balancer Controller (IRSA; region and VPC given so it never needs IMDS). */
export function loadBalancerControllerValues(o: {
  clusterName: string;
  region: string;
  vpcId: string;
  roleArn: string;
  serviceAccount: string;
}): Record<string, unknown> {
  return {
    clusterName: o.clusterName,
    region: o.region,
    vpcId: o.vpcId,
    serviceAccount: { create: true, name: o.serviceAccount, annotations: { "eks.amazonaws.com/role-arn": o.roleArn } },
  };
}

/** Name of the default block StorageClass. */
export const BLOCK_STORAGE_CLASS = "gp3-encrypted";
/** Name of the shared (ReadWriteMany) StorageClass, when EFS is on. */
export const SHARED_STORAGE_CLASS = "efs-shared";

/** A StorageClass as plain data (`T` is the type of values that may be Outputs, e.g. an EFS id). */
export interface StorageClassSpec<T = string> {
  readonly metadata: { readonly name: string; readonly annotations?: Readonly<Record<string, string>> };
  readonly provisioner: string;
  readonly parameters: Readonly<Record<string, string | T>>;
  readonly reclaimPolicy: "Retain" | "Delete";
  readonly volumeBindingMode: "WaitForFirstConsumer" | "Immediate";
  readonly allowVolumeExpansion?: boolean;
}

/** The default StorageClass: encrypted gp3 EBS, retained on claim deletion, bound where the pod lands. */
export function blockStorageClass(): StorageClassSpec {
  return {
    metadata: { name: BLOCK_STORAGE_CLASS, annotations: { "storageclass.kubernetes.io/is-default-class": "true" } },
    provisioner: "ebs.csi.aws.com",
    parameters: { type: "gp3", encrypted: "true", "csi.storage.k8s.io/fstype": "ext4" },
    reclaimPolicy: "Retain",
    volumeBindingMode: "WaitForFirstConsumer",
    allowVolumeExpansion: true,
  };
}

/** The EFS StorageClass (dynamic access points on one file system). */
export function sharedStorageClass<T>(fileSystemId: T): StorageClassSpec<T> {
  return {
    metadata: { name: SHARED_STORAGE_CLASS },
    provisioner: "efs.csi.aws.com",
    parameters: { provisioningMode: "efs-ap", fileSystemId, directoryPerms: "700", basePath: "/dynamo" },
    reclaimPolicy: "Retain",
    volumeBindingMode: "Immediate",
  };
}

/** Trust policy letting EC2 instances assume the node role (`ec2.amazonaws.com.cn` in aws-cn). */
export function ec2TrustPolicy(partition: AwsPartition): string {
  return JSON.stringify({
    Version: "2012-10-17",
    Statement: [{ Effect: "Allow", Principal: { Service: `ec2.${partition.dnsSuffix}` }, Action: "sts:AssumeRole" }],
  });
}

/** IRSA trust policy: only `namespace/serviceAccount` of this cluster's OIDC issuer may assume the role. */
export function irsaTrustPolicy(
  oidcProviderArn: string,
  oidcProviderUrl: string,
  namespace: string,
  serviceAccount: string,
): string {
  const issuer = oidcProviderUrl.replace(/^https:\/\//, "");
  return JSON.stringify({
    Version: "2012-10-17",
    Statement: [
      {
        Effect: "Allow",
        Principal: { Federated: oidcProviderArn },
        Action: "sts:AssumeRoleWithWebIdentity",
        Condition: {
          StringEquals: {
            [`${issuer}:sub`]: `system:serviceaccount:${namespace}:${serviceAccount}`,
            [`${issuer}:aud`]: "sts.amazonaws.com",
          },
        },
      },
    ],
  });
}

/** AWS managed policies of the GPU and system node role, in `partition`. */
export function nodePolicies(partition: AwsPartition): Readonly<Record<string, string>> {
  return {
    worker: managedPolicyArn(partition, "AmazonEKSWorkerNodePolicy"),
    cni: managedPolicyArn(partition, "AmazonEKS_CNI_Policy"),
    ecr: managedPolicyArn(partition, "AmazonEC2ContainerRegistryReadOnly"),
  };
}
/** AWS managed policy of the EBS CSI driver, in `partition`. */
export const ebsCsiPolicy = (partition: AwsPartition) =>
  managedPolicyArn(partition, "service-role/AmazonEBSCSIDriverPolicy");
/** AWS managed policy of the EFS CSI driver, in `partition`. */
export const efsCsiPolicy = (partition: AwsPartition) =>
  managedPolicyArn(partition, "service-role/AmazonEFSCSIDriverPolicy");
/** EKS access policy granted to `adminPrincipalArns`, in `partition`. */
export const clusterAdminAccessPolicy = (partition: AwsPartition) =>
  `arn:${partition.id}:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy`;

/**
 * EKS access entries: cluster-wide admin (`clusterAdminAccessPolicy`) for each principal, by the user's key.
 * Generic in the ARN so a Pulumi `Input<string>` passes through without this file importing Pulumi.
 */
export function clusterAccessEntries<Arn>(
  adminPrincipalArns: Readonly<Record<string, Arn>>,
  partition: AwsPartition,
): Record<string, ClusterAccessEntry<Arn>> {
  const admin = { policyArn: clusterAdminAccessPolicy(partition), accessScope: { type: "cluster" } } as const;
  return Object.fromEntries(
    Object.entries(adminPrincipalArns).map(([key, principalArn]) => [key, { principalArn, accessPolicies: { admin } }]),
  );
}

/** One access entry of `clusterAccessEntries`. */
export interface ClusterAccessEntry<Arn> {
  readonly principalArn: Arn;
  readonly accessPolicies: {
    readonly admin: { readonly policyArn: string; readonly accessScope: { readonly type: "cluster" } };
  };
}
