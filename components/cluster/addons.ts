/**
 * In-cluster children of `EfaCluster`: the EBS CSI add-on and default StorageClass, the EFA and
 * NVIDIA device plugins, and the optional EFS file system and AWS Load Balancer Controller.
 * Every Kubernetes child gets `{ parent, provider }` (docs/CONTRIBUTING.md rule 11).
 */
import * as pulumi from "@pulumi/pulumi";
import * as aws from "@pulumi/aws";
import * as k8s from "@pulumi/kubernetes";
import { charts } from "../versions";
import { ResolvedClusterArgs } from "./args";
import {
  BLOCK_STORAGE_CLASS,
  blockStorageClass,
  ebsCsiPolicy,
  SHARED_STORAGE_CLASS,
  efaDevicePluginValues,
  efaDraDriverValues,
  efsCsiPolicy,
  gpuDraDriverValues,
  irsaTrustPolicy,
  loadBalancerControllerValues,
  nvidiaDevicePluginValues,
  sharedStorageClass,
} from "./render";
import { loadBalancerControllerPolicy } from "./lbc-policy";

/** What the in-cluster children need. */
export interface AddonContext {
  readonly name: string;
  readonly args: ResolvedClusterArgs;
  readonly clusterName: pulumi.Output<string>;
  readonly oidcProviderArn: pulumi.Output<string>;
  readonly oidcProviderUrl: pulumi.Output<string>;
  readonly clusterSecurityGroupId: pulumi.Output<string>;
  readonly provider: k8s.Provider;
  /** Node groups the in-cluster workloads need to schedule on. */
  readonly nodes: pulumi.Resource[];
  readonly parent: pulumi.Resource;
}

/** An IRSA role for `kube-system/<serviceAccount>` with one policy attached. */
function irsaRole(
  c: AddonContext,
  role: string,
  serviceAccount: string,
  policyArn: pulumi.Input<string>,
): aws.iam.Role {
  const r = new aws.iam.Role(
    `${c.name}-${role}`,
    {
      assumeRolePolicy: pulumi
        .all([c.oidcProviderArn, c.oidcProviderUrl])
        .apply(([arn, url]) => irsaTrustPolicy(arn, url, "kube-system", serviceAccount)),
      description: `IRSA role of kube-system/${serviceAccount}`,
      tags: { ...c.args.tags },
    },
    { parent: c.parent },
  );
  new aws.iam.RolePolicyAttachment(`${c.name}-${role}`, { role: r.name, policyArn }, { parent: c.parent });
  return r;
}

function managedAddon(
  c: AddonContext,
  role: string,
  addonName: string,
  version: string | undefined,
  roleArn: pulumi.Input<string>,
): aws.eks.Addon {
  return new aws.eks.Addon(
    `${c.name}-${role}`,
    {
      clusterName: c.clusterName,
      addonName,
      ...(version !== undefined ? { addonVersion: version } : {}),
      serviceAccountRoleArn: roleArn,
      resolveConflictsOnCreate: "OVERWRITE",
      resolveConflictsOnUpdate: "OVERWRITE",
      tags: { ...c.args.tags },
    },
    { parent: c.parent, dependsOn: c.nodes },
  );
}

/**
 * EBS CSI driver add-on (IRSA) and the default encrypted gp3 StorageClass: the class name, and the two resources a
 * class-less PersistentVolumeClaim needs before it can bind (the driver, the default class).
 */
export function blockStorage(c: AddonContext): { name: string; ready: pulumi.Resource[] } {
  const role = irsaRole(c, "ebs-csi", "ebs-csi-controller-sa", ebsCsiPolicy(c.args.partition));
  const addon = managedAddon(c, "ebs-csi", "aws-ebs-csi-driver", c.args.ebsCsiAddonVersion, role.arn);
  const spec: k8s.storage.v1.StorageClassArgs = blockStorageClass();
  const defaultClass = new k8s.storage.v1.StorageClass(`${c.name}-gp3`, spec, {
    parent: c.parent,
    provider: c.provider,
    dependsOn: [addon],
  });
  return { name: BLOCK_STORAGE_CLASS, ready: [addon, defaultClass] };
}

function release(
  c: AddonContext,
  role: string,
  chart: { readonly repo: string; readonly chart: string },
  version: string,
  values: pulumi.Input<Record<string, unknown>>,
): k8s.helm.v3.Release {
  return new k8s.helm.v3.Release(
    `${c.name}-${role}`,
    {
      // An OCI registry is named in the chart itself (helm.v3.Release: "oci://..."), a repository through repositoryOpts.
      ...(chart.repo.startsWith("oci://")
        ? { chart: `${chart.repo}/${chart.chart}` }
        : { chart: chart.chart, repositoryOpts: { repo: chart.repo } }),
      version,
      namespace: "kube-system",
      values,
      atomic: true,
      cleanupOnFail: true,
    },
    { parent: c.parent, provider: c.provider, dependsOn: c.nodes },
  );
}

