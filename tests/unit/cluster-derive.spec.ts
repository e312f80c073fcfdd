/**
 * The cluster's pure derivations: the EFA network-interface layout of every catalogued EFA type (current and legacy,
 * against the instance catalog's card and device counts) and the values the node groups are built from.
 */
import { strict as assert } from "assert";
import fc from "fast-check";
import { GpuInstance, instance, instanceNames } from "../../components/catalog";
import { ValidationError, valueOf } from "../../components/_shared/problems";
import { EfaClusterArgs, EfaLayout, resolveArgs, resolvePool } from "../../components/cluster/args";
import {
  azIndex,
  capacitySettings,
  efaInterfaceLayout,
  efaSecurityGroupRules,
  gpuPoolsFacts,
  InterfaceSlot,
  isEfa,
  poolLabels,
  poolTaints,
} from "../../components/cluster/derive";
import { thrown } from "../helpers/outputs";

const key = (s: InterfaceSlot) => `${s.networkCardIndex}/${s.deviceIndex}`;
/** The layout of a row that must have one (the test fails with the problems otherwise). */
const layoutOf = (row: GpuInstance, layout: EfaLayout) => valueOf("test", efaInterfaceLayout(row, layout));
/** The problems of a layout that must be refused. */
const refused = (row: GpuInstance, layout: EfaLayout, poolPath?: string) => {
  const c = efaInterfaceLayout(row, layout, poolPath);
  assert.ok(!c.ok, `${row.name} ${layout} should be refused`);
  return c.problems;
};

describe("cluster: EFA interface layout", () => {
  // type, interfaces (current), EFA (current), interfaces (legacy)
  const table: [string, number, number, number][] = [
    ["p4d.24xlarge", 5, 4, 4],
    ["p4de.24xlarge", 5, 4, 4],
    ["p5.48xlarge", 33, 32, 32],
    ["p5e.48xlarge", 33, 32, 32],
    ["p5en.48xlarge", 17, 16, 16],
    ["p6-b200.48xlarge", 9, 8, 8],
    ["p6-b300.48xlarge", 17, 16, -1],
    ["g6e.12xlarge", 2, 1, 1],
    ["g6e.24xlarge", 3, 2, 2],
    ["g6e.48xlarge", 5, 4, 4],
  ];
  for (const [type, nics, efa, legacy] of table) {
    it(`${type}: current ${nics} interfaces (${efa} efa-only), legacy ${legacy < 0 ? "refused" : legacy}`, () => {
      const cur = layoutOf(instance(type), "current");
      assert.equal(cur.length, nics);
      assert.equal(cur.filter((s) => s.interfaceType === "efa-only").length, efa);
      assert.deepEqual(cur[0], { networkCardIndex: 0, deviceIndex: 0, interfaceType: "interface" });
      if (legacy < 0) {
        assert.equal(refused(instance(type), "legacy", "gpuPools.b")[0].propertyPath, "gpuPools.b.efaLayout");
      } else {
        const old = layoutOf(instance(type), "legacy");
        assert.equal(old.length, legacy);
        assert.ok(old.every((s) => s.interfaceType === "efa"));
        assert.deepEqual(old[0], { networkCardIndex: 0, deviceIndex: 0, interfaceType: "efa" });
      }
    });
  }

  it("p5en current layout: card 0 devices 0 and 1, then device 0 of cards 1..15", () => {
    const l = layoutOf(instance("p5en.48xlarge"), "current");
    assert.deepEqual(l.map(key), ["0/0", "0/1", ...Array.from({ length: 15 }, (_, i) => `${i + 1}/0`)]);
  });

  it("p6-b300 current layout skips card 0 for EFA (it has none) and uses cards 1..16", () => {
    const l = layoutOf(instance("p6-b300.48xlarge"), "current");
    assert.deepEqual(l.map(key), ["0/0", ...Array.from({ length: 16 }, (_, i) => `${i + 1}/0`)]);
  });

  it("legacy layout: card 0 device 0, other cards device 1", () => {
    assert.deepEqual(layoutOf(instance("p4d.24xlarge"), "legacy").map(key), ["0/0", "1/1", "2/1", "3/1"]);
  });

  it("a type without EFA is refused with the given path", () => {
    const problems = refused(instance("g5.xlarge"), "current", "gpuPools.x");
    assert.deepEqual(
      problems.map((p) => p.propertyPath),
      ["gpuPools.x.efa"],
    );
    assert.match(problems[0].reason, /g5\.xlarge has no EFA device/);
  });

  it("every EFA type in the catalog gets one EFA interface per EFA device in the current layout", () => {
    for (const n of instanceNames().filter((n) => instance(n).efaDevices > 0)) {
      assert.equal(layoutOf(instance(n), "current").filter(isEfa).length, instance(n).efaDevices, n);
    }
  });

  const rows = fc
    .record({ cards: fc.integer({ min: 1, max: 40 }), card0: fc.boolean() })
    .filter((r) => r.card0 || r.cards >= 2)
    .chain((r) => fc.integer({ min: 1, max: r.card0 ? r.cards : r.cards - 1 }).map((efa) => ({ ...r, efa })))
    .map((r): GpuInstance => ({
      ...instance("p5.48xlarge"),
      name: "x.test",
      networkCards: r.cards,
      card0SupportsEfa: r.card0,
      efaDevices: r.efa,
    }));

  it("property: current layout = 1 ENA at 0/0 + one efa-only per EFA device, unique slots on existing cards", () => {
    fc.assert(
      fc.property(rows, (row) => {
        const l = layoutOf(row, "current");
        const slots = l.map(key);
        assert.equal(new Set(slots).size, slots.length);
        assert.equal(l.filter((s) => s.interfaceType === "interface").length, 1);
        assert.equal(key(l.find((s) => s.interfaceType === "interface")!), "0/0");
        assert.equal(l.filter((s) => s.interfaceType === "efa-only").length, row.efaDevices);
        assert.ok(l.every((s) => s.networkCardIndex < row.networkCards && s.deviceIndex <= 1));
        assert.equal(new Set(l.filter(isEfa).map((s) => s.networkCardIndex)).size, row.efaDevices, "one EFA per card");
        assert.equal(
          l.some((s) => s.networkCardIndex === 0 && isEfa(s)),
          row.card0SupportsEfa,
        );
      }),
    );
  });

  it("property: legacy layout = one efa per EFA device, card 0 first at device 0, refused without EFA on card 0", () => {
    fc.assert(
      fc.property(rows, (row) => {
        if (!row.card0SupportsEfa) {
          assert.equal(refused(row, "legacy")[0].propertyPath, "efaLayout");
          return;
        }
        const l = layoutOf(row, "legacy");
        assert.equal(l.length, row.efaDevices);
        assert.ok(l.every((s) => s.interfaceType === "efa" && s.deviceIndex === (s.networkCardIndex === 0 ? 0 : 1)));
        assert.equal(new Set(l.map(key)).size, l.length);
      }),
    );
  });
});

