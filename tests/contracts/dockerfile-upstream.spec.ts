/**
 * The combined Dockerfile against what upstream needs, parsed with dockerfile-ast: NIXL's meta wheel is
 * installed, TRT-LLM comes from a wheel file (the release image's) with `unsafe-best-match`, the final stage ends in a real smoke
 * check, no runtime ENV overrides FlashInfer's arch detection or sets a no-op, the EFA installer is verified.
 * Each check is a function of the Dockerfile text, run on the real file and on a mutation that must fail.
 */
import * as assert from "assert";
import { readFileSync } from "fs";
import { join } from "path";
import { envProperties, itHoldsAndCatches, RuleCase, shellLines, stageTexts } from "../helpers/dockerfile";

const DIR = join(__dirname, "..", "..", "dockerfiles");
const TEXT = readFileSync(join(DIR, "Dockerfile.dynamo-combined-efa"), "utf8");
const NIXL_SCRIPT = readFileSync(join(DIR, "build-nixl.sh"), "utf8");
const ENVS = {
  vllm: readFileSync(join(DIR, "envs", "vllm.env"), "utf8"),
  trtllm: readFileSync(join(DIR, "envs", "trtllm.env"), "utf8"),
};

/** Text of stage `name` (FROM line to the next FROM), from dockerfile-ast's FROM ranges. */
function stage(text: string, name: string): string {
  return stageTexts(text).find((s) => s.name === name)?.text ?? "";
}

/** Shell commands of a stage with backslash continuations joined, comments dropped. */
const commands = shellLines;

/** ENV keys set in stage `name`. */
function envKeys(text: string, name: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of envProperties(stage(text, name))) out.set(p.name, p.value);
  return out;
}

/**
 * NIXL per environment (NIXL contrib/Dockerfile; Dynamo wheel_builder.Dockerfile PKG_NAME=nixl-cu${CUDA_MAJOR}):
 * build-nixl.sh keeps the meta wheel and names the wheel after nvcc's major; it runs with CUDA 12.9 in wheel_builder
 * and with NGC's CUDA 13.1 in nixl_cu13; final installs nixl_cu12 + meta into the vLLM venv and nixl_cu13 + meta
 * into the TRT-LLM venv.
 */
