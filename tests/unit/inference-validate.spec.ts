/**
 * `DisaggInference`'s validator (components/inference/validate.ts) against a table of bad settings: the exact
 * property path and message of every problem, all reported in one list, plus the image checked at deployment.
 */
import { strict as assert } from "assert";
import {
  Backend,
  FrontendServiceType,
  InferenceSettings,
  resolveArgs,
  ResolvedInference,
  ServingRole,
  validate,
} from "../../components/inference";
import { renderWorker } from "../../components/inference/graph";
import { nodesNeeded, nodesPerRole } from "../../components/inference/fit";
import { validateImage } from "../../components/inference/validate";
import { IMAGE, MODEL, pool, resolved } from "../helpers/inference-fixtures";

type Case = [
  title: string,
  spec: () => ResolvedInference,
  expected: [path: string, reason: string][],
  hasToken?: boolean,
];
const over =
  (o: Partial<InferenceSettings>, variant: "p5en-1gpu" | "p5en-8x1gpu" = "p5en-1gpu") =>
  () =>
    resolved(variant, "vllm", o);

const cases: Case[] = [
  [
    "a router mode the release does not offer",
    over({ frontend: { routerMode: "kv" }, release: "seed" }),
    [["frontend.routerMode", 'must be a router mode release "seed" offers ("round-robin"); got "kv"']],
  ],
  [
    "the KV router with several Frontends (the flows between KV-router replicas were not read)",
    over({ frontend: { routerMode: "kv", replicas: 2 } }),
    [
      [
        "frontend.replicas",
        'must be 1 with frontend.routerMode "kv"; got 2. KV routers of several Frontends sync their state with each other, and those flows were not read, so the NetworkPolicies would not admit them. Use one Frontend, or routerMode "round-robin"',
      ],
    ],
  ],
  [
    "a Frontend switch the release has none for, and a switch that is not a boolean",
    over({ frontend: { adminApi: true, nvext: "false" as unknown as boolean }, release: "seed" }),
    [
      [
        "frontend.adminApi",
        'cannot be turned on with release "seed": its runtime has no switch this package read (the surface is off there). Remove it, or use release "dynamo-1.6"',
      ],
      ["frontend.nvext", 'must be true or false; got "false"'],
    ],
  ],
  [
    "unknown backend lists the choices",
    () => resolved("p5en-1gpu", "vlm" as Backend), // a typo only untyped config can send
    [["backend", 'must be one of "vllm", "trtllm"; got "vlm"; did you mean "vllm"?']],
  ],
  [
    "empty model",
    over({ model: " " }),
    [["model", 'must name a model, e.g. "meta-llama/Llama-3.1-8B-Instruct"; got " "']],
  ],
  [
    "replicas are positive integers",
    over({ prefill: { replicas: 0, gpusPerWorker: 1 }, decode: { replicas: 1.5, gpusPerWorker: 1 } }),
    [
      ["prefill.replicas", "must be a whole number 1..3600; got 0"],
      ["decode.replicas", "must be a whole number 1..3600; got 1.5"],
    ],
  ],
  [
    "gpusPerWorker is a positive integer",
    over({ decode: { replicas: 1, gpusPerWorker: -2 } }),
    [["decode.gpusPerWorker", "must be a whole number 1..8; got -2"]],
  ],
  [
    "gpusPerWorker divides the node's GPUs",
    over({ prefill: { replicas: 1, gpusPerWorker: 3 } }),
    [["prefill.gpusPerWorker", "(3) must divide the 8 GPUs of a p5en.48xlarge node; use one of 1, 2, 4, 8"]],
  ],
  [
    "whole EFA devices per worker (p4d: 0.5 per GPU)",
    over({ gpuPool: pool("p4d.24xlarge", 1) }),
    [
      [
        "prefill.gpusPerWorker",
        "(1) gives 0.5 EFA devices per worker on p4d.24xlarge (0.5 EFA per GPU); a worker needs a whole number >= 1 of EFA devices: use a multiple of 2 GPUs per worker",
      ],
      [
        "decode.gpusPerWorker",
        "(1) gives 0.5 EFA devices per worker on p4d.24xlarge (0.5 EFA per GPU); a worker needs a whole number >= 1 of EFA devices: use a multiple of 2 GPUs per worker",
      ],
    ],
  ],
  [
    "total GPUs fit the pool (both numbers shown)",
    over({ prefill: { replicas: 9, gpusPerWorker: 1 }, placement: "any" }, "p5en-8x1gpu"),
    [
      [
        "gpuPool",
        "prefill 9 x 1 GPU + decode 8 x 1 GPU = 17 GPUs exceed the pool's 16 GPUs (2 x p5en.48xlarge x 8); add nodes or lower replicas",
      ],
    ],
  ],
  [
    "separate-node placement needs >= 2 nodes",
    over({ placement: "separate-nodes", gpuPool: pool("p5en.48xlarge", 1) }),
    [["placement", '"separate-nodes" needs a pool of >= 2 nodes; pool "gpu" has 1. Add a node or set placement "any"']],
  ],
  [
    "separate-node placement: each role needs whole nodes of its own (24 GPUs fit 3 nodes, 12 + 12 workers do not)",
    over({
      gpuPool: pool("p5en.48xlarge", 3),
      prefill: { replicas: 12, gpusPerWorker: 1 },
      decode: { replicas: 12, gpusPerWorker: 1 },
    }),
    [
      [
        "gpuPool",
        'placement "separate-nodes" gives each node to one role: prefill 12 x 1 GPU needs 2 node(s), decode 12 x 1 GPU needs 2 node(s) of 8 GPUs = 4 nodes; pool "gpu" has 3. Add nodes (4) or lower replicas (plan.md\'s balanced split fits the nodes the graph takes)',
      ],
    ],
  ],
  [
    "separate-node placement without EFA (UCX): placement any is offered as a fix, the pack allowing it there",
    over({
      gpuPool: pool("p5en.48xlarge", 3),
      kvTransport: "ucx",
      prefill: { replicas: 12, gpusPerWorker: 1 },
      decode: { replicas: 12, gpusPerWorker: 1 },
    }),
    [
      [
        "gpuPool",
        'placement "separate-nodes" gives each node to one role: prefill 12 x 1 GPU needs 2 node(s), decode 12 x 1 GPU needs 2 node(s) of 8 GPUs = 4 nodes; pool "gpu" has 3. Add nodes (4) or lower replicas (plan.md\'s balanced split fits the nodes the graph takes), or set placement "any"',
      ],
    ],
  ],
  [
    "more GPUs than the pool: only the GPU total is reported, not the node split as well",
    over({ decode: { replicas: 3, gpusPerWorker: 4 } }, "p5en-8x1gpu"),
    [
      [
        "gpuPool",
        "prefill 8 x 1 GPU + decode 3 x 4 GPU = 20 GPUs exceed the pool's 16 GPUs (2 x p5en.48xlarge x 8); add nodes or lower replicas",
      ],
    ],
  ],
  [
    "EFA pool without GPUDirect RDMA",
    over({
      gpuPool: pool("g6e.48xlarge", 1),
      prefill: { replicas: 1, gpusPerWorker: 2 },
      decode: { replicas: 1, gpusPerWorker: 2 },
    }),
    [
      [
        "gpuPool",
        `pool "gpu" (g6e.48xlarge) has EFA but no GPUDirect RDMA (false); NIXL's LIBFABRIC plugin needs it to move KV cache from GPU memory. Use a P-family pool (p4d, p5, p5e, p5en, p6) or disable EFA on this pool (KV then moves over UCX)`,
      ],
    ],
  ],
  [
    "hugepages per node must leave a page per co-located worker",
    over({ gpuPool: pool("p5en.48xlarge", 2, true, { hugepages2MiPerNode: 7 }) }, "p5en-8x1gpu"),
    [
      [
        "gpuPool.hugepages2MiPerNode",
        "(7) 2 MiB hugepages per node leave less than one page for each of 8 workers per node; set the value measured on your nodes (HugePages_Total in /proc/meminfo), 0 to run without hugepages (FI_EFA_USE_HUGE_PAGE=0), or use more GPUs per worker",
      ],
    ],
  ],
  [
    "kvTransport is a closed choice",
    over({ kvTransport: "tcp" as never }),
    [["kvTransport", 'must be one of "auto", "libfabric", "ucx"; got "tcp"']],
  ],
  [
    "kvTransport libfabric needs an EFA pool",
    over({ kvTransport: "libfabric", gpuPool: pool("p5en.48xlarge", 1, false) }),
    [
      [
        "kvTransport",
        '"libfabric" moves KV over EFA, but pool "gpu" (p5en.48xlarge) has no EFA attached; use "auto" or "ucx" (KV over TCP), or a P-family pool with EFA',
      ],
    ],
  ],
  [
    "kvTransport ucx does not need whole EFA devices (p4d) because workers get none",
    over({ kvTransport: "ucx", gpuPool: pool("p4d.24xlarge", 1) }),
    [],
  ],
  [
    "image must be digest-pinned",
    () => resolved("p5en-1gpu", "vllm", {}, "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.1"),
    [
      [
        "image",
        'must be digest-pinned as "<repository>@sha256:<64 hex digits>" so the graph rolls only on a real image change; got "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.1". Use DynamoImage.ref or append the digest shown by `docker buildx imagetools inspect`',
      ],
    ],
  ],
  [
    "HF token or an existing secret is required",
    () => resolved("p5en-1gpu"),
    [
      [
        "hfToken",
        "is required unless hfTokenSecretName names an existing Secret with keys HF_TOKEN and HUGGING_FACE_HUB_TOKEN; pass it as a Pulumi secret (config --secret)",
      ],
    ],
    false,
  ],
  [
    "HF token and an existing secret name are exclusive",
    over({ hfTokenSecretName: "mine" }),
    [
      [
        "hfTokenSecretName",
        '("mine") and hfToken are both set; pass only one: the token (the component creates the Secret) or the name of an existing Secret',
      ],
    ],
  ],
  [
    "arm64 pools are rejected",
    over({ gpuPool: pool("p5en.48xlarge", 1, true, { cpuArch: "arm64" }) }),
    [["gpuPool.cpuArch", 'must be "x86_64" (the combined image is linux/amd64); got "arm64"']],
  ],
  [
    "a missing pool is named",
    () => resolveArgs("llama", { model: MODEL } as unknown as InferenceSettings, IMAGE), // no gpuPool
    [["gpuPool", "is required: pass EfaCluster.gpuPools[<name>] or GpuPoolFacts written by hand"]],
  ],
  [
    "every scalar problem at once",
    over({
      gpuMemoryUtilization: 1.5,
      maxModelLen: 0,
      modelLoadBudgetSeconds: 30,
      namespace: "Bad_NS",
      frontend: { replicas: 0, serviceType: "NodePort" as FrontendServiceType },
      modelCache: { storageClassName: "", sizeGiB: 0 },
    }),
    [
      ["frontend.serviceType", 'must be one of "ClusterIP", "InternalLoadBalancer"; got "NodePort"'],
      ["maxModelLen", "must be a whole number 1..2097152; got 0"],
      ["modelLoadBudgetSeconds", "must be a whole number 60..86400; got 30"],
      ["frontend.replicas", "must be a whole number 1..16; got 0"],
      ["gpuMemoryUtilization", "must be a fraction in (0, 1], e.g. 0.85; got 1.5"],
      ["namespace", 'must be a lower-case RFC 1123 name (a-z, 0-9, "-", <= 63 characters); got "Bad_NS"'],
      ["modelCache.sizeGiB", "must be a whole number 10..65536; got 0"],
      ["modelCache.storageClassName", 'must name a StorageClass that serves ReadWriteMany (e.g. EFS); got ""'],
    ],
  ],
];

