/** DynamoImage under the render's mocks (captured): resources, their settings and options, outputs, errors before any child. */
import * as assert from "assert";
import * as pulumi from "@pulumi/pulumi";
import { mkdtempSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { Captured, captureComponents, one, ofType } from "../helpers/capture";
import { PLACEHOLDER_DIGEST } from "../../components/image/image-digest";
import { promiseOf, thrown } from "../helpers/outputs";
import { problemsOf, subjectOf } from "../../components/_shared/pulumi-errors";
import { fatArchs } from "../../components/catalog";
import { formatArch } from "../../components/catalog/cuda";
import { DynamoImage, DynamoImageArgs } from "../../components/image";
import { PLACEHOLDER_ACCOUNT as ACCOUNT } from "../../tools/render/capture/mocks";

const ECR_TOKEN = "aws:ecr/getAuthorizationToken:getAuthorizationToken";

/** One registry credential as the provider receives it. */
interface Registry {
  readonly address: string;
  readonly username: string;
  readonly password: string;
}

/** `new DynamoImage(name, args)` captured (default AWS provider in us-east-2), with the image. */
const build = (name: string, args: DynamoImageArgs): Promise<Captured<DynamoImage>> =>
  captureComponents(() => new DynamoImage(name, args));

/** What `fn` threw inside a capture, and the names of the resources it registered besides `name` itself. */
async function failing(name: string, fn: () => unknown): Promise<{ err: unknown; children: string[] }> {
  const c = await captureComponents(() => thrown(fn));
  return { err: c.result, children: c.resources.map((r) => r.name).filter((n) => n !== name) };
}

describe("DynamoImage (mocks)", function () {
  this.timeout(30000);

  it("fat build: IMMUTABLE scanned AES256 retained repo, mutable cache repo, push, no build on preview, digest ref", async () => {
    const c = await build("dyn", { protect: true });
    const img = c.result;
    const ref = await promiseOf(img.ref);
    const repoRes = one(c.resources, "aws:ecr/repository:Repository", "dyn-repo");
    const repo = repoRes.inputs;
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
    assert.deepStrictEqual(
      [repoRes.parent, repoRes.retainOnDelete, repoRes.protect],
      [one(c.resources, "dynamo-efa:image:DynamoImage", "dyn").urn, true, true],
    );
    const cache = one(c.resources, "aws:ecr/repository:Repository", "dyn-cache").inputs;
    assert.deepStrictEqual(
      [cache.name, cache.imageTagMutability, cache.encryptionConfigurations],
      ["dyn-cache", "MUTABLE", [{ encryptionType: "AES256" }]],
    );
    one(c.resources, "aws:ecr/lifecyclePolicy:LifecyclePolicy", "dyn-cache-lifecycle");

    const image = one(c.resources, "docker-build:index:Image", "dyn-image");
    const b = image.inputs;
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
    assert.ok(image.secretPaths.includes("registries"), "registry credentials reach the provider as a secret");
    const tokens = c.invokes.filter((i) => i.token === ECR_TOKEN);
    assert.deepStrictEqual(
      tokens.map((i) => [i.inputs.registryId, i.inputs.region]),
      [[ACCOUNT, "us-east-2"]],
    );
    assert.deepStrictEqual(
      (b.registries as Registry[]).map((r) => [r.address, r.username, r.password]),
      [[`${ACCOUNT}.dkr.ecr.us-east-2.amazonaws.com`, tokens[0].result.userName, tokens[0].result.password]],
    );

    assert.match(ref, new RegExp(`^${repoUrl.replace(/\./g, "\\.")}@sha256:[0-9a-f]{64}$`));
    assert.deepStrictEqual(await promiseOf(img.cudaArchs), fatArchs("12.9").map(formatArch));
    assert.strictEqual(await promiseOf(img.cudaToolkit), "12.9");
    const args = await promiseOf(img.buildArgs);
    assert.deepStrictEqual(args, b.buildArgs);
    assert.strictEqual(args.CUDA_VERSION, "12.9");
  });

  it('"auto" for p5en passes sm_90 only; KMS key and existing repository URLs create no repositories', async () => {
    const kms = `arm:aws:kms:us-east-2:${ACCOUNT}:key/abc`;
    const c = await build("p5en", {
      cudaArchs: "auto",
      instanceTypes: ["p5en.48xlarge"],
      kmsKeyArn: kms,
      repositoryUrl: `${ACCOUNT}.dkr.ecr.us-west-2.amazonaws.com/team/dynamo`,
      builder: "big-builder",
    });
    const img = c.result;
    const mine = c.resources;
    const cacheRepo = one(mine, "aws:ecr/repository:Repository", "p5en-cache").inputs;
    assert.deepStrictEqual(cacheRepo.encryptionConfigurations, [{ encryptionType: "KMS", kmsKey: kms }]);
    assert.deepStrictEqual(
      ofType(mine, "aws:ecr/repository:Repository").map((r) => r.name),
      ["p5en-cache"],
    );
    const b = one(mine, "docker-build:index:Image", "p5en-image").inputs;
    assert.strictEqual(b.buildArgs.NVCC_GENCODE, "-gencode=arch=compute_90,code=sm_90");
    assert.deepStrictEqual(b.builder, { name: "big-builder" });
    assert.deepStrictEqual([...new Set((b.registries as Registry[]).map((r) => r.address))].sort(), [
      `${ACCOUNT}.dkr.ecr.us-east-2.amazonaws.com`,
      `${ACCOUNT}.dkr.ecr.us-west-2.amazonaws.com`,
    ]);
    assert.match(await promiseOf(img.ref), /^123456789012\.dkr\.ecr\.us-west-2\.amazonaws\.com\/team\/dynamo@sha256:/);
  });

  it("cache: false builds without cache settings and without a cache repository", async () => {
    const { result: img, resources: mine } = await build("nocache", { cache: false, cudaArchs: ["sm_90", "sm_100"] });
    assert.deepStrictEqual(
      ofType(mine, "aws:ecr/repository:Repository").map((r) => r.name),
      ["nocache-repo"],
    );
    const b = one(mine, "docker-build:index:Image", "nocache-image").inputs;
    assert.strictEqual(b.cacheFrom, undefined);
    assert.strictEqual(b.cacheTo, undefined);
    assert.deepStrictEqual(await promiseOf(img.cudaArchs), ["sm_90", "sm_100"]);
  });

  it("sm_101 with CUDA 13.0 fails at construction with the catalog message, creating nothing", async () => {
    const { err, children } = await failing(
      "bad",
      () => new DynamoImage("bad", { cudaArchs: ["sm_101"], cudaToolkit: "13.0" }),
    );
    assert.ok(pulumi.InputPropertiesError.isInstance(err), String(err));
    const ps = problemsOf(err)!;
    assert.strictEqual(ps[0].propertyPath, "cudaArchs[0]");
    assert.strictEqual(subjectOf(err), "DynamoImage", "a catalog error is re-thrown naming the component");
    assert.match(ps[0].reason, /renamed sm_110/);
    assert.deepStrictEqual(children, []);
  });

  it("a bad argument and a Dockerfile problem come out in ONE error, before any resource", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dyn-img-"));
    writeFileSync(join(dir, "Dockerfile"), "FROM ubuntu:24.04 AS final\nARG CUDA_VERSION=12.9\n");
    const { err, children } = await failing(
      "both",
      () => new DynamoImage("both", { maxJobs: 0, target: "fnal", dockerfile: join(dir, "Dockerfile"), context: dir }),
    );
    assert.ok(pulumi.InputPropertiesError.isInstance(err), String(err));
    assert.deepStrictEqual(
      problemsOf(err)!.map((p) => p.propertyPath),
      ["maxJobs", "target", "dockerfile"],
    );
    assert.match(err.message, /^DynamoImage: 3 problems\n/);
    assert.deepStrictEqual(children, []);
  });

  it("an arm64 pool is rejected with a clear error before any resource", async () => {
    const { err, children } = await failing(
      "grace",
      () =>
        new DynamoImage("grace", {
          cudaArchs: "auto",
          instanceTypes: ["p6e-gb200.36xlarge"],
          platforms: ["linux/arm64"],
        }),
    );
    const ps = problemsOf(err)!;
    assert.deepStrictEqual(
      ps.map((p) => p.propertyPath),
      ["cudaArchs", "platforms[0]"],
    );
    assert.match(ps[0].reason, /arm64 \(Grace\/Graviton\).*linux\/amd64/);
    assert.match(ps[1].reason, /x86_64-only/);
    assert.deepStrictEqual(children, []);
  });

  it("skip path: a digest-pinned ref passes through, no build, no repository", async () => {
    const ref = `${ACCOUNT}.dkr.ecr.us-east-2.amazonaws.com/dynamo@sha256:${"1".repeat(64)}`;
    const c = await build("pre", { ref, cudaArchs: ["sm_90"] });
    const img = c.result;
    assert.strictEqual(await promiseOf(img.ref), ref);
    assert.deepStrictEqual(await promiseOf(img.cudaArchs), ["sm_90"]);
    assert.deepStrictEqual(await promiseOf(img.buildArgs), {});
    assert.deepStrictEqual(
      c.resources.filter((r) => r.custom).map((r) => r.type),
      [],
    );
    const { err } = await failing(
      "pre2",
      () => new DynamoImage("pre2", { ref: "nvcr.io/x/y:1", cudaArchs: ["sm_90"] }),
    );
    assert.match(String(err), /must be digest-pinned/);
  });

  const VLLM = { repository: "nvcr.io/nvidia/ai-dynamo/vllm-runtime", tag: "1.6.2-efa", source: "test" };
  const TRT = { repository: "nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime", tag: "1.6.2-efa", source: "test" };
  const DIGEST = "pulumi-nodejs:dynamic/image:ImageDigest";

  it("prebuilt vendor image: the tag is resolved once and kept in state (ImageDigest), and repository@digest deploys", async () => {
    const c = await build("ven", { vendorImages: { vllm: VLLM, trtllm: TRT }, backend: "trtllm" });
    assert.deepStrictEqual(c.invokes, [], "no lookup on every program run: the digest is a resource's state");
    const d = one(c.resources, DIGEST, "ven-trtllm-digest");
    assert.deepStrictEqual(
      [d.inputs.repository, d.inputs.tag, d.inputs.basicAuth],
      [TRT.repository, TRT.tag, undefined],
    );
    assert.strictEqual(await promiseOf(c.result.ref), `${TRT.repository}@${PLACEHOLDER_DIGEST}`);
    assert.deepStrictEqual(
      c.resources.filter((r) => r.custom && r.type !== DIGEST).map((r) => r.type),
      [],
      "nothing is built or created",
    );
  });

  it("a vendor image in ECR (AWS Deep Learning Containers) is read with the account's token, a secret input", async () => {
    const ecr = {
      repository: "763104351884.dkr.ecr.us-east-1.amazonaws.com/dynamo",
      tag: "1.6.2-efa-vllm",
      source: "test",
    };
    const c = await build("dlc", { vendorImages: { vllm: ecr } });
    const d = one(c.resources, DIGEST, "dlc-vllm-digest");
    assert.ok(d.secretPaths.includes("basicAuth"), d.secretPaths.join(", "));
    assert.ok(d.additionalSecretOutputs.includes("basicAuth"));
  });

  it("combined from vendor images: both resolved by digest, passed to the small Dockerfile, pushed to an IMMUTABLE repo", async () => {
    const c = await build("comb", { source: "combined", vendorImages: { vllm: VLLM, trtllm: TRT } });
    const b = one(c.resources, "docker-build:index:Image", "comb-image").inputs;
    const args = b.buildArgs as Record<string, string>;
    assert.match(args.VLLM_RUNTIME_IMAGE, /^nvcr\.io\/nvidia\/ai-dynamo\/vllm-runtime@sha256:[0-9a-f]{64}$/);
    assert.match(args.TRTLLM_RUNTIME_IMAGE, /^nvcr\.io\/nvidia\/ai-dynamo\/tensorrtllm-runtime@sha256:[0-9a-f]{64}$/);
    assert.match(
      String((b.dockerfile as { location: string }).location),
      /dockerfiles\/Dockerfile\.dynamo-vendor-combined$/,
    );
    assert.strictEqual(
      one(c.resources, "aws:ecr/repository:Repository", "comb-repo").inputs.imageTagMutability,
      "IMMUTABLE",
    );
    assert.match(await promiseOf(c.result.ref), /\/comb@sha256:[0-9a-f]{64}$/);
  });
});
