/** Pure plan/derive/validate tests of DynamoImage: exact build args per arch spec, every error at once. */
import * as assert from "assert";
import { mkdtempSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join, resolve } from "path";
import { fatArchs, flashinferCudaArchList, nvccGencode, torchCudaArchList } from "../../components/catalog";
import { ValidationError } from "../../components/_shared/problems";
import { image as V } from "../../components/versions";
import { DynamoImageArgs } from "../../components/image/args";
import { PASSABLE_BUILD_ARGS, VERSION_ARGS } from "../../components/image/build-args";
import { ImageBuildPlan, imagePlan, packageRoot } from "../../components/image/plan";

const D = `sha256:${"0f".repeat(32)}`;
const build = (a: DynamoImageArgs = {}) => {
  const p = imagePlan(a);
  assert.strictEqual(p.kind, "build");
  return p as ImageBuildPlan;
};
function problems(a: DynamoImageArgs): { path: string; reason: string }[] {
  try {
    imagePlan(a);
  } catch (e) {
    assert.ok(e instanceof ValidationError, String(e));
    return e.problems.map((p) => ({ path: p.propertyPath, reason: p.reason }));
  }
  throw new Error("expected a ValidationError");
}

describe("imagePlan: build args", () => {
  it("fat by default: catalog fat list for 12.9, every version ARG, options, no digests", () => {
    const p = build();
    const fat = fatArchs("12.9");
    assert.deepStrictEqual(
      p.cudaArchs,
      ["sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120+PTX"],
      "no Arm SoC archs on linux/amd64",
    );
    assert.strictEqual(p.buildArgs.NVCC_GENCODE, nvccGencode(fat));
    assert.strictEqual(p.buildArgs.TORCH_CUDA_ARCH_LIST, torchCudaArchList(fat));
    assert.strictEqual(p.buildArgs.FLASHINFER_CUDA_ARCH_LIST, "8.0 8.6 8.9 9.0a 10.0a 12.0a");
    assert.strictEqual(p.buildArgs.EP_KERNELS_CUDA_ARCH_LIST, "9.0;10.0");
    assert.deepStrictEqual(p.archLists, {
      nvcc: p.buildArgs.NVCC_GENCODE,
      torch: p.buildArgs.TORCH_CUDA_ARCH_LIST,
      flashinfer: p.buildArgs.FLASHINFER_CUDA_ARCH_LIST,
      epKernels: p.buildArgs.EP_KERNELS_CUDA_ARCH_LIST,
    });
    for (const [key, arg] of Object.entries(VERSION_ARGS))
      assert.strictEqual(p.buildArgs[arg], (V as Record<string, string>)[key], arg);
    assert.deepStrictEqual(
      [
        p.buildArgs.MAX_JOBS,
        p.buildArgs.BUILD_NCCL_FROM_SOURCE,
        p.buildArgs.FLASHINFER_AOT,
        p.buildArgs.BUILD_EP_KERNELS,
      ],
      ["16", "0", "0", "1"],
    );
    assert.ok(!("BASE_IMAGE_DIGEST" in p.buildArgs));
    assert.deepStrictEqual(
      Object.keys(p.buildArgs).filter((k) => !PASSABLE_BUILD_ARGS.includes(k)),
      [],
    );
    assert.deepStrictEqual(Object.keys(p.buildArgs), [...Object.keys(p.buildArgs)].sort());
  });

  it("plan fields: package-relative paths, target, amd64, cache max + ECR flags, push, no build on preview", () => {
    const p = build();
    assert.deepStrictEqual(
      {
        dockerfile: p.dockerfile,
        context: p.context,
        target: p.target,
        platforms: p.platforms,
        toolkit: p.cudaToolkit,
        push: p.push,
        preview: p.buildOnPreview,
      },
      {
        dockerfile: "dockerfiles/Dockerfile.dynamo-combined-efa",
        context: "dockerfiles",
        target: "final",
        platforms: ["linux/amd64"],
        toolkit: "12.9",
        push: true,
        preview: false,
      },
    );
    assert.deepStrictEqual(p.cache, {
      tag: "cache-final-cu129",
      mode: "max",
      imageManifest: true,
      ociMediaTypes: true,
    });
    assert.match(p.tag, /^final-cu129-[0-9a-f]{16}$/);
    assert.deepStrictEqual([p.createsRepository, p.createsCacheRepository], [true, true]);
    assert.strictEqual(build({ cache: false }).cache, undefined);
    assert.strictEqual(build({ cache: false }).createsCacheRepository, false);
  });

  it('"auto" for p5en builds sm_90 only', () => {
    const p = build({ cudaArchs: "auto", instanceTypes: ["p5en.48xlarge"] });
    assert.deepStrictEqual(p.cudaArchs, ["sm_90"]);
    assert.strictEqual(p.buildArgs.NVCC_GENCODE, "-gencode=arch=compute_90,code=sm_90");
    assert.strictEqual(p.buildArgs.TORCH_CUDA_ARCH_LIST, "9.0");
    assert.strictEqual(p.buildArgs.FLASHINFER_CUDA_ARCH_LIST, "9.0a");
    assert.strictEqual(p.buildArgs.EP_KERNELS_CUDA_ARCH_LIST, "9.0");
  });

  it("an explicit list is exactly what was asked", () => {
    const p = build({ cudaArchs: ["sm_100", "sm_90"] });
    assert.deepStrictEqual(p.cudaArchs, ["sm_90", "sm_100"]);
    assert.strictEqual(
      p.buildArgs.NVCC_GENCODE,
      "-gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_100,code=sm_100",
    );
  });

  it("versions, digests and options flow into the build args", () => {
    const p = build({
      versions: { vllm: "v0.18.0", uv: "0.9.20" },
      imageDigests: { runtime: D },
      maxJobs: 4,
      flashinferAot: true,
      buildNcclFromSource: true,
      buildEpKernels: false,
    });
    assert.deepStrictEqual(
      [
        p.buildArgs.VLLM_REF,
        p.buildArgs.UV_VERSION,
        p.buildArgs.RUNTIME_IMAGE_DIGEST,
        p.buildArgs.MAX_JOBS,
        p.buildArgs.FLASHINFER_AOT,
        p.buildArgs.BUILD_NCCL_FROM_SOURCE,
        p.buildArgs.BUILD_EP_KERNELS,
      ],
      ["v0.18.0", "0.9.20", `@${D}`, "4", "1", "1", "0"],
    );
  });

  it("the tag is deterministic and changes with any build input", () => {
    assert.strictEqual(build().tag, build().tag);
    const tags = new Set([
      build().tag,
      build({ cudaArchs: ["sm_90"] }).tag,
      build({ versions: { nixl: "0.10.2" } }).tag,
      build({ target: "vllm_framework" }).tag,
    ]);
    assert.strictEqual(tags.size, 4);
    assert.match(build({ target: "vllm_framework" }).tag, /^vllm-framework-cu129-/);
  });

  it("the tag follows the context's content (any file), and a custom context is shown as an absolute path", () => {
    const dir = mkdtempSync(join(tmpdir(), "dyn-ctx-"));
    const df = join(packageRoot(), "dockerfiles", "Dockerfile.dynamo-combined-efa");
    writeFileSync(join(dir, "dynamo-entrypoint.sh"), "#!/bin/sh\n");
    const a = build({ context: dir, dockerfile: df });
    assert.strictEqual(a.context, dir);
    writeFileSync(join(dir, "dynamo-entrypoint.sh"), '#!/bin/sh\nexec "$@"\n');
    assert.notStrictEqual(build({ context: dir, dockerfile: df }).tag, a.tag);
  });

  it("paths resolve against the package root, not process.cwd()", () => {
    const here = process.cwd();
    try {
      process.chdir(tmpdir());
      assert.strictEqual(packageRoot(), resolve(__dirname, "..", ".."));
      assert.strictEqual(build().tag, (process.chdir(here), build().tag));
    } finally {
      process.chdir(here);
    }
  });
});