/**
 * The DRA drivers that replace both device plugins under `deviceAllocation: dra`: NVIDIA's GPU DRA driver, and the
 * EFA DRA driver only when some pool has EFA. AWS's EKS guide: neither DRA driver may share a node with the
 * matching device plugin, so the cluster installs one pair or the other, never both.
 */
export function draDrivers(c: AddonContext, efaInstanceTypes: readonly string[]): k8s.helm.v3.Release[] {
  const gpu = release(c, "gpu-dra-driver", charts.gpuDraDriver, c.args.gpuDraDriverChartVersion, gpuDraDriverValues());
  if (efaInstanceTypes.length === 0) return [gpu];
  const efaValues = efaDraDriverValues(efaInstanceTypes);
  return [gpu, release(c, "efa-dra-driver", charts.efaDraDriver, c.args.efaDraDriverChartVersion, efaValues)];
}

/** The EFA device plugin (only when some pool has EFA) and the NVIDIA device plugin. */
export function devicePlugins(
  c: AddonContext,
  efaInstanceTypes: readonly string[],
): { efa?: k8s.helm.v3.Release; nvidia: k8s.helm.v3.Release } {
  const efa =
    efaInstanceTypes.length > 0
      ? release(
          c,
          "efa-device-plugin",
          charts.efaDevicePlugin,
          c.args.efaDevicePluginChartVersion,
          efaDevicePluginValues(efaInstanceTypes),
        )
      : undefined;
  const nvidia = release(
    c,
    "nvidia-device-plugin",
    charts.nvidiaDevicePlugin,
    c.args.nvidiaDevicePluginChartVersion,
    nvidiaDevicePluginValues(c.args.nvidiaDevicePluginChartVersion),
  );
  return { ...(efa ? { efa } : {}), nvidia };
}

/** EFS file system (encrypted, retained), one mount target per private subnet, EFS CSI add-on and StorageClass. */
export function sharedStorage(
  c: AddonContext,
  vpcId: pulumi.Input<string>,
  subnetIn: (az: string) => pulumi.Input<string>,
): { fileSystemId: pulumi.Output<string>; storageClassName: string } {
  const fs = new aws.efs.FileSystem(
    `${c.name}-efs`,
    {
      encrypted: true,
      throughputMode: "elastic",
      performanceMode: "generalPurpose",
      // The cluster's own name (unique per stack: pulumi-eks suffixes it), so one stack's clean-up finds only its cache.
      tags: { ...c.args.tags, Name: pulumi.interpolate`${c.clusterName}-model-cache` },
    },
    { parent: c.parent, retainOnDelete: true },
  );
  const sg = new aws.ec2.SecurityGroup(
    `${c.name}-efs`,
    {
      vpcId,
      description: "NFS from cluster nodes to the shared model cache",
      ingress: [
        {
          protocol: "tcp",
          fromPort: 2049,
          toPort: 2049,
          securityGroups: [c.clusterSecurityGroupId],
          description: "NFS from EKS nodes",
        },
      ],
      tags: { ...c.args.tags, Name: `${c.name}-efs` },
    },
    { parent: c.parent },
  );
  const targets = c.args.availabilityZones.map(
    (az) =>
      new aws.efs.MountTarget(
        `${c.name}-efs-${az}`,
        { fileSystemId: fs.id, subnetId: subnetIn(az), securityGroups: [sg.id] },
        { parent: c.parent },
      ),
  );
  const role = irsaRole(c, "efs-csi", "efs-csi-controller-sa", efsCsiPolicy(c.args.partition));
  const addon = managedAddon(c, "efs-csi", "aws-efs-csi-driver", undefined, role.arn);
  const spec: k8s.storage.v1.StorageClassArgs = sharedStorageClass(fs.id);
  new k8s.storage.v1.StorageClass(`${c.name}-efs`, spec, {
    parent: c.parent,
    provider: c.provider,
    dependsOn: [addon, ...targets],
  });
  return { fileSystemId: fs.id, storageClassName: SHARED_STORAGE_CLASS };
}

/** AWS Load Balancer Controller with its IRSA role and policy; `region` is the AWS provider's (checked). */
export function loadBalancerController(
  c: AddonContext,
  vpcId: pulumi.Output<string>,
  region: pulumi.Output<string>,
): k8s.helm.v3.Release {
  const sa = "aws-load-balancer-controller";
  const policy = new aws.iam.Policy(
    `${c.name}-lbc`,
    {
      description: "AWS Load Balancer Controller",
      policy: loadBalancerControllerPolicy(c.args.partition.id),
      tags: { ...c.args.tags },
    },
    { parent: c.parent },
  );
  const role = irsaRole(c, "lbc", sa, policy.arn);
  const values = pulumi
    .all([c.clusterName, vpcId, role.arn, region])
    .apply(([clusterName, vpc, roleArn, providerRegion]) =>
      loadBalancerControllerValues({ clusterName, region: providerRegion, vpcId: vpc, roleArn, serviceAccount: sa }),
    );
  return release(c, "lbc", charts.awsLoadBalancerController, c.args.loadBalancerControllerChartVersion, values);
}
