#!/usr/bin/env python3
"""Build-time check of dynamo-combined-efa: fails the build where the first pod would fail.

    image-smoke.py --launcher /opt/dynamo/bin/python3 --driver-stubs DIR [--expect-module vllm:deep_ep_cpp ...]

For each engine environment (ENVIRONMENTS below), the check first asks the image's own launcher (the python3 that
Kubernetes runs, dynamo-entrypoint) for that environment's variables, so it runs with exactly the VIRTUAL_ENV and
LD_LIBRARY_PATH the engine runs with. Then, in that environment's python (`probe` mode):

1. `import torch` (the engine's torch), then the engine and Dynamo's module for it (`vllm`, `dynamo.vllm`, `nixl._api`;
   `tensorrt_llm`, `dynamo.trtllm`), then each ENTRY the pods run: `python3 -m dynamo.vllm` runs `dynamo/vllm/__main__.py`,
   which is `from dynamo.vllm.main import main` (Dynamo @ f2fd3a16e; the same for trtllm and frontend), so
   `dynamo.<engine>.main` is imported and its `main` must be a callable (a package `__init__` only reads a version and
   proves nothing about the command). An import that fails only because there is no GPU at build time (the markers in
   NO_DRIVER) is reported as SKIPPED, by name; every other import error fails the build.
2. Every shared object of the environment's compiled packages (PACKAGES: vllm._C and its siblings, flash-attn, LMCache's
   c_ops, DeepEP, TensorRT-LLM's bindings and libraries, NIXL's bindings, Dynamo's runtime) is loaded with dlopen
   (RTLD_NOW, so an undefined symbol fails here: a module built against another torch build fails like
   `undefined symbol: _ZN3c10...`), and each Python extension module among them is imported as its module
   (`vllm._C`), after torch, as the engine does. Plain libraries load first, RTLD_GLOBAL, as their packages load them.
   OPTIONAL objects are not loaded, only listed: what an engine dlopens on demand for a transport this image does not
   use (TensorRT-LLM's Mooncake wrapper needs libtransfer_engine.so, "causing import to fail on machines without
   Mooncake" if linked directly; its bundled UCX and NIXL trees, with transport modules for hardware a node may lack,
   and with sonames that, loaded RTLD_GLOBAL, would shadow this image's own NIXL/UCX for the plugins checked in 3).
3. NIXL's native library and every backend plugin in NIXL_PLUGIN_DIR are dlopen'ed (LIBFABRIC and UCX must exist).
4. For each object that fails to load, `ldd` names the missing libraries, run with the engine's own environment
   (never a bare ldd: it reports `libc10.so => not found` for a good torch extension, whose NEEDED torch libraries
   the loaded torch already provides; tests/contracts/facts/torch-extension-load.json).

No GPU and no driver at build time: `--driver-stubs DIR/<env>/` holds only libcuda.so.1 and libnvidia-ml.so.1 (the
CUDA toolkit's link stubs for that environment's CUDA), appended last to the probe's library path, so objects that
link the driver load and their driver symbols are checked too; no other library can come from there. A missing
libcuda or libnvidia-ml is never counted (the NVIDIA container runtime mounts the real ones).

The functions are plain Python (no torch import at module level) so tests can run them on fake environments.
"""
import argparse
import ctypes
import fnmatch
import importlib
import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

# Per environment: the venv, the modules to import, the packages (folders or top-level modules in site-packages)
# whose shared objects must all load, and modules that must be among them (a walk that finds nothing proves nothing).
# `entries`: (module, function) each pod command runs (the launcher runs the frontend in the vLLM environment).
# `optional`: path patterns (relative to site-packages, fnmatch) of objects loaded only on demand, never walked.
ENVIRONMENTS = {
    "vllm": {
        "imports": ["vllm", "dynamo.vllm", "nixl", "nixl._api", "flashinfer", "lmcache"],
        "entries": [("dynamo.vllm.main", "main"), ("dynamo.frontend.main", "main")],
        "packages": ["vllm", "lmcache", "deep_ep", "deep_ep_cpp", "nixl_cu12", "dynamo"],
        "optional": [],
        "required": ["vllm._C", "nixl_cu12._bindings"],
        "required_prefixes": ["lmcache.", "dynamo."],
    },
    "trtllm": {
        "imports": ["tensorrt_llm", "dynamo.trtllm", "nixl", "nixl._api", "flash_attn"],
        "entries": [("dynamo.trtllm.main", "main")],
        "packages": ["tensorrt_llm", "tensorrt_libs", "torch_tensorrt", "flash_attn", "flash_attn_2_cuda", "nixl_cu13", "dynamo"],
        "optional": ["tensorrt_llm/libs/ucx/*", "tensorrt_llm/libs/nixl/*", "*mooncake*"],
        "required": ["flash_attn_2_cuda", "nixl_cu13._bindings"],
        "required_prefixes": ["tensorrt_llm.", "dynamo."],
    },
}
DRIVER_LIBS = ("libcuda.so", "libnvidia-ml.so")
NO_DRIVER = DRIVER_LIBS + (
    "no CUDA-capable device",
    "Found no NVIDIA driver",
    "CUDA_ERROR_STUB_LIBRARY",
    "CUDA driver is a stub library",
    "NVML Shared Library Not Found",
    "NVMLError",
)
PLUGINS = ("libplugin_LIBFABRIC.so", "libplugin_UCX.so")


