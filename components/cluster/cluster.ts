/**
 * `EfaCluster`: EKS with EFA GPU node pools derived from the instance catalog (no EFA count or
 * interface typed by hand), device plugins, storage and optional ingress. Thin class: validation,
 * derivations and rendering live in `validate.ts`, `derive.ts` and `render.ts`.
 */
import * as pulumi from "@pulumi/pulumi";
import * as aws from "@pulumi/aws";
import * as eks from "@pulumi/eks";
import * as k8s from "@pulumi/kubernetes";
import { GpuPoolFacts } from "../catalog/pool";
import { assertValid } from "../_shared/pulumi-errors";
import { EfaClusterArgs, resolveArgs, ResolvedClusterArgs } from "./args";
import { efaInstanceTypes, gpuPoolsFacts } from "./derive";
import { validate } from "./validate";
import { clusterNetwork, ClusterNetwork } from "./network";
import { efaSecurityGroup, nodeRole, PoolContext, systemNodeGroup } from "./nodes";
import { EfaGpuPool } from "./gpu-pool";
import { poolMovedFromCluster } from "./moved";
import { AddonContext, blockStorage, devicePlugins, draDrivers, loadBalancerController, sharedStorage } from "./addons";
import { DeviceAllocation } from "./args";
import { clusterAccessEntries } from "./render";
import { providerRegionMismatch } from "./partition";

/** Pulumi type token. */
export const EFA_CLUSTER_TYPE = "dynamo-efa:cluster:EfaCluster";

/** Storage classes the cluster provides. */
export interface ClusterStorageClassNames {
  /** Default class: encrypted gp3 EBS (ReadWriteOnce). */
  readonly block: string;
  /** EFS class (ReadWriteMany) for a shared model cache; undefined unless `efs` is on. */
  readonly shared?: string;
}

/**
 * An EKS cluster with EFA GPU node pools for disaggregated serving: a VPC (or your `existingVpc`), the EKS control
 * plane (API auth, KMS envelope encryption, control-plane logs, a private endpoint unless `publicAccessCidrs`), a
 * CPU system node group, and one managed node group per GPU pool whose launch template carries the EFA interfaces,
 * security group, placement group and capacity reservation derived from the instance catalog (no EFA count or
 * interface typed by hand). Then the gp3 StorageClass, the NVIDIA and EFA device plugins (or under `deviceAllocation: dra`
 * their DRA drivers), and optionally an EFS
 * model cache and the AWS Load Balancer Controller. The args are resolved, validated and every problem reported
 * in one error that names each argument path before any child is created. `gpuPools` exposes each pool's plain
 * facts for `DisaggInference`.
 *
 * @example
 * const cluster = new EfaCluster("dynamo", {
 *   gpuPools: { gpu: { instanceType: "p5en.48xlarge", nodes: 2, availabilityZone: "us-east-2b" } },
 *   availabilityZones: ["us-east-2a", "us-east-2b"],
 *   publicAccessCidrs: ["203.0.113.0/24"],
 * });
 * // cluster.gpuPools.gpu: { instanceType: "p5en.48xlarge", gpusPerNode: 8, efaPerNode: 16, ... }
 * // cluster.k8sProvider: pass it in the resource options of every in-cluster component:
 * // new DynamoPlatform("dynamo", {}, { providers: { kubernetes: cluster.k8sProvider } })
 */