describe("cluster: security group rules, capacity, labels", () => {
  it("EFA security group: self-referencing all traffic, ingress and egress", () => {
    assert.deepEqual(
      efaSecurityGroupRules().map(({ type, protocol, fromPort, toPort, self }) => ({
        type,
        protocol,
        fromPort,
        toPort,
        self,
      })),
      [
        { type: "ingress", protocol: "-1", fromPort: 0, toPort: 0, self: true },
        { type: "egress", protocol: "-1", fromPort: 0, toPort: 0, self: true },
      ],
    );
  });

  const id = "cr-0123456789abcdef0";
  const cases: [string, Parameters<typeof capacitySettings>[0], ReturnType<typeof capacitySettings>][] = [
    ["on-demand", { capacity: "on-demand" }, { nodeGroupCapacityType: "ON_DEMAND" }],
    [
      "capacity-block",
      { capacity: "capacity-block", capacityReservationId: id },
      {
        nodeGroupCapacityType: "CAPACITY_BLOCK",
        instanceMarketOptions: { marketType: "capacity-block" },
        capacityReservationSpecification: { capacityReservationTarget: { capacityReservationId: id } },
      },
    ],
    [
      "odcr",
      { capacity: "odcr", capacityReservationId: id },
      {
        nodeGroupCapacityType: "ON_DEMAND",
        capacityReservationSpecification: { capacityReservationTarget: { capacityReservationId: id } },
      },
    ],
  ];
  for (const [label, pool, expected] of cases)
    it(`capacity ${label}`, () => assert.deepEqual(capacitySettings(pool), expected));

  it("pool defaults: EFA on for P types, off for g types; placement group only for on-demand EFA pools", () => {
    const p5en = resolvePool("p", { instanceType: "p5en.48xlarge", nodes: 2, availabilityZone: "us-east-2a" });
    assert.deepEqual(
      [p5en.efa, p5en.placementGroup, p5en.efaLayout, p5en.capacity, p5en.rootVolumeSizeGiB],
      [true, true, "current", "on-demand", 100],
    );
    const cb = resolvePool("p", {
      instanceType: "p5.48xlarge",
      nodes: 1,
      availabilityZone: "us-east-2a",
      capacity: "capacity-block",
      capacityReservationId: id,
    });
    assert.equal(cb.placementGroup, false);
    const g = resolvePool("g", { instanceType: "g6e.48xlarge", nodes: 1 });
    assert.deepEqual([g.efa, g.placementGroup], [false, false]);
  });

  it("labels and taints of a pool", () => {
    const p = resolvePool("decode", {
      instanceType: "p5en.48xlarge",
      nodes: 1,
      availabilityZone: "us-east-2a",
      labels: { team: "ml" },
    });
    assert.deepEqual(poolLabels(p), {
      team: "ml",
      "dynamo-efa/pool": "decode",
      "dynamo-efa/instance-type": "p5en.48xlarge",
      "dynamo-efa/efa": "true",
    });
    assert.deepEqual(poolTaints(), [{ key: "nvidia.com/gpu", value: "true", effect: "NO_SCHEDULE" }]);
  });

  it("gpuPools facts: p5en EFA-per-GPU 2, p5 32 EFA, hugepage override, EFA-off pool has none", () => {
    const a = resolveArgs({
      availabilityZones: ["us-east-2a", "us-east-2b"],
      gpuPools: {
        prefill: { instanceType: "p5en.48xlarge", nodes: 2, availabilityZone: "us-east-2a" },
        decode: { instanceType: "p5.48xlarge", nodes: 1, availabilityZone: "us-east-2b", hugepages2MiPerNode: 4096 },
        dev: { instanceType: "g6e.12xlarge", nodes: 1 },
      },
    });
    const f = gpuPoolsFacts(a.pools);
    assert.deepEqual(Object.keys(f).sort(), ["decode", "dev", "prefill"]);
    assert.deepEqual(
      [f.prefill.efaPerNode, f.prefill.efaPerGpu, f.prefill.nodes, f.prefill.availabilityZone],
      [16, 2, 2, "us-east-2a"],
    );
    assert.deepEqual([f.decode.efaPerNode, f.decode.efaPerGpu, f.decode.hugepages2MiPerNode], [32, 4, 4096]);
    assert.deepEqual(
      [f.dev.efaPerNode, f.dev.efaPerGpu, f.dev.hugepages2MiPerNode, f.dev.availabilityZone],
      [0, 0, 0, undefined],
    );
    assert.deepEqual(f.prefill.nodeSelector, {
      "dynamo-efa/pool": "prefill",
      "node.kubernetes.io/instance-type": "p5en.48xlarge",
    });
    assert.deepEqual(f.prefill.taints, [{ key: "nvidia.com/gpu", value: "true", effect: "NoSchedule" }]);
  });

  it("azIndex maps an AZ to its private subnet position and refuses an unknown AZ", () => {
    assert.equal(azIndex(["us-east-2a", "us-east-2b", "us-east-2c"], "us-east-2c"), 2);
    assert.ok(thrown(() => azIndex(["us-east-2a"], "us-east-2d")) instanceof ValidationError);
  });
});

describe("cluster: resolveArgs never throws (validation reports, after it)", () => {
  it("unknown instance types, non-object pools and a missing pool map resolve to defaults instead of throwing", () => {
    const bad = {
      gpuPools: {
        typo: { instanceType: "p5en.48xlarg", nodes: 1, availabilityZone: "us-east-2a" },
        broken: null,
      },
    } as unknown as EfaClusterArgs; // what untyped stack config can hand the component
    const r = resolveArgs(bad);
    assert.deepEqual(
      r.pools.map((p) => [p.name, p.instanceType, p.efa, p.localNvme]),
      [["typo", "p5en.48xlarg", false, false]],
    );
    assert.deepEqual(resolveArgs({} as unknown as EfaClusterArgs).pools, []);
  });
});
