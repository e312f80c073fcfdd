/**
 * The stack config is the component arguments (program/config.ts, program/keys.ts): the key tables the compiler
 * checks against the argument types, one walker for unknown, renamed and program-set keys, each component's own
 * validator at the key the user wrote, one default per setting.
 */
import { strict as assert } from "assert";
import { bool, int, KeyShape, listOf, str } from "../../components/_shared/keys";
import type { ModelCacheArgs } from "../../components/inference/args";
import { resolveArgs as resolveInference } from "../../components/inference/args";
import { atStackKey, checkStackConfig, rawStackConfig } from "../../program/config";
import { MODEL, pool } from "../helpers/inference-fixtures";

const good = {
  region: "us-east-2",
  hfTokenSet: true,
  cluster: {
    availabilityZones: ["us-east-2a", "us-east-2b"],
    publicAccessCidrs: ["203.0.113.0/24"],
    gpuPools: { gpu: { instanceType: "p5en.48xlarge", nodes: 2, availabilityZone: "us-east-2b" } },
  },
  inference: { model: MODEL },
};
const lines = (over: object) =>
  checkStackConfig({ ...good, ...over, offline: true }).problems.map((p) => `${p.propertyPath}: ${p.reason}`);

describe("stack config: the component arguments, walked against the key tables", () => {
  it("a plain argument no earlier schema reached is settable and arrives unchanged", () => {
    const gpu = { ...good.cluster.gpuPools.gpu, hugepages2MiPerNode: 5120, efaLayout: "legacy" };
    const { config, problems } = checkStackConfig({
      ...good,
      offline: true,
      cluster: { ...good.cluster, gpuPools: { gpu } },
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(config!.clusterArgs.gpuPools!.gpu, gpu);
    assert.equal(config!.clusterArgs.region, "us-east-2", "the region is wired from aws:region");
  });

  it("each renamed key fails naming the key it became", () => {
    const old = lines({
      cluster: {
        availabilityZone: "us-east-2b",
        gpuNodes: {
          instanceType: "p5en.48xlarge",
          count: 2,
          capacity: { type: "odcr", reservationId: "cr-0123456789abcdef0" },
        },
      },
      inference: { model: MODEL, modelCacheGiB: 500, platform: { install: true, version: "1.0.1" } },
      observability: { enabled: false },
    });
    for (const [from, to] of [
      ["cluster.availabilityZone", "cluster.gpuPools.gpu.availabilityZone"],
      ["cluster.gpuNodes.instanceType", "cluster.gpuPools.gpu.instanceType"],
      ["cluster.gpuNodes.count", "cluster.gpuPools.gpu.nodes"],
      ["cluster.gpuNodes.capacity.type", "cluster.gpuPools.gpu.capacity"],
      ["cluster.gpuNodes.capacity.reservationId", "cluster.gpuPools.gpu.capacityReservationId"],
      ["inference.modelCacheGiB", "inference.modelCache.sizeGiB"],
      ["inference.platform.version", "platform.version"],
      ["inference.platform.install", "nothing: the program always installs the platform"],
      ["observability.enabled", "observability: false"],
    ])
      assert.ok(
        old.some((l) => l.startsWith(`${from}: was renamed: write ${to}`)),
        `${from} -> ${to}:\n${old.join("\n")}`,
      );
  });

  it("unknown keys: did you mean, the keys there are, a dotted key, YAML's missing space after a colon", () => {
    assert.deepEqual(lines({ inference: { model: MODEL, modelRevison: "main" } }), [
      'inference.modelRevison: unknown key; did you mean "modelRevision"?',
    ]);
    // The table's keys in order, less those the program sets (release, which comes first, is wired).
    assert.match(
      lines({ inference: { model: MODEL, zzz: 1 } })[0],
      /^inference\.zzz: unknown key; the keys here are backend, model, servedModelName, /,
    );
    assert.deepEqual(lines({ inference: { model: MODEL, "prefill.replicas": 2 } }), [
      "inference.prefill.replicas: unknown key; a dotted key is one literal key, not a path: nest it as prefill: { replicas: ... }",
    ]);
    assert.deepEqual(lines({ inference: { model: MODEL, workload: { "isl:4000": null } } }), [
      "inference.workload.isl:4000: unknown key; did you mean `isl: 4000` (YAML needs a space after the colon)?",
    ]);
  });

  it("__proto__, constructor and prototype are unknown keys, never dropped (JSON as Pulumi hands it over)", () => {
    const raw = rawStackConfig(
      (k) =>
        ({
          "aws:region": "us-east-2",
          "dynamo-efa:cluster": JSON.stringify(good.cluster),
          "dynamo-efa:inference": `{"model":"${MODEL}","__proto__":{"kvTransport":"ucx"},"constructor":1,"frontend":{"prototype":2}}`,
        })[k],
      ["aws:region", "dynamo-efa:cluster", "dynamo-efa:inference"],
      true,
      true,
    );
    assert.deepEqual(
      checkStackConfig(raw).problems.map((p) => p.propertyPath),
      ["inference.__proto__", "inference.constructor", "inference.frontend.prototype"],
    );
  });

  it("full keys: a dotted key, a look-alike namespace, a near miss of aws:region, an old top-level key", () => {
    const { problems } = checkStackConfig({
      ...good,
      offline: true,
      keys: ["dynamo-efa:inference.model", "dynamo_efa:graphName", "aws:regoin", "dynamo-efa:cluster"],
    });
    assert.deepEqual(
      problems.map((p) => p.propertyPath),
      ["dynamo-efa:inference.model", "dynamo_efa:graphName", "aws:regoin"],
    );
  });

  it("an argument the program sets is refused at its key, naming where it comes from", () => {
    assert.deepEqual(lines({ inference: { model: MODEL, gpuPool: {} }, image: { instanceTypes: ["p5.48xlarge"] } }), [
      "image.instanceTypes: is set by the program from the instance types of cluster.gpuPools; remove it",
      "inference.gpuPool: is set by the program from the pool of cluster.gpuPools; remove it",
    ]);
  });

  it("objects and lists where the table has them; each value of its kind, at the key written", () => {
    assert.deepEqual(lines({ inference: { model: MODEL, frontend: { sourceRanges: "10.0.0.0/16" } } }), [
      'inference.frontend.sourceRanges: must be a list of strings; got "10.0.0.0/16" (a string); did you mean ["10.0.0.0/16"]?',
    ]);
    assert.match(lines({ cluster: "x" })[0], /^cluster: must be an object of gpuPools, poolInstanceTypes, region, /);
    assert.deepEqual(
      lines({ inference: { model: MODEL, prefill: { replicas: "four" } } }).map((l) => l.split(":")[0]),
      ["inference.prefill.replicas"],
    );
  });

  it("every problem at once: a bad pool count does not hide the graph's own problems", () => {
    const gpu = { ...good.cluster.gpuPools.gpu, nodes: -1 };
    const paths = checkStackConfig({
      ...good,
      cluster: { ...good.cluster, gpuPools: { gpu } },
      inference: { model: MODEL, backend: "tensorrt", decode: { replicas: 2.5, gpusPerWorker: 1 } },
    }).problems.map((p) => p.propertyPath);
    for (const p of ["cluster.gpuPools.gpu.nodes", "inference.backend", "inference.decode.replicas"])
      assert.ok(paths.includes(p), `${p} in ${paths}`);
  });

  it("a wired argument's problem is shown at the key it comes from", () => {
    const p = (component: string, propertyPath: string) =>
      atStackKey(component, { propertyPath, reason: "r" }, "big").propertyPath;
    assert.deepEqual(
      [
        p("EfaCluster", "region"),
        p("EfaCluster", "gpuPools.big.nodes"),
        p("DynamoImage", "instanceTypes[0]"),
        p("DisaggInference", "inference.gpuPool.cpuArch"),
        p("DisaggInference", "image"),
        p("DisaggInference", "inference.prefill.replicas"),
      ],
      [
        "aws:region",
        "cluster.gpuPools.big.nodes",
        "cluster.gpuPools.big.instanceType",
        "cluster.gpuPools.big.instanceType",
        "image.ref",
        "inference.prefill.replicas",
      ],
    );
  });

  it("one typo, one problem: a value wired into another component is checked once, where the user wrote it", () => {
    assert.deepEqual(lines({ inference: { model: MODEL, backend: "trtlm" } }), [
      'inference.backend: must be one of "vllm", "trtllm"; got "trtlm"; did you mean "trtllm"?',
    ]);
    const typo = lines({
      cluster: { ...good.cluster, gpuPools: { gpu: { ...good.cluster.gpuPools.gpu, instanceType: "p5en.48xlage" } } },
    });
    assert.equal(typo.length, 1, typo.join("\n"));
    assert.match(
      typo[0]!,
      /^cluster\.gpuPools\.gpu\.instanceType: unknown GPU instance type "p5en\.48xlage"; did you mean "p5en\.48xlarge"\?/,
    );
    // The image's own mistakes are still its own, beside a cluster typo.
    const both = lines({
      cluster: { ...good.cluster, gpuPools: { gpu: { ...good.cluster.gpuPools.gpu, instanceType: "p5en.48xlage" } } },
      image: { source: "sourc" },
    });
    assert.ok(
      both.some((l) => l.startsWith("image.source:")),
      both.join("\n"),
    );
  });

  it("one typo, one problem: a wrong gpusPerWorker, a zone, a pool's name; a swapped pair of letters is one edit", () => {
    const gpu = good.cluster.gpuPools.gpu;
    // 3 GPUs per worker on 8-GPU nodes: reported where it was written, not also as GPUs the pool lacks.
    assert.deepEqual(lines({ inference: { model: MODEL, decode: { gpusPerWorker: 3 } } }), [
      "inference.decode.gpusPerWorker: (3) must divide the 8 GPUs of a p5en.48xlarge node; use one of 1, 2, 4, 8",
    ]);
    // More replicas than GPUs, with every role valid, is still the pool's problem.
    assert.deepEqual(
      lines({ inference: { model: MODEL, decode: { replicas: 9 } } }).map((l) => l.split(":")[0]),
      ["cluster.gpuPools.gpu"],
    );
    // "us-east-2x" for "us-east-2b": the zone's own problem, not also the pool's zone missing from the list.
    const zone = lines({ cluster: { ...good.cluster, availabilityZones: ["us-east-2a", "us-east-2x"] } });
    assert.deepEqual(
      zone.map((l) => l.split(":")[0]),
      ["cluster.availabilityZones[1]"],
    );
    // A typo in the pool's name makes a second pool: one problem that names the near pool.
    const pools = lines({ cluster: { ...good.cluster, gpuPools: { gpu, gpux: { nodes: 4 } } } });
    assert.deepEqual(pools, [
      'cluster.gpuPools: this program serves one graph on one GPU pool; got 2 (gpu, gpux); "gpux" looks like a typo of "gpu". Keep one, or compose the components for more',
    ]);
    assert.deepEqual(lines({ inference: { model: MODEL, modle: "x" } }), [
      'inference.modle: unknown key; did you mean "model"?',
    ]);
    // A KV cache dtype is checked where it was written (it once reached the fit as NaN bytes per token).
    assert.deepEqual(lines({ inference: { model: MODEL, kvCacheDtype: "fp9" } }), [
      'inference.kvCacheDtype: must be one of "auto", "fp8"; got "fp9"; did you mean "fp8"?',
    ]);
    assert.deepEqual(lines({ cluster: { ...good.cluster, deviceAllocation: "draa" } }), [
      'cluster.deviceAllocation: must be one of "device-plugin", "dra"; got "draa"; did you mean "dra"?',
    ]);
  });

  it("an unknown key's list offers only keys a user may write, never one the program sets", () => {
    const [line] = lines({ inference: { model: MODEL, zzz: 1 } });
    assert.match(line!, /^inference\.zzz: unknown key; the keys here are backend, model, /);
    for (const wired of ["release", "gpuPool", "graphName", "imageCudaArchs"])
      assert.ok(!line!.split("keys here are ")[1]!.split(", ").includes(wired), `${wired} offered: ${line}`);
  });

  it("the EFS cache's error names today's key, which is accepted (no loop through a renamed one)", () => {
    const efs = lines({ inference: { model: MODEL, modelCacheMode: "efs" } });
    assert.ok(
      efs.some((l) => l.includes("set inference.modelCache.sizeGiB")),
      efs.join("\n"),
    );
    const fixed = lines({ inference: { model: MODEL, modelCacheMode: "efs", modelCache: { sizeGiB: 500 } } });
    assert.ok(!fixed.some((l) => /was renamed|modelCacheGiB/.test(l)), fixed.join("\n"));
  });

  it("modelCacheMode has one default, the component's: local-nvme on a pool with an NVMe array, else none", () => {
    const withNvme = pool("p5en.48xlarge", 2, true, { localNvme: { mountPath: "/mnt/k8s-disks/0", sizeGB: 30400 } });
    assert.ok(withNvme.localNvme, "the fixture pool has an NVMe array");
    assert.equal(resolveInference("llm", { model: MODEL, gpuPool: withNvme }, undefined).modelCacheMode, "local-nvme");
    assert.equal(
      resolveInference("llm", { model: MODEL, gpuPool: pool("p5en.48xlarge", 2, true) }, undefined).modelCacheMode,
      "none",
    );
    const { config } = checkStackConfig({ ...good, offline: true });
    assert.equal(config!.inference.modelCacheMode, undefined, "the program states no default of its own");
  });

  it("a key table must name every argument and nothing else, each with its argument's kind (checked by tsc)", () => {
    const sizes = { min: 10, max: 100 };
    // @ts-expect-error: sizeGiB is missing
    const missing: KeyShape<ModelCacheArgs> = { storageClassName: str };
    // @ts-expect-error: sizeGB is not an argument
    const extra: KeyShape<ModelCacheArgs> = { storageClassName: str, sizeGiB: int(sizes), sizeGB: int(sizes) };
    // @ts-expect-error: sizeGiB is a number, not a boolean
    const wrongKind: KeyShape<ModelCacheArgs> = { storageClassName: str, sizeGiB: bool };
    // @ts-expect-error: storageClassName is a string, not a list
    const wrongList: KeyShape<ModelCacheArgs> = { storageClassName: listOf(str), sizeGiB: int(sizes) };
    const right: KeyShape<ModelCacheArgs> = { storageClassName: str, sizeGiB: int(sizes) };
    assert.ok(missing && extra && wrongKind && wrongList && right);
  });
});
