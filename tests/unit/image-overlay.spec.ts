/**
 * dockerfiles/overlay-venv.py (the final stage's vLLM overlay) run on fake site-packages: one
 * distribution per project, decided by the Name in METADATA, files moved by RECORD. Needs python3; skips with a
 * printed reason without it.
 */
import * as assert from "assert";
import { spawnSync } from "child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { dirname, join } from "path";

const SCRIPT = join(__dirname, "..", "..", "dockerfiles", "overlay-venv.py");
const hasPython = spawnSync("python3", ["--version"]).status === 0;

/** A fake installed distribution: `<folder>.dist-info` with METADATA `Name:` and a RECORD of `files`. */
function dist(site: string, folder: string, name: string, files: string[]): void {
  const info = join(site, `${folder}.dist-info`);
  mkdirSync(info, { recursive: true });
  writeFileSync(join(info, "METADATA"), `Metadata-Version: 2.1\nName: ${name}\nVersion: x\n\nbody\n`);
  for (const f of files) {
    mkdirSync(dirname(join(site, f)), { recursive: true });
    writeFileSync(join(site, f), folder);
  }
  writeFileSync(
    join(info, "RECORD"),
    [...files, `${folder}.dist-info/METADATA`, "../../../bin/tool"].map((f) => `${f},sha256=x,1`).join("\n"),
  );
}

describe("overlay-venv.py: the vLLM overlay, per project name", function () {
  this.timeout(30_000);
  let root = "";
  beforeEach(function () {
    if (!hasPython) {
      console.log("    (skipped: python3 is not installed, so overlay-venv.py cannot run here)");
      this.skip();
    }
    root = mkdtempSync(join(tmpdir(), "overlay-"));
  });
  afterEach(() => root && rmSync(root, { recursive: true, force: true }));

  it("adds vLLM, replaces FlashInfer whatever its folder is called, keeps the target's transformers, never touches torch", () => {
    const src = join(root, "vllm-site");
    const dst = join(root, "site");
    dist(src, "vllm-0.17.1", "vllm", ["vllm/__init__.py"]);
    dist(src, "Flashinfer_Python-0.6.4", "flashinfer-python", ["flashinfer/__init__.py"]);
    dist(src, "transformers-4.57.1", "transformers", ["transformers/__init__.py"]);
    dist(src, "torch-2.9.0", "torch", ["torch/__init__.py"]);
    dist(dst, "flashinfer_python-0.6.1", "flashinfer_python", ["flashinfer/__init__.py", "flashinfer/old_only.py"]);
    dist(dst, "transformers-5.0.0", "Transformers", ["transformers/__init__.py"]);
    dist(dst, "torch-2.10.0a0", "torch", ["torch/__init__.py"]);
    const r = spawnSync("python3", [SCRIPT, src, dst], { encoding: "utf8" });
    assert.strictEqual(r.status, 0, r.stderr);
    assert.deepStrictEqual(
      readdirSync(dst)
        .filter((f) => f.endsWith(".dist-info"))
        .sort(),
      [
        "Flashinfer_Python-0.6.4.dist-info",
        "torch-2.10.0a0.dist-info",
        "transformers-5.0.0.dist-info",
        "vllm-0.17.1.dist-info",
      ],
    );
    assert.ok(
      !existsSync(join(dst, "flashinfer", "old_only.py")),
      "the replaced version's files are removed by its RECORD",
    );
    assert.ok(existsSync(join(dst, "vllm", "__init__.py")));
    assert.match(r.stdout, /^transformers: transformers-4\.57\.1\.dist-info: keep transformers-5\.0\.0\.dist-info$/m);
    assert.match(r.stdout, /^torch: .*skip/m);
    assert.ok(!existsSync(join(root, "bin")), "paths outside site-packages in RECORD are left alone");
  });

  it("fails when a project ends up installed twice (mutation: the target already had two)", () => {
    const src = join(root, "vllm-site");
    const dst = join(root, "site");
    dist(src, "vllm-0.17.1", "vllm", ["vllm/__init__.py"]);
    dist(dst, "numpy-1.26.4", "numpy", ["numpy/a.py"]);
    dist(dst, "numpy-2.1.0", "numpy", ["numpy/b.py"]);
    const r = spawnSync("python3", [SCRIPT, src, dst], { encoding: "utf8" });
    assert.strictEqual(r.status, 1);
    assert.match(r.stderr, /two versions of one project installed: numpy/);
  });
});

describe("image-smoke.py: the final stage's smoke check", function () {
  this.timeout(60_000);
  it("run where the engines are absent, it fails naming every missing import and both NIXL plugins", function () {
    if (!hasPython) {
      console.log("    (skipped: python3 is not installed, so image-smoke.py cannot run here)");
      this.skip();
    }
    // A stand-in tensorrt_llm whose import fails the way a driver-less build makes it fail.
    const fake = mkdtempSync(join(tmpdir(), "fake-trtllm-"));
    mkdirSync(join(fake, "tensorrt_llm"));
    writeFileSync(
      join(fake, "tensorrt_llm", "__init__.py"),
      'raise ImportError("libcuda.so.1: cannot open shared object file: No such file or directory")\n',
    );
    const env = { ...process.env, NIXL_PLUGIN_DIR: mkdtempSync(join(tmpdir(), "plugins-")), PYTHONPATH: fake };
    const r = spawnSync("python3", [join(__dirname, "..", "..", "dockerfiles", "image-smoke.py")], {
      encoding: "utf8",
      env,
    });
    assert.strictEqual(r.status, 1, r.stdout + r.stderr);
    for (const m of ["torch", "vllm", "nixl", "nixl._api", "flashinfer", "flash_attn", "lmcache", "dynamo.vllm"]) {
      assert.match(r.stderr, new RegExp(`SMOKE CHECK FAILED: import ${m.replace(".", "\\.")}: ModuleNotFoundError`), m);
    }
    assert.match(r.stderr, /NIXL plugin libplugin_LIBFABRIC\.so missing/);
    assert.match(r.stderr, /NIXL plugin libplugin_UCX\.so missing/);
    assert.match(r.stdout, /^import tensorrt_llm: SKIPPED, needs the NVIDIA driver \(absent at build time\)/m);
    assert.doesNotMatch(r.stderr, /import tensorrt_llm/);
    rmSync(env.NIXL_PLUGIN_DIR, { recursive: true, force: true });
    rmSync(fake, { recursive: true, force: true });
  });
});