describe("imagePlan: validation (every problem at once)", () => {
  it("sm_101 with CUDA 13.0: the catalog's rename message, plus the missing 13.0 image tags", () => {
    const ps = problems({ cudaArchs: ["sm_101"], cudaToolkit: "13.0" });
    assert.deepStrictEqual(
      ps.map((p) => p.path),
      ["cudaArchs[0]", "versions.baseImageTag", "versions.runtimeImageTag"],
    );
    assert.match(ps[0].reason, /sm_101 was renamed sm_110 in CUDA 13\.0/);
  });

  it("CUDA 13.0 with its own image tags and sm_103 is accepted; sm_110 (Thor, Arm) is not for linux/amd64", () => {
    const versions = {
      baseImageTag: "25.11-cuda13.0-devel-ubuntu24.04",
      runtimeImageTag: "13.0.2-runtime-ubuntu24.04",
    };
    const p = build({ cudaArchs: ["sm_103"], cudaToolkit: "13.0", versions });
    assert.deepStrictEqual(
      [p.buildArgs.CUDA_VERSION, p.buildArgs.BASE_IMAGE_TAG, p.cudaArchs[0]],
      ["13.0", "25.11-cuda13.0-devel-ubuntu24.04", "sm_103"],
    );
    assert.deepStrictEqual(
      [p.buildArgs.TORCH_CUDA_ARCH_LIST, p.buildArgs.FLASHINFER_CUDA_ARCH_LIST, p.buildArgs.EP_KERNELS_CUDA_ARCH_LIST],
      ["10.3", "10.3a", ""],
    );
    assert.match(
      problems({ cudaArchs: ["sm_110"], cudaToolkit: "13.0", versions })
        .map((x) => x.reason)
        .join("\n"),
      /sm_110 is Jetson Thor, an Arm SoC: a linux\/amd64 image/,
    );
  });

  it("a list a consumer rejects names the consumer, the arch and the fix (torch rejects 8.8)", () => {
    const versions = {
      baseImageTag: "25.11-cuda13.0-devel-ubuntu24.04",
      runtimeImageTag: "13.0.2-runtime-ubuntu24.04",
    };
    const ps = problems({ cudaArchs: ["sm_88", "sm_90"], cudaToolkit: "13.0", versions });
    assert.deepStrictEqual(
      ps.map((x) => x.path),
      ["cudaArchs"],
    );
    assert.match(
      ps[0].reason,
      /torch's extension builder .* of torch 2\.10 rejects sm_88 \(TORCH_CUDA_ARCH_LIST entry "8\.8": ValueError "Unknown CUDA arch \(8\.8\) or GPU not supported"\).*drop sm_88 from cudaArchs/,
    );
  });

  it("an NGC PyTorch tag the catalog does not know is a problem at versions.pytorchImageTag", () => {
    const ps = problems({ versions: { pytorchImageTag: "26.01-py3" } });
    assert.deepStrictEqual(
      ps.map((x) => x.path),
      ["versions.pytorchImageTag"],
    );
    assert.match(ps[0].reason, /known: 25\.12-py3/);
  });

  it("versions.efaInstallerSha256 takes 64 hex digits or empty", () => {
    assert.strictEqual(
      build({ versions: { efaInstallerSha256: "a".repeat(64) } }).buildArgs.EFA_INSTALLER_SHA256,
      "a".repeat(64),
    );
    assert.strictEqual(build().buildArgs.EFA_INSTALLER_SHA256, "");
    assert.deepStrictEqual(
      problems({ versions: { efaInstallerSha256: "sha256:abc" } }).map((x) => x.path),
      ["versions.efaInstallerSha256"],
    );
  });

  it("versions.efaInstallerGpgFingerprint defaults to AWS's key and takes 40 hex digits without spaces", () => {
    assert.strictEqual(build().buildArgs.EFA_INSTALLER_GPG_FINGERPRINT, "4E9091BCBB97A96B26B15E59A05480B1DD2D3CCC");
    assert.strictEqual(
      build({ versions: { efaInstallerGpgFingerprint: "b".repeat(40) } }).buildArgs.EFA_INSTALLER_GPG_FINGERPRINT,
      "b".repeat(40),
    );
    for (const bad of ["4E90 91BC BB97 A96B 26B1 5E59 A054 80B1 DD2D 3CCC", "DD2D3CCC", "", "G".repeat(40)]) {
      const ps = problems({ versions: { efaInstallerGpgFingerprint: bad } });
      assert.deepStrictEqual(
        ps.map((x) => x.path),
        ["versions.efaInstallerGpgFingerprint"],
        bad,
      );
      assert.match(
        ps[0].reason,
        /40 hex digits .*without spaces .*AWS documents "4E9091BCBB97A96B26B15E59A05480B1DD2D3CCC"/,
      );
    }
  });

  it("(kept) CUDA 13.0 accepts its own image tags", () => {
    const p = build({
      cudaArchs: ["sm_90"],
      cudaToolkit: "13.0",
      versions: { baseImageTag: "25.11-cuda13.0-devel-ubuntu24.04", runtimeImageTag: "13.0.2-runtime-ubuntu24.04" },
    });
    assert.strictEqual(p.buildArgs.CUDA_VERSION, "13.0");
  });

  it("arm64 is rejected clearly: platform and Grace instance type", () => {
    const ps = problems({
      platforms: ["linux/amd64", "linux/arm64"],
      cudaArchs: ["sm_90"],
      instanceTypes: ["p6e-gb200.36xlarge"],
    });
    assert.deepStrictEqual(
      ps.map((p) => p.path),
      ["instanceTypes[0]", "platforms[1]"],
    );
    assert.match(ps[0].reason, /arm64 \(Grace\/Graviton\)/);
    assert.match(ps[1].reason, /x86_64-only/);
    assert.match(problems({ cudaArchs: "auto", instanceTypes: ["p6e-gb200.36xlarge"] })[0].reason, /arm64/);
  });

  it("bad versions, digests, maxJobs AND a target the Dockerfile lacks are all reported in one error", () => {
    const ps = problems({
      target: "fnal",
      versions: { vlm: "x", nixl: "latest", uv: "" } as never,
      imageDigests: { base: "sha256:abc" },
      maxJobs: 0,
    });
    assert.deepStrictEqual(
      ps.map((p) => p.path),
      ["versions.vlm", "versions.nixl", "versions.uv", "imageDigests.base", "maxJobs", "target"],
    );
    assert.match(ps[0].reason, /did you mean "vllm"/);
    const t = problems({ target: "fnal" });
    assert.deepStrictEqual(
      t.map((p) => p.path),
      ["target"],
    );
    assert.match(
      t[0].reason,
      /did you mean "final"\?.*stages: dynamo_base, wheel_builder_base, wheel_builder, pytorch_base, trtllm_framework, vllm_framework, final/,
    );
  });

  it("a custom Dockerfile that does not declare the build args is rejected (F11)", () => {
    const dir = mkdtempSync(join(tmpdir(), "dyn-img-"));
    writeFileSync(
      join(dir, "Dockerfile"),
      "FROM ubuntu:24.04 AS final\nARG CUDA_VERSION=12.9\nRUN echo ${CUDA_VERSION}\n",
    );
    const ps = problems({ dockerfile: join(dir, "Dockerfile"), context: dir });
    assert.deepStrictEqual(
      ps.map((p) => p.path),
      ["dockerfile"],
    );
    assert.match(ps[0].reason, /does not declare build args this component passes: .*NVCC_GENCODE/);
    assert.deepStrictEqual(
      problems({ dockerfile: join(dir, "nope") }).map((p) => p.path),
      ["dockerfile"],
    );
  });

  it("unknown cudaArchs tokens report every bad token with the catalog's suggestion", () => {
    const ps = problems({ cudaArchs: ["sm_9O", "sm_90", "sm_1000"] });
    assert.deepStrictEqual(
      ps.map((p) => p.path),
      ["cudaArchs[0]", "cudaArchs[2]"],
    );
    assert.match(ps[0].reason, /did you mean "sm_90"/);
  });
});

describe("imagePlan: skip path (ref)", () => {
  const REF = `123456789012.dkr.ecr.us-east-2.amazonaws.com/dynamo@${D}`;
  it("a digest-pinned ref with explicit archs builds nothing", () => {
    assert.deepStrictEqual(imagePlan({ ref: REF, cudaArchs: ["sm_90"] }), {
      kind: "prebuilt",
      ref: REF,
      cudaToolkit: "12.9",
      cudaArchs: ["sm_90"],
    });
  });
  it("a tag-only ref, missing or auto archs, and build-only args are errors", () => {
    assert.deepStrictEqual(
      problems({ ref: "nvcr.io/x/y:1.0" }).map((p) => p.path),
      ["cudaArchs", "ref"],
    );
    assert.deepStrictEqual(
      problems({ ref: REF, cudaArchs: "auto", instanceTypes: ["p5en.48xlarge"] }).map((p) => p.path),
      ["cudaArchs"],
    );
    assert.deepStrictEqual(
      problems({ ref: REF, cudaArchs: "fat", target: "final", repositoryUrl: "x" }).map((p) => p.path),
      ["repositoryUrl", "target"],
    );
  });
});
