/**
 * The image a release implies (components/image/release-image.ts) planned end to end: dynamo-1.6 deploys its vendor
 * runtime image by default and combines the two vendor images without compiling; the seed's default and its
 * "combined" are its from-source build; dynamo-1.6 refuses "source" (that Dockerfile builds the seed's versions).
 */
import * as assert from "assert";
import { checkImagePlan } from "../../components/image/plan";
import { releaseImageArgs } from "../../components/image/release-image";
import { release, ReleaseId } from "../../components/releases";

const plan = (id: ReleaseId, source?: "prebuilt" | "combined" | "source", backend: "vllm" | "trtllm" = "vllm") => {
  const r = releaseImageArgs(release(id), { source, backend });
  assert.deepStrictEqual(r.problems, []);
  const c = checkImagePlan({ ...r.args, backend, cudaArchs: id === ReleaseId.Seed ? ["sm_90"] : undefined });
  assert.ok(c.ok, JSON.stringify(c));
  return c.value;
};

describe("the image a release implies", () => {
  it("dynamo-1.6: the backend's vendor runtime image by default, resolved to a digest at pulumi up", () => {
    const p = plan(ReleaseId.Dynamo16, undefined, "trtllm");
    assert.ok(p.kind === "prebuilt" && p.source === "prebuilt");
    const trtllm = release(ReleaseId.Dynamo16).engines.trtllm;
    assert.deepStrictEqual(p.resolve, trtllm.vendorImage);
    // Nothing of 1.6.2 is built here: the runtime image's CUDA is the engine's, one pin.
    assert.strictEqual(trtllm.vendorImage?.cudaToolkit, trtllm.cuda);
    assert.strictEqual(p.ref, undefined, "no readable digest: the tag is resolved at up, never deployed as a tag");
  });

  it("a vendor image states the CUDA toolkit its vendor built it with", () => {
    assert.equal(plan(ReleaseId.Dynamo16, undefined, "vllm").cudaToolkit, "13.0");
    assert.equal(plan(ReleaseId.Dynamo16, undefined, "trtllm").cudaToolkit, "13.1");
    // Two combined images: the vLLM runtime's, the image the combined one is built on.
    assert.equal(plan(ReleaseId.Dynamo16, "combined").cudaToolkit, "13.0");
    // The seed's from-source build compiles with its own toolkit; its 1.0.1 vendor images state theirs (the
    // TensorRT-LLM one is CUDA 13.1 although the seed's build is 12.9: the image's own fact, not the build's).
    assert.equal(plan(ReleaseId.Seed, undefined).cudaToolkit, "12.9");
    assert.equal(plan(ReleaseId.Seed, "prebuilt", "trtllm").cudaToolkit, "13.1");
    assert.equal(plan(ReleaseId.Seed, "prebuilt", "vllm").cudaToolkit, "12.9");
    // A stack cannot restate it: `cudaToolkit` has no effect on an image nothing is built from, and is refused.
    const stated = checkImagePlan({ ...releaseImageArgs(release(ReleaseId.Dynamo16), {}).args, cudaToolkit: "13.2" });
    assert.ok(!stated.ok && stated.problems[0]!.propertyPath === "cudaToolkit", JSON.stringify(stated));
  });

  it("dynamo-1.6 combined: the two vendor images, nothing compiled", () => {
    const p = plan(ReleaseId.Dynamo16, "combined");
    assert.ok(p.kind === "combined");
    assert.deepStrictEqual(Object.keys(p.images).sort(), ["trtllm", "vllm"]);
    assert.match(p.estimate.gencode, /nothing is compiled/);
  });

  it("seed: the default is its combined image, which is the from-source build, compiled for the stated archs", () => {
    for (const s of [undefined, "combined"] as const) {
      const p = plan(ReleaseId.Seed, s);
      assert.ok(p.kind === "build" && p.source === "combined", JSON.stringify(p.kind));
      assert.match(p.estimate.gencode, /for sm_90/);
      assert.match(p.estimate.buildTime, /2-2\.5 h/);
    }
  });

  it("dynamo-1.6 refuses source (the Dockerfile builds the seed's versions), with the fix", () => {
    const r = releaseImageArgs(release(ReleaseId.Dynamo16), { source: "source" });
    assert.match(
      r.problems.map((p) => `${p.propertyPath}: ${p.reason}`).join("\n"),
      /image\.source: "source" builds the seed's versions.*set release "seed"/,
    );
  });
});
