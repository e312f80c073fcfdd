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

  it("refuses a driver-stub folder holding anything but libcuda / libnvidia-ml (it would hide a missing library)", () => {
    const r = run(fakeImage(true));
    assert.notStrictEqual(r.status, 0);
    assert.match(r.stderr, /holds more than the driver's libraries: libcublas\.so\.12/);
  });
});
