/**
 * The GPU instance catalog: GPUs, SM, EFA devices and cards per type (consistent with each other), which types can
 * carry NIXL over EFA, and the errors for an unknown or arm64 type.
 */
import { strict as assert } from "assert";
import {
  efaPerGpu,
  instance,
  instanceNames,
  supportsNixlOverEfa,
  gpuPoolFacts,
  GPU_TAINT,
  autoArchs,
  consumerArchLists,
  parseArchList,
  resolveCudaArchs,
} from "../../components/catalog";
import { parseCudaToolkit, parseArchToken } from "../../components/catalog/cuda";
import { lookupInstance } from "../../components/catalog/instances";
import { Checked, ValidationError, valueOf } from "../../components/_shared/problems";
import { closest, editDistance } from "../../components/_shared/suggest";
import { thrown } from "../helpers/outputs";

describe("catalog: GPU instances", () => {
  const table: [string, string, number, string, number, number][] = [
    // name, gpu, gpus, sm, efa, efaPerGpu
    ["p4d.24xlarge", "A100 40GB", 8, "sm_80", 4, 0.5],
    ["p5.48xlarge", "H100 80GB", 8, "sm_90", 32, 4],
    ["p5e.48xlarge", "H200 141GB", 8, "sm_90", 32, 4],
    ["p5en.48xlarge", "H200 141GB", 8, "sm_90", 16, 2],
    ["p6-b200.48xlarge", "B200", 8, "sm_100", 8, 1],
    ["p6-b300.48xlarge", "B300", 8, "sm_103", 16, 2],
    ["g6e.48xlarge", "L40S", 8, "sm_89", 4, 0.5],
    ["g6e.12xlarge", "L40S", 4, "sm_89", 1, 0.25],
    ["g5.xlarge", "A10G", 1, "sm_86", 0, 0],
    ["g7e.48xlarge", "RTX PRO 6000 Blackwell", 8, "sm_120", 4, 0.5],
  ];
  for (const [name, gpu, gpus, sm, efa, perGpu] of table) {
    it(`${name}: ${gpus} x ${gpu}, ${sm}, ${efa} EFA, ${perGpu} EFA/GPU`, () => {
      const r = instance(name);
      assert.deepEqual([r.gpuModel, r.gpuCount, r.smArch, r.efaDevices, efaPerGpu(r)], [gpu, gpus, sm, efa, perGpu]);
    });
  }

  it("every row is x86_64 with consistent EFA/card counts", () => {
    for (const n of instanceNames()) {
      const r = instance(n);
      assert.equal(r.cpuArch, "x86_64", n);
      assert.ok(r.efaDevices <= r.networkCards, `${n}: more EFA devices than network cards`);
      assert.equal(r.efaHugepages2Mi > 0, r.efaDevices > 0, `${n}: hugepages only where EFA exists`);
    }
  });

  it("p6-b300 has 17 cards, 16 EFA, and card 0 without EFA", () => {
    const r = instance("p6-b300.48xlarge");
    assert.deepEqual([r.networkCards, r.efaDevices, r.card0SupportsEfa], [17, 16, false]);
  });

  it("NIXL over EFA needs EFA and GPUDirect RDMA", () => {
    assert.equal(supportsNixlOverEfa(instance("p5en.48xlarge")), true);
    assert.equal(supportsNixlOverEfa(instance("g6e.48xlarge")), false);
    assert.equal(supportsNixlOverEfa(instance("g5.xlarge")), false);
  });

  it("an unknown type suggests the closest name", () => {
    const e = thrown(() => instance("p5en.48xlarg", "cluster.gpuNodes.instanceType"));
    assert.ok(e instanceof ValidationError);
    assert.equal(e.problems[0].propertyPath, "cluster.gpuNodes.instanceType");
    assert.equal(e.problems[0].reason, 'unknown GPU instance type "p5en.48xlarg"; did you mean "p5en.48xlarge"?');
  });

  it("an arm64 type is rejected as such", () => {
    const e = thrown(() => instance("p6e-gb200.36xlarge"));
    assert.match(e.problems[0].reason, /arm64 .* only x86_64 GPU instances are supported/);
  });

  it("a name far from everything lists the known types", () => {
    const e = thrown(() => instance("m5.large"));
    assert.match(e.problems[0].reason, /^unknown GPU instance type "m5.large"; known types: g5.12xlarge, /);
  });

  it("pool facts derive from the row", () => {
    const f = gpuPoolFacts(instance("p5en.48xlarge"), {
      name: "gpu",
      nodes: 2,
      efaEnabled: true,
      availabilityZone: "us-east-2a",
    });
    assert.deepEqual(
      [f.gpusPerNode, f.efaPerNode, f.efaPerGpu, f.hugepages2MiPerNode, f.smArch],
      [8, 16, 2, 5128, "sm_90"],
    );
    assert.deepEqual(f.nodeSelector, { "dynamo-efa/pool": "gpu", "node.kubernetes.io/instance-type": "p5en.48xlarge" });
    assert.deepEqual(f.taints, [GPU_TAINT]);
    const off = gpuPoolFacts(instance("p5en.48xlarge"), { name: "gpu", nodes: 1, efaEnabled: false });
    assert.deepEqual([off.efaPerNode, off.efaPerGpu, off.hugepages2MiPerNode], [0, 0, 0]);
  });
});