export class EfaCluster extends pulumi.ComponentResource {
  /** Kubeconfig (JSON) of the cluster; a secret. */
  public readonly kubeconfig: pulumi.Output<string>;
  /** Kubernetes provider bound to this cluster; pass it to every in-cluster component. */
  public readonly k8sProvider: k8s.Provider;
  /** EKS cluster name. */
  public readonly clusterName: pulumi.Output<string>;
  /** ARN of the cluster's IAM OIDC provider (for IRSA roles). */
  public readonly oidcProviderArn: pulumi.Output<string>;
  /** URL of the cluster's IAM OIDC provider (issuer, without `https://`). */
  public readonly oidcProviderUrl: pulumi.Output<string>;
  /** EKS-created cluster security group, attached to every node interface. */
  public readonly clusterSecurityGroupId: pulumi.Output<string>;
  /** EFA security group; undefined when no pool has EFA. */
  public readonly efaSecurityGroupId: pulumi.Output<string> | undefined;
  /** Every security group on GPU nodes (cluster SG, plus the EFA SG when any pool has EFA). */
  public readonly nodeSecurityGroupIds: pulumi.Output<string[]>;
  /** StorageClass names. */
  public readonly storageClassNames: ClusterStorageClassNames;
  /** EFS file system id of the shared model cache; undefined unless `efs` is on. */
  public readonly efsFileSystemId: pulumi.Output<string> | undefined;
  /** Facts of every GPU pool, as plain data known before any resource exists. */
  public readonly gpuPools: Record<string, GpuPoolFacts>;
  /** Name of each pool's managed node group, by pool name. */
  public readonly nodeGroupNames: Record<string, pulumi.Output<string>>;
  /** VPC id. */
  public readonly vpcId: pulumi.Output<string>;
  /** Private subnet ids (one per AZ). */
  public readonly privateSubnetIds: pulumi.Output<string[]>;
  /** The private subnet of each AZ, by AZ name (a pool another stack adds takes the one of its AZ). */
  public readonly privateSubnetIdsByAz: pulumi.Output<Record<string, string>>;
  /** ARN of the IAM role every node runs as (a pool another stack adds runs as it too). */
  public readonly nodeRoleArn: pulumi.Output<string>;
  /**
   * AWS region of the cluster: that of the AWS provider the component resolves (its `providers.aws`/`provider`
   * option, its parent's, or the default provider from `aws:region`), checked to be the AZs' region.
   */
  public readonly region: pulumi.Output<string>;
  /**
   * What an in-cluster release needs before its pods can schedule and its volumes bind: the system node group, the
   * EBS CSI add-on and the default StorageClass. Pass it as `dependsOn` to `DynamoPlatform` and
   * `DynamoObservability` (their install hooks and PVCs otherwise race the nodes on the first `up`).
   */
  public readonly workloadPrerequisites: readonly pulumi.Resource[];

