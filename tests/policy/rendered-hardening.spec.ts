/**
 * Hardening policies on the rendered p5en-8gpu plan (one edit, exactly one policy fires), and `--set`
 * overrides that break an invariant: each is refused by the config check or by a policy, never
 * rendered silently.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import { PlanResource } from "../../policy/plan-args";
import { runPolicies } from "../../policy/run";
import { defaultDeps, runCli } from "../../tools/render/cli/cli";
import { ExitCode } from "../../tools/_shared/exit-codes";
import { loose } from "../helpers/policy-graph-fixtures";
import { T } from "../helpers/policy-fixtures";
import { main, one, renderOutDir, stackPlan } from "../helpers/policy-render";
import { failedBeyondKnownIssues } from "../helpers/policy-harness";

const OUT = renderOutDir();

describe("policy pack over the rendered p5en-8gpu plan: hardening and --set", function () {
  this.timeout(120_000);
  after(() => fs.rmSync(OUT, { recursive: true, force: true }));

  describe("hardening policies on the rendered p5en-8gpu plan", () => {
    let base: PlanResource[] = [];
    before(async () => {
      base = await stackPlan("p5en-8gpu");
    });
    const lt = (plan: PlanResource[]) =>
      one(plan, T.LaunchTemplate, (r) => /gpu-lt/.test(r.name)).props as { metadataOptions: Record<string, unknown> };
    const cases: readonly (readonly [string, (plan: PlanResource[]) => PlanResource[] | void, string])[] = [
      [
        "the EFA security group without its egress rule",
        (plan) => plan.filter((r) => !(r.type === T.SgRule && r.props.type === "egress")),
        "efa-security-group-self-referencing",
      ],
      [
        "the EFA node group over two subnets",
        (plan) => {
          (one(plan, T.NodeGroup, (r) => /gpu-ng/.test(r.name)).props.subnetIds as string[]).push("subnet-0other");
        },
        "efa-pool-single-az",
      ],
      [
        "IMDSv1 allowed on the GPU launch template",
        (plan) => {
          lt(plan).metadataOptions.httpTokens = "optional";
        },
        "imdsv2-required",
      ],
      [
        "EKS without secrets encryption",
        (plan) => {
          delete loose(one(plan, T.EksCluster).props).encryptionConfigKeyArn;
        },
        "eks-secrets-encrypted",
      ],
      [
        "the EKS endpoint open to 0.0.0.0/0",
        (plan) => {
          loose(one(plan, T.EksCluster).props).publicAccessCidrs = ["0.0.0.0/0"];
        },
        "eks-endpoint-not-world-open",
      ],
      [
        "a privileged Frontend",
        (plan) => {
          main(plan, "Frontend").securityContext = { privileged: true };
        },
        "privileged-only-for-efa-workers",
      ],
      [
        "the image repository not retained",
        (plan) => {
          one(plan, T.Repository, (r) => !/cache/.test(r.name)).opts!.retainOnDelete = false;
        },
        "stateful-resources-retained",
      ],
    ];
    for (const [title, edit, policy] of cases) {
      it(`${title} -> ${policy}`, async () => {
        const plan: PlanResource[] = JSON.parse(JSON.stringify(base));
        const run = await runPolicies(edit(plan) ?? plan);
        assert.deepEqual(
          failedBeyondKnownIssues(run.results).map((x) => x.name),
          [policy],
        );
      });
    }
  });

  describe("--set changes that break an invariant never render silently", () => {
    /** Override, expected exit code, and the text (config key or policy message) that explains it. */
    const cases: readonly (readonly [string, number, string])[] = [
      ["inference.prefill.gpusPerWorker=3", ExitCode.InvalidConfig, "inference.prefill.gpusPerWorker"],
      ["inference.decode.replicas=9", ExitCode.InvalidConfig, "decode 9 x 1 GPU = 17 GPUs exceed the pool's 16 GPUs"],
      ["cluster.gpuPools.gpu.instanceType=p4d.24xlarge", ExitCode.InvalidConfig, "0.5 EFA devices per worker"],
      ["cluster.gpuPools.gpu.nodes=1", ExitCode.InvalidConfig, "exceed the pool's 8 GPUs"],
      ["image.cudaArchs=[sm_100]", ExitCode.PolicyViolation, "image-archs-cover-fleet"],
      [
        "image.cudaArchs=[sm_80]",
        ExitCode.PolicyViolation,
        'buildArgs.TORCH_CUDA_ARCH_LIST "8.0": sm_80) has no kernels for sm_90',
      ],
      [
        "image.cudaArchs=[sm_90,sm_101]",
        ExitCode.InvalidConfig,
        "sm_101 is Jetson Thor (CUDA 12.x name), an Arm SoC: a linux/amd64 image never runs on it",
      ],
      ["cluster.gpuPools.gpu.instanceType=p5.48xlarge", ExitCode.Ok, "EFA rails 64/64"],
      ["cluster.gpuPools.gpu.instanceType=g6e.48xlarge", ExitCode.Ok, "EFA rails 0/0"],
    ];
    for (const [set, code, why] of cases) {
      it(`--set ${set} -> exit ${code}`, async () => {
        const lines: string[] = [];
        // An arch list applies to a build: the seed's release builds its image, the default deploys a vendor's.
        const release = /^image\.cudaArchs|instanceType=g6e/.test(set) ? ["--set", "release=seed"] : [];
        const got = await runCli(["p5en-8gpu", "--out", OUT, "--set", set, ...release], {
          ...defaultDeps(),
          stdout: (l) => lines.push(l),
          stderr: (l) => lines.push(l),
        });
        assert.equal(got, code, lines.join("\n"));
        assert.ok(lines.join("\n").includes(why), `expected "${why}" in:\n${lines.join("\n")}`);
      });
    }
  });
});
