/**
 * Acceptance contract of the combined image (one torch per engine), over the real Dockerfile (dockerfile-ast) and the build-time
 * check, each rule run on the real files and on a mutation that must fail:
 * - no vLLM package reaches the TensorRT-LLM environment, and every compiled extension runs on the torch it was built
 *   against (each venv copied whole to the path it was built at; every later install held to that venv's torch);
 * - the smoke check loads the extension modules after torch, and runs ldd only with the engine's environment
 *   (rules read off tests/contracts/facts/torch-extension-load.json, measured with a real torch on the GPU machine);
 * - every downloaded file is verified (pinned SHA-256 or signature by a pinned key);
 * - no git ref names a branch.
 */
import * as assert from "assert";
import { spawnSync } from "child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { DockerfileParser } from "dockerfile-ast";
import { argProperties, itHoldsAndCatches, RuleCase, shellLines, stageTexts } from "../helpers/dockerfile";
import { loadFacts } from "./facts";

const DIR = join(__dirname, "..", "..", "dockerfiles");
const TEXT = readFileSync(join(DIR, "Dockerfile.dynamo-combined-efa"), "utf8");
const SMOKE = readFileSync(join(DIR, "image-smoke.py"), "utf8");
const NIXL_SCRIPT = readFileSync(join(DIR, "build-nixl.sh"), "utf8");
const ENGINE_STAGES: Readonly<Record<string, string>> = {
  vllm_framework: "/opt/dynamo/venv",
  trtllm_framework: "/opt/trtllm-venv",
};

/** Stage name -> its text (FROM line to the next FROM), from dockerfile-ast's FROM ranges. */
function stages(text: string): Map<string, string> {
  return new Map(stageTexts(text).map((s) => [s.name, s.text]));
}

/** Shell lines with continuations joined and comments dropped. */
const commands = shellLines;

/** Every ARG default by name (all declarations). */
function argDefaults(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const a of argProperties(DockerfileParser.parse(text)))
    out.set(a.name, [...(out.get(a.name) ?? []), (a.value ?? "").replace(/^"|"$/g, "")]);
  return out;
}

/** vLLM never enters the TRT-LLM venv; each extension-building venv is copied whole, same path; installs keep torch. */
export function environmentProblems(text: string): string[] {
  const out: string[] = [];
  const st = stages(text);
  if (/overlay-venv/.test(text)) out.push("the Dockerfile still overlays one venv onto another (overlay-venv)");
  for (const l of commands(st.get("final") ?? "")) {
    const copy = /^COPY\s+(?:--\S+\s+)*--from=(\w+)\s+(\S+)\s+(\S+)\s*$/.exec(l);
    if (copy && copy[1] in ENGINE_STAGES) {
      const venv = ENGINE_STAGES[copy[1]];
      if (copy[2] !== venv || copy[3] !== venv)
        out.push(
          `final copies ${copy[2]} from ${copy[1]} to ${copy[3]}: only the whole venv ${venv}, to the same path`,
        );
    }
    const mount = /--mount=[^ ]*from=(vllm_framework|trtllm_framework)/.exec(l);
    if (mount) out.push(`final mounts ${mount[1]} (files of one environment copied piecemeal)`);
    if (
      /uv pip install/.test(l) &&
      !/--python "\$\{dir\}\/bin\/python" --constraint "\$\{dir\}\/torch-constraints\.txt"/.test(l)
    )
      out.push(`final installs without naming one venv and holding it to its torch: ${l.trim()}`);
  }
  const trt = commands(st.get("trtllm_framework") ?? "").join("\n");
  for (const pkg of ["vllm", "lmcache", "flashinfer-jit-cache", "deep_ep", "DeepEP", "/opt/dynamo/venv"])
    if (trt.includes(pkg)) out.push(`trtllm_framework touches ${pkg}, a vLLM-environment package`);
  const vl = commands(st.get("vllm_framework") ?? "");
  const vllmAt = vl.findIndex((l) => /uv pip install --torch-backend=.*vllm/.test(l));
  vl.forEach((l, i) => {
    if (i > vllmAt && /uv pip install/.test(l) && !/--constraint "\$\{VIRTUAL_ENV\}\/torch-constraints\.txt"/.test(l))
      out.push(`vllm_framework installs after vLLM without holding torch: ${l.trim()}`);
  });
  for (const [what, re] of [
    ["LMCache", /uv pip install .*--no-build-isolation \/tmp\/lmcache/],
    ["DeepEP", /uv pip install .*--no-build-isolation \./],
  ] as const)
    if (!vl.some((l) => re.test(l))) out.push(`${what} is not built against the venv's torch (--no-build-isolation)`);
  if (!vl.some((l) => /LDFLAGS="-Wl,-rpath,\$\{torch_lib\}"/.test(l)))
    out.push("LMCache is linked without torch/lib as RPATH (Dynamo install_vllm.sh)");
  return out;
}