  constructor(name: string, args: EfaClusterArgs, opts?: pulumi.ComponentResourceOptions) {
    super(EFA_CLUSTER_TYPE, name, {}, opts);
    // No stack config is read here: the AZs (or `region`) are checked among themselves with plain values before
    // any child, and the AWS provider's region, known once its invoke answers, must then be the same.
    const a = resolveArgs(args); // never throws; the one validation below reports what is wrong
    assertValid("EfaCluster", validate(a)); // fail fast, before any child
    this.gpuPools = gpuPoolsFacts(a.pools, a.deviceAllocation);
    this.region = this.providerRegion(name, a);

    const net = clusterNetwork(name, a, this);
    const cluster = this.eksCluster(name, a, net);
    this.vpcId = net.vpcId;
    this.privateSubnetIds = net.privateSubnetIds;
    this.privateSubnetIdsByAz = pulumi
      .all(a.availabilityZones.map((az) => net.privateSubnetIn(az)))
      .apply((ids) => Object.fromEntries(a.availabilityZones.map((az, i) => [az, ids[i]])));
    this.clusterName = cluster.eksCluster.apply((c) => c.name);
    this.clusterSecurityGroupId = cluster.eksCluster.apply((c) => c.vpcConfig.clusterSecurityGroupId);
    this.oidcProviderArn = cluster.oidcProviderArn;
    this.oidcProviderUrl = cluster.oidcProviderUrl.apply((u) => u.replace(/^https:\/\//, ""));
    this.kubeconfig = pulumi.secret(cluster.kubeconfigJson);
    this.k8sProvider = new k8s.Provider(
      `${name}-k8s`,
      { kubeconfig: this.kubeconfig, enableServerSideApply: true },
      { parent: this },
    );

    const nodes = this.nodeGroups(name, a, net);
    this.efaSecurityGroupId = nodes.efaSecurityGroupId;
    this.nodeSecurityGroupIds = pulumi.all([
      this.clusterSecurityGroupId,
      ...(nodes.efaSecurityGroupId ? [nodes.efaSecurityGroupId] : []),
    ]);
    this.nodeGroupNames = nodes.nodeGroupNames;
    this.nodeRoleArn = nodes.nodeRoleArn;
    const storage = this.addons(name, a, net, nodes.system);
    this.efsFileSystemId = storage.efsFileSystemId;
    this.storageClassNames = storage.storageClassNames;
    this.workloadPrerequisites = [nodes.system, ...storage.blockReady];

    this.registerOutputs({
      kubeconfig: this.kubeconfig,
      k8sProvider: this.k8sProvider,
      clusterName: this.clusterName,
      oidcProviderArn: this.oidcProviderArn,
      oidcProviderUrl: this.oidcProviderUrl,
      clusterSecurityGroupId: this.clusterSecurityGroupId,
      efaSecurityGroupId: this.efaSecurityGroupId,
      nodeSecurityGroupIds: this.nodeSecurityGroupIds,
      storageClassNames: this.storageClassNames,
      efsFileSystemId: this.efsFileSystemId,
      gpuPools: this.gpuPools,
      nodeGroupNames: this.nodeGroupNames,
      vpcId: this.vpcId,
      privateSubnetIds: this.privateSubnetIds,
      privateSubnetIdsByAz: this.privateSubnetIdsByAz,
      nodeRoleArn: this.nodeRoleArn,
      region: this.region,
    });
  }

  /**
   * The region of the AWS provider this component resolves, failing the run when it is not the cluster's region
   * (the AZs' or `region`). Partition-bearing ARNs stay plain: the partition follows from the region name, and the
   * check makes the provider's region the one they were derived from.
   */
  private providerRegion(name: string, a: ResolvedClusterArgs): pulumi.Output<string> {
    // `parent: this` makes the invoke use the component's AWS provider (@pulumi/pulumi 3.248.0 runtime/invoke.js
    // getProvider: `opts.provider`, else `opts.parent.getProvider(tok)`), as every child does.
    const region = aws.getRegionOutput({}, { parent: this }).region;
    // The check is an apply of its own that no input reads: an error inside an input's Output is rewritten on the
    // way out ("error serializing property ...", runtime/rpc.js serializeProperties), while this one reaches the
    // CLI as the unhandled rejection it is: a RunError is printed as its message alone, without a stack
    // (cmd/run/run.js uncaughtHandler: "Always hide the stack for RunErrors"), and the run fails (cmd/run/index.js
    // exits 32, "logged a user-actionable message", whenever an uncaught error was seen).
    region.apply((r) => {
      const wrong = providerRegionMismatch(name, { region: a.region, regionGiven: a.source.regionGiven }, r);
      if (wrong) throw new pulumi.RunError(wrong);
    });
    return region;
  }

  /** The EFA security group (when a pool has EFA), the node role, the system node group and one group per GPU pool. */
  private nodeGroups(name: string, a: ResolvedClusterArgs, net: ClusterNetwork) {
    const anyEfa = efaInstanceTypes(a).length > 0;
    const efaSg = anyEfa ? efaSecurityGroup(name, net.vpcId, { ...a.tags }, this) : undefined;
    const role = nodeRole(name, a.partition, { ...a.tags }, this);
    const ctx: PoolContext = {
      name,
      args: a,
      clusterName: this.clusterName,
      clusterSecurityGroupId: this.clusterSecurityGroupId,
      nodeRole: role,
      subnetIds: net.privateSubnetIds,
      parent: this,
    };
    const system = systemNodeGroup(ctx);
    // Each pool is an `EfaGpuPool` on this cluster, the component a stack that only adds a model uses too.
    const pools = a.pools.map(
      (p) =>
        new EfaGpuPool(
          `${name}-gpu-${p.name}`,
          {
            poolName: p.name,
            pool: p,
            clusterName: this.clusterName,
            kubernetesVersion: a.kubernetesVersion,
            nodeRoleArn: role.role.arn,
            subnetIds: p.availabilityZone ? [net.privateSubnetIn(p.availabilityZone)] : net.privateSubnetIds,
            clusterSecurityGroupId: this.clusterSecurityGroupId,
            ...(efaSg ? { efaSecurityGroupId: efaSg.id } : {}),
            podImdsAccess: a.imdsHopLimit === 2,
            deviceAllocation: a.deviceAllocation,
            tags: a.tags,
            // The GPU nodes wait for what the caller names (the image build): billed from launch, they join when it exists.
            nodeGroupDependsOn: [...role.attachments, ...a.gpuNodesDependOn],
          },
          { parent: this, transformations: [poolMovedFromCluster(this, name, p.name)] },
        ),
    );
    return {
      efaSecurityGroupId: efaSg?.id,
      nodeRoleArn: role.role.arn,
      system,
      nodeGroupNames: Object.fromEntries(a.pools.map((p, i) => [p.name, pools[i].nodeGroupName])),
    };
  }

  /** Storage classes, device plugins, the optional EFS cache and load balancer controller (after the system nodes). */
  private addons(name: string, a: ResolvedClusterArgs, net: ClusterNetwork, system: pulumi.Resource) {
    const addonCtx: AddonContext = {
      name,
      args: a,
      clusterName: this.clusterName,
      oidcProviderArn: this.oidcProviderArn,
      oidcProviderUrl: this.oidcProviderUrl,
      clusterSecurityGroupId: this.clusterSecurityGroupId,
      provider: this.k8sProvider,
      nodes: [system],
      parent: this,
    };
    const block = blockStorage(addonCtx);
    const efaTypes = efaInstanceTypes(a);
    if (a.deviceAllocation === DeviceAllocation.Dra) draDrivers(addonCtx, efaTypes);
    else devicePlugins(addonCtx, efaTypes);
    const shared = a.efs ? sharedStorage(addonCtx, net.vpcId, net.privateSubnetIn) : undefined;
    if (a.loadBalancerController) loadBalancerController(addonCtx, net.vpcId, this.region);
    const storageClassNames: ClusterStorageClassNames = {
      block: block.name,
      ...(shared ? { shared: shared.storageClassName } : {}),
    };
    return { efsFileSystemId: shared?.fileSystemId, storageClassNames, blockReady: block.ready };
  }

  /** The EKS control plane (remote component): API auth, logging, KMS envelope encryption, restricted endpoint. */
  private eksCluster(name: string, a: ResolvedClusterArgs, net: ClusterNetwork): eks.Cluster {
    const kmsKeyArn =
      a.secretsKmsKeyArn ??
      new aws.kms.Key(
        `${name}-secrets`,
        {
          description: `${name}: EKS secrets envelope encryption`,
          enableKeyRotation: true,
          deletionWindowInDays: 30,
          tags: { ...a.tags },
        },
        { parent: this },
      ).arn;
    const publicEndpoint = a.publicAccessCidrs.length > 0;
    return new eks.Cluster(
      `${name}-eks`,
      {
        vpcId: net.vpcId,
        privateSubnetIds: net.privateSubnetIds,
        ...(a.existingVpc?.publicSubnetIds || !a.existingVpc ? { publicSubnetIds: net.publicSubnetIds } : {}),
        version: a.kubernetesVersion,
        authenticationMode: eks.AuthenticationMode.Api,
        accessEntries: clusterAccessEntries(a.adminPrincipalArns, a.partition),
        enabledClusterLogTypes: [...a.clusterLogTypes],
        encryptionConfigKeyArn: kmsKeyArn,
        endpointPrivateAccess: true,
        endpointPublicAccess: publicEndpoint,
        ...(publicEndpoint ? { publicAccessCidrs: [...a.publicAccessCidrs] } : {}),
        skipDefaultNodeGroup: true,
        skipDefaultSecurityGroups: true,
        nodeAssociatePublicIpAddress: false,
        createOidcProvider: true,
        // Managed VPC CNI add-on; EKS's default for every supported Kubernetes version supports efa-only.
        useDefaultVpcCni: false,
        // The network policy agent: without it the graph's NetworkPolicies are accepted and enforce nothing
        // (https://docs.aws.amazon.com/eks/latest/userguide/cni-network-policy-configure.html; pulumi-eks writes the
        // add-on's `enableNetworkPolicy: "true"` configuration value from it).
        vpcCniOptions: {
          enableNetworkPolicy: true,
          ...(a.vpcCniAddonVersion !== undefined ? { addonVersion: a.vpcCniAddonVersion } : {}),
        },
        tags: { ...a.tags },
      },
      { parent: this },
    );
  }
}
