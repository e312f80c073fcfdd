/** EfaCluster under Pulumi mocks: what it registers (launch templates, node groups, add-ons) and how it is wired. */
import { strict as assert } from "assert";
import * as pulumi from "@pulumi/pulumi";
import { registered } from "../helpers/settled";
import { armMocks, one, ofType, Recorded } from "../helpers/mocks";
import { isSecret, promiseOf } from "../helpers/outputs";
import type { EfaCluster as EfaClusterT, EfaClusterArgs } from "../../components/cluster";
import type { InterfaceSlot } from "../../components/cluster/derive";

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
  let rec: Recorded[];
  let EfaCluster: typeof EfaClusterT;
  let c: EfaClusterT;
  let small: EfaClusterT;

  /** Every registration as a stack transformation saw it (MockResourceArgs carry no parent or provider). */
  const seen: { type: string; name: string; opts: pulumi.ResourceOptions; resource: pulumi.Resource }[] = [];

  before(async function () {
    this.timeout(30000);
    rec = armMocks();
    await pulumi.runtime.runInPulumiStack(async () => {
      pulumi.runtime.registerStackTransformation((a) => {
        seen.push({ type: a.type, name: a.name, opts: a.opts, resource: a.resource });
        return undefined;
      });
      ({ EfaCluster } = await import("../../components/cluster"));
      c = new EfaCluster("t", full);
      small = new EfaCluster("s", {
        deployFromInsideVpc: true,
        existingVpc: { vpcId: "vpc-own", privateSubnetIds: { "us-west-2b": "subnet-b", "us-west-2a": "subnet-a" } },
        gpuPools: { dev: { instanceType: "g6e.48xlarge", nodes: 1 } },
      });
      await Promise.all([
        promiseOf(c.kubeconfig),
        promiseOf(small.kubeconfig),
        promiseOf(c.nodeGroupNames.prefill),
        promiseOf(c.efsFileSystemId!),
      ]);
      await registered(() => seen.map((x) => x.resource));
      return {};
    });
  });

  it("every child is parented to its EfaCluster; every Kubernetes child uses the cluster's provider", () => {
    const children = seen.filter((x) => x.name.startsWith("t-"));
    const recordedChildren = rec
      .filter((r) => r.name.startsWith("t-"))
      .map((r) => `${r.type}::${r.name}`)
      .sort();
    assert.deepEqual(children.map((x) => `${x.type}::${x.name}`).sort(), recordedChildren);
    for (const x of children) assert.equal(x.opts.parent, c, `${x.type} ${x.name} has another parent`);
    const k8sChildren = children.filter((x) => x.type.startsWith("kubernetes:"));
    assert.deepEqual(k8sChildren.map((x) => x.name).sort(), [
      "t-efa-device-plugin",
      "t-efs",
      "t-gp3",
      "t-lbc",
      "t-nvidia-device-plugin",
    ]);
    for (const x of k8sChildren) assert.equal(x.opts.provider, c.k8sProvider, x.name);
    const gpuNg = children.find((x) => x.name === "t-gpu-ng-prefill")!;
    assert.ok(
      Array.isArray(gpuNg.opts.dependsOn) && gpuNg.opts.dependsOn.length === 3,
      "node group waits for the node role's policy attachments",
    );
  });

  const lt = (pool: string) => one(rec, "aws:ec2/launchTemplate:LaunchTemplate", `t-gpu-lt-${pool}`).inputs;
  const ng = (pool: string) => one(rec, "aws:eks/nodeGroup:NodeGroup", `t-gpu-ng-${pool}`).inputs;

  it("p5en launch template: 17 interfaces, ENA at 0/0 then 16 efa-only, both SGs on each, no SubnetId", () => {
    const nics = lt("prefill").networkInterfaces as Nic[];
    assert.equal(nics.length, 17);
    assert.deepEqual([nics[0].networkCardIndex, nics[0].deviceIndex, nics[0].interfaceType], [0, 0, "interface"]);
    assert.deepEqual([nics[1].networkCardIndex, nics[1].deviceIndex, nics[1].interfaceType], [0, 1, "efa-only"]);
    assert.equal(nics.filter((n) => n.interfaceType === "efa-only").length, 16);
    for (const n of nics) {
      assert.deepEqual(n.securityGroups, ["sg-0e4c1a55e7000c0de", "t-efa-id"]);
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
    const opts = (n: string) => seen.find((x) => x.name === n)!.opts;
    assert.deepEqual(opts("t-gpu-ng-decode").ignoreChanges, ["scalingConfig.desiredSize"]);
    assert.equal(opts("t-gpu-ng-prefill").ignoreChanges, undefined);
  });

  it("launch templates: every tag specification has a Name tag (EC2 rejects an empty one)", () => {
    const lts = ofType(rec, "aws:ec2/launchTemplate:LaunchTemplate");
    assert.ok(lts.length >= 4);
    for (const l of lts)
      for (const spec of l.inputs.tagSpecifications) assert.ok(spec.tags.Name, `${l.name} ${spec.resourceType}`);
    assert.deepEqual(
      one(rec, "aws:ec2/launchTemplate:LaunchTemplate", "s-system-lt").inputs.tagSpecifications.map(
        (t: { tags: unknown }) => t.tags,
      ),
      [{ Name: "s-system" }, { Name: "s-system" }],
    );
  });

  it("placement group: present for the on-demand EFA pool only", () => {
    const pgs = ofType(rec, "aws:ec2/placementGroup:PlacementGroup");
    assert.deepEqual(
      pgs.map((p) => [p.name, p.inputs.strategy]),
      [["t-placement-prefill", "cluster"]],
    );
    assert.deepEqual(lt("prefill").placement, { groupName: "t-placement-prefill" });
  });

  it("node groups: AL2023 NVIDIA AMI, one subnet in the pool's AZ, fixed size, taint and labels", () => {
    const p = ng("prefill");
    assert.deepEqual([p.amiType, p.capacityType, p.version], ["AL2023_x86_64_NVIDIA", "ON_DEMAND", "1.35"]);
    assert.deepEqual(p.subnetIds, ["subnet-private-us-east-2b"]);
    assert.deepEqual(ng("decode").subnetIds, ["subnet-private-us-east-2c"]);
    assert.deepEqual(p.scalingConfig, { desiredSize: 2, minSize: 2, maxSize: 2 });
    assert.deepEqual(p.taints, [{ key: "nvidia.com/gpu", value: "true", effect: "NO_SCHEDULE" }]);
    assert.deepEqual(p.labels, {
      "dynamo-efa/pool": "prefill",
      "dynamo-efa/instance-type": "p5en.48xlarge",
      "dynamo-efa/efa": "true",
    });
    assert.deepEqual(p.launchTemplate, { id: "t-gpu-lt-prefill-id", version: "1" });
  });

  it("a pool without EFA: one ENA via vpcSecurityGroupIds, all private subnets, no EFA label", () => {
    assert.equal(lt("dev").networkInterfaces, undefined);
    assert.deepEqual(lt("dev").vpcSecurityGroupIds, ["sg-0e4c1a55e7000c0de"]);
    assert.deepEqual(ng("dev").subnetIds, [
      "subnet-private-us-east-2a",
      "subnet-private-us-east-2b",
      "subnet-private-us-east-2c",
    ]);
    assert.equal(ng("dev").labels["dynamo-efa/efa"], undefined);
  });

  it("EFA security group: self-referencing all-traffic ingress and egress rules", () => {
    const rules = ofType(rec, "aws:ec2/securityGroupRule:SecurityGroupRule").filter((r) => r.name.startsWith("t-efa-"));
    assert.deepEqual(
      rules.map((r) => [r.inputs.type, r.inputs.protocol, r.inputs.self, r.inputs.securityGroupId]),
      [
        ["egress", "-1", true, "t-efa-id"],
        ["ingress", "-1", true, "t-efa-id"],
      ],
    );
  });

  it("EKS: API auth with an admin access entry, all log types, KMS encryption, private + CIDR-limited public endpoint", () => {
    const e = one(rec, "eks:index:Cluster", "t-eks").inputs;
    assert.equal(e.authenticationMode, "API");
    assert.deepEqual(e.accessEntries.ops.accessPolicies.admin.accessScope, { type: "cluster" });
    assert.deepEqual(e.enabledClusterLogTypes, ["api", "audit", "authenticator", "controllerManager", "scheduler"]);
    assert.match(e.encryptionConfigKeyArn, /^arn:aws:kms:/);
    assert.equal(one(rec, "aws:kms/key:Key", "t-secrets").inputs.enableKeyRotation, true);
    assert.deepEqual(
      [e.endpointPrivateAccess, e.endpointPublicAccess, e.publicAccessCidrs],
      [true, true, ["203.0.113.0/24"]],
    );
    assert.deepEqual([e.skipDefaultNodeGroup, e.useDefaultVpcCni, e.version], [true, false, "1.35"]);
    // The VPC CNI's network policy agent enforces the graph's NetworkPolicies; off, they would enforce nothing.
    assert.equal(e.vpcCniOptions.enableNetworkPolicy, true);
    assert.deepEqual(e.privateSubnetIds, [
      "subnet-private-us-east-2a",
      "subnet-private-us-east-2b",
      "subnet-private-us-east-2c",
    ]);
  });

  it("VPC: awsx with the listed AZs, one private and one public subnet spec", () => {
    const v = one(rec, "awsx:ec2:Vpc", "t-vpc").inputs;
    assert.deepEqual(v.availabilityZoneNames, ["us-east-2a", "us-east-2b", "us-east-2c"]);
    assert.deepEqual(
      v.subnetSpecs.map((s: { type: string }) => s.type),
      ["Private", "Public"],
    );
  });

  it("Helm: device plugins pinned from versions.ts, tolerating the GPU taint, through the cluster's provider", async () => {
    const { charts } = await import("../../components/versions");
    const efa = one(rec, "kubernetes:helm.sh/v3:Release", "t-efa-device-plugin");
    assert.deepEqual(
      [efa.inputs.chart, efa.inputs.version, efa.inputs.repositoryOpts.repo],
      [charts.efaDevicePlugin.chart, charts.efaDevicePlugin.version, charts.efaDevicePlugin.repo],
    );
    assert.deepEqual(efa.inputs.values.nodeSelector, { "dynamo-efa/efa": "true" });
    assert.deepEqual(efa.inputs.values.supportedInstanceLabels.values, ["p5.48xlarge", "p5en.48xlarge"]);
    assert.deepEqual(efa.inputs.values.tolerations, [
      { key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" },
    ]);
    const nv = one(rec, "kubernetes:helm.sh/v3:Release", "t-nvidia-device-plugin");
    assert.deepEqual([nv.inputs.version, nv.inputs.values.mofedEnabled], [charts.nvidiaDevicePlugin.version, false]);
    for (const r of [efa, nv]) assert.match(r.provider ?? "", /t-k8s::t-k8s-id$/);
  });

  it("storage: EBS CSI add-on with an IRSA role, default gp3 class, EFS retained with a mount target per AZ", () => {
    assert.equal(
      one(rec, "aws:eks/addon:Addon", "t-ebs-csi").inputs.serviceAccountRoleArn,
      "arn:aws:iam::123456789012:role/t-ebs-csi",
    );
    assert.equal(one(rec, "kubernetes:storage.k8s.io/v1:StorageClass", "t-gp3").inputs.parameters.encrypted, "true");
    assert.equal(one(rec, "aws:efs/fileSystem:FileSystem", "t-efs").inputs.encrypted, true);
    assert.deepEqual(
      ofType(rec, "aws:efs/mountTarget:MountTarget").map((m) => m.inputs.subnetId),
      ["subnet-private-us-east-2a", "subnet-private-us-east-2b", "subnet-private-us-east-2c"],
    );
    assert.equal(
      one(rec, "kubernetes:storage.k8s.io/v1:StorageClass", "t-efs").inputs.parameters.fileSystemId,
      "t-efs-id",
    );
    assert.deepEqual(c.storageClassNames, { block: "gp3-encrypted", shared: "efs-shared" });
  });

  it("load balancer controller: IRSA role, region from the AZs, VPC id", () => {
    const v = one(rec, "kubernetes:helm.sh/v3:Release", "t-lbc").inputs.values;
    assert.equal(v.region, "us-east-2");
    assert.equal(v.clusterName, "t-eks-eks");
    assert.match(v.vpcId, /^vpc-/);
    assert.equal(v.serviceAccount.annotations["eks.amazonaws.com/role-arn"], "arn:aws:iam::123456789012:role/t-lbc");
  });

  it("outputs: secret kubeconfig, plain gpuPools, ids", async () => {
    assert.equal(await isSecret(c.kubeconfig), true);
    assert.equal(c.gpuPools.prefill.efaPerGpu, 2);
    assert.equal(c.gpuPools.decode.efaPerNode, 32);
    assert.equal(await promiseOf(c.clusterName), "t-eks-eks");
    assert.deepEqual(await promiseOf(c.nodeSecurityGroupIds), ["sg-0e4c1a55e7000c0de", "t-efa-id"]);
    assert.match(await promiseOf(c.oidcProviderArn), /oidc-provider/);
    assert.equal(await promiseOf(c.privateSubnetIds).then((s) => s.length), 3);
  });

  it("disabled path: no EFA SG, placement group, EFA plugin, EFS or LB controller; private endpoint; own VPC", async () => {
    const names = rec.map((r) => r.name).filter((n) => n.startsWith("s-"));
    for (const absent of ["s-efa", "s-efa-device-plugin", "s-efs", "s-lbc", "s-placement-dev", "s-vpc"])
      assert.ok(!names.includes(absent), absent);
    assert.equal(small.efaSecurityGroupId, undefined);
    assert.equal(small.efsFileSystemId, undefined);
    assert.deepEqual(small.storageClassNames, { block: "gp3-encrypted" });
    const e = one(rec, "eks:index:Cluster", "s-eks").inputs;
    assert.deepEqual([e.endpointPublicAccess, e.publicAccessCidrs, e.vpcId], [false, undefined, "vpc-own"]);
    assert.deepEqual(e.privateSubnetIds, ["subnet-a", "subnet-b"]);
    assert.deepEqual(await promiseOf(small.nodeSecurityGroupIds), ["sg-0e4c1a55e7000c0de"]);
    assert.equal(small.gpuPools.dev.efaPerNode, 0);
  });
});
