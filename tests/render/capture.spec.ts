/**
 * The render's capture engine (tools/render/capture/capture.ts) under the render's mocks, against a tiny fixture program
 * (tests/render/fixtures/tiny-program.ts): every resource with its parent, dependsOn, protect and retainOnDelete,
 * secrets replaced, repeatable captures, and an error inside an apply rejected with its problems instead of hanging.
 */
import { strict as assert } from "assert";
import { capture, Capture, CapturedResource } from "../../tools/render/capture/capture";
import { renderMocks } from "../../tools/render/capture/mocks";
import { tinyProgram, TinyResult } from "./fixtures/tiny-program";

function byName(c: Capture<unknown>, name: string): CapturedResource {
  const r = c.resources.find((x) => x.name === name);
  if (!r) throw new Error(`no resource ${name}: ${c.resources.map((x) => x.name).join(", ")}`);
  return r;
}

/** The tiny program captured as stack "t" in us-east-2, with `token` as its secret config value. */
const captureTiny = (token: string): Promise<Capture<TinyResult>> =>
  capture(tinyProgram, {
    project: "fixture",
    stack: "t",
    mocks: renderMocks("us-east-2"),
    config: { "fixture:token": token },
    secretKeys: ["fixture:token"],
  });

describe("render capture engine (tiny fixture program)", () => {
  let c: Capture<TinyResult>;
  before(async () => {
    c = await captureTiny("hf_do_not_leak");
  });

  it("records every resource except the root stack, sorted by type then name", () => {
    assert.deepEqual(
      c.resources.map((r) => `${r.type}::${r.name}`),
      [
        "aws:ecr/repository:Repository::box-repo",
        "aws:iam/role:Role::role",
        "aws:kms/key:Key::box-key",
        "fixture:index:Box::box",
        "kubernetes:core/v1:Secret::hf",
        "pulumi:providers:kubernetes::k8s",
      ],
    );
  });

  it("records parents as URNs (root-level resources have none)", () => {
    const box = byName(c, "box");
    assert.equal(box.parent, undefined);
    assert.equal(byName(c, "box-key").parent, box.urn);
    assert.equal(byName(c, "box-repo").parent, box.urn);
    assert.match(byName(c, "box-repo").urn, /fixture:index:Box\$aws:ecr\/repository:Repository::box-repo$/);
  });

  it("separates explicit dependsOn (also through an Output) from implicit Output dependencies", () => {
    const box = byName(c, "box");
    const role = byName(c, "role");
    assert.deepEqual(role.explicitDependsOn, [box.urn]);
    assert.deepEqual(role.implicitDependsOn, []);
    const repo = byName(c, "box-repo");
    assert.deepEqual(repo.implicitDependsOn, [byName(c, "box-key").urn]);
    const secret = byName(c, "hf");
    assert.deepEqual(secret.explicitDependsOn, [role.urn]);
    assert.deepEqual(secret.implicitDependsOn, [repo.urn]);
    assert.deepEqual(secret.dependsOn, [...new Set([role.urn, repo.urn])].sort());
  });

  it("captures protect (inherited from the parent) and retainOnDelete (not inherited)", () => {
    assert.equal(byName(c, "box").protect, true);
    assert.equal(byName(c, "box-repo").protect, true);
    assert.equal(byName(c, "role").protect, false);
    assert.equal(byName(c, "box-key").retainOnDelete, true);
    assert.equal(byName(c, "box-repo").retainOnDelete, false);
  });

  it("replaces secret inputs and outputs with [secret] and never writes the value", () => {
    const secret = byName(c, "hf");
    assert.deepEqual(secret.secretPaths, ["stringData"]);
    assert.equal(secret.redactedInputs.stringData, "[secret]");
    assert.deepEqual(secret.inputs.stringData, { HF_TOKEN: "hf_do_not_leak" });
    assert.equal(c.outputs.token, "[secret]");
    const disk = JSON.stringify({ r: c.resources.map((r) => r.redactedInputs), o: c.outputs });
    assert.ok(!disk.includes("hf_do_not_leak"));
  });

  it("resolves inputs from realistic mock outputs (ARN-shaped, deterministic)", () => {
    const repo = byName(c, "box-repo");
    const enc = (repo.inputs.encryptionConfigurations as { kmsKey: string }[])[0].kmsKey;
    assert.match(enc, /^arn:aws:kms:us-east-2:123456789012:key\/[0-9a-f-]{36}$/);
    assert.match(String(c.outputs.roleArn), /^arn:aws:iam::123456789012:role\/role-[0-9a-f]{7}$/);
  });

  it("is deterministic and repeatable in one process (mocks reset between captures)", async () => {
    const again = await captureTiny("x");
    assert.deepEqual(
      again.resources.map((r) => r.redactedInputs),
      c.resources.map((r) => r.redactedInputs),
    );
    assert.deepEqual(
      again.resources.map((r) => r.dependsOn),
      c.resources.map((r) => r.dependsOn),
    );
  });
});

describe("render capture engine: errors inside apply", () => {
  // A hang never settles: mocha's timeout fails the case (no wall-clock bound of its own, which a loaded machine breaks).
  it("rejects with the error (problems intact) instead of hanging", async () => {
    const { ValidationError } = await import("../../components/_shared/problems");
    const aws = await import("@pulumi/aws");
    await assert.rejects(
      capture(
        () => {
          const key = new aws.kms.Key("k", {});
          const role = new aws.iam.Role("r", {
            assumeRolePolicy: key.arn.apply((): string => {
              throw new ValidationError("fixture", [
                { propertyPath: "inference.model", reason: "known only at deployment" },
              ]);
            }),
          });
          return { exports: { arn: role.arn }, result: undefined };
        },
        { project: "fixture", stack: "t", mocks: renderMocks("us-east-2") },
      ),
      (e: unknown) => e instanceof ValidationError && e.problems[0].propertyPath === "inference.model",
    );
  });

  it("still captures normally afterwards", async () => {
    const again = await captureTiny("x");
    assert.equal(again.resources.length, 6);
  });
});
