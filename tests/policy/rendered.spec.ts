/**
 * The policy pack over the real rendered plans (the offline `render` of both stacks): every policy
 * passes as shipped, and flipping each field failure F1-F14 that a policy covers, in the rendered
 * p5en-8gpu plan, makes exactly that policy fire. The stack is rendered once; each mutation edits a copy of its
 * plan in memory and runs the policies over it, and one mandatory and one advisory mutation go through the whole
 * `render` to prove the exit codes (1 and 0) follow the policy run.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import { FIELD_FAILURES, POLICY_NAMES } from "../../policy/policies";
import { PlanResource } from "../../policy/plan-args";
import { PolicyPackConfigJson } from "../../policy/policies";
import { ExitCode } from "../../tools/_shared/exit-codes";
import { loose } from "../helpers/policy-graph-fixtures";
import { T } from "../helpers/policy-fixtures";
import {
  FIELD_RELEASE,
  graph,
  image,
  main,
  one,
  policiesOver,
  render,
  renderOutDir,
  svc,
} from "../helpers/policy-render";
import { failedBeyondKnownIssues } from "../helpers/policy-harness";

const OUT = renderOutDir();
const setArg = (args: string[], flag: string, value: string) => {
  args[args.indexOf(flag) + 1] = value;
};

/**
 * F-number, what is flipped, the edit, the policy that must fire, config when it is advisory by
 * default, and any other policy the same edit rightly trips.
 */
type Mutation = readonly [
  f: string,
  title: string,
  edit: (plan: PlanResource[]) => PlanResource[] | void,
  policy: string,
  config?: PolicyPackConfigJson,
  also?: readonly string[],
];

const MUTATIONS: readonly Mutation[] = [
  [
    "F1",
    "Frontend, prefill and decode split into three graphs",
    (plan) => {
      const g = one(plan, T.Dgd);
      const props = graph(plan);
      const part = (key: string): PlanResource => ({
        ...g,
        name: `${g.name}-${key}`,
        urn: `${g.urn}-${key}`,
        props: {
          ...props,
          metadata: { ...props.metadata, name: `${props.metadata.name}-${key.toLowerCase()}` },
          spec: { ...props.spec, services: { [key]: props.spec.services[key] } },
        },
      });
      return [...plan.filter((r) => r !== g), part("Frontend"), part("PrefillWorker"), part("DecodeWorker")];
    },
    "one-graph-per-model",
  ],
  [
    "F2",
    "decode worker without its own probes (the operator's 30 s default)",
    (plan) => {
      delete svc(plan, "DecodeWorker").readinessProbe;
      delete main(plan, "DecodeWorker").startupProbe;
    },
    "worker-probe-budget",
  ],
  [
    "F3",
    "vLLM --kv-transfer-config without LIBFABRIC (UCX by default), NIXL_BACKEND set instead",
    (plan) => {
      setArg(
        main(plan, "PrefillWorker").args!,
        "--kv-transfer-config",
        '{"kv_connector":"NixlConnector","kv_role":"kv_both"}',
      );
      svc(plan, "PrefillWorker").envs!.push({ name: "NIXL_BACKEND", value: "LIBFABRIC" });
    },
    "nixl-libfabric-on-efa",
    undefined,
    ["no-noop-nixl-env"],
  ],
  [
    "F5",
    "a worker on a mutable tag instead of the digest",
    (plan) => {
      main(plan, "DecodeWorker").image = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.1";
    },
    "image-pinned-by-digest",
  ],
  [
    "F5",
    "the image repository with mutable tags",
    (plan) => {
      loose(one(plan, T.Repository, (r) => !/cache/.test(r.name)).props).imageTagMutability = "MUTABLE";
    },
    "ecr-scan-and-immutable",
  ],
  [
    "F6",
    "hostNetwork workers",
    (plan) => {
      loose(svc(plan, "DecodeWorker").extraPodSpec!).hostNetwork = true;
    },
    "no-host-network-workers",
  ],
  [
    "F7",
    "anti-affinity on app.kubernetes.io/part-of",
    (plan) => {
      for (const t of svc(plan, "DecodeWorker").extraPodSpec!.affinity!.podAntiAffinity!
        .requiredDuringSchedulingIgnoredDuringExecution)
        t.labelSelector = { matchLabels: { "app.kubernetes.io/part-of": "llm" } };
    },
    "anti-affinity-on-operator-labels",
  ],
  [
    "F8",
    "GPU and EFA on the main container (Kubernetes form)",
    (plan) => {
      const limits = svc(plan, "DecodeWorker").resources!.limits!;
      main(plan, "DecodeWorker").resources = {
        limits: { "nvidia.com/gpu": limits.gpu!, "vpc.amazonaws.com/efa": limits.custom!["vpc.amazonaws.com/efa"] },
      };
      delete limits.gpu;
      delete limits.custom!["vpc.amazonaws.com/efa"];
    },
    "efa-per-worker-matches-pool",
    undefined,
    ["hugepages-fit-node"],
  ], // GPU-less replicas could all land on one node
  [
    "F9",
    "the HF secret with only HF_TOKEN",
    (plan) => {
      delete loose(loose(one(plan, T.Secret).props).stringData as object).HUGGING_FACE_HUB_TOKEN;
    },
    "hf-token-is-secret",
  ],
  [
    "F10",
    "the image compiled for sm_100 only on a p5en (sm_90) fleet",
    (plan) => {
      Object.assign(image(plan).buildArgs, {
        TORCH_CUDA_ARCH_LIST: "10.0",
        NVCC_GENCODE: "-gencode=arch=compute_100,code=sm_100",
        FLASHINFER_CUDA_ARCH_LIST: "10.0",
      });
    },
    "image-archs-cover-fleet",
  ],
  [
    "F10",
    "sm_101 in the arch list with CUDA 13.0 (renamed sm_110)",
    (plan) => {
      Object.assign(image(plan).buildArgs, { CUDA_VERSION: "13.0", TORCH_CUDA_ARCH_LIST: "9.0;10.1" });
    },
    "image-archs-valid-for-toolkit",
  ],
  [
    "F12",
    "16 EFA typed by hand for a 1-GPU p5en worker",
    (plan) => {
      svc(plan, "PrefillWorker").resources!.limits!.custom!["vpc.amazonaws.com/efa"] = "16";
    },
    "efa-per-worker-matches-pool",
  ],
  [
    "F13",
    "NIXL_LIBFABRIC_MAX_RAILS=1 believed to limit rails (advisory; mandatory in this run)",
    (plan) => {
      svc(plan, "DecodeWorker").envs!.push({ name: "NIXL_LIBFABRIC_MAX_RAILS", value: "1" });
    },
    "no-noop-nixl-env",
    { "no-noop-nixl-env": "mandatory" },
  ],
  [
    "F14",
    "5120Mi of hugepages per worker",
    (plan) => {
      for (const key of ["PrefillWorker", "DecodeWorker"])
        for (const r of [svc(plan, key).resources?.limits, svc(plan, key).resources?.requests])
          if (r?.custom) r.custom["hugepages-2Mi"] = "5120Mi";
    },
    "hugepages-fit-node",
  ],
];