def is_driver_only(error: str) -> bool:
    """Whether an error is one a GPU-less build must expect (and a node with the driver would not see)."""
    return any(marker in error for marker in NO_DRIVER)


def not_found_only_driver(error: str) -> bool:
    """A load error that is only "libcuda.so.1 / libnvidia-ml.so.1: cannot open shared object file"."""
    return "cannot open shared object file" in error and error.lstrip().startswith(DRIVER_LIBS)


def extension_suffix(name: str):
    """The longest Python extension suffix `name` ends with (".cpython-312-x86_64-linux-gnu.so", ".abi3.so", ".so")."""
    hits = [s for s in importlib.machinery.EXTENSION_SUFFIXES if name.endswith(s)]
    return max(hits, key=len) if hits else None


def module_name(site: Path, path: Path):
    """Dotted module name of extension file `path` under `site` (`vllm/_C.abi3.so` -> `vllm._C`), or None."""
    suffix = extension_suffix(path.name)
    if suffix is None:
        return None
    stem = path.name[: -len(suffix)]
    if not stem.isidentifier():
        return None
    parts = list(path.relative_to(site).parent.parts) + [stem]
    return ".".join(parts) if all(p.isidentifier() for p in parts) else None


def shared_objects(site: Path, packages) -> list:
    """Every shared object (`*.so`, `*.so.N`) of `packages` under `site`: folders walked, top-level modules by name."""
    found = set()
    for pkg in packages:
        folder = site / pkg
        if folder.is_dir():
            found.update(f for f in folder.rglob("*.so*") if f.is_file() and (f.suffix == ".so" or ".so." in f.name))
        found.update(f for f in site.glob(f"{pkg}.*.so") if f.is_file())
        found.update(f for f in site.glob(f"{pkg}.so") if f.is_file())
    return sorted(found)


def split_optional(site: Path, paths, patterns) -> tuple:
    """(objects to load, optional objects left to the engine's on-demand loading), by `patterns` on the site path."""
    def optional(p: Path) -> bool:
        rel = p.relative_to(site).as_posix()
        return any(fnmatch.fnmatch(rel, pat) for pat in patterns)
    return [p for p in paths if not optional(p)], [p for p in paths if optional(p)]


def not_found(ldd_output: str) -> list:
    """Libraries `ldd` reports as not found, the driver's excepted."""
    names = [line.split("=>")[0].strip() for line in ldd_output.splitlines() if "not found" in line]
    return sorted({n for n in names if not n.startswith(DRIVER_LIBS)})


def ldd_missing(path: Path, env: dict) -> list:
    """`ldd` of `path` with the engine's environment `env` (required: a bare ldd lies about torch extensions)."""
    out = subprocess.run(["ldd", str(path)], capture_output=True, text=True, env=env).stdout
    return not_found(out)


def try_dlopen(path: Path, mode: int):
    """dlopen `path` (ctypes adds RTLD_NOW: undefined symbols fail here); (handle, None) or (None, error)."""
    try:
        return ctypes.CDLL(str(path), mode=mode), None
    except OSError as e:
        return None, str(e)


def load_libraries(paths) -> dict:
    """dlopen plain libraries RTLD_GLOBAL, retrying until no progress (a library may need one loaded after it)."""
    errors, pending = {}, list(paths)
    while pending:
        errors = {}
        for p in pending:
            handle, err = try_dlopen(p, ctypes.RTLD_GLOBAL)
            if handle is None:
                errors[p] = err
        if len(errors) == len(pending):
            break
        pending = list(errors)
    return errors