describe("suggest", () => {
  for (const [a, b, d] of [
    ["kitten", "sitting", 3],
    ["", "abc", 3],
    ["sm_90", "sm_9O", 1],
    ["same", "same", 0],
    ["modle", "model", 1],
    ["ca", "abc", 3],
  ] as const) {
    it(`editDistance(${a}, ${b}) = ${d}`, () => assert.equal(editDistance(a, b), d));
  }
  it("closest keeps only the nearest names, sorted", () => {
    assert.deepEqual(closest("p5.48xlarg", ["p5.48xlarge", "p5e.48xlarge", "g5.48xlarge", "zzz"]), ["p5.48xlarge"]);
    assert.deepEqual(closest("g5.48xlarg", ["g6.48xlarge", "g5.48xlarge", "g5.24xlarge"]), ["g5.48xlarge"]);
    assert.deepEqual(closest("x5.48xlarge", ["p5.48xlarge", "g5.48xlarge"]), ["g5.48xlarge", "p5.48xlarge"]);
    assert.deepEqual(closest("m5.large", ["g5.xlarge"]), []);
  });
});

describe("catalog: bad input comes back as problems, never as a throw", () => {
  const sm88 = valueOf("test", parseArchList(["sm_88"], "13.0", "p"));
  const cases: [string, () => Checked<unknown>, string, RegExp][] = [
    [
      "lookupInstance",
      () => lookupInstance("p5en.48xlarg", "gpuPools.a.instanceType"),
      "gpuPools.a.instanceType",
      /did you mean "p5en\.48xlarge"/,
    ],
    ["parseCudaToolkit", () => parseCudaToolkit("11.8", "cudaToolkit"), "cudaToolkit", /oldest supported/],
    ["parseArchToken", () => parseArchToken("sm_9O", "12.9", "cudaArchs[0]"), "cudaArchs[0]", /did you mean "sm_90"/],
    ["parseArchList", () => parseArchList([], "12.9", "cudaArchs"), "cudaArchs", /at least one arch token/],
    ["autoArchs", () => autoArchs([], "12.9", "instanceTypes"), "instanceTypes", /at least one GPU instance type/],
    [
      "resolveCudaArchs",
      () => resolveCudaArchs("fta", { toolkit: "12.9" }, "cudaArchs"),
      "cudaArchs",
      /did you mean "fat"/,
    ],
    [
      "consumerArchLists",
      () => consumerArchLists(sm88, { toolkit: "13.0", torch: "2.10" }, "cudaArchs"),
      "cudaArchs",
      /rejects sm_88/,
    ],
  ];
  for (const [name, call, path, reason] of cases) {
    it(`${name} returns the problem at ${path}`, () => {
      let c: Checked<unknown> | undefined;
      assert.doesNotThrow(() => (c = call()));
      assert.ok(c && !c.ok, `${name} accepted bad input`);
      assert.equal(c.problems[0].propertyPath, path);
      assert.match(c.problems[0].reason, reason);
    });
  }
});
