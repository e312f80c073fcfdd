/**
 * `imagePlan` validation: every problem with the args, the arch lists and the Dockerfile in one list, through the
 * non-throwing `checkImagePlan` (split from image-plan.spec.ts, which keeps the build args and the plan's fields).
 */
import { sourceEstimate } from "../../components/image/sources";
import * as assert from "assert";
import { mkdtempSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { DynamoImageArgs } from "../../components/image/args";
import { checkImagePlan, ImageBuildPlan } from "../../components/image/plan";

const D = `sha256:${"0f".repeat(32)}`;
/** The plan of args the test expects to be valid (a build). */
const build = (a: DynamoImageArgs = {}): ImageBuildPlan => {
  const c = checkImagePlan(a);
  assert.ok(c.ok && c.value.kind === "build", JSON.stringify(c));
  return c.value as ImageBuildPlan;
};
/** Every problem `checkImagePlan` returns (it never throws for bad args). */
function problems(a: DynamoImageArgs): { path: string; reason: string }[] {
  const c = checkImagePlan(a);
  if (c.ok) return assert.fail("expected problems, got a plan");
  return c.problems.map((p) => ({ path: p.propertyPath, reason: p.reason }));
}

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
      /did you mean "final"\?.*stages: dynamo_base, wheel_builder_base, runtime_wheel_builder, wheel_builder, pytorch_base, nixl_cu13, trtllm_release, trtllm_framework, vllm_framework, final/,
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

describe("imagePlan: image.source (prebuilt, combined, source)", () => {
  const VLLM = { repository: "nvcr.io/nvidia/ai-dynamo/vllm-runtime", tag: "1.6.2-efa", source: "test" };
  const TRT = { repository: "nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime", tag: "1.6.2-efa", source: "test" };
  const plan = (a: DynamoImageArgs) => {
    const c = checkImagePlan(a);
    assert.ok(c.ok, JSON.stringify(c));
    return c.value;
  };

  it("defaults to the vendor's prebuilt image when the release has one for the backend; else to the source build", () => {
    const p = plan({ vendorImages: { vllm: VLLM, trtllm: TRT }, backend: "trtllm" });
    assert.ok(p.kind === "prebuilt");
    assert.deepStrictEqual(
      [p.source, p.ref, p.resolve, p.backend, p.cudaArchs],
      ["prebuilt", undefined, TRT, "trtllm", []],
    );
    assert.match(p.estimate.buildTime, /^0 min/);
    assert.match(p.estimate.gencode, /nothing is compiled/);
    const s = plan({});
    assert.ok(s.kind === "build" && s.source === "source");
    assert.match(s.estimate.buildTime, /2-2\.5 h/);
    assert.match(s.estimate.imageSize, /40-46 GB/);
  });

  it("a vendor digest, where known, deploys as repository@digest with no lookup", () => {
    const digest = `sha256:${"a".repeat(64)}`;
    const p = plan({ source: "prebuilt", vendorImages: { vllm: { ...VLLM, digest } } });
    assert.ok(p.kind === "prebuilt" && p.ref === `${VLLM.repository}@${digest}` && p.resolve === undefined);
  });

  it("combined: the vendor images assembled by the small Dockerfile; without vendor images (the seed) the source build", () => {
    const c = plan({ source: "combined", vendorImages: { vllm: VLLM, trtllm: TRT } });
    assert.ok(c.kind === "combined");
    assert.strictEqual(c.dockerfile, "dockerfiles/Dockerfile.dynamo-vendor-combined");
    assert.deepStrictEqual(c.images, { vllm: VLLM, trtllm: TRT });
    assert.match(c.estimate.gencode, /nothing is compiled/);
    const seed = plan({ source: "combined", cudaArchs: ["sm_90"] });
    assert.ok(
      seed.kind === "build" && seed.source === "combined" && seed.dockerfile.endsWith("Dockerfile.dynamo-combined-efa"),
    );
    assert.match(seed.estimate.gencode, /for sm_90/);
  });

  it("refuses, all at once: an unknown source, prebuilt without a vendor image, combined with one image, build args", () => {
    const bad = (a: DynamoImageArgs) => {
      const c = checkImagePlan(a);
      assert.ok(!c.ok);
      return c.problems.map((p) => `${p.propertyPath}: ${p.reason}`).join("\n");
    };
    assert.match(
      bad({ source: "prebuit" as never }),
      /source: "prebuit" is not an image source.*did you mean "prebuilt"/,
    );
    assert.match(bad({ source: "prebuilt" }), /source: "prebuilt" needs a vendor runtime image for the "vllm" backend/);
    assert.match(bad({ source: "combined", vendorImages: { vllm: VLLM } }), /vendorImages: .*missing trtllm/);
    const both = bad({ source: "prebuilt", vendorImages: { vllm: { ...VLLM, tag: "latest" } }, maxJobs: 8 });
    assert.match(both, /vendorImages\.vllm\.tag: "latest" moves/);
    assert.match(both, /maxJobs: has no effect with source "prebuilt"/);
  });
});

describe("imagePlan: skip path (ref)", () => {
  const REF = `123456789012.dkr.ecr.us-east-2.amazonaws.com/dynamo@${D}`;
  it("a digest-pinned ref with explicit archs builds nothing", () => {
    assert.deepStrictEqual(checkImagePlan({ ref: REF, cudaArchs: ["sm_90"] }), {
      ok: true,
      value: {
        kind: "prebuilt",
        source: "prebuilt",
        estimate: sourceEstimate("prebuilt", false, []),
        ref: REF,
        resolve: undefined,
        backend: undefined,
        cudaToolkit: "12.9",
        cudaArchs: ["sm_90"],
      },
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
