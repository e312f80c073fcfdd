/** Pure plan/derive/validate tests of DynamoImage: exact build args per arch spec, every error at once. */
import * as assert from "assert";
import { mkdtempSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join, resolve } from "path";
import { fatArchs, nvccGencode, torchCudaArchList } from "../../components/catalog";
import { image as V, imageDigests as DIGESTS } from "../../components/versions";
import { DynamoImageArgs } from "../../components/image/args";
import { PASSABLE_BUILD_ARGS, VERSION_ARGS } from "../../components/image/build-args";
import { contextFiles, ImageBuildPlan, imagePlan, packageRoot } from "../../components/image/plan";

const D = `sha256:${"0f".repeat(32)}`;
const build = (a: DynamoImageArgs = {}) => {
  const p = imagePlan(a);
  assert.strictEqual(p.kind, "build");
  return p as ImageBuildPlan;
};

describe("imagePlan: build args", () => {
  it("fat by default: catalog fat list for 12.9, every version ARG, options, the default digests", () => {
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
    // Digest-pinned by default where versions.ts has a verified digest; the runtime image has none (passed empty).
    assert.deepStrictEqual(
      [p.buildArgs.BASE_IMAGE_DIGEST, p.buildArgs.PYTORCH_IMAGE_DIGEST, p.buildArgs.RUNTIME_IMAGE_DIGEST],
      [`@${DIGESTS.base}`, `@${DIGESTS.pytorch}`, ""],
    );
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
      versions: {
        vllm: "v0.18.0",
        uv: "0.9.20",
        uvSha256: "ab".repeat(32),
        baseImageTag: "25.07-cuda12.9-devel-ubuntu24.04",
      },
      acceptVersionSkew: ["vllm"],
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
        p.buildArgs.BASE_IMAGE_DIGEST,
        p.buildArgs.MAX_JOBS,
        p.buildArgs.FLASHINFER_AOT,
        p.buildArgs.BUILD_NCCL_FROM_SOURCE,
        p.buildArgs.BUILD_EP_KERNELS,
      ],
      // An overridden tag drops its default digest: passed empty, so the Dockerfile's pin of the old tag is cleared.
      ["v0.18.0", "0.9.20", `@${D}`, "", "4", "1", "1", "0"],
    );
  });

  it("the tag is deterministic and changes with any build input", () => {
    assert.strictEqual(build().tag, build().tag);
    const tags = new Set([
      build().tag,
      build({ cudaArchs: ["sm_90"] }).tag,
      build({ versions: { nixl: "0.10.0" } }).tag,
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

  it("a context of more than the file limit is a problem at `context`, not an endless hash", () => {
    const dir = mkdtempSync(join(tmpdir(), "dyn-ctx-big-"));
    for (let i = 0; i < 4; i++) writeFileSync(join(dir, `f${i}`), "");
    assert.strictEqual((contextFiles(dir, 4) as { value: unknown[] }).value.length, 4, "at the limit: hashed");
    assert.deepStrictEqual(contextFiles(dir, 3), {
      ok: false,
      problems: [
        {
          propertyPath: "context",
          reason: `${dir} holds more than 3 files; give the directory holding the Dockerfile's inputs, e.g. "dockerfiles"`,
        },
      ],
    });
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
