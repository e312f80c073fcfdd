/**
 * The TRT-LLM image steps: each step Dynamo's TensorRT-LLM image (and the field's from-source build) has, kept or dropped,
 * with the upstream file that decides it (tests/contracts/facts/image-steps.json, read at DYNAMO_REF):
 * - kept: libcudnn9-cuda-13 + libnvshmem3-cuda-13 from the CUDA apt repository (not copied through a bind of `/`);
 *   the libnccl.so link; AWS OFI NCCL off for TRT-LLM; TRT-LLM's library path (torch/lib, torch_tensorrt/lib,
 *   NVSHMEM 13, HPC-X OMPI); HPC-X variables unset for engines (the field's workers);
 * - dropped: the bundled install_tensorrt.sh (it downloads TensorRT with no checksum; TensorRT comes from TRT-LLM's
 *   pip dependencies and the build-time check loads TRT-LLM's libraries against it); the site-packages/nvidia/*
 *   symlink tree (no upstream file has it: only the field's Dockerfile).
 */
import * as assert from "assert";
import { readFileSync } from "fs";
import { join } from "path";
import { loadFacts } from "./facts";
import { DYNAMO_COMMIT } from "../../components/versions";

const DIR = join(__dirname, "..", "..", "dockerfiles");
const TEXT = readFileSync(join(DIR, "Dockerfile.dynamo-combined-efa"), "utf8");
const TRT_ENV = readFileSync(join(DIR, "envs", "trtllm.env"), "utf8");
const LAUNCHER = readFileSync(join(DIR, "dynamo-entrypoint.sh"), "utf8");

interface StepFacts {
  aptFromCudaRepo: string[];
  libncclLink: boolean;
  ofiNcclDisabled: boolean;
  ldLibraryPath: string[];
  runsBundledInstallTensorrt: boolean;
  sitePackagesNvidiaSymlinkTree: boolean;
  field: { unsetHpcx: string[] };
}

/** How each upstream library-path entry appears in trtllm.env (our paths for the same libraries). */
const OURS: Readonly<Record<string, string>> = {
  $NIXL_LIB_DIR: "/opt/nvidia/nvda_nixl_cu13/lib64",
  $NIXL_PLUGIN_DIR: "/opt/nvidia/nvda_nixl_cu13/lib64/plugins",
  "/usr/local/ucx/lib": "/usr/local/ucx-cu13/lib",
  "/usr/local/ucx/lib/ucx": "/usr/local/ucx-cu13/lib/ucx",
  "/opt/hpcx/ompi/lib": "/opt/hpcx/ompi/lib",
  "/usr/lib/x86_64-linux-gnu/nvshmem/13/": "/usr/lib/x86_64-linux-gnu/nvshmem/13",
  "/opt/dynamo/venv/lib/python${PYTHON_VERSION}/site-packages/torch/lib": "${_site}/torch/lib",
  "/opt/dynamo/venv/lib/python${PYTHON_VERSION}/site-packages/torch_tensorrt/lib": "${_site}/torch_tensorrt/lib",
  "/usr/local/cuda/lib64": "/opt/trtllm-cuda13/lib64",
};
/** Upstream entries with no counterpart, and why. */
const NOT_OURS: Readonly<Record<string, string>> = {
  "/usr/local/tensorrt/targets/x86_64-linux-gnu/lib": "install_tensorrt.sh dropped: TensorRT from pip (tensorrt_libs)",
  "/usr/local/tensorrt/targets/aarch64-linux-gnu/lib": "x86_64 only",
  "/usr/lib/aarch64-linux-gnu/nvshmem/13/": "x86_64 only",
  "/usr/local/cuda/lib": "not a folder of the CUDA images (lib64 is)",
};