export function nixlMetaProblems(text: string, script: string): string[] {
  const out: string[] = [];
  const lines = commands(script);
  const cp = lines.findIndex((l) =>
    /cp build\/src\/bindings\/python\/nixl-meta\/nixl-\S*\.whl "\$\{WHEEL_DIR\}\/"/.test(l),
  );
  const rm = lines.findIndex((l) => /rm -rf "\$\{work\}"/.test(l));
  if (cp < 0)
    out.push("build-nixl.sh does not keep NIXL's meta wheel (build/src/bindings/python/nixl-meta/nixl-*.whl)");
  else if (rm >= 0 && rm < cp) out.push("build-nixl.sh deletes the NIXL build before copying the meta wheel");
  if (!lines.some((l) => /pkg="nixl-cu\$\{cuda_major\}"/.test(l)))
    out.push("build-nixl.sh does not name the wheel nixl-cu<nvcc major>");
  for (const [st, dist] of [
    ["wheel_builder", "nixl-cu12"],
    ["nixl_cu13", "nixl-cu13"],
  ]) {
    if (
      !commands(stage(text, st)).some(
        (l) => l.includes(`WHEEL_DIR=/opt/dynamo/dist/${dist}`) && /build-nixl\s*$/.test(l),
      )
    )
      out.push(`${st} does not run build-nixl into /opt/dynamo/dist/${dist}`);
  }
  if (!/^FROM pytorch_base AS nixl_cu13$/m.test(text))
    out.push("nixl_cu13 is not built on NGC PyTorch's CUDA 13 toolkit");
  const fin = commands(stage(text, "final"));
  if (!fin.some((l) => l.includes("for venv in /opt/dynamo/venv:cu12 /opt/trtllm-venv:cu13; do")))
    out.push("final does not pair each venv with its CUDA major (vLLM cu12, TRT-LLM cu13)");
  const install = fin.find((l) => /uv pip install .*\/opt\/dynamo\/dist\/nixl-\$\{cu\}\//.test(l)) ?? "";
  if (!/nixl-\$\{cu\}\/nixl-\*-py3-none-any\.whl/.test(install))
    out.push("final does not install the nixl meta wheel (module nixl, nixl._api)");
  if (!/nixl_\$\{cu\}-\*\.whl/.test(install)) out.push("final does not install the nixl_cu<major> wheel");
  return out;
}

export function trtllmProblems(text: string): string[] {
  const installs = commands(stage(text, "trtllm_framework")).filter(
    (l) => /uv pip install/.test(l) && /tensorrt/i.test(l),
  );
  if (installs.length === 0) return ["trtllm_framework installs no TensorRT-LLM"];
  return installs.flatMap((l) => [
    ...(/--index-strategy[ =]unsafe-best-match/.test(l)
      ? []
      : [`TRT-LLM install without --index-strategy unsafe-best-match: ${l.trim()}`]),
    // A wheel file: the release image's (B3, `"${wheel}"` found under its /app/tensorrt_llm) or a direct URL.
    ...(/"\$\{wheel\}"/.test(l) ||
    /https?:\/\/\S*tensorrt_llm-\S*\.whl/.test(l.replace(/\$\{[^}]+\}/g, "https://x")) ||
    /\/tensorrt-llm\/tensorrt_llm-\$\{TENSORRTLLM_VERSION\}-\S+\.whl/.test(l)
      ? []
      : [`TRT-LLM not from a wheel file: ${l.trim()}`]),
    ...(/"tensorrt-llm==/.test(l)
      ? [`TRT-LLM resolved from an index (etcd3 URL dependency; dynamo#4588): ${l.trim()}`]
      : []),
  ]);
}

/** The final stage runs the smoke check through the launcher, after its last install, and removes the stubs. */
export function smokeProblems(text: string): string[] {
  const out: string[] = [];
  const fin = commands(stage(text, "final"));
  const run = fin.findIndex((l) =>
    /^\/usr\/bin\/python3\.12 \/tmp\/image-smoke\.py --launcher \/opt\/dynamo\/bin\/python3 --driver-stubs \/opt\/dynamo\/driver-stubs\b/.test(
      l.trim(),
    ),
  );
  if (run < 0)
    out.push(
      "final does not run the smoke check through the launcher (image-smoke.py --launcher /opt/dynamo/bin/python3)",
    );
  const lastInstall = fin
    .map((l, i) => (/uv pip install|efa_installer\.sh|ldconfig/.test(l) ? i : -1))
    .reduce((a, b) => Math.max(a, b), -1);
  if (run >= 0 && run < lastInstall) out.push("the smoke check runs before the last install step of final");
  if (!fin.some((l, i) => i > run && /rm -rf .*\/opt\/dynamo\/driver-stubs/.test(l)))
    out.push("the driver stubs stay in the image after the check");
  return out;
}

/**
 * Runtime ENV and the environments' variables: no FI_EFA_ENABLE_SHM, no arch-list overrides, LD_LIBRARY_PATH
 * appended; each engine's env file gives its venv, its own NIXL/UCX build and torch/lib; TRT-LLM's has HPC-X UCC,
 * NVSHMEM 13, TensorRT's and the CUDA 13 libraries and no OFI NCCL plugin (Dynamo trtllm_runtime.Dockerfile).
 */
