/**
 * Cluster values rendered for Helm, storage and IAM, and the settings that follow a pool's capacity or the
 * region's partition (split from cluster-derive.spec.ts, which keeps interface layout, pool facts and defaults).
 */
import { strict as assert } from "assert";
import {
  blockStorageClass,
  compareVersions,
  efaDevicePluginValues,
  irsaTrustPolicy,
  nvidiaDevicePluginValues,
  parseVersion,
  sharedStorageClass,
} from "../../components/cluster/render";

/** The part of the NVIDIA device plugin's `affinity` value the test reads (the values are `Record<string, unknown>`). */
interface NodeAffinity {
  readonly nodeAffinity: { readonly requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: unknown } };
}

describe("cluster: rendered values", () => {
  it("EFA device plugin: tolerates the GPU taint, selects EFA nodes, allow-lists exactly the pools' types", () => {
    assert.deepEqual(efaDevicePluginValues(["p5en.48xlarge", "p5.48xlarge", "p5en.48xlarge"]), {
      tolerations: [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }],
      nodeSelector: { "dynamo-efa/efa": "true" },
      supportedInstanceLabels: { keys: ["node.kubernetes.io/instance-type"], values: ["p5.48xlarge", "p5en.48xlarge"] },
    });
  });

  for (const [version, mofed] of [
    ["0.18.2", undefined],
    ["0.19.0", false],
    ["0.19.2", false],
    ["0.19.3", false],
    ["0.20.0", false],
  ] as const) {
    it(`NVIDIA device plugin ${version}: tolerates the taint, pool affinity, mofedEnabled ${mofed}`, () => {
      const v = nvidiaDevicePluginValues(version);
      assert.deepEqual(v.tolerations, [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }]);
      assert.deepEqual(
        (v.affinity as NodeAffinity).nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms,
        [{ matchExpressions: [{ key: "dynamo-efa/pool", operator: "Exists" }] }],
      );
      assert.equal(v.mofedEnabled, mofed);
      assert.equal("mofedEnabled" in v, mofed !== undefined);
    });
  }

  it("versions parse and compare", () => {
    assert.deepEqual(parseVersion("v1.20.4-eksbuild.1"), [1, 20, 4]);
    assert.equal(parseVersion("latest"), undefined);
    assert.ok(compareVersions(parseVersion("v1.18.4")!, parseVersion("1.18.5")!) < 0);
    assert.ok(compareVersions(parseVersion("0.20.0")!, parseVersion("0.19.3")!) > 0);
  });

  it("storage classes: encrypted gp3 default (retained), EFS access points", () => {
    const b = blockStorageClass();
    assert.deepEqual(
      [b.provisioner, b.parameters.type, b.parameters.encrypted, b.reclaimPolicy, b.metadata.annotations],
      ["ebs.csi.aws.com", "gp3", "true", "Retain", { "storageclass.kubernetes.io/is-default-class": "true" }],
    );
    const s = sharedStorageClass("fs-123");
    assert.deepEqual(
      [s.provisioner, s.parameters.provisioningMode, s.parameters.fileSystemId],
      ["efs.csi.aws.com", "efs-ap", "fs-123"],
    );
  });

  it("IRSA trust policy is scoped to one service account of one issuer", () => {
    const p = JSON.parse(
      irsaTrustPolicy(
        "arn:aws:iam::1:oidc-provider/oidc.example/id/X",
        "https://oidc.example/id/X",
        "kube-system",
        "ebs-csi-controller-sa",
      ),
    );
    assert.deepEqual(p.Statement[0].Condition.StringEquals, {
      "oidc.example/id/X:sub": "system:serviceaccount:kube-system:ebs-csi-controller-sa",
      "oidc.example/id/X:aud": "sts.amazonaws.com",
    });
  });
});

describe("cluster: Capacity Blocks, launch-template tags, partitions", () => {
  it("a Capacity Block pool scales from 0 and leaves desired size to EKS; other pools are fixed and managed", async () => {
    const { poolScaling, ignoresDesiredSize } = await import("../../components/cluster/derive");
    assert.deepEqual(poolScaling({ nodes: 2, capacity: "capacity-block" }), { desiredSize: 2, minSize: 0, maxSize: 2 });
    assert.deepEqual(
      [
        ignoresDesiredSize({ capacity: "capacity-block" }),
        ignoresDesiredSize({ capacity: "odcr" }),
        ignoresDesiredSize({ capacity: "on-demand" }),
      ],
      [true, false, false],
    );
    for (const capacity of ["on-demand", "odcr"] as const)
      assert.deepEqual(poolScaling({ nodes: 2, capacity }), { desiredSize: 2, minSize: 2, maxSize: 2 });
  });

  it("every launch-template tag specification carries a Name, even with no user tags", async () => {
    const { launchTagSpecifications } = await import("../../components/cluster/nodes");
    assert.deepEqual(launchTagSpecifications(["instance", "volume"], "c-system", {}), [
      { resourceType: "instance", tags: { Name: "c-system" } },
      { resourceType: "volume", tags: { Name: "c-system" } },
    ]);
    assert.deepEqual(launchTagSpecifications(["instance"], "c-gpu-a", { team: "ml" })[0].tags, {
      Name: "c-gpu-a",
      team: "ml",
    });
  });

  it("ARNs and the EC2 principal follow the region's partition (no hard-coded arn:aws: in cn- or us-gov- regions)", async () => {
    const { partitionOf } = await import("../../components/cluster/partition");
    const { clusterAdminAccessPolicy, ec2TrustPolicy, ebsCsiPolicy, nodePolicies } =
      await import("../../components/cluster/render");
    const { loadBalancerControllerPolicy } = await import("../../components/cluster/lbc-policy");
    const table: [string, string, string][] = [
      ["us-east-2", "aws", "ec2.amazonaws.com"],
      ["cn-north-1", "aws-cn", "ec2.amazonaws.com.cn"],
      ["us-gov-west-1", "aws-us-gov", "ec2.amazonaws.com"],
    ];
    for (const [region, id, principal] of table) {
      const p = partitionOf(region)!;
      assert.equal(p.id, id, region);
      assert.equal(nodePolicies(p).worker, `arn:${id}:iam::aws:policy/AmazonEKSWorkerNodePolicy`);
      assert.equal(ebsCsiPolicy(p), `arn:${id}:iam::aws:policy/service-role/AmazonEBSCSIDriverPolicy`);
      assert.equal(clusterAdminAccessPolicy(p), `arn:${id}:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy`);
      assert.equal(JSON.parse(ec2TrustPolicy(p)).Statement[0].Principal.Service, principal);
      const arns = [...loadBalancerControllerPolicy(id).matchAll(/"arn:[^:"]*:/g)].map((m) => m[0]);
      assert.ok(arns.length > 0 && arns.every((a) => a === `"arn:${id}:`), `${region}: ${arns}`);
    }
    assert.equal(partitionOf("us-isob-east-1"), undefined);
  });
});