def import_extension(name: str, path: Path):
    """Imports extension file `path` as module `name` (its PyInit runs); None or the error."""
    if name in sys.modules:
        return None
    try:
        spec = importlib.util.spec_from_file_location(name, str(path))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[name] = module
        return None
    except Exception as e:  # noqa: BLE001 - every failure is reported
        return f"{type(e).__name__}: {e}"


def load_objects(site: Path, paths) -> dict:
    """Loads every object: plain libraries first (RTLD_GLOBAL), then extension modules (dlopen, then import).
    Returns {"loaded": [module names], "failed": {path: error}}."""
    modules = {p: module_name(site, p) for p in paths}
    failed = load_libraries([p for p, m in modules.items() if m is None])
    loaded = []
    for p, name in modules.items():
        if name is None:
            continue
        handle, err = try_dlopen(p, ctypes.RTLD_LOCAL)
        if handle is not None and hasattr(handle, f"PyInit_{name.rsplit('.', 1)[-1]}"):
            err = import_extension(name, p)
        if err is None:
            loaded.append(name)
        else:
            failed[p] = err
    return {"loaded": sorted(loaded), "failed": {str(k): v for k, v in failed.items()}}


def nixl_native(prefix: str, plugin_dir: str) -> dict:
    """NIXL's own libraries (RTLD_GLOBAL, as the agent has them loaded) and then every plugin."""
    lib_dir = Path(prefix) / "lib64"
    failed = load_libraries(sorted(lib_dir.glob("libnixl*.so")))
    plugins = sorted(Path(plugin_dir).glob("libplugin_*.so"))
    problems = [f"NIXL plugin {p} missing from NIXL_PLUGIN_DIR={plugin_dir}" for p in PLUGINS if not (Path(plugin_dir) / p).is_file()]
    for p in plugins:
        handle, err = try_dlopen(p, ctypes.RTLD_LOCAL)
        if handle is None:
            failed[p] = err
    return {"failed": {str(k): v for k, v in failed.items()}, "problems": problems, "plugins": [p.name for p in plugins]}


def import_modules(names) -> dict:
    """Real imports; {"ok": [...], "skipped": {name: error}, "failed": {name: error}}."""
    out = {"ok": [], "skipped": {}, "failed": {}}
    for name in names:
        try:
            importlib.import_module(name)
            out["ok"].append(name)
        except Exception as e:  # noqa: BLE001 - every failure is reported
            msg = f"{type(e).__name__}: {e}"
            (out["skipped"] if is_driver_only(msg) else out["failed"])[name] = msg
    return out


def resolve_entries(entries) -> dict:
    """Imports each entry module and resolves its function; {"ok": [...], "skipped": {...}, "failed": {...}}."""
    out = {"ok": [], "skipped": {}, "failed": {}}
    for module, func in entries:
        label = f"{module}:{func}"
        try:
            target = getattr(importlib.import_module(module), func, None)
            if not callable(target):
                out["failed"][label] = f"{module} has no callable {func}"
                continue
            out["ok"].append(label)
        except Exception as e:  # noqa: BLE001 - every failure is reported
            msg = f"{type(e).__name__}: {e}"
            (out["skipped"] if is_driver_only(msg) else out["failed"])[label] = msg
    return out


def probe(env_name: str) -> dict:
    """Runs inside the environment's python: torch, the engine imports, every shared object, NIXL's plugins."""
    spec = ENVIRONMENTS[env_name]
    site = Path(sysconfig.get_paths()["purelib"])
    try:
        import torch  # noqa: F401 - the engine's torch, loaded first as the engine loads it
    except Exception as e:  # noqa: BLE001
        return {"fatal": f"import torch: {type(e).__name__}: {e}"}
    result = {"torch": torch.__version__, "imports": import_modules(spec["imports"])}
    result["entries"] = resolve_entries(spec["entries"])
    load, optional = split_optional(site, shared_objects(site, spec["packages"]), spec["optional"])
    result["objects"] = load_objects(site, load)
    result["optional"] = [p.relative_to(site).as_posix() for p in optional]
    result["nixl"] = nixl_native(os.environ.get("NIXL_PREFIX", ""), os.environ.get("NIXL_PLUGIN_DIR", ""))
    return result


def missing_required(spec: dict, loaded, expected=()) -> list:
    """Required modules (and module prefixes) that did not load."""
    names = set(loaded)
    out = [m for m in list(spec["required"]) + list(expected) if m not in names]
    out += [f"{p}*" for p in spec["required_prefixes"] if not any(n.startswith(p) for n in names)]
    return out