export function envProblems(text: string, envs: Readonly<Record<string, string>>): string[] {
  const env = envKeys(text, "final");
  const out: string[] = [];
  if (env.has("FI_EFA_ENABLE_SHM"))
    out.push("FI_EFA_ENABLE_SHM is read by no libfabric release (tests/contracts/facts/env-libfabric.json)");
  if (env.get("FI_EFA_ENABLE_SHM_TRANSFER") !== "0") out.push("FI_EFA_ENABLE_SHM_TRANSFER=0 is missing");
  for (const k of ["TORCH_CUDA_ARCH_LIST", "FLASHINFER_CUDA_ARCH_LIST"])
    if (env.has(k)) out.push(`runtime ENV ${k} overrides the engines' own arch detection`);
  if (!/\$\{LD_LIBRARY_PATH:\+:\$\{LD_LIBRARY_PATH\}\}$/.test(env.get("LD_LIBRARY_PATH") ?? ""))
    out.push("LD_LIBRARY_PATH replaces the base image's instead of appending it");
  if (!(env.get("PATH") ?? "").startsWith("/opt/dynamo/bin:"))
    out.push("the launcher /opt/dynamo/bin is not first on PATH");
  const want: Record<string, { venv: string; dirs: string[]; absent: string[] }> = {
    vllm: {
      venv: "/opt/dynamo/venv",
      dirs: ["/opt/nvidia/nvda_nixl/lib64", "/usr/local/ucx/lib", "${_site}/torch/lib"],
      absent: ["cu13", "/opt/hpcx"],
    },
    trtllm: {
      venv: "/opt/trtllm-venv",
      dirs: [
        "/opt/nvidia/nvda_nixl_cu13/lib64",
        "/usr/local/ucx-cu13/lib",
        "/opt/hpcx/ucc/lib",
        "/usr/lib/x86_64-linux-gnu/nvshmem/13",
        "${_site}/torch/lib",
        "${_site}/torch_tensorrt/lib",
        "/opt/trtllm-cuda13/lib64",
      ],
      absent: ["ofi-nccl", "/usr/local/ucx/lib:", "/opt/nvidia/nvda_nixl/"],
    },
  };
  for (const [name, w] of Object.entries(want)) {
    const file = envs[name] ?? "";
    const ld = (/^LD_LIBRARY_PATH=(.*)$/m.exec(file)?.[1] ?? "").replace("${_nv}", "");
    if (!new RegExp(`^VIRTUAL_ENV=${w.venv}$`, "m").test(file)) out.push(`${name}.env does not select ${w.venv}`);
    for (const d of w.dirs) if (!ld.split(":").includes(d)) out.push(`${name}.env LD_LIBRARY_PATH lacks ${d}`);
    for (const a of w.absent)
      if (ld.includes(a)) out.push(`${name}.env LD_LIBRARY_PATH holds ${a}, another environment's`);
  }
  if (!/^unset NCCL_NET_PLUGIN$/m.test(envs.trtllm ?? "")) out.push("trtllm.env leaves the OFI NCCL plugin named");
  return out;
}

/** Whether the `if` at line `i` of `lines` exits 1 before its `fi` (a check that stops the build). */
function stops(lines: readonly string[], i: number): boolean {
  if (i < 0) return false;
  const end = lines.findIndex((l, j) => j > i && /^\s*fi\s*$/.test(l));
  return end > i && lines.slice(i + 1, end).some((l) => /^\s*exit 1\s*$/.test(l));
}

/** The variable a `name="$(...)"` line at `i` assigns, or undefined. */
const assigned = (lines: readonly string[], i: number): string | undefined =>
  i < 0 ? undefined : /^\s*(?:export\s+)?(\w+)="\$\(/.exec(lines[i])?.[1];

/**
 * The EFA installer is verified or not installed: gnupg installed, the key imported into a throw-away GNUPGHOME, its
 * fingerprint compared with EFA_INSTALLER_GPG_FINGERPRINT, `gpg --verify --status-fd` whose VALIDSIG primary-key
 * fingerprint must be the pinned one, the optional sha256 pin, and no extraction or install before all of that.
 */
