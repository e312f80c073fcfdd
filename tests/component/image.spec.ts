/** DynamoImage under recording mocks: resources, their settings and options, outputs, errors before any child. */
import * as assert from "assert";
import * as pulumi from "@pulumi/pulumi";
import { mkdtempSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { armMocks, KNOWN_INVOKES, one, ofType, Recorded } from "../helpers/mocks";
import { promiseOf } from "../helpers/outputs";
import { problemsOf, subjectOf } from "../../components/_shared/pulumi-errors";
import { fatArchs } from "../../components/catalog";
import { formatArch } from "../../components/catalog/cuda";

type ImageModule = typeof import("../../components/image");
const ECR_TOKEN = "aws:ecr/getAuthorizationToken:getAuthorizationToken";
const ACCOUNT = "123456789012";

/** Pulumi's wire marker of a secret value (`@pulumi/pulumi/runtime/rpc` specialSigKey / specialSecretSig). */
const SECRET_SIG = "4dabf18193072939515e22adb298388d";
const SECRET_VALUE = "1b47061264138c4ac30d75fd1eb44270";
/** One registry credential as the provider receives it. */
interface Registry {
  readonly address: string;
  readonly username: string;
  readonly password: string;
}
/** The value inside Pulumi's wire form of a secret, or the value itself when it is not one. */
const unsecret = (v: Record<string, unknown>): Registry[] =>
  (v && v[SECRET_SIG] === SECRET_VALUE ? v.value : v) as Registry[];

let rec: Recorded[];
let mod: ImageModule;
const invokes: Record<string, unknown>[] = [];
const opts = new Map<string, { parent?: string; retainOnDelete?: boolean; protect?: boolean }>();

/** Runs `fn` as a stack, recording each resource's options (MockResourceArgs carries none; docs/ARCHITECTURE.md#pulumi-without-the-cli). */
async function inStack<T>(fn: () => T): Promise<T> {
  let out!: T;
  await pulumi.runtime.runInPulumiStack(async () => {
    pulumi.runtime.registerStackTransformation((a) => {
      opts.set(a.name, {
        parent: (a.opts.parent as pulumi.Resource | undefined)?.constructor.name,
        retainOnDelete: a.opts.retainOnDelete,
        protect: a.opts.protect,
      });
      return undefined;
    });
    out = fn();
    return {};
  });
  return out;
}

describe("DynamoImage (mocks)", function () {
  before(async () => {
    rec = armMocks();
    KNOWN_INVOKES[ECR_TOKEN] = (inputs) => {
      invokes.push(inputs);
      return {
        userName: "AWS",
        password: "t0k3n",
        proxyEndpoint: `https://${inputs.registryId}.dkr.ecr.${inputs.region}.amazonaws.com`,
        authorizationToken: "x",
        expiresAt: "2026-12-01T00:00:00Z",
        region: inputs.region,
        id: "x",
      };
    };
    mod = await import("../../components/image");
  });

  it("fat build: IMMUTABLE scanned AES256 retained repo, mutable cache repo, push, no build on preview, digest ref", async () => {
    const img = await inStack(() => new mod.DynamoImage("dyn", { protect: true }));
    const ref = await promiseOf(img.ref);
    const repo = one(rec, "aws:ecr/repository:Repository", "dyn-repo").inputs;
    assert.deepStrictEqual(
      {
        name: repo.name,
        mut: repo.imageTagMutability,
        scan: repo.imageScanningConfiguration,
        enc: repo.encryptionConfigurations,
        force: repo.forceDelete,
      },
      { name: "dyn", mut: "IMMUTABLE", scan: { scanOnPush: true }, enc: [{ encryptionType: "AES256" }], force: false },
    );
    assert.deepStrictEqual(opts.get("dyn-repo"), { parent: "DynamoImage", retainOnDelete: true, protect: true });
    const cache = one(rec, "aws:ecr/repository:Repository", "dyn-cache").inputs;
    assert.deepStrictEqual(
      [cache.name, cache.imageTagMutability, cache.encryptionConfigurations],
      ["dyn-cache", "MUTABLE", [{ encryptionType: "AES256" }]],
    );
    one(rec, "aws:ecr/lifecyclePolicy:LifecyclePolicy", "dyn-cache-lifecycle");

    const b = one(rec, "docker-build:index:Image", "dyn-image").inputs;
    const repoUrl = `${ACCOUNT}.dkr.ecr.us-east-2.amazonaws.com/dyn`;
    const cacheRef = `${ACCOUNT}.dkr.ecr.us-east-2.amazonaws.com/dyn-cache:cache-final-cu129`;
    assert.strictEqual(b.push, true);
    assert.strictEqual(b.buildOnPreview, false);
    assert.strictEqual(b.target, "final");
    assert.deepStrictEqual(b.platforms, ["linux/amd64"]);
    assert.match(b.dockerfile.location, /\/dockerfiles\/Dockerfile\.dynamo-combined-efa$/);
    assert.match(b.context.location, /\/dockerfiles$/);
    assert.deepStrictEqual(b.tags, [`${repoUrl}:${img.plan.kind === "build" ? img.plan.tag : "?"}`]);
    assert.deepStrictEqual(b.cacheFrom, [{ registry: { ref: cacheRef } }]);
    assert.deepStrictEqual(b.cacheTo, [
      { registry: { ref: cacheRef, mode: "max", imageManifest: true, ociMediaTypes: true } },
    ]);
    assert.strictEqual(b.registries[SECRET_SIG], SECRET_VALUE, "registry credentials reach the provider as a secret");
    assert.deepStrictEqual(
      unsecret(b.registries).map((r) => [r.address, r.username, r.password]),
      [[`${ACCOUNT}.dkr.ecr.us-east-2.amazonaws.com`, "AWS", "t0k3n"]],
    );
    assert.deepStrictEqual(
      invokes.map((i) => [i.registryId, i.region]),
      [[ACCOUNT, "us-east-2"]],
    );

    assert.match(ref, new RegExp(`^${repoUrl.replace(/\./g, "\\.")}@sha256:[0-9a-f]{64}$`));
    assert.deepStrictEqual(await promiseOf(img.cudaArchs), fatArchs("12.9").map(formatArch));
    assert.strictEqual(await promiseOf(img.cudaToolkit), "12.9");
    const args = await promiseOf(img.buildArgs);
    assert.deepStrictEqual(args, b.buildArgs);
    assert.strictEqual(args.CUDA_VERSION, "12.9");
  });

  it('"auto" for p5en passes sm_90 only; KMS key and existing repository URLs create no repositories', async () => {
    const before = rec.length;
    const kms = `arm:aws:kms:us-east-2:${ACCOUNT}:key/abc`;
    const img = await inStack(
      () =>
        new mod.DynamoImage("p5en", {
          cudaArchs: "auto",
          instanceTypes: ["p5en.48xlarge"],
          kmsKeyArn: kms,
          repositoryUrl: `${ACCOUNT}.dkr.ecr.us-west-2.amazonaws.com/team/dynamo`,
          builder: "big-builder",
        }),
    );
    await promiseOf(img.ref);
    const mine = rec.slice(before);
    const cacheRepo = one(mine, "aws:ecr/repository:Repository", "p5en-cache").inputs;
    assert.deepStrictEqual(cacheRepo.encryptionConfigurations, [{ encryptionType: "KMS", kmsKey: kms }]);
    assert.deepStrictEqual(
      ofType(mine, "aws:ecr/repository:Repository").map((r) => r.name),
      ["p5en-cache"],
    );
    const b = one(mine, "docker-build:index:Image", "p5en-image").inputs;
    assert.strictEqual(b.buildArgs.NVCC_GENCODE, "-gencode=arch=compute_90,code=sm_90");
    assert.deepStrictEqual(b.builder, { name: "big-builder" });
    assert.deepStrictEqual([...new Set(unsecret(b.registries).map((r) => r.address))].sort(), [
      `${ACCOUNT}.dkr.ecr.us-east-2.amazonaws.com`,
      `${ACCOUNT}.dkr.ecr.us-west-2.amazonaws.com`,
    ]);
    assert.match(await promiseOf(img.ref), /^123456789012\.dkr\.ecr\.us-west-2\.amazonaws\.com\/team\/dynamo@sha256:/);
  });

  it("cache: false builds without cache settings and without a cache repository", async () => {
    const before = rec.length;
    const img = await inStack(() => new mod.DynamoImage("nocache", { cache: false, cudaArchs: ["sm_90", "sm_100"] }));
    await promiseOf(img.ref);
    const mine = rec.slice(before);
    assert.deepStrictEqual(
      ofType(mine, "aws:ecr/repository:Repository").map((r) => r.name),
      ["nocache-repo"],
    );
    const b = one(mine, "docker-build:index:Image", "nocache-image").inputs;
    assert.strictEqual(b.cacheFrom, undefined);
    assert.strictEqual(b.cacheTo, undefined);
    assert.deepStrictEqual(await promiseOf(img.cudaArchs), ["sm_90", "sm_100"]);
  });

  it("sm_101 with CUDA 13.0 fails at construction with the catalog message, creating nothing", () => {
    const before = rec.length;
    let err: unknown;
    try {
      new mod.DynamoImage("bad", { cudaArchs: ["sm_101"], cudaToolkit: "13.0" });
    } catch (e) {
      err = e;
    }
    assert.ok(pulumi.InputPropertiesError.isInstance(err), String(err));
    const ps = problemsOf(err)!;
    assert.strictEqual(ps[0].propertyPath, "cudaArchs[0]");
    assert.strictEqual(subjectOf(err), "DynamoImage", "a catalog error is re-thrown naming the component");
    assert.match(ps[0].reason, /renamed sm_110/);
    assert.deepStrictEqual(
      rec.slice(before).filter((r) => r.name.startsWith("bad")),
      [],
    );
  });

  it("a bad argument and a Dockerfile problem come out in ONE error, before any resource", () => {
    const before = rec.length;
    const dir = mkdtempSync(join(tmpdir(), "dyn-img-"));
    writeFileSync(join(dir, "Dockerfile"), "FROM ubuntu:24.04 AS final\nARG CUDA_VERSION=12.9\n");
    let err: unknown;
    try {
      new mod.DynamoImage("both", { maxJobs: 0, target: "fnal", dockerfile: join(dir, "Dockerfile"), context: dir });
    } catch (e) {
      err = e;
    }
    assert.ok(pulumi.InputPropertiesError.isInstance(err), String(err));
    assert.deepStrictEqual(
      problemsOf(err)!.map((p) => p.propertyPath),
      ["maxJobs", "target", "dockerfile"],
    );
    assert.match(err.message, /^DynamoImage: 3 problems\n/);
    assert.deepStrictEqual(
      rec.slice(before).filter((r) => r.name.startsWith("both")),
      [],
    );
  });

  it("an arm64 pool is rejected with a clear error before any resource", () => {
    const before = rec.length;
    assert.throws(
      () =>
        new mod.DynamoImage("grace", {
          cudaArchs: "auto",
          instanceTypes: ["p6e-gb200.36xlarge"],
          platforms: ["linux/arm64"],
        }),
      (e: unknown) => {
        const ps = problemsOf(e)!;
        assert.deepStrictEqual(
          ps.map((p) => p.propertyPath),
          ["cudaArchs", "platforms[0]"],
        );
        assert.match(ps[0].reason, /arm64 \(Grace\/Graviton\).*linux\/amd64/);
        assert.match(ps[1].reason, /x86_64-only/);
        return true;
      },
    );
    assert.deepStrictEqual(
      rec.slice(before).filter((r) => r.name.startsWith("grace")),
      [],
    );
  });

  it("skip path: a digest-pinned ref passes through, no build, no repository", async () => {
    const ref = `${ACCOUNT}.dkr.ecr.us-east-2.amazonaws.com/dynamo@sha256:${"1".repeat(64)}`;
    const before = rec.length;
    const img = await inStack(() => new mod.DynamoImage("pre", { ref, cudaArchs: ["sm_90"] }));
    assert.strictEqual(await promiseOf(img.ref), ref);
    assert.deepStrictEqual(await promiseOf(img.cudaArchs), ["sm_90"]);
    assert.deepStrictEqual(await promiseOf(img.buildArgs), {});
    assert.deepStrictEqual(
      rec
        .slice(before)
        .filter((r) => r.custom)
        .map((r) => r.type),
      [],
    );
    assert.throws(
      () => new mod.DynamoImage("pre2", { ref: "nvcr.io/x/y:1", cudaArchs: ["sm_90"] }),
      /must be digest-pinned/,
    );
  });
});
