/**
 * EfaCluster under the render's mocks, captured with its engine (`tests/helpers/capture.ts`): what it registers
 * (launch templates, node groups, add-ons), how it is wired, and the region it takes from its AWS provider.
 */
import { strict as assert } from "assert";
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import { Captured, captureComponents, one, ofType } from "../helpers/capture";
import { isSecret, promiseOf } from "../helpers/outputs";
import { mockId, mockOutputs } from "../../tools/render/capture/mocks";
import { EfaCluster, EfaClusterArgs } from "../../components/cluster";
import type { InterfaceSlot } from "../../components/cluster/derive";
import { charts } from "../../components/versions";

/** The load balancer controller's Helm values of release `n` in capture `c`. */
const lbcValues = (c: Captured<unknown>, n: string) =>
  one(c.resources, "kubernetes:helm.sh/v3:Release", n).inputs.values;
/** One launch-template network interface, as the tests read it. */
type Nic = InterfaceSlot & { readonly securityGroups: string[]; readonly subnetId?: string };
const CR = "cr-0123456789abcdef0";
const full: EfaClusterArgs = {
  availabilityZones: ["us-east-2a", "us-east-2b", "us-east-2c"],
  publicAccessCidrs: ["203.0.113.0/24"],
  adminPrincipalArns: { ops: "arn:aws:iam::123456789012:role/ops" },
  efs: true,
  loadBalancerController: true,
  tags: { project: "dynamo-efa" },
  gpuPools: {
    prefill: { instanceType: "p5en.48xlarge", nodes: 2, availabilityZone: "us-east-2b" },
    decode: {
      instanceType: "p5.48xlarge",
      nodes: 1,
      availabilityZone: "us-east-2c",
      capacity: "capacity-block",
      capacityReservationId: CR,
    },
    dev: { instanceType: "g6e.12xlarge", nodes: 1 },
  },
};

