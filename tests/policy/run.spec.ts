/**
 * The offline policy runner (`runPolicies`) and the pack's shape: 27 named policies, the happy plan passing in
 * both the CLI's and the render's shape, preview with unknown values, enforcement levels and AWSGuard-style config,
 * and not-applicable reporting.
 */
import { strict as assert } from "assert";
import { allPolicies, initialConfig, POLICY_NAMES } from "../../policy/policies";
import { enforcementOf, runPolicies } from "../../policy/run";
import { PlanResource } from "../../policy/plan-args";
import { happyStack, mutate, T, TestLaunchTemplate } from "../helpers/policy-fixtures";
import { TestGraph } from "../helpers/policy-graph-fixtures";
import { failedBeyondKnownIssues, planResource, UNKNOWN_STRING } from "../helpers/policy-harness";

describe("policy pack: runner and pack shape", () => {
  it("lists the 28 policies in pack order, each with a kebab-case name, one-sentence description and config schema", () => {
    assert.deepEqual(
      allPolicies.map((p) => p.name),
      [...POLICY_NAMES],
    );
    assert.equal(allPolicies.length, 28);
    for (const p of allPolicies) {
      assert.match(p.name, /^[a-z0-9]+(-[a-z0-9]+)*$/, p.name);
      assert.match(p.description, /^[A-Z][^]*\.$/, p.name);
      assert.equal(p.description.split(/\.\s/).length, 1, `${p.name}: one sentence`);
      assert.ok(p.configSchema && typeof p.configSchema.properties === "object", `${p.name}: configSchema`);
    }
  });

  it("the happy plan passes every policy with zero violations", async () => {
    const run = await runPolicies(happyStack());
    const failing = failedBeyondKnownIssues(run.results).map(
      (r) => `${r.name}: ${r.violations.map((v) => v.message).join(" | ")}`,
    );
    assert.deepEqual(failing, []);
    assert.equal(run.mandatoryViolations, 0);
    assert.equal(run.passed, true);
    assert.equal(run.results.length, POLICY_NAMES.length);
  });

  it("the happy plan also passes in the offline render's shape: dependencies as one union, no per-property links, secrets as secretPaths", async () => {
    const plan: PlanResource[] = happyStack().map((r) => ({
      type: r.type,
      name: r.name,
      urn: r.urn,
      props: r.props,
      parent: r.parent,
      dependencies: [
        ...new Set([...(r.dependencies ?? []), ...Object.values(r.propertyDependencies ?? {}).flat()]),
      ].sort(),
      opts: {
        protect: false,
        retainOnDelete: r.opts?.retainOnDelete ?? false,
        secretPaths: r.type === T.Secret ? ["stringData"] : [],
      },
    }));
    const run = await runPolicies(plan);
    assert.deepEqual(
      failedBeyondKnownIssues(run.results).map((r) => `${r.name}: ${r.violations.map((v) => v.message).join(" | ")}`),
      [],
    );
    const noEgress = await runPolicies(plan.filter((r) => r.name !== "c-efa-egress"));
    assert.deepEqual(
      failedBeyondKnownIssues(noEgress.results).map((r) => r.name),
      ["efa-security-group-self-referencing"],
    );
    const noSecret = await runPolicies(
      plan.map((r) => (r.type === T.Secret ? { ...r, opts: { retainOnDelete: false } } : r)),
    );
    assert.deepEqual(
      failedBeyondKnownIssues(noSecret.results).map((r) => r.name),
      ["hf-token-is-secret"],
    );
  });

  it("preview: with ids, ARNs and image refs unknown, no policy fails or crashes, and stack policies still decide what they can", async () => {
    const U = UNKNOWN_STRING;
    let plan = happyStack();
    plan = mutate(plan, "c-efa", (p) => {
      p.id = U;
    });
    for (const dir of ["ingress", "egress"])
      plan = mutate(plan, `c-efa-${dir}`, (p) => {
        p.securityGroupId = U;
      });
    plan = mutate<TestLaunchTemplate>(plan, "c-gpu-lt", (p) => {
      for (const n of p.networkInterfaces) n.securityGroups = [U];
    });
    plan = mutate(plan, "c-gpu-ng", (p) => {
      p.subnetIds = U;
      p.launchTemplate = { id: U, version: U };
    });
    plan = mutate(plan, "c-eks", (p) => {
      p.encryptionConfigKeyArn = U;
    });
    plan = mutate<TestGraph>(plan, "inf-graph", (p) => {
      for (const s of Object.values(p.spec.services)) s.extraPodSpec.mainContainer.image = U;
    });
    const run = await runPolicies(plan);
    assert.deepEqual(
      failedBeyondKnownIssues(run.results).map((r) => r.name),
      [],
    );
    // The EFA security group is still checked through its property dependencies: drop egress and it fails.
    const broken = await runPolicies(plan.filter((r) => r.name !== "c-efa-egress"));
    assert.deepEqual(
      failedBeyondKnownIssues(broken.results).map((r) => r.name),
      ["efa-security-group-self-referencing"],
    );
  });

  it("advisory by default: no-noop-nixl-env, no-idle-gpu-nodes, eks-endpoint-not-world-open, trtllm-libfabric-caveat and release-known-issues; everything else mandatory", () => {
    const advisory = allPolicies.filter((p) => enforcementOf(p) === "advisory").map((p) => p.name);
    assert.deepEqual([...advisory].sort(), [
      "eks-endpoint-not-world-open",
      "no-idle-gpu-nodes",
      "no-noop-nixl-env",
      "release-known-issues",
      "trtllm-libfabric-caveat",
    ]);
  });

  it("config overrides AWSGuard style: a policy's own key beats `all`, which beats the policy default", () => {
    const noop = allPolicies.find((p) => p.name === "no-noop-nixl-env")!;
    const imds = allPolicies.find((p) => p.name === "imdsv2-required")!;
    assert.equal(enforcementOf(noop, { all: "mandatory" }), "mandatory");
    assert.equal(enforcementOf(noop, { all: "mandatory", "no-noop-nixl-env": "advisory" }), "advisory");
    assert.equal(
      enforcementOf(imds, { all: "advisory", "imdsv2-required": { enforcementLevel: "disabled" } }),
      "disabled",
    );
    assert.deepEqual(initialConfig({ all: "advisory", "imdsv2-required": { maxHopLimit: 1 } })["imdsv2-required"], {
      maxHopLimit: 1,
      enforcementLevel: "advisory",
    });
    assert.equal(initialConfig({ all: "advisory" })["hf-token-is-secret"], "advisory");
  });

  it("a mandatory violation fails the run; the same violation under advisory does not", async () => {
    const plan = mutate<TestLaunchTemplate>(happyStack(), "c-gpu-lt", (p) => {
      p.metadataOptions.httpTokens = "optional";
    });
    const strict = await runPolicies(plan);
    assert.equal(strict.passed, false);
    assert.equal(strict.mandatoryViolations, 1);
    const imds = strict.results.find((r) => r.name === "imdsv2-required")!;
    assert.deepEqual(
      imds.violations.map((v) => v.urn),
      ["urn:pulumi:test::dynamo-efa::aws:ec2/launchTemplate:LaunchTemplate::c-gpu-lt"],
    );
    const relaxed = await runPolicies(plan, { "imdsv2-required": "advisory" });
    const knownIssues = strict.advisoryViolations; // the release's known issues, advised on every EFA graph
    assert.deepEqual(
      [relaxed.passed, relaxed.mandatoryViolations, relaxed.advisoryViolations],
      [true, 0, knownIssues + 1],
    );
    const off = await runPolicies(plan, { "imdsv2-required": "disabled" });
    assert.deepEqual([off.passed, off.results.find((r) => r.name === "imdsv2-required")!.violations.length], [true, 0]);
  });

  it("passes per-policy config to getConfig over the schema defaults", async () => {
    const plan = mutate<TestLaunchTemplate>(happyStack(), "c-gpu-lt", (p) => {
      p.metadataOptions.httpPutResponseHopLimit = 2;
    });
    assert.equal((await runPolicies(plan)).passed, true);
    const tight = await runPolicies(plan, { "imdsv2-required": { maxHopLimit: 1 } });
    assert.equal(tight.mandatoryViolations, 1);
  });

  it("records notApplicable reasons, and a value unknown during preview as a 'can't run' note instead of a crash", async () => {
    const lt = planResource(T.LaunchTemplate, { metadataOptions: UNKNOWN_STRING }, { name: "lt" });
    const run = await runPolicies([lt]);
    const imds = run.results.find((r) => r.name === "imdsv2-required")!;
    assert.equal(imds.violations.length, 0);
    assert.match(
      imds.notApplicable.join("\n"),
      /can't run policy imdsv2-required during preview: string value at \.metadataOptions can't be known during preview/,
    );
    const hf = run.results.find((r) => r.name === "hf-token-is-secret")!;
    assert.deepEqual(hf.notApplicable, [
      "Policy only applies to resources of type 'kubernetes:nvidia.com/v1alpha1:DynamoGraphDeployment', 'kubernetes:core/v1:ConfigMap', 'kubernetes:core/v1:Secret'",
    ]);
    assert.equal(hf.checked, 0);
  });

  it("a policy that checked some resources is never 'not applicable' for the ones it skipped", async () => {
    const run = await runPolicies(happyStack());
    for (const r of run.results.filter((x) => x.checked > 0)) assert.deepEqual(r.notApplicable, [], r.name);
    assert.ok(run.results.find((r) => r.name === "imdsv2-required")!.checked > 0);
  });
});
