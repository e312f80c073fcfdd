/**
 * dockerfiles/image-smoke.py (the final stage's build-time check) run for real, through the image's own launcher
 * (dockerfiles/dynamo-entrypoint.sh) on a fake environment: it takes the engine's variables from the launcher, and
 * fails naming every missing extension module and NIXL plugin. Needs python3 and bash; skips with a printed reason.
 */
import * as assert from "assert";
import { spawnSync } from "child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { loadFacts } from "../contracts/facts";

const DIR = join(__dirname, "..", "..", "dockerfiles");
const SMOKE = join(DIR, "image-smoke.py");
const python = spawnSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" });
const PYTHON = python.status === 0 ? python.stdout.trim() : "";

describe("image-smoke.py: the build-time check, through the launcher", function () {
  this.timeout(60_000);
  let root = "";
  beforeEach(function () {
    if (!PYTHON || spawnSync("bash", ["--version"]).status !== 0) {
      console.log("    (skipped: python3 or bash is not installed, so image-smoke.py cannot run here)");
      this.skip();
    }
    root = mkdtempSync(join(tmpdir(), "smoke-"));
  });
  afterEach(() => root && rmSync(root, { recursive: true, force: true }));

  /** A fake image: env files pointing at a venv whose python is this machine's, a stand-in torch, driver stubs. */
  function fakeImage(stubExtra = false): Record<string, string> {
    mkdirSync(join(root, "venv", "bin"), { recursive: true });
    symlinkSync(PYTHON, join(root, "venv", "bin", "python3"));
    mkdirSync(join(root, "py", "torch"), { recursive: true });
    writeFileSync(join(root, "py", "torch", "__init__.py"), '__version__ = "2.10.0+fake"\n');
    mkdirSync(join(root, "env"));
    mkdirSync(join(root, "plugins"));
    for (const name of ["vllm", "trtllm"]) {
      writeFileSync(
        join(root, "env", `${name}.env`),
        `VIRTUAL_ENV=${root}/venv\nNIXL_PREFIX=${root}/nixl\nNIXL_PLUGIN_DIR=${root}/plugins\nLD_LIBRARY_PATH=${root}/lib-${name}\n`,
      );
      mkdirSync(join(root, "stubs", name), { recursive: true });
      writeFileSync(join(root, "stubs", name, "libcuda.so.1"), "");
    }
    if (stubExtra) writeFileSync(join(root, "stubs", "vllm", "libcublas.so.12"), "");
    mkdirSync(join(root, "bin"));
    symlinkSync(join(DIR, "dynamo-entrypoint.sh"), join(root, "bin", "python3"));
    return { ...process.env, DYNAMO_ENV_DIR: join(root, "env"), PYTHONPATH: join(root, "py"), HPCX_DIR: "/opt/hpcx" };
  }

  const run = (env: Record<string, string>, extra: string[] = []) =>
    spawnSync(
      PYTHON,
      [SMOKE, "--launcher", join(root, "bin", "python3"), "--driver-stubs", join(root, "stubs"), ...extra],
      {
        encoding: "utf8",
        env,
      },
    );

  it("fails naming, per environment, every required extension module and both NIXL plugins", () => {
    const r = run(fakeImage(), ["--expect-module", "vllm:deep_ep_cpp"]);
    assert.strictEqual(r.status, 1, r.stderr);
    for (const want of [
      /vllm: required module vllm\._C did not load/,
      /vllm: required module nixl_cu12\._bindings did not load/,
      /vllm: required module deep_ep_cpp did not load/,
      /vllm: required module lmcache\.\* did not load/,
      /trtllm: required module flash_attn_2_cuda did not load/,
      /trtllm: required module nixl_cu13\._bindings did not load/,
      /trtllm: required module tensorrt_llm\.\* did not load/,
      /vllm: NIXL plugin libplugin_LIBFABRIC\.so missing/,
      /trtllm: NIXL plugin libplugin_UCX\.so missing/,
      /vllm: import vllm: ModuleNotFoundError/,
      /trtllm: import tensorrt_llm: ModuleNotFoundError/,
    ])
      assert.match(r.stderr, want);
    assert.match(r.stdout, /vllm: torch 2\.10\.0\+fake/, "the probe ran in the environment's python, torch first");
  });

  it("takes the environment from the launcher: the engine's variables, HPC-X's dropped", () => {
    const env = fakeImage();
    const code = [
      "import importlib.util, json",
      `s = importlib.util.spec_from_file_location('s', ${JSON.stringify(SMOKE)}); m = importlib.util.module_from_spec(s); s.loader.exec_module(m)`,
      `e = m.engine_environment(${JSON.stringify(join(root, "bin", "python3"))}, 'trtllm')`,
      `print(json.dumps([e['VIRTUAL_ENV'], e['LD_LIBRARY_PATH'], 'HPCX_DIR' in e, m.with_driver_stubs(e, __import__('pathlib').Path(${JSON.stringify(join(root, "stubs", "trtllm"))}))['LD_LIBRARY_PATH']]))`,
    ].join("\n");
    const r = spawnSync(PYTHON, ["-c", code], { encoding: "utf8", env });
    assert.strictEqual(r.status, 0, r.stderr);
    assert.deepStrictEqual(JSON.parse(r.stdout), [
      join(root, "venv"),
      `${root}/lib-trtllm`,
      false,
      `${root}/lib-trtllm:${join(root, "stubs", "trtllm")}`,
    ]);
  });

  /** Runs `code` with image-smoke.py loaded as `m`, in the fake image's environment; the JSON it prints. */
  function smokeFn(env: Record<string, string>, code: string): unknown {
    const head = `import importlib.util, json, pathlib\ns = importlib.util.spec_from_file_location('s', ${JSON.stringify(SMOKE)}); m = importlib.util.module_from_spec(s); s.loader.exec_module(m)\n`;
    const r = spawnSync(PYTHON, ["-c", head + code], { encoding: "utf8", env });
    assert.strictEqual(r.status, 0, r.stderr);
    return JSON.parse(r.stdout);
  }

  it("W2: resolves each pod command's entry (`dynamo.<engine>.main:main`), not only the package __init__", () => {
    const env = fakeImage();
    // A Dynamo whose package imports but whose entry module does not (a missing import in main.py), as measured in
    // the audit: `import dynamo.vllm` passes, `python3 -m dynamo.vllm` fails.
    mkdirSync(join(root, "py", "dynamo", "vllm"), { recursive: true });
    mkdirSync(join(root, "py", "dynamo", "frontend"), { recursive: true });
    writeFileSync(join(root, "py", "dynamo", "__init__.py"), "");
    writeFileSync(join(root, "py", "dynamo", "vllm", "__init__.py"), '__version__ = "1.0.0"\n');
    writeFileSync(
      join(root, "py", "dynamo", "vllm", "main.py"),
      "import dynamo_missing_module\ndef main():\n    pass\n",
    );
    writeFileSync(join(root, "py", "dynamo", "frontend", "__init__.py"), "");
    writeFileSync(join(root, "py", "dynamo", "frontend", "main.py"), "main = 'not callable'\n");
    const r = run(env);
    assert.match(
      r.stderr,
      /vllm: entry dynamo\.vllm\.main:main: ModuleNotFoundError: No module named 'dynamo_missing_module'/,
    );
    assert.match(r.stderr, /vllm: entry dynamo\.frontend\.main:main: dynamo\.frontend\.main has no callable main/);
    assert.match(r.stderr, /trtllm: entry dynamo\.trtllm\.main:main: ModuleNotFoundError/);
    assert.doesNotMatch(r.stderr, /import dynamo\.vllm:/, "the package itself imports");
    writeFileSync(join(root, "py", "dynamo", "vllm", "main.py"), "def main():\n    pass\n");
    assert.deepStrictEqual(smokeFn(env, "print(json.dumps(m.resolve_entries([('dynamo.vllm.main', 'main')])))"), {
      ok: ["dynamo.vllm.main:main"],
      skipped: {},
      failed: {},
    });
  });

  it("W2: the entries are the modules Dynamo's `__main__` runs (tests/contracts/facts/dynamo-image-build.json)", () => {
    const entries = smokeFn(
      fakeImage(),
      "print(json.dumps({k: v['entries'] for k, v in m.ENVIRONMENTS.items()}))",
    ) as Record<string, [string, string][]>;
    const facts = loadFacts<{ entryModules: Record<string, string> }>("dynamo-image-build").facts.entryModules;
    assert.deepStrictEqual(entries, {
      vllm: [facts.vllm.split(":"), facts.frontend.split(":")],
      trtllm: [facts.trtllm.split(":")],
    });
  });

  it("B4: TensorRT-LLM's on-demand objects (Mooncake wrapper, bundled UCX and NIXL trees) are listed, never loaded", () => {
    const site = join(root, "site");
    const files = [
      "tensorrt_llm/libs/ucx/ucx/libuct_xpmem.so.0",
      "tensorrt_llm/libs/nixl/plugins/libplugin_UCX.so",
      "tensorrt_llm/libs/libtensorrt_llm_mooncake_wrapper.so",
      "tensorrt_llm/libs/libth_common.so",
      "tensorrt_llm/bindings.cpython-312-x86_64-linux-gnu.so",
    ];
    for (const f of files) {
      mkdirSync(join(site, f, ".."), { recursive: true });
      writeFileSync(join(site, f), "not an ELF object");
    }
    const out = smokeFn(
      fakeImage(),
      [
        `site = pathlib.Path(${JSON.stringify(site)})`,
        "spec = m.ENVIRONMENTS['trtllm']",
        "load, optional = m.split_optional(site, m.shared_objects(site, spec['packages']), spec['optional'])",
        "failed = m.load_objects(site, load)['failed']",
        "print(json.dumps([sorted(p.relative_to(site).as_posix() for p in optional), sorted(pathlib.Path(k).relative_to(site).as_posix() for k in failed)]))",
      ].join("\n"),
    );
    assert.deepStrictEqual(out, [
      files.slice(0, 3).sort(),
      // What the engine loads at start-up is still loaded with RTLD_NOW, and a bad one still fails.
      ["tensorrt_llm/bindings.cpython-312-x86_64-linux-gnu.so", "tensorrt_llm/libs/libth_common.so"],
    ]);
  });

  it("refuses a driver-stub folder holding anything but libcuda / libnvidia-ml (it would hide a missing library)", () => {
    const r = run(fakeImage(true));
    assert.notStrictEqual(r.status, 0);
    assert.match(r.stderr, /holds more than the driver's libraries: libcublas\.so\.12/);
  });
});