describe("cluster: EfaCluster under mocks", function () {
  let cap: Captured<{ c: EfaCluster; small: EfaCluster }>;
  let c: EfaCluster;
  let small: EfaCluster;
  /** Values the component computed, read once: the EKS cluster SG, the EFA SG, the private subnets in AZ order. */
  let clusterSg: string;
  let efaSg: string;
  let subnets: string[];

  before(async function () {
    this.timeout(30000);
    cap = await captureComponents(() => {
      // The existing VPC is in us-west-2, so that cluster gets an AWS provider for us-west-2 (the default is us-east-2).
      const usw2 = new aws.Provider("usw2", { region: "us-west-2" });
      return {
        c: new EfaCluster("t", full),
        small: new EfaCluster(
          "s",
          {
            deployFromInsideVpc: true,
            existingVpc: { vpcId: "vpc-own", privateSubnetIds: { "us-west-2b": "subnet-b", "us-west-2a": "subnet-a" } },
            gpuPools: { dev: { instanceType: "g6e.48xlarge", nodes: 1 } },
          },
          { providers: { aws: usw2 } },
        ),
      };
    });
    ({ c, small } = cap.result);
    [clusterSg, efaSg, subnets] = await Promise.all([
      promiseOf(c.clusterSecurityGroupId),
      promiseOf(c.efaSecurityGroupId!),
      promiseOf(c.privateSubnetIds),
    ]);
  });

  const eksInputs = (n: string) => one(cap.resources, "eks:index:Cluster", n).inputs;
  /** The ARN the mocks give the IAM role `n` (what an IRSA consumer must be handed). */
  const roleArn = (n: string) =>
    mockOutputs("aws:iam/role:Role", n, one(cap.resources, "aws:iam/role:Role", n).inputs, "us-east-2").arn;

  /** The provider reference (`<urn>::<id>`) a child of `c` gets for `p`. */
  const refOf = async (p: pulumi.ProviderResource) => `${await promiseOf(p.urn)}::${await promiseOf(p.id)}`;

  it("every child is parented to its EfaCluster; every Kubernetes child uses the cluster's provider", async () => {
    const self = one(cap.resources, "dynamo-efa:cluster:EfaCluster", "t");
    const children = cap.resources.filter((x) => x.name.startsWith("t-"));
    // A GPU pool's own children are its EfaGpuPool's (tests/component/gpu-pool.spec.ts); the pools are the cluster's.
    const pools = children.filter((x) => x.type === "dynamo-efa:cluster:EfaGpuPool");
    assert.deepEqual(pools.map((x) => x.name).sort(), ["t-gpu-decode", "t-gpu-dev", "t-gpu-prefill"]);
    for (const x of children) {
      const parent = pools.some((p) => x.name.startsWith(`${p.name}-`))
        ? pools.find((p) => x.name.startsWith(`${p.name}-`))!.urn
        : self.urn;
      assert.equal(x.parent, parent, `${x.type} ${x.name} has another parent`);
    }
    const k8sChildren = children.filter((x) => x.type.startsWith("kubernetes:"));
    assert.deepEqual(k8sChildren.map((x) => x.name).sort(), [
      "t-efa-device-plugin",
      "t-efs",
      "t-gp3",
      "t-lbc",
      "t-nvidia-device-plugin",
    ]);
    const k8s = await refOf(c.k8sProvider);
    for (const x of k8sChildren) assert.equal(x.provider, k8s, x.name);
    const attachments = ofType(cap.resources, "aws:iam/rolePolicyAttachment:RolePolicyAttachment")
      .filter((r) => r.name.startsWith("t-node-"))
      .map((r) => r.urn);
    assert.deepEqual(
      one(cap.resources, "aws:eks/nodeGroup:NodeGroup", "t-gpu-prefill-ng").explicitDependsOn,
      attachments.sort(),
      "node group waits for the node role's policy attachments",
    );
    assert.equal(attachments.length, 3);
  });

  const lt = (pool: string) => one(cap.resources, "aws:ec2/launchTemplate:LaunchTemplate", `t-gpu-${pool}-lt`).inputs;
  const ng = (pool: string) => one(cap.resources, "aws:eks/nodeGroup:NodeGroup", `t-gpu-${pool}-ng`).inputs;

  it("p5en launch template: 17 interfaces, ENA at 0/0 then 16 efa-only, both SGs on each, no SubnetId", () => {
    const nics = lt("prefill").networkInterfaces as Nic[];
    assert.equal(nics.length, 17);
    assert.deepEqual([nics[0].networkCardIndex, nics[0].deviceIndex, nics[0].interfaceType], [0, 0, "interface"]);
    assert.deepEqual([nics[1].networkCardIndex, nics[1].deviceIndex, nics[1].interfaceType], [0, 1, "efa-only"]);
    assert.equal(nics.filter((n) => n.interfaceType === "efa-only").length, 16);
    for (const n of nics) {
      assert.deepEqual(n.securityGroups, [clusterSg, efaSg]);
      assert.equal(n.subnetId, undefined);
    }
    assert.equal(lt("prefill").vpcSecurityGroupIds, undefined);
  });

  it("p5 launch template: 33 interfaces, 32 EFA", () => {
    const nics = lt("decode").networkInterfaces as Nic[];
    assert.deepEqual([nics.length, nics.filter((n) => n.interfaceType === "efa-only").length], [33, 32]);
  });

  it("launch templates: IMDSv2 required with hop limit 1, encrypted gp3 root of 100 GiB (images live on the NVMe array), instance type", () => {
    for (const pool of ["prefill", "decode", "dev"]) {
      assert.deepEqual(lt(pool).metadataOptions, {
        httpEndpoint: "enabled",
        httpTokens: "required",
        httpPutResponseHopLimit: 1,
        instanceMetadataTags: "disabled",
      });
      assert.deepEqual(lt(pool).blockDeviceMappings, [
        {
          deviceName: "/dev/xvda",
          ebs: { volumeSize: 100, volumeType: "gp3", encrypted: "true", deleteOnTermination: "true" },
        },
      ]);
    }
    assert.equal(lt("decode").instanceType, "p5.48xlarge");
  });

  it("capacity block: market type and reservation in the launch template, CAPACITY_BLOCK node group, no placement group", () => {
    assert.deepEqual(lt("decode").instanceMarketOptions, { marketType: "capacity-block" });
    assert.deepEqual(lt("decode").capacityReservationSpecification, {
      capacityReservationTarget: { capacityReservationId: CR },
    });
    assert.equal(ng("decode").capacityType, "CAPACITY_BLOCK");
    assert.equal(ng("decode").instanceTypes, undefined);
    assert.equal(lt("decode").placement, undefined);
  });

  it("capacity block: min 0 and desired size left to EKS (ignoreChanges); other pools fixed and managed", () => {
    assert.deepEqual(ng("decode").scalingConfig, { desiredSize: 1, minSize: 0, maxSize: 1 });
    const group = (pool: string) => one(cap.resources, "aws:eks/nodeGroup:NodeGroup", `t-gpu-${pool}-ng`);
    assert.deepEqual(group("decode").ignoreChanges, ["scalingConfig.desiredSize"]);
    assert.deepEqual(group("prefill").ignoreChanges, []);
  });

  it("launch templates: every tag specification has a Name tag (EC2 rejects an empty one)", () => {
    const lts = ofType(cap.resources, "aws:ec2/launchTemplate:LaunchTemplate");
    assert.ok(lts.length >= 4);
    for (const l of lts)
      for (const spec of l.inputs.tagSpecifications as { tags: { Name?: string }; resourceType: string }[])
        assert.ok(spec.tags.Name, `${l.name} ${spec.resourceType}`);
    assert.deepEqual(
      (
        one(cap.resources, "aws:ec2/launchTemplate:LaunchTemplate", "s-system-lt").inputs.tagSpecifications as {
          tags: unknown;
        }[]
      ).map((t) => t.tags),
      [{ Name: "s-system" }, { Name: "s-system" }],
    );
  });

  it("placement group: present for the on-demand EFA pool only", () => {
    const pgs = ofType(cap.resources, "aws:ec2/placementGroup:PlacementGroup");
    assert.deepEqual(
      pgs.map((p) => [p.name, p.inputs.strategy]),
      [["t-gpu-prefill-placement", "cluster"]],
    );
    // The group's name as the provider returns it (auto-named from the logical name).
    const { name } = mockOutputs(pgs[0].type, pgs[0].name, pgs[0].inputs, "us-east-2");
    assert.deepEqual(lt("prefill").placement, { groupName: name });
  });

  it("node groups: AL2023 NVIDIA AMI, one subnet in the pool's AZ, fixed size, taint and labels", () => {
    const p = ng("prefill");
    assert.deepEqual([p.amiType, p.capacityType, p.version], ["AL2023_x86_64_NVIDIA", "ON_DEMAND", "1.35"]);
    // The VPC's private subnets come in the order of its AZs (us-east-2a, -2b, -2c): each pool in its own AZ's.
    assert.deepEqual(p.subnetIds, [subnets[1]]);
    assert.deepEqual(ng("decode").subnetIds, [subnets[2]]);
    assert.deepEqual(p.scalingConfig, { desiredSize: 2, minSize: 2, maxSize: 2 });
    assert.deepEqual(p.taints, [{ key: "nvidia.com/gpu", value: "true", effect: "NO_SCHEDULE" }]);
    assert.deepEqual(p.labels, {
      "dynamo-efa/pool": "prefill",
      "dynamo-efa/instance-type": "p5en.48xlarge",
      "dynamo-efa/efa": "true",
    });
    assert.deepEqual(p.launchTemplate, {
      id: mockId("aws:ec2/launchTemplate:LaunchTemplate", "t-gpu-prefill-lt", {}),
      version: "1",
    });
  });

  it("a pool without EFA: one ENA via vpcSecurityGroupIds, all private subnets, no EFA label", () => {
    assert.equal(lt("dev").networkInterfaces, undefined);
    assert.deepEqual(lt("dev").vpcSecurityGroupIds, [clusterSg]);
    assert.deepEqual(ng("dev").subnetIds, subnets);
    assert.equal((ng("dev").labels as Record<string, string>)["dynamo-efa/efa"], undefined);
  });

  it("EFA security group: self-referencing all-traffic ingress and egress rules", () => {
    const rules = ofType(cap.resources, "aws:ec2/securityGroupRule:SecurityGroupRule").filter((r) =>
      r.name.startsWith("t-efa-"),
    );
    assert.deepEqual(
      rules.map((r) => [r.inputs.type, r.inputs.protocol, r.inputs.self, r.inputs.securityGroupId]),
      [
        ["egress", "-1", true, efaSg],
        ["ingress", "-1", true, efaSg],
      ],
    );
  });

  it("EKS: API auth with an admin access entry, all log types, KMS encryption, private + CIDR-limited public endpoint", () => {
    const e = eksInputs("t-eks");
    assert.equal(e.authenticationMode, "API");
    assert.deepEqual(e.accessEntries.ops.accessPolicies.admin.accessScope, { type: "cluster" });
    assert.deepEqual(e.enabledClusterLogTypes, ["api", "audit", "authenticator", "controllerManager", "scheduler"]);
    assert.match(e.encryptionConfigKeyArn, /^arn:aws:kms:/);
    assert.equal(one(cap.resources, "aws:kms/key:Key", "t-secrets").inputs.enableKeyRotation, true);
    assert.deepEqual(
      [e.endpointPrivateAccess, e.endpointPublicAccess, e.publicAccessCidrs],
      [true, true, ["203.0.113.0/24"]],
    );
    assert.deepEqual([e.skipDefaultNodeGroup, e.useDefaultVpcCni, e.version], [true, false, "1.35"]);
    // The VPC CNI's network policy agent enforces the graph's NetworkPolicies; off, they would enforce nothing.
    assert.equal(e.vpcCniOptions.enableNetworkPolicy, true);
    assert.deepEqual(e.privateSubnetIds, subnets);
  });

  it("VPC: awsx with the listed AZs, one private and one public subnet spec", () => {
    const v = one(cap.resources, "awsx:ec2:Vpc", "t-vpc").inputs;
    assert.deepEqual(v.availabilityZoneNames, ["us-east-2a", "us-east-2b", "us-east-2c"]);
    assert.deepEqual(
      (v.subnetSpecs as { type: string }[]).map((x) => x.type),
      ["Private", "Public"],
    );
  });

  it("Helm: device plugins pinned from versions.ts, tolerating the GPU taint, through the cluster's provider", async () => {
    const efa = one(cap.resources, "kubernetes:helm.sh/v3:Release", "t-efa-device-plugin");
    assert.deepEqual(
      [efa.inputs.chart, efa.inputs.version, efa.inputs.repositoryOpts.repo],
      [charts.efaDevicePlugin.chart, charts.efaDevicePlugin.version, charts.efaDevicePlugin.repo],
    );
    assert.deepEqual(efa.inputs.values.nodeSelector, { "dynamo-efa/efa": "true" });
    assert.deepEqual(efa.inputs.values.supportedInstanceLabels.values, ["p5.48xlarge", "p5en.48xlarge"]);
    assert.deepEqual(efa.inputs.values.tolerations, [
      { key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" },
    ]);
    const nv = one(cap.resources, "kubernetes:helm.sh/v3:Release", "t-nvidia-device-plugin");
    assert.deepEqual([nv.inputs.version, nv.inputs.values.mofedEnabled], [charts.nvidiaDevicePlugin.version, false]);
    const k8s = await refOf(c.k8sProvider);
    for (const r of [efa, nv]) assert.equal(r.provider, k8s);
  });

  it("storage: EBS CSI add-on with an IRSA role, default gp3 class, EFS retained with a mount target per AZ", async () => {
    assert.equal(
      one(cap.resources, "aws:eks/addon:Addon", "t-ebs-csi").inputs.serviceAccountRoleArn,
      roleArn("t-ebs-csi"),
    );
    assert.equal(
      one(cap.resources, "kubernetes:storage.k8s.io/v1:StorageClass", "t-gp3").inputs.parameters.encrypted,
      "true",
    );
    assert.equal(one(cap.resources, "aws:efs/fileSystem:FileSystem", "t-efs").inputs.encrypted, true);
    assert.equal(one(cap.resources, "aws:efs/fileSystem:FileSystem", "t-efs").retainOnDelete, true);
    // The cluster's own (per-stack) name, so a clean-up by Name tag finds only this stack's retained cache.
    assert.equal(
      one(cap.resources, "aws:efs/fileSystem:FileSystem", "t-efs").inputs.tags.Name,
      `${await promiseOf(c.clusterName)}-model-cache`,
    );
    assert.deepEqual(
      ofType(cap.resources, "aws:efs/mountTarget:MountTarget").map((m) => m.inputs.subnetId),
      subnets,
    );
    assert.equal(
      one(cap.resources, "kubernetes:storage.k8s.io/v1:StorageClass", "t-efs").inputs.parameters.fileSystemId,
      await promiseOf(c.efsFileSystemId!),
    );
    assert.deepEqual(c.storageClassNames, { block: "gp3-encrypted", shared: "efs-shared" });
  });

  it("load balancer controller: IRSA role, the default provider's region (that of the AZs), VPC id", async () => {
    const v = lbcValues(cap, "t-lbc");
    assert.equal(v.region, "us-east-2");
    assert.equal(await promiseOf(c.region), "us-east-2");
    assert.equal(v.clusterName, await promiseOf(c.clusterName));
    assert.equal(v.vpcId, await promiseOf(c.vpcId));
    assert.equal(v.serviceAccount.annotations["eks.amazonaws.com/role-arn"], roleArn("t-lbc"));
  });

  it("outputs: secret kubeconfig, plain gpuPools, ids", async () => {
    assert.equal(await isSecret(c.kubeconfig), true);
    assert.equal(c.gpuPools.prefill.efaPerGpu, 2);
    assert.equal(c.gpuPools.decode.efaPerNode, 32);
    const eks = mockOutputs("eks:index:Cluster", "t-eks", eksInputs("t-eks"), "us-east-2") as {
      eksCluster: { name: string };
    };
    assert.equal(await promiseOf(c.clusterName), eks.eksCluster.name);
    assert.deepEqual(await promiseOf(c.nodeSecurityGroupIds), [clusterSg, efaSg]);
    assert.match(await promiseOf(c.oidcProviderArn), /oidc-provider/);
    assert.equal(await promiseOf(c.privateSubnetIds).then((s) => s.length), 3);
  });

  it("disabled path: no EFA SG, placement group, EFA plugin, EFS or LB controller; private endpoint; own VPC", async () => {
    const names = cap.resources.map((r) => r.name).filter((n) => n.startsWith("s-"));
    for (const absent of ["s-efa", "s-efa-device-plugin", "s-efs", "s-lbc", "s-gpu-dev-placement", "s-vpc"])
      assert.ok(!names.includes(absent), absent);
    assert.equal(small.efaSecurityGroupId, undefined);
    assert.equal(small.efsFileSystemId, undefined);
    assert.deepEqual(small.storageClassNames, { block: "gp3-encrypted" });
    const e = eksInputs("s-eks");
    assert.deepEqual([e.endpointPublicAccess, e.publicAccessCidrs, e.vpcId], [false, undefined, "vpc-own"]);
    assert.deepEqual(e.privateSubnetIds, ["subnet-a", "subnet-b"]);
    assert.deepEqual(await promiseOf(small.nodeSecurityGroupIds), [await promiseOf(small.clusterSecurityGroupId)]);
    assert.equal(small.gpuPools.dev.efaPerNode, 0);
    assert.equal(await promiseOf(small.region), "us-west-2", "the region of its own AWS provider");
  });
});

describe("cluster: the region comes from the AWS provider", function () {
  /** A small cluster with the load balancer controller, in `azs`, under an AWS provider for `providerRegion`. */
  const inRegion = (name: string, azs: string[], providerRegion: string, region?: string) => () => {
    const provider = new aws.Provider(`${name}-aws`, { region: providerRegion });
    return new EfaCluster(
      name,
      {
        availabilityZones: azs,
        deployFromInsideVpc: true,
        loadBalancerController: true,
        gpuPools: { dev: { instanceType: "g6e.12xlarge", nodes: 1 } },
        ...(region ? { region } : {}),
      },
      { providers: { aws: provider } },
    );
  };
  /** The stack's aws:region (and so its default provider) says us-east-1; the cluster's provider says otherwise. */
  const eastStack = { region: "us-east-1", config: { "aws:region": "us-east-1" } };

  it("an aws.Provider for us-west-2 with us-west-2 AZs, in a us-east-1 stack: the controller and children use us-west-2", async function () {
    this.timeout(30000);
    const cap = await captureComponents(inRegion("w", ["us-west-2a", "us-west-2b"], "us-west-2"), eastStack);
    const w = cap.result;
    assert.equal(lbcValues(cap, "w-lbc").region, "us-west-2");
    assert.equal(await promiseOf(w.region), "us-west-2");
    const provider = one(cap.resources, "pulumi:providers:aws", "w-aws");
    const ref = `${provider.urn}::${mockId(provider.type, provider.name, provider.inputs)}`;
    // The region invoke went to the component's provider, as every AWS child does.
    assert.deepEqual(
      cap.invokes.filter((i) => i.token === "aws:index/getRegion:getRegion").map((i) => [i.provider, i.result.region]),
      [[ref, "us-west-2"]],
    );
    for (const r of cap.resources.filter((x) => x.custom && x.type.startsWith("aws:")))
      assert.equal(r.provider, ref, r.name);
  });

  it("a provider region other than the AZs' fails the run with a clean error naming both regions and the fixes", async function () {
    this.timeout(30000);
    await assert.rejects(
      captureComponents(inRegion("m", ["us-east-2a", "us-east-2b"], "us-west-2"), eastStack),
      (e: Error) => {
        assert.ok(pulumi.RunError.isInstance(e), "a RunError: the CLI prints its message without a stack");
        assert.equal(
          e.message,
          'EfaCluster "m": the AWS provider\'s region is "us-west-2", but its availability zones are in "us-east-2". ' +
            'Pass an AWS provider for us-east-2 in the resource options ({ providers: { aws: new aws.Provider("us-east-2", ' +
            '{ region: "us-east-2" }) } }), set aws:region to us-east-2 for the default provider, or choose ' +
            'availability zones of us-west-2 (e.g. "us-west-2a")',
        );
        return true;
      },
    );
  });

  it("a `region` arg other than the provider's names the arg", async function () {
    this.timeout(30000);
    await assert.rejects(
      captureComponents(inRegion("r", ["us-east-2a", "us-east-2b"], "us-west-2", "us-east-2"), eastStack),
      (e: Error) =>
        pulumi.RunError.isInstance(e) &&
        e.message.includes('but its `region` arg is "us-east-2"') &&
        e.message.endsWith('(e.g. "us-west-2a") and region "us-west-2"'),
    );
  });
});
