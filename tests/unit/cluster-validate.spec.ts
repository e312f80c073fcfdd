/**
 * The cluster validator on plain data: every bad pool, network, region/zone and version input is reported at its
 * argument path with the allowed values, all problems at once, and the valid shapes (China, GovCloud, g6e) pass.
 */
import { strict as assert } from "assert";
import { EfaClusterArgs, GpuPoolArgs } from "../../components/cluster/args";
import { validateClusterArgs } from "../../components/cluster/validate";
import { cidrProblems } from "../../components/cluster/validate-network";

const ok: EfaClusterArgs = {
  availabilityZones: ["us-east-2a", "us-east-2b"],
  deployFromInsideVpc: true,
  gpuPools: { gpu: { instanceType: "p5en.48xlarge", nodes: 2, availabilityZone: "us-east-2a" } },
};
const withPool = (p: Partial<GpuPoolArgs>, rest: Partial<EfaClusterArgs> = {}): EfaClusterArgs => ({
  ...ok,
  ...rest,
  gpuPools: { gpu: { ...ok.gpuPools!.gpu, ...p } as GpuPoolArgs },
});
const problems = (a: EfaClusterArgs) => validateClusterArgs(a).map((p) => `${p.propertyPath}: ${p.reason}`);

describe("cluster: validateClusterArgs", () => {
  it("accepts a valid p5en pool, a g6e pool without EFA, and a capacity-block pool", () => {
    assert.deepEqual(problems(ok), []);
    assert.deepEqual(
      problems({ ...ok, gpuPools: { ...ok.gpuPools, dev: { instanceType: "g6e.12xlarge", nodes: 1 } } }),
      [],
    );
    assert.deepEqual(
      problems(withPool({ capacity: "capacity-block", capacityReservationId: "cr-0123456789abcdef0" })),
      [],
    );
  });

  it("deviceAllocation: dra from Kubernetes 1.34 with a whole number of EFA per GPU; anything else named", () => {
    assert.deepEqual(problems({ ...ok, deviceAllocation: "dra" }), []);
    assert.deepEqual(problems({ ...ok, deviceAllocation: "dra", kubernetesVersion: "1.34" }), []);
    assert.deepEqual(problems({ ...ok, deviceAllocation: "dra", kubernetesVersion: "1.33" }), [
      'deviceAllocation: "dra" needs Kubernetes 1.34 or later (resource.k8s.io/v1, which the DRA drivers and the workers\' ResourceClaimTemplates use, is GA from 1.34), but kubernetesVersion is "1.33"; set kubernetesVersion to 1.34 or later, or deviceAllocation to "device-plugin"',
    ]);
    assert.match(
      problems(withPool({ instanceType: "p4d.24xlarge" }, { deviceAllocation: "dra" })).join("\n"),
      /deviceAllocation: "dra" pairs each GPU with its own EFA devices on its PCIe root, but a p4d\.24xlarge node \(pool "gpu"\) has 4 EFA devices for 8 GPUs \(0\.5 per GPU\)/,
    );
    // Without EFA (g6e, efa off) there is nothing to pair: GPUs only.
    assert.deepEqual(
      problems(withPool({ instanceType: "g6e.12xlarge", availabilityZone: undefined }, { deviceAllocation: "dra" })),
      [],
    );
    assert.deepEqual(problems({ ...ok, deviceAllocation: "DRA" as never }), [
      'deviceAllocation: must be one of "device-plugin", "dra"; got "DRA"; did you mean "dra"?',
    ]);
  });

  // one mutation per case: [label, args, expected problem lines]
  const cases: [string, EfaClusterArgs, string[]][] = [
    [
      "unknown type with a suggestion",
      withPool({ instanceType: "p5en.48xlarg" }),
      ['gpuPools.gpu.instanceType: unknown GPU instance type "p5en.48xlarg"; did you mean "p5en.48xlarge"?'],
    ],
    [
      "capacity-block without reservation id",
      withPool({ capacity: "capacity-block" }),
      [
        'gpuPools.gpu.capacityReservationId: required when capacity is "capacity-block": the id of your reservation, e.g. "cr-0123456789abcdef0"',
      ],
    ],
    [
      "odcr without reservation id",
      withPool({ capacity: "odcr" }),
      [
        'gpuPools.gpu.capacityReservationId: required when capacity is "odcr": the id of your reservation, e.g. "cr-0123456789abcdef0"',
      ],
    ],
    [
      "malformed reservation id",
      withPool({ capacity: "odcr", capacityReservationId: "cr-XYZ" }),
      [
        'gpuPools.gpu.capacityReservationId: must be "cr-" followed by 17 (or 8) lower-case hex digits, e.g. "cr-0123456789abcdef0"; got "cr-XYZ"',
      ],
    ],
    [
      "reservation id with on-demand",
      withPool({ capacityReservationId: "cr-0123456789abcdef0" }),
      [
        'gpuPools.gpu.capacityReservationId: is only used with capacity "capacity-block" or "odcr"; got "cr-0123456789abcdef0" with "on-demand". Set capacity or drop the id',
      ],
    ],
    [
      "unknown capacity",
      withPool({ capacity: "spot" as never }),
      ['gpuPools.gpu.capacity: must be one of "on-demand", "capacity-block", "odcr"; got "spot"'],
    ],
    ["zero nodes", withPool({ nodes: 0 }), ["gpuPools.gpu.nodes: must be a whole number 1..450; got 0"]],
    ["fractional nodes", withPool({ nodes: 1.5 }), ["gpuPools.gpu.nodes: must be a whole number 1..450; got 1.5"]],
    [
      "EFA pool without AZ",
      { ...ok, gpuPools: { gpu: { instanceType: "p5.48xlarge", nodes: 1 } } },
      [
        'gpuPools.gpu.availabilityZone: required for an EFA pool (EFA traffic stays in one AZ); name the AZ that offers p5.48xlarge, e.g. "us-east-2a"',
      ],
    ],
    [
      "EFA on a type without EFA",
      { ...ok, gpuPools: { ...ok.gpuPools, g: { instanceType: "g5.xlarge", nodes: 1, efa: true } } },
      ['gpuPools.g.efa: g5.xlarge has no EFA device; set efa to false or pick an EFA type such as "p5en.48xlarge"'],
    ],
    [
      "EFA on a g type without GPUDirect RDMA",
      {
        ...ok,
        gpuPools: {
          ...ok.gpuPools,
          g: { instanceType: "g6e.48xlarge", nodes: 1, efa: true, availabilityZone: "us-east-2a" },
        },
      },
      [
        "gpuPools.g.efa: g6e.48xlarge has no GPUDirect RDMA over EFA (g family), so NIXL's LIBFABRIC plugin cannot move KV cache from GPU memory; use a P-family type, set efa to false, or set allowEfaWithoutGpuDirectRdma to true for experiments",
      ],
    ],
    [
      "legacy layout on p6-b300",
      withPool({ instanceType: "p6-b300.48xlarge", efaLayout: "legacy" }),
      [
        'gpuPools.gpu.efaLayout: "legacy" puts EFA on network card 0, which has no EFA on p6-b300.48xlarge; use "current"',
      ],
    ],
    [
      "arm64 type",
      withPool({ instanceType: "p6e-gb200.36xlarge" }),
      [
        'gpuPools.gpu.instanceType: "p6e-gb200.36xlarge" is an arm64 (Grace/Graviton) instance; only x86_64 GPU instances are supported because the combined image is built for linux/amd64. Use an x86_64 type such as "p5en.48xlarge"',
      ],
    ],
    [
      "bad pool name",
      { ...ok, gpuPools: { Big_Pool: ok.gpuPools!.gpu } },
      [
        'gpuPools.Big_Pool: pool name "Big_Pool" must be a lower-case DNS label (a-z, 0-9, "-", at most 63 characters): it becomes a node label value and resource name',
      ],
    ],
    [
      "a cluster for other stacks' pools: no pools of its own, the types it serves listed",
      {
        availabilityZones: ["us-east-2a", "us-east-2b"],
        deployFromInsideVpc: true,
        poolInstanceTypes: ["p5en.48xlarge"],
      },
      [],
    ],
    [
      "neither pools nor the types other stacks' pools bring",
      { availabilityZones: ["us-east-2a", "us-east-2b"], deployFromInsideVpc: true },
      [
        'gpuPools: a cluster needs GPU pools of its own (gpuPools) or the instance types the pools other stacks add will have (poolInstanceTypes, e.g. ["p5en.48xlarge"]); got neither',
      ],
    ],
    [
      "an uncatalogued type among poolInstanceTypes",
      { ...ok, poolInstanceTypes: ["p5en.48xlarge", "p5en.48xlarg"] },
      ['poolInstanceTypes[1]: unknown GPU instance type "p5en.48xlarg"; did you mean "p5en.48xlarge"?'],
    ],
    [
      "an empty pool map is still refused (no pools is written by leaving gpuPools out)",
      { ...ok, gpuPools: {}, poolInstanceTypes: ["p5en.48xlarge"] },
      [
        'gpuPools: must be a map of pool name to pool, e.g. { prefill: { instanceType: "p5en.48xlarge", nodes: 1, availabilityZone: "us-east-2a" } }; got {}',
      ],
    ],
    [
      "pool AZ not in the VPC",
      withPool({ availabilityZone: "us-east-2c" }),
      [
        'gpuPools.gpu.availabilityZone: "us-east-2c" is not in availabilityZones ["us-east-2a","us-east-2b"]; add it there',
      ],
    ],
    [
      "one AZ only",
      { deployFromInsideVpc: true, gpuPools: ok.gpuPools },
      [
        'availabilityZones: EKS needs subnets in at least 2 AZs; got ["us-east-2a"] (derived from the pools\' AZs). List them, e.g. ["us-east-2a", "us-east-2b"]',
      ],
    ],
    [
      "unsupported Kubernetes version",
      { ...ok, kubernetesVersion: "1.29" },
      ['kubernetesVersion: must be a version EKS supports, one of "1.32", "1.33", "1.34", "1.35", "1.36"; got "1.29"'],
    ],
    [
      "malformed public CIDR",
      { ...ok, publicAccessCidrs: ["203.0.113.0/33"] },
      ['publicAccessCidrs[0]: must be an IPv4 CIDR such as "203.0.113.0/24"; got "203.0.113.0/33"'],
    ],
    [
      "CIDR with host bits",
      { ...ok, publicAccessCidrs: ["203.0.113.7/24"] },
      ['publicAccessCidrs[0]: "203.0.113.7/24" has host bits set; did you mean "203.0.113.0/24"?'],
    ],
    [
      "world-open endpoint",
      { ...ok, publicAccessCidrs: ["0.0.0.0/0"] },
      [
        'publicAccessCidrs[0]: "0.0.0.0/0" opens the API endpoint to the whole internet; list your office/VPN/CI CIDRs, or leave publicAccessCidrs empty for a private endpoint',
      ],
    ],
    [
      "old VPC CNI",
      { ...ok, vpcCniAddonVersion: "v1.18.3-eksbuild.1" },
      [
        'vpcCniAddonVersion: "v1.18.3-eksbuild.1" is older than v1.18.5, the first VPC CNI that supports "efa-only" interfaces; use a newer add-on version',
      ],
    ],
    [
      "bad chart version",
      { ...ok, nvidiaDevicePluginChartVersion: "latest" },
      ['nvidiaDevicePluginChartVersion: must be a chart version such as "1.2.3" or "v1.2.3"; got "latest"'],
    ],
    [
      "existing VPC with one AZ",
      {
        deployFromInsideVpc: true,
        gpuPools: ok.gpuPools,
        existingVpc: { vpcId: "vpc-1", privateSubnetIds: { "us-east-2a": "subnet-a" } },
      },
      ['existingVpc.privateSubnetIds: needs private subnets in at least 2 AZs (EKS requires 2); got ["us-east-2a"]'],
    ],
    [
      "placement group with a Capacity Block",
      withPool({ capacity: "capacity-block", capacityReservationId: "cr-0123456789abcdef0", placementGroup: true }),
      [
        'gpuPools.gpu.placementGroup: cannot be true with capacity "capacity-block": a new placement group never matches your reservation, so no instance would launch into it. Remove placementGroup (reserved capacity keeps the placement it was bought with)',
      ],
    ],
    [
      "placement group with an ODCR",
      withPool({ capacity: "odcr", capacityReservationId: "cr-0123456789abcdef0", placementGroup: true }),
      [
        'gpuPools.gpu.placementGroup: cannot be true with capacity "odcr": a new placement group never matches your reservation, so no instance would launch into it. Remove placementGroup (reserved capacity keeps the placement it was bought with)',
      ],
    ],
    [
      "AZs outside the region",
      { ...ok, region: "us-west-2" },
      [
        'availabilityZones[0]: "us-east-2a" is not in region "us-west-2" (the `region` arg); use a zone of that region such as "us-west-2a", or change the region',
        'availabilityZones[1]: "us-east-2b" is not in region "us-west-2" (the `region` arg); use a zone of that region such as "us-west-2a", or change the region',
        'gpuPools.gpu.availabilityZone: "us-east-2a" is not in region "us-west-2" (the `region` arg); use a zone of that region such as "us-west-2a", or change the region',
      ],
    ],
    [
      "existing-VPC subnets outside the region",
      {
        region: "us-east-2",
        deployFromInsideVpc: true,
        gpuPools: { dev: { instanceType: "g6e.12xlarge", nodes: 1 } },
        existingVpc: { vpcId: "vpc-1", privateSubnetIds: { "us-east-2a": "subnet-a", "us-west-2b": "subnet-b" } },
      },
      [
        'existingVpc.privateSubnetIds.us-west-2b: "us-west-2b" is not in region "us-east-2" (the `region` arg); use a zone of that region such as "us-east-2a", or change the region',
      ],
    ],
    [
      "AZs of two regions and no region given",
      { ...ok, availabilityZones: ["us-east-2a", "us-west-2b"] },
      [
        'availabilityZones[1]: "us-west-2b" is not in region "us-east-2" (the region of "us-east-2a", the first availability zone); use a zone of that region such as "us-east-2a", or change the region',
      ],
    ],
    [
      // Its "region" ("bogu") would fail every valid AZ against it: the region comes from the first AZ name.
      "a first AZ that is no AZ name and no region given",
      { ...ok, availabilityZones: ["bogus", "us-east-2a", "us-east-2b"] },
      ['availabilityZones[0]: must be an availability zone name such as "us-east-2a"; got "bogus"'],
    ],
    [
      "an AZ that is not a string (component args are not type-checked at run time)",
      { ...ok, availabilityZones: [5 as unknown as string, "us-east-2a", "us-east-2b"] },
      ['availabilityZones[0]: must be an availability zone name such as "us-east-2a"; got 5'],
    ],
    [
      'a pool AZ that is no AZ name is one problem, not also "add it to availabilityZones"',
      withPool({ availabilityZone: 7 as unknown as string }),
      ['gpuPools.gpu.availabilityZone: must be an availability zone name such as "us-east-2a"; got 7'],
    ],
    [
      "an ISO-partition region",
      { ...ok, region: "us-iso-east-1" },
      [
        'region: "us-iso-east-1" is in a partition this package does not support; use a region of "aws-cn", "aws-us-gov", "aws" (e.g. "us-east-2", "cn-north-1", "us-gov-west-1")',
      ],
    ],
    [
      "a malformed region",
      { ...ok, region: "Ohio" },
      ['region: must be an AWS region name such as "us-east-2"; got "Ohio"'],
    ],
    [
      "empty pools",
      { ...ok, gpuPools: {} },
      [
        'gpuPools: must be a map of pool name to pool, e.g. { prefill: { instanceType: "p5en.48xlarge", nodes: 1, availabilityZone: "us-east-2a" } }; got {}',
      ],
    ],
  ];
  for (const [label, args, expected] of cases) it(label, () => assert.deepEqual(problems(args), expected));

  it("reports every problem at once", () => {
    const bad: EfaClusterArgs = {
      kubernetesVersion: "1.20",
      publicAccessCidrs: ["nope"],
      gpuPools: {
        a: { instanceType: "p5en.48xlarg", nodes: 0 },
        b: { instanceType: "p5.48xlarge", nodes: 1, capacity: "capacity-block" },
      },
    };
    assert.deepEqual(
      validateClusterArgs(bad).map((p) => p.propertyPath),
      [
        "gpuPools.a.instanceType",
        "gpuPools.a.nodes",
        "gpuPools.b.availabilityZone",
        "gpuPools.b.capacityReservationId",
        "availabilityZones",
        "publicAccessCidrs[0]",
        "kubernetesVersion",
      ],
    );
  });

  it("accepts China and GovCloud regions with their own zones", () => {
    for (const region of ["cn-north-1", "us-gov-west-1"]) {
      assert.deepEqual(
        problems({
          region,
          deployFromInsideVpc: true,
          availabilityZones: [`${region}a`, `${region}b`],
          gpuPools: { gpu: { instanceType: "p5en.48xlarge", nodes: 1, availabilityZone: `${region}a` } },
        }),
        [],
        region,
      );
    }
  });

  it("allowEfaWithoutGpuDirectRdma lets a g6e pool use EFA", () => {
    assert.deepEqual(
      problems({
        ...ok,
        gpuPools: {
          g: {
            instanceType: "g6e.48xlarge",
            nodes: 1,
            efa: true,
            allowEfaWithoutGpuDirectRdma: true,
            availabilityZone: "us-east-2a",
          },
        },
      }),
      [],
    );
  });

  it("cidrProblems: prefix range for the VPC", () => {
    assert.deepEqual(
      cidrProblems("vpcCidr", "10.0.0.0/24", 16, 20).map((p) => p.reason),
      ['prefix length must be /16../20; got "10.0.0.0/24"'],
    );
    assert.deepEqual(cidrProblems("vpcCidr", "10.0.0.0/16", 16, 20), []);
  });

  it("cidrProblems: an octet with a leading zero is refused with the unambiguous spelling", () =>
    assert.deepEqual(
      cidrProblems("vpcCidr", "010.0.0.0/16", 16, 20).map((p) => `${p.propertyPath}: ${p.reason}`),
      [
        'vpcCidr: must be an IPv4 CIDR such as "203.0.113.0/24"; got "010.0.0.0/16"; without leading zeros (some tools read "010" as octal 8): did you mean "10.0.0.0/16"?',
      ],
    ));
});