describe("policy pack over the rendered stacks", function () {
  this.timeout(120_000);
  after(() => fs.rmSync(OUT, { recursive: true, force: true }));

  for (const [stack, sets] of [
    ["p5en-1gpu", []],
    ["p5en-8gpu", []],
    ["p5en-8gpu", FIELD_RELEASE],
  ] as const) {
    it(`${[stack, ...sets].join(" ")} renders with every policy passing but the release's known issues (exit 0)`, async () => {
      const r = await render(stack, OUT, undefined, undefined, sets);
      assert.ok(
        r.run.results.filter((x) => !x.passed).every((x) => x.enforcementLevel === "advisory"),
        "what fails beyond is advisory",
      );
      const failed = failedBeyondKnownIssues(r.run.results).map(
        (x) => `${x.name}: ${x.violations.map((v) => v.message).join(" | ")}`,
      );
      assert.deepEqual(failed, []);
      assert.deepEqual(
        [r.code, r.run.mandatoryViolations, r.run.results.length],
        [ExitCode.Ok, 0, POLICY_NAMES.length],
      );
      assert.ok(fs.existsSync(path.join(OUT, stack, "policy.json")));
    });
  }

  for (const [f, title, edit, policy, config, also] of MUTATIONS) {
    it(`${f}: ${title} -> ${policy} fires`, async () => {
      const run = await policiesOver("p5en-8gpu", edit, config);
      const fired = run.results.find((x) => x.name === policy)!;
      assert.deepEqual(
        failedBeyondKnownIssues(run.results)
          .map((x) => x.name)
          .sort(),
        [policy, ...(also ?? [])].sort(),
      );
      assert.ok(
        fired.violations.some((v) => v.message.includes(`${f}`)),
        `${policy} fired without naming ${f}: ${fired.violations.map((v) => v.message).join(" | ")}`,
      );
      assert.ok(run.mandatoryViolations > 0, "a mandatory violation, so render exits 1");
    });
  }

  it("F6 through the whole render: the mandatory violation makes render exit 1", async () => {
    const [, , edit, policy] = MUTATIONS.find((m) => m[3] === "no-host-network-workers")!;
    const r = await render("p5en-8gpu", OUT, edit, undefined, FIELD_RELEASE);
    assert.deepEqual(
      [r.code, failedBeyondKnownIssues(r.run.results).map((x) => x.name)],
      [ExitCode.PolicyViolation, [policy]],
    );
  });

  it("F13 under the shipped config is advisory: reported, and render still exits 0", async () => {
    const r = await render(
      "p5en-8gpu",
      OUT,
      (plan) => {
        svc(plan, "DecodeWorker").envs!.push({ name: "NIXL_SKIP_TOPOLOGY_CHECK", value: "1" });
      },
      undefined,
      FIELD_RELEASE,
    );
    assert.deepEqual(
      [r.code, r.run.mandatoryViolations, failedBeyondKnownIssues(r.run.results).map((x) => x.name)],
      [ExitCode.Ok, 0, ["no-noop-nixl-env"]],
    );
  });

  it("every field failure the pack covers has a mutation here", () => {
    const covered = new Set(Object.values(FIELD_FAILURES).flat());
    assert.deepEqual([...new Set(MUTATIONS.map((m) => m[0]))].sort(), [...covered].sort());
  });
});