export function stepProblems(f: StepFacts, text: string, env: string, launcher: string): string[] {
  const out: string[] = [];
  const finalText = text.slice(text.indexOf(" AS final")).replace(/\\\n\s*/g, " ");
  const installs = finalText
    .split("\n")
    .filter((l) => /apt-get install/.test(l))
    .join(" ");
  for (const p of f.aptFromCudaRepo) if (!installs.includes(p)) out.push(`final does not apt-get install ${p}`);
  if (/--mount=type=bind,from=pytorch_base,source=\/,/.test(text)) out.push("final still binds NGC's whole `/`");
  if (/nvshmem\/13 \/usr\/lib\/x86_64-linux-gnu\/nvshmem\/13|libcudnn\*/.test(text))
    out.push("cuDNN / NVSHMEM are still copied from NGC instead of installed");
  if (f.libncclLink && !/ln -sf libnccl\.so\.2 \/opt\/trtllm-libs\/libnccl\.so/.test(text))
    out.push("no libnccl.so link for TRT-LLM");
  if (f.ofiNcclDisabled && (!/^unset NCCL_NET_PLUGIN$/m.test(env) || /ofi-nccl/.test(env)))
    out.push("the OFI NCCL plugin is not off for TRT-LLM");
  if (f.ofiNcclDisabled && !/mv "\$\{conf\}" "\$\{conf\}\.disabled"/.test(text))
    out.push("aws-ofi-nccl's ld.so.conf entry is not disabled");
  const ld = (/^LD_LIBRARY_PATH=(.*)$/m.exec(env)?.[1] ?? "").replace("${_nv}", "").split(":");
  for (const up of f.ldLibraryPath) {
    if (up in NOT_OURS) continue;
    const mine = OURS[up];
    if (mine === undefined) out.push(`upstream library path entry ${up} is neither mapped nor explained`);
    else if (!ld.includes(mine)) out.push(`trtllm.env LD_LIBRARY_PATH lacks ${mine} (upstream ${up})`);
  }
  if (
    /install_tensorrt\.sh/.test(
      text
        .split("\n")
        .filter((l) => !l.trimStart().startsWith("#"))
        .join("\n"),
    )
  )
    out.push("the Dockerfile runs install_tensorrt.sh (an unverified TensorRT download)");
  if (
    f.field.unsetHpcx.length > 0 &&
    !/for v in \$\(compgen -e HPCX_ \|\| true\); do unset "\$\{v\}"; done/.test(launcher)
  )
    out.push("engines keep HPC-X's HPCX_* variables (the field's workers unset them)");
  return out;
}

describe("contract: the TRT-LLM image steps, kept or dropped by Dynamo's trtllm_runtime/framework", () => {
  const f = loadFacts<StepFacts>("image-steps");

  it("read at DYNAMO_REF; upstream runs install_tensorrt.sh and has no nvidia/* symlink tree (what we decide on)", () => {
    assert.strictEqual(f.provenance.commit, DYNAMO_COMMIT);
    assert.ok(f.facts.runsBundledInstallTensorrt && !f.facts.sitePackagesNvidiaSymlinkTree);
    assert.deepStrictEqual(f.facts.aptFromCudaRepo, ["libcudnn9-cuda-13", "libnvshmem3-cuda-13"]);
  });

  it("every kept step is in the Dockerfile, the TRT-LLM env file and the launcher; every dropped one is absent", () => {
    assert.deepStrictEqual(stepProblems(f.facts, TEXT, TRT_ENV, LAUNCHER), []);
  });

  it("mutations are caught: a cuDNN copy, the OFI plugin named, torch/lib missing, HPC-X kept, install_tensorrt.sh run", () => {
    const cases: [RegExp, string, string, string][] = [
      [
        /apt-get install libcudnn9-cuda-13/,
        TEXT.replace("  libcudnn9-cuda-13 libnvshmem3-cuda-13", "  libnvshmem3-cuda-13"),
        TRT_ENV,
        LAUNCHER,
      ],
      [/OFI NCCL plugin is not off/, TEXT, TRT_ENV.replace("unset NCCL_NET_PLUGIN", "NCCL_NET_PLUGIN=ofi"), LAUNCHER],
      [/lacks \$\{_site\}\/torch\/lib/, TEXT, TRT_ENV.replace(":${_site}/torch/lib:", ":"), LAUNCHER],
      [/HPCX_/, TEXT, TRT_ENV, LAUNCHER.replace(/for v in \$\(compgen -e HPCX_.*\n/, "")],
      [
        /install_tensorrt/,
        TEXT.replace("uv pip show tensorrt-llm torch", "bash install_tensorrt.sh"),
        TRT_ENV,
        LAUNCHER,
      ],
    ];
    for (const [want, t, e, l] of cases) assert.match(stepProblems(f.facts, t, e, l).join("\n"), want);
  });
});