def problems_of(env_name: str, result: dict, engine_env: dict, expected=()) -> list:
    """Every problem in a probe result; ldd (with the engine's environment) names what a failed object lacks."""
    if "fatal" in result:
        return [f"{env_name}: {result['fatal']}"]
    out = [f"{env_name}: import {n}: {e}" for n, e in result["imports"]["failed"].items()]
    out += [f"{env_name}: entry {n}: {e}" for n, e in result["entries"]["failed"].items()]
    for path, err in {**result["objects"]["failed"], **result["nixl"]["failed"]}.items():
        if not_found_only_driver(err):
            continue
        missing = ldd_missing(Path(path), engine_env)
        out.append(f"{env_name}: load {path}: {err}" + (f" (ldd with the engine's LD_LIBRARY_PATH: not found {', '.join(missing)})" if missing else ""))
    out += [f"{env_name}: {p}" for p in result["nixl"]["problems"]]
    out += [f"{env_name}: required module {m} did not load" for m in missing_required(ENVIRONMENTS[env_name], result["objects"]["loaded"], expected)]
    return out


def engine_environment(launcher: str, env_name: str, base=None) -> dict:
    """The variables the launcher gives `env_name`'s engine: what Kubernetes' `python3 -m dynamo.<engine>` runs with."""
    env = dict(base if base is not None else os.environ, DYNAMO_BACKEND=env_name)
    code = "import json, os; print(json.dumps(dict(os.environ)))"
    p = subprocess.run([launcher, "-c", code], capture_output=True, text=True, env=env, check=True)
    return json.loads(p.stdout)


def with_driver_stubs(engine_env: dict, stubs: Path) -> dict:
    """The engine environment with the driver stubs LAST on the library path (only libcuda/libnvidia-ml are there)."""
    if not stubs.is_dir():
        raise SystemExit(f"driver stub dir {stubs} does not exist (it must hold libcuda.so.1 and libnvidia-ml.so.1)")
    extra = [f for f in stubs.iterdir() if not f.name.startswith(DRIVER_LIBS)]
    if extra:
        raise SystemExit(f"driver stub dir {stubs} holds more than the driver's libraries: {', '.join(sorted(f.name for f in extra))}")
    path = engine_env.get("LD_LIBRARY_PATH", "")
    return dict(engine_env, LD_LIBRARY_PATH=f"{path}:{stubs}" if path else str(stubs))


def run_environment(env_name: str, launcher: str, stubs: Path, expected) -> list:
    engine_env = engine_environment(launcher, env_name)
    python = str(Path(engine_env["VIRTUAL_ENV"]) / "bin" / "python3")
    p = subprocess.run([python, os.path.abspath(__file__), "--probe", env_name], capture_output=True, text=True,
                       env=with_driver_stubs(engine_env, stubs / env_name))
    sys.stderr.write(p.stderr[-4000:])
    if p.returncode != 0 or not p.stdout.strip():
        return [f"{env_name}: the probe exited {p.returncode}: {p.stderr.strip()[-2000:]}"]
    result = json.loads(p.stdout.strip().splitlines()[-1])
    if "fatal" not in result:
        print(f"{env_name}: torch {result['torch']}; imports ok {result['imports']['ok']}; "
              f"{len(result['objects']['loaded'])} extension modules loaded; NIXL plugins {result['nixl']['plugins']}")
        print(f"{env_name}: entries ok {result['entries']['ok']}; "
              f"{len(result['optional'])} optional on-demand objects not loaded {result['optional'][:8]}")
        for name, err in {**result["imports"]["skipped"], **result["entries"]["skipped"]}.items():
            print(f"{env_name}: import {name}: SKIPPED, needs the NVIDIA driver (absent at build time): {err}")
    return problems_of(env_name, result, engine_env, expected)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--probe", choices=sorted(ENVIRONMENTS), help=argparse.SUPPRESS)
    ap.add_argument("--launcher", default="/opt/dynamo/bin/python3")
    ap.add_argument("--driver-stubs", type=Path, default=Path("/opt/dynamo/driver-stubs"))
    ap.add_argument("--environments", default=",".join(ENVIRONMENTS))
    ap.add_argument("--expect-module", action="append", default=[], metavar="ENV:MODULE")
    args = ap.parse_args(argv)
    if args.probe:
        print(json.dumps(probe(args.probe)))
        return 0
    problems = []
    for env_name in args.environments.split(","):
        expected = [m.split(":", 1)[1] for m in args.expect_module if m.startswith(f"{env_name}:")]
        problems += run_environment(env_name, args.launcher, args.driver_stubs, expected)
    for p in problems:
        print(f"SMOKE CHECK FAILED: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