/** Every download goes through fetch-verified with a pin, or is the EFA installer's GPG-checked block. */
export function downloadProblems(text: string, scripts: readonly string[]): string[] {
  const out: string[] = [];
  const args = argDefaults(text);
  const pin = (name: string, re: RegExp) => (args.get(name) ?? [""]).every((v) => re.test(v)) && args.has(name);
  for (const l of commands(text)) {
    if (/^\s*ADD\s+https?:/.test(l)) out.push(`ADD of a URL: ${l.trim()}`);
    if (/\b(curl|wget)\b/.test(l) && !/"\$\{efa_dir\}\//.test(l) && !/apt-get install/.test(l))
      out.push(`a download not through fetch-verified: ${l.trim()}`);
    if (/\|\s*(ba)?sh\b/.test(l)) out.push(`a downloaded script piped into a shell: ${l.trim()}`);
    const sha = /fetch-verified sha256 \S+ \S+ "\$\{(\w+)\}"/.exec(l);
    if (sha && !pin(sha[1], /^[0-9a-f]{64}$/)) out.push(`${sha[1]} has no 64-hex default`);
    const gpg = /fetch-verified gpg .* "\$\{(\w+)\}"$/.exec(l.trim());
    if (gpg && !pin(gpg[1], /^[0-9A-F]{40}$/)) out.push(`${gpg[1]} has no 40-hex key fingerprint default`);
    if (/fetch-verified/.test(l) && !/COPY/.test(l) && !sha && !gpg)
      out.push(`fetch-verified without a pin: ${l.trim()}`);
  }
  for (const s of scripts)
    for (const l of commands(s)) if (/\b(curl|wget)\b/.test(l)) out.push(`a build script downloads: ${l.trim()}`);
  return out;
}

/** A ref that can move: a branch name (main, master, a `v1.20.x` release branch) rather than a tag or a commit. */
export function isMovingRef(ref: string): boolean {
  if (/^[0-9a-f]{7,40}$/.test(ref)) return false;
  return /(^|[-/])(main|master|HEAD|latest|develop|nightly)$/.test(ref) || /\.x$/.test(ref) || !/^v?\d/.test(ref);
}

/** Every ARG that names a git ref (cloned with --branch, checked out or fetched) has a fixed default. */
export function refProblems(text: string): string[] {
  const args = argDefaults(text);
  const used = new Set<string>();
  for (const l of commands(text)) {
    for (const m of l.matchAll(/(?:--branch|checkout -q|fetch -q --depth 1 \S+) "v?\$\{(\w+)\}"/g)) used.add(m[1]);
    for (const m of l.matchAll(/\b(\w+_REF)="\$\{\1\}"/g)) used.add(m[1]);
  }
  for (const name of args.keys()) if (name.endsWith("_REF")) used.add(name);
  return [...used].flatMap((name) =>
    (args.get(name) ?? ["<undeclared>"])
      .filter(isMovingRef)
      .map((v) => `${name}=${v} names a branch, not a tag or commit`),
  );
}

describe("contract: one image, one torch per engine", () => {
  const cases: RuleCase[] = [
    [
      "no vLLM package in the TRT-LLM venv; every extension on the torch it was built against",
      environmentProblems,
      (t) =>
        t.replace(
          "COPY --from=trtllm_framework /opt/trtllm-venv /opt/trtllm-venv",
          "COPY --from=trtllm_framework /opt/trtllm-venv /opt/trtllm-venv\nCOPY --from=vllm_framework /opt/dynamo/venv/lib/python3.12/site-packages/vllm /opt/trtllm-venv/lib/python3.12/site-packages/vllm",
        ),
    ],
    [
      "every download verified",
      (t) => downloadProblems(t, [NIXL_SCRIPT]),
      (t) =>
        t.replace(
          'fetch-verified sha256 "https://github.com/astral-sh',
          'curl -fsSLo /tmp/uv "https://github.com/astral-sh',
        ),
    ],
    ["no ref names a branch", refProblems, (t) => t.replace(/ARG UCX_REF=v1\.20\.0/g, "ARG UCX_REF=v1.20.x")],
  ];
  itHoldsAndCatches(TEXT, cases);

  it("each torch-holding rule catches its own removal", () => {
    const mutations: [RegExp, (t: string) => string][] = [
      [
        /installs without naming one venv/,
        (t) => t.replace(/ --constraint "\$\{dir\}\/torch-constraints\.txt" --no-deps/, " --no-deps"),
      ],
      [/LMCache is not built against/, (t) => t.replace("--no-build-isolation /tmp/lmcache", "/tmp/lmcache")],
      [/without torch\/lib as RPATH/, (t) => t.replace(/ LDFLAGS="-Wl,-rpath,\$\{torch_lib\}"/, "")],
      [
        /after vLLM without holding torch/,
        (t) =>
          t.replace(
            'uv pip install --constraint "${VIRTUAL_ENV}/torch-constraints.txt" setuptools',
            "uv pip install setuptools",
          ),
      ],
      [/trtllm_framework touches vllm/, (t) => t.replace("uv pip show tensorrt-llm torch", "uv pip install vllm")],
    ];
    for (const [want, mutate] of mutations) {
      const mutated = mutate(TEXT);
      assert.notStrictEqual(mutated, TEXT, `the mutation for ${want} changed nothing`);
      assert.match(environmentProblems(mutated).join("\n"), want);
    }
  });

  it("moving refs: branches are caught, tags and commits pass", () => {
    for (const r of ["v1.20.x", "main", "master", "release/1.2-main"]) assert.ok(isMovingRef(r), r);
    for (const r of [
      "v1.20.0",
      "0.10.1",
      "1.11.760",
      "v2.27.7-1",
      "73b6ea4",
      "f2fd3a16e78ce472d427f17ec85f764085a8ddd3",
    ])
      assert.ok(!isMovingRef(r), r);
  });
});

interface LoadFacts {
  good: ExtFacts;
  undefinedSymbol: ExtFacts;
}
interface ExtFacts {
  bareLddNotFound: string[];
  lddWithTorchLibNotFound: string[];
  importWithoutTorch: { ok: boolean; error: string };
  importAfterTorch: { ok: boolean; error: string };
}

/** The smoke check's rules, statically: ldd only with the engine's env, torch before any object, a real load. */
export function smokeRuleProblems(smoke: string): string[] {
  const out: string[] = [];
  for (const l of smoke.split("\n").filter((x) => /\["ldd"/.test(x)))
    if (!/env=\w+/.test(l)) out.push(`ldd without the engine's environment: ${l.trim()}`);
  const probe = /def probe\([\s\S]*?\n\n\n/.exec(smoke)?.[0] ?? "";
  const torchAt = probe.indexOf("import torch");
  const loadAt = probe.indexOf("load_objects(");
  if (torchAt < 0 || loadAt < 0 || torchAt > loadAt) out.push("the probe does not import torch before loading objects");
  if (!/spec\.loader\.exec_module\(module\)/.test(smoke) || !/err = import_extension\(name, p\)/.test(smoke))
    out.push("extension modules are not imported (their PyInit never runs)");
  if (!/ctypes\.CDLL\(/.test(smoke)) out.push("shared objects are not dlopen'ed");
  if (!/engine_environment\(launcher, env_name\)/.test(smoke))
    out.push("the environment does not come from the image's launcher (the engine's own LD_LIBRARY_PATH)");
  return out;
}

describe("contract: the build-time check against what a real torch extension does (torch-extension-load.json)", function () {
  this.timeout(60_000);
  const f = loadFacts<LoadFacts>("torch-extension-load").facts;

  it("the facts: bare ldd fails a good extension, ldd with torch/lib passes a broken one, only the load after torch tells them apart", () => {
    assert.ok(f.good.bareLddNotFound.includes("libc10.so") && f.good.importAfterTorch.ok);
    assert.deepStrictEqual(f.undefinedSymbol.lddWithTorchLibNotFound, []);
    assert.ok(
      !f.undefinedSymbol.importAfterTorch.ok && /undefined symbol/.test(f.undefinedSymbol.importAfterTorch.error),
    );
    assert.ok(!f.good.importWithoutTorch.ok);
  });

  it("so image-smoke.py runs ldd only with the engine's env, imports torch first, and loads every object", () => {
    assert.deepStrictEqual(smokeRuleProblems(SMOKE), []);
    assert.match(
      smokeRuleProblems(
        SMOKE.replace(
          '["ldd", str(path)], capture_output=True, text=True, env=env)',
          '["ldd", str(path)], capture_output=True, text=True)',
        ),
      ).join("\n"),
      /ldd without/,
    );
    assert.match(
      smokeRuleProblems(SMOKE.replace("err = import_extension(name, p)", "err = None")).join("\n"),
      /not imported/,
    );
  });

  it("the same shapes, reproduced with real objects here: the check passes the good one and fails the broken one", function () {
    const tools = ["python3", "gcc", "ldd"].every((t) => spawnSync(t, ["--version"]).status === 0);
    if (!tools) {
      console.log("    (skipped: python3, gcc or ldd missing, so no shared objects can be built here)");
      this.skip();
    }
    const root = mkdtempSync(join(tmpdir(), "smoke-ext-"));
    try {
      // libdep stands for libc10 (loaded by `import torch`, RTLD_GLOBAL); good needs it, bad needs a symbol nobody has.
      writeFileSync(join(root, "dep.c"), "int dep_fn(int x) { return x + 1; }\n");
      writeFileSync(join(root, "good.c"), "extern int dep_fn(int); int good(int x) { return dep_fn(x); }\n");
      writeFileSync(
        join(root, "bad.c"),
        "extern int from_another_build(int); int bad(int x) { return from_another_build(x); }\n",
      );
      const cc = (args: string[]) =>
        assert.strictEqual(spawnSync("gcc", args, { cwd: root }).status, 0, args.join(" "));
      cc(["-shared", "-fPIC", "-Wl,-soname,libdep.so", "-o", "libdep.so", "dep.c"]); // a SONAME, as libc10.so has
      cc(["-shared", "-fPIC", "-o", "pkg_good.so", "good.c", "-L.", "-ldep"]);
      cc(["-shared", "-fPIC", "-o", "pkg_bad.so", "bad.c"]);
      const code = `
import ctypes, importlib.util, json, os, sys
spec = importlib.util.spec_from_file_location("smoke", ${JSON.stringify(join(DIR, "image-smoke.py"))})
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
from pathlib import Path
root = Path(${JSON.stringify(root)})
bare = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
engine = dict(bare, LD_LIBRARY_PATH=str(root))
out = {"bareLdd": m.ldd_missing(root / "pkg_good.so", bare), "engineLddBad": m.ldd_missing(root / "pkg_bad.so", engine)}
out["before"] = m.load_libraries([root / "pkg_good.so"])
ctypes.CDLL(str(root / "libdep.so"), mode=ctypes.RTLD_GLOBAL)  # what import torch does for libc10
out["after"] = {str(k): v for k, v in m.load_libraries([root / "pkg_good.so", root / "pkg_bad.so"]).items()}
print(json.dumps({k: ({str(a): b for a, b in v.items()} if isinstance(v, dict) else v) for k, v in out.items()}))
`;
      const p = spawnSync("python3", ["-c", code], { encoding: "utf8", env: { ...process.env, LD_LIBRARY_PATH: "" } });
      assert.strictEqual(p.status, 0, p.stderr);
      const r = JSON.parse(p.stdout) as Record<string, unknown>;
      assert.deepStrictEqual(
        r.bareLdd,
        ["libdep.so"],
        "bare ldd reports the preloaded library missing (fact: libc10.so)",
      );
      assert.deepStrictEqual(r.engineLddBad, [], "ldd with the engine's path passes the broken object (fact)");
      assert.match(JSON.stringify(r.before), /libdep\.so: cannot open shared object file/);
      const after = r.after as Record<string, string>;
      assert.deepStrictEqual(
        Object.keys(after),
        [join(root, "pkg_bad.so")],
        "after the preload only the broken one fails",
      );
      assert.match(after[join(root, "pkg_bad.so")], /undefined symbol: from_another_build/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