export function efaProblems(text: string): string[] {
  const fin = commands(stage(text, "final"));
  const at = (re: RegExp, from = 0) => fin.findIndex((l, i) => i >= from && re.test(l));
  const out: string[] = [];
  if (!fin.some((l) => /apt-get install\b.*\sgnupg(\s|$)/.test(l))) out.push("final does not apt-get install gnupg");
  const pinLine = at(/="\$\(.*\$\{EFA_INSTALLER_GPG_FINGERPRINT\}/);
  const pins = ["EFA_INSTALLER_GPG_FINGERPRINT", ...(assigned(fin, pinLine) ? [assigned(fin, pinLine)!] : [])];
  const refersPin = (l: string) => pins.some((p) => l.includes(`\${${p}}`));
  const home = at(/^export GNUPGHOME="\$\(mktemp -d\)"$/);
  if (home < 0) out.push('the EFA key is not imported into a throw-away GNUPGHOME (export GNUPGHOME="$(mktemp -d)")');
  const imp = at(/\bgpg\b.*--import\b.*aws-efa-installer\.key/);
  if (imp < 0 || imp < home) out.push("aws-efa-installer.key is not imported after GNUPGHOME is set");
  const list = at(/\bgpg\b.*--with-colons\b.*--fingerprint\b.*\$1 == "fpr".*\$10\b/);
  const keys = assigned(fin, list);
  const fprCheck = keys
    ? at(new RegExp(`^if \\[ "\\$\\{${keys}\\}" != "\\$\\{(${pins.join("|")})\\}" \\]; then$`))
    : -1;
  if (!keys || !stops(fin, fprCheck))
    out.push(
      "the imported key's fingerprint (gpg --with-colons --fingerprint, fpr field 10) is not compared with EFA_INSTALLER_GPG_FINGERPRINT, stopping the build",
    );
  const verify = at(/\bgpg\b.*--status-fd\b.*--verify\b.*\.sig"/);
  const status = assigned(fin, verify) ?? /if ! (\w+)="\$\(gpg/.exec(fin[verify] ?? "")?.[1];
  if (!status) out.push("the signature is not checked with gpg --status-fd --verify");
  const signers = at(/\$2 == "VALIDSIG".*\$12\b/);
  const signerVar = assigned(fin, signers);
  const sigCheck =
    signerVar && status && fin[signers].includes(`\${${status}}`)
      ? fin.findIndex((l, i) => i > signers && /^if /.test(l) && l.includes(`\${${signerVar}}`) && refersPin(l))
      : -1;
  if (!stops(fin, sigCheck))
    out.push(
      "no VALIDSIG line whose primary-key fingerprint (field 12) is EFA_INSTALLER_GPG_FINGERPRINT is required (gpg's exit code accepts any key)",
    );
  const sha = at(/^if \[ -n "\$\{EFA_INSTALLER_SHA256\}" \]; then$/);
  if (sha < 0 || !/sha256sum -c -/.test(fin[sha + 1] ?? ""))
    out.push("a set EFA_INSTALLER_SHA256 is not checked with sha256sum -c");
  const verified = Math.max(fprCheck, sigCheck, sha);
  const early = fin
    .map((l, i) =>
      (/\btar\b.*\s-\w*x|efa_installer\.sh/.test(l) && /efa/i.test(l)) ||
      (/efa-installer/.test(l) && /\|\s*tar\b/.test(l))
        ? i
        : -1,
    )
    .filter((i) => i >= 0 && (i < verified || Math.min(fprCheck, sigCheck, sha) < 0));
  for (const i of early) out.push(`the EFA installer is extracted or run before it is verified: ${fin[i].trim()}`);
  if (at(/efa_installer\.sh/) < 0) out.push("final does not run efa_installer.sh");
  return out;
}

describe("contract: the combined Dockerfile against upstream", () => {
  const cases: RuleCase[] = [
    [
      "NIXL per CUDA major, meta wheel kept and installed in each venv (NIXL contrib/Dockerfile, Dynamo wheel_builder)",
      (t) => nixlMetaProblems(t, NIXL_SCRIPT),
      (t) => t.replace("/opt/trtllm-venv:cu13", "/opt/trtllm-venv:cu12"),
    ],
    [
      "TRT-LLM from a wheel file with unsafe-best-match, never by name from an index (dynamo#4588)",
      trtllmProblems,
      (t) => t.replace('"${wheel}" triton==3.5.1', '"tensorrt-llm==${TENSORRTLLM_VERSION}" triton==3.5.1'),
    ],
    [
      "final runs the smoke check through the launcher after its last install",
      smokeProblems,
      (t) => t.replace(/^\/usr\/bin\/python3\.12 \/tmp\/image-smoke\.py /m, "true /tmp/image-smoke.py "),
    ],
    [
      "runtime ENV and each environment's variables (venv, own NIXL/UCX, torch/lib; TRT-LLM's CUDA 13 stack)",
      (t) => envProblems(t, ENVS),
      (t) =>
        t.replace(
          "    FI_EFA_ENABLE_SHM_TRANSFER=0 \\",
          "    FI_EFA_ENABLE_SHM=0 \\\n    FI_EFA_ENABLE_SHM_TRANSFER=0 \\",
        ),
    ],
    [
      "the EFA installer is verified or not installed (GPG key fingerprint, VALIDSIG, then extract)",
      efaProblems,
      (t) => t.replace(/^efa_signers=.*VALIDSIG.*\n/m, ""),
    ],
  ];
  itHoldsAndCatches(TEXT, cases);

  it("the EFA checks each catch their own removal: fingerprint check, VALIDSIG exit, early extraction, gnupg, GNUPGHOME", () => {
    const mutations: [RegExp, (t: string) => string][] = [
      [/fingerprint .* is not compared/, (t) => t.replace(/^if \[ "\$\{efa_keys\}" != .*$/m, "if false; then")],
      [
        /no VALIDSIG line/,
        (t) => t.replace(/(^if ! grep -qxF "\$\{efa_fpr\}" <<<"\$\{efa_signers\}".*\n.*\n) {2}exit 1\n/m, "$1"),
      ],
      [
        /extracted or run before it is verified: tar -xzf/,
        (t) => t.replace(/^(efa_fpr=)/m, 'tar -xzf "${efa_dir}/${efa_tgz}" -C "${efa_dir}"\n$1'),
      ],
      [
        /extracted or run before it is verified: curl/,
        (t) =>
          t.replace(
            /^(curl -fsSL [^\n]*?-o "\$\{efa_dir\}\/\$\{efa_tgz\}") (".*")$/m,
            "curl -fsSL $2 | tar -xz -C /tmp",
          ),
      ],
      [/does not apt-get install gnupg/, (t) => t.replace(/ tcl gnupg libgomp1 \\$/m, " tcl libgomp1 \\")],
      [/throw-away GNUPGHOME/, (t) => t.replace(/^export GNUPGHOME=.*\n/m, "")],
      [/sha256sum -c/, (t) => t.replace(/^if \[ -n "\$\{EFA_INSTALLER_SHA256\}" \]; then\n.*\n/m, "if false; then\n")],
    ];
    for (const [want, mutate] of mutations) {
      const mutated = mutate(TEXT);
      assert.notStrictEqual(mutated, TEXT, `the mutation for ${want} changed nothing`);
      assert.match(efaProblems(mutated).join("\n"), want);
    }
  });

  it("an env file pointing at the other environment's NIXL is caught", () => {
    const swapped = { ...ENVS, trtllm: ENVS.trtllm.replace(/nvda_nixl_cu13/g, "nvda_nixl") };
    assert.match(
      envProblems(TEXT, swapped).join("\n"),
      /trtllm\.env LD_LIBRARY_PATH lacks \/opt\/nvidia\/nvda_nixl_cu13\/lib64/,
    );
    const plugin = { ...ENVS, trtllm: ENVS.trtllm.replace("unset NCCL_NET_PLUGIN", "NCCL_NET_PLUGIN=ofi") };
    assert.match(envProblems(TEXT, plugin).join("\n"), /OFI NCCL plugin named/);
  });
});