describe("inference: validation messages (exact)", () => {
  for (const [title, spec, expected, hasToken] of cases) {
    it(title, () => {
      assert.deepEqual(
        validate(spec(), hasToken ?? true).map((p) => [p.propertyPath, p.reason]),
        expected,
      );
    });
  }

  it("prefixes every path with the config base", () => {
    assert.deepEqual(
      validate(resolved("p5en-1gpu", "vllm", { model: "" }), true, "inference").map((p) => p.propertyPath),
      ["inference.model"],
    );
  });

  it("both reference variants and both backends are valid", () => {
    for (const v of ["p5en-1gpu", "p5en-8x1gpu"] as const)
      for (const b of ["vllm", "trtllm"] as const) assert.deepEqual(validate(resolved(v, b), true), []);
  });

  it("separate-nodes scales past two nodes: 16 + 16 on 4 x p5en, 70B at TP2 8 + 8 on 4; nodes per role from the replicas", () => {
    const on4 = (o: Partial<InferenceSettings>) =>
      resolved("p5en-8x1gpu", "vllm", { gpuPool: pool("p5en.48xlarge", 4), ...o });
    const big = on4({ prefill: { replicas: 16, gpusPerWorker: 1 }, decode: { replicas: 16, gpusPerWorker: 1 } });
    assert.deepEqual([validate(big, true), nodesPerRole(big), nodesNeeded(big)], [[], { prefill: 2, decode: 2 }, 4]);
    const tp2 = on4({
      model: "meta-llama/Llama-3.1-70B-Instruct",
      prefill: { replicas: 8, gpusPerWorker: 2 },
      decode: { replicas: 8, gpusPerWorker: 2 },
    });
    assert.deepEqual(validate(tp2, true), []);
    const any = on4({ placement: "any", prefill: { replicas: 12, gpusPerWorker: 1 } });
    assert.deepEqual([nodesNeeded(any), nodesNeeded({ ...any, placement: "separate-nodes" })], [3, 3]);
    const odd = on4({ prefill: { replicas: 4, gpusPerWorker: 1 }, decode: { replicas: 4, gpusPerWorker: 1 } });
    assert.deepEqual([nodesNeeded(odd), nodesNeeded({ ...odd, placement: "any" })], [2, 1]);
  });

  it("an image known only at deployment is checked then (validateImage)", () => {
    assert.deepEqual(validate(resolved("p5en-1gpu", "vllm", {}, undefined), true), []);
    assert.deepEqual(validateImage(IMAGE), []);
    assert.equal(validateImage("repo@sha256:abc").length, 1);
  });

  it("the prefetch image goes through DynamoImage.ref's parser: what no registry pulls is refused", () => {
    const digest = `@sha256:${"a".repeat(64)}`;
    const refused = [
      "../../x",
      "../x",
      "UPPER/Case",
      "$(id)",
      "python;id",
      "-python",
      "ｐｙｔｈｏｎ",
      "py\u202Ethon",
      "a".repeat(300),
    ];
    for (const repo of refused)
      assert.deepEqual(
        validateImage(`${repo}${digest}`, "prefetchImage").map((p) => p.propertyPath),
        ["prefetchImage"],
        `${repo}${digest} must be refused`,
      );
    for (const ok of ["python", "public.ecr.aws/docker/library/python", "registry.local:5000/team/py", "[::1]:5000/py"])
      assert.deepEqual(validateImage(`${ok}${digest}`), [], ok);
  });

  it("0 hugepages on an EFA pool: no hugepage request and FI_EFA_USE_HUGE_PAGE=0", () => {
    const r = resolved("p5en-1gpu", "vllm", { gpuPool: pool("p5en.48xlarge", 1, true, { hugepages2MiPerNode: 0 }) });
    assert.deepEqual(validate(r, true), []);
    const w = renderWorker(r, ServingRole.Prefill, IMAGE);
    assert.equal(w.resources?.limits?.custom?.["hugepages-2Mi"], undefined);
    assert.ok(w.envs?.some((e) => e.name === "FI_EFA_USE_HUGE_PAGE" && e.value === "0"));
  });

  it("a model that cannot run is reported with an unrelated bad argument, in the same list", () => {
    const r = resolved("p5en-1gpu", "vllm", { model: "meta-llama/Llama-3.1-70B-Instruct", namespace: "Bad_NS" });
    assert.deepEqual(
      validate(r, true).map((p) => p.propertyPath),
      ["namespace", "prefill.gpusPerWorker", "decode.gpusPerWorker"],
    );
  });
});
