/**
 * Extracts what Dynamo's TensorRT-LLM image does for the steps the combined image keeps or drops (install_tensorrt.sh, libnccl.so, CUDA 13 apt packages, OFI NCCL, HPC-X), from a checkout:
 *   npx tsx tests/contracts/extract/image-steps.ts /path/to/dynamo --commit <sha> > tests/contracts/facts/image-steps.json
 * (a bare mirror works: `git --git-dir=<mirror> --work-tree=<dir> checkout <commit> -- container/templates`). Reads
 * container/templates/trtllm_runtime.Dockerfile and trtllm_framework.Dockerfile: the apt packages from the CUDA repo,
 * the libnccl.so link, the OFI NCCL plugin switch-off, the library path, and the bundled install_tensorrt.sh run.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export function stepFacts(runtime: string, framework: string) {
  const ld = /^ENV LD_LIBRARY_PATH=\\\n([\s\S]*?)\$LD_LIBRARY_PATH$/m.exec(runtime)?.[1] ?? "";
  return {
    aptFromCudaRepo: ["libcudnn9-cuda-13", "libnvshmem3-cuda-13"].filter((p) =>
      new RegExp(`^\\s+${p} \\\\$`, "m").test(runtime),
    ),
    libncclLink:
      /ln -sf \/usr\/lib\/\$\{ARCH_ALT\}-linux-gnu\/libnccl\.so\.2 \/usr\/lib\/\$\{ARCH_ALT\}-linux-gnu\/libnccl\.so/.test(
        runtime,
      ),
    ofiNcclDisabled:
      /mv \/etc\/ld\.so\.conf\.d\/aws-ofi-nccl\.conf \/etc\/ld\.so\.conf\.d\/aws-ofi-nccl\.conf\.disabled/.test(
        runtime,
      ),
    ofiNcclReason: /^# (.*can crash TRTLLM\.)$/m.exec(runtime)?.[1] ?? "",
    ldLibraryPath: ld
      .split("\n")
      .map((l) => l.replace(/:\\$/, "").trim())
      .filter((l) => l !== ""),
    runsBundledInstallTensorrt: /bash "\$TRT_INSTALLER"/.test(framework),
    sitePackagesNvidiaSymlinkTree: /site-packages\/nvidia\/.*ln -s/.test(runtime + framework),
  };
}

function main(argv: string[]): void {
  const dir = argv[0];
  const commit = argv[argv.indexOf("--commit") + 1];
  if (!dir || !commit) throw new Error("usage: image-steps.ts <dynamo checkout> --commit <sha>");
  const read = (f: string) => readFileSync(join(dir, "container", "templates", f), "utf8");
  const facts = stepFacts(read("trtllm_runtime.Dockerfile"), read("trtllm_framework.Dockerfile"));
  const provenance = {
    repository: "ai-dynamo/dynamo",
    ref: "main (parent of ba3aef8ae)",
    commit,
    paths: ["container/templates/trtllm_runtime.Dockerfile", "container/templates/trtllm_framework.Dockerfile"],
    extracted: "2026-12-01",
    extractor: "tests/contracts/extract/image-steps.ts",
    notes:
      "Read from the zinuga/dynamo mirror at DYNAMO_REF. The field's from-source Dockerfile (dmvevents/awsome-inference-1 @2e2314276d, read with read_file only) also ran install_tensorrt.sh, linked libnccl.so, built a site-packages/nvidia/*/lib symlink tree and apt-installed libcudnn9-cuda-13/libnvshmem3-cuda-13; its workers unset HPCX_* (dgd.yaml @ce80c01d): those field facts are in `field`, read by hand.",
  };
  const field = {
    unsetHpcx: [
      "HPCX_DIR",
      "HPCX_MPI_DIR",
      "HPCX_HOME",
      "HPCX_UCX_DIR",
      "HPCX_SHARP_DIR",
      "HPCX_NCCL_RDMA_SHARP_PLUGIN_DIR",
      "HPCX_HCOLL_DIR",
      "HPCX_MPI_TESTS_DIR",
    ],
    source:
      "dmvevents/awsome-inference-1 2.projects/dynamo-inference/evidence/verification-runs/2026-05-23-Cpass/disagg-T11-T12-PASS/dgd.yaml @ ce80c01dac0c2e9b543d7322370cfb624977b3a9",
  };
  process.stdout.write(`${JSON.stringify({ provenance, facts: { ...facts, field } }, null, 2)}\n`);
}

if (require.main === module) main(process.argv.slice(2));
