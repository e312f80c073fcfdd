/** The compile-stage table image:args and plan.md show: each step, its stage and the list it gets, from real lists. */
import * as assert from "assert";
import { archListsOf, COMPILE_STAGES, compileStageLines } from "../../components/image/compile-stages";
import { DOCKERFILE_STAGES } from "../../components/image/build-args";
import { run } from "../../tools/image-args";

describe("image compile stages", () => {
  it("each compile step names a real stage and gets its consumer's list (EP empty for Ampere: skipped)", () => {
    for (const c of COMPILE_STAGES) assert.ok(DOCKERFILE_STAGES.includes(c.stage), c.stage);
    const lists = archListsOf(["sm_80", "sm_90"], "12.9", "25.12-py3");
    assert.ok(lists);
    assert.deepStrictEqual(compileStageLines(lists), [
      `wheel_builder: nccl-tests (and NCCL with BUILD_NCCL_FROM_SOURCE=1) <- NVCC_GENCODE=${lists.nvcc}`,
      "vllm_framework: LMCache c_ops, against the vLLM venv's torch <- TORCH_CUDA_ARCH_LIST=8.0;9.0",
      "vllm_framework: DeepEP (deep_ep_cpp), against the vLLM venv's torch <- EP_KERNELS_CUDA_ARCH_LIST=9.0",
      "vllm_framework: FlashInfer JIT cache, only with FLASHINFER_AOT=1 <- FLASHINFER_CUDA_ARCH_LIST=8.0 9.0a",
    ]);
    assert.match(compileStageLines(archListsOf(["sm_80"], "12.9", "25.12-py3")!)[2], /\(empty: step skipped\)/);
    assert.strictEqual(archListsOf(["sm_90"], "12.9", "99.99-py3"), undefined, "an unknown torch gives no table");
  });

  it("npm run image:args prints the table on stderr, with the note on prebuilt kernels", () => {
    const r = run(["-a", "sm_90"], {});
    assert.strictEqual(r.code, 0);
    assert.match(
      r.stderr,
      /# vllm_framework: LMCache c_ops, against the vLLM venv's torch <- TORCH_CUDA_ARCH_LIST=9\.0/,
    );
    assert.match(r.stderr, /prebuilt in their wheels/);
  });

  it("a tag flag clears the Dockerfile's default digest of that image (it pins the default tag)", () => {
    const r = run(["-a", "sm_90", "--base-image-tag", "25.07-cuda12.9-devel-ubuntu24.04"], {});
    assert.strictEqual(r.code, 0, r.stderr);
    assert.match(r.stdout, /--build-arg BASE_IMAGE_TAG=25\.07-cuda12\.9-devel-ubuntu24\.04/);
    assert.match(r.stdout, /--build-arg BASE_IMAGE_DIGEST=( \\)?$/m);
  });
});
