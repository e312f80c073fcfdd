#!/usr/bin/env python3
"""Build-time smoke check of the final image: exits non-zero, failing the build, on any problem.

1. Real imports (importlib.import_module, not a module-spec lookup) of both engines, NIXL (meta package and `nixl._api`, what
   vLLM's NixlConnector imports), FlashInfer, flash-attn, LMCache and Dynamo's two engine modules.
   A build has no GPU and no NVIDIA driver: an import that fails only because the driver is absent (libcuda /
   libnvidia-ml not found, no CUDA-capable device; expected for tensorrt_llm, whose bindings link libcuda.so.1) is
   reported as SKIPPED, naming the module (its shared objects are still checked by ldd below); any other import
   error fails the build.
2. NIXL's LIBFABRIC and UCX backend plugins are present in NIXL_PLUGIN_DIR.
3. `ldd` of every shared object under the engines' site-packages, torch/lib and the NIXL plugins finds every
   library, except the driver's (libcuda, libnvidia-ml), which the NVIDIA container runtime mounts at run time.
"""
import importlib
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

MODULES = ["torch", "vllm", "tensorrt_llm", "nixl", "nixl._api", "flashinfer", "flash_attn", "lmcache", "dynamo.vllm", "dynamo.trtllm",
           "dynamo.frontend"]
DRIVER_LIBS = ("libcuda.so", "libnvidia-ml.so")
NO_DRIVER = DRIVER_LIBS + ("no CUDA-capable device", "Found no NVIDIA driver")
PLUGINS = ["libplugin_LIBFABRIC.so", "libplugin_UCX.so"]
ENGINE_DIRS = ["torch/lib", "vllm", "tensorrt_llm", "flashinfer", "flashinfer_jit_cache", "flashinfer_cubin", "flash_attn",
               "lmcache", "nixl_cu12", "deep_ep", "deep_gemm", "pplx_kernels", "dynamo"]


def check_imports() -> list:
    problems = []
    for name in MODULES:
        try:
            importlib.import_module(name)
            print(f"import {name}: ok")
        except Exception as e:  # noqa: BLE001 - every failure is reported
            msg = f"{type(e).__name__}: {e}"
            if any(marker in msg for marker in NO_DRIVER):
                print(f"import {name}: SKIPPED, needs the NVIDIA driver (absent at build time): {msg}")
            else:
                problems.append(f"import {name}: {msg}")
    return problems


def check_plugins() -> list:
    plugin_dir = Path(os.environ.get("NIXL_PLUGIN_DIR", ""))
    return [f"NIXL plugin {p} missing from NIXL_PLUGIN_DIR={plugin_dir}" for p in PLUGINS if not (plugin_dir / p).is_file()]


def shared_objects() -> list:
    site = Path(sysconfig.get_paths()["purelib"])
    files = [f for d in ENGINE_DIRS for f in (site / d).rglob("*.so*") if f.is_file()]
    files += [f for f in site.glob("*.so") if f.is_file()]  # top-level extension modules (flash_attn_2_cuda)
    files += [f for f in Path(os.environ.get("NIXL_PLUGIN_DIR", "/nonexistent")).glob("*.so") if f.is_file()]
    return sorted(set(files))


def check_ldd() -> list:
    problems = []
    files = shared_objects()
    for f in files:
        out = subprocess.run(["ldd", str(f)], capture_output=True, text=True).stdout
        missing = [line.split()[0] for line in out.splitlines() if "not found" in line]
        missing = [m for m in missing if not m.startswith(DRIVER_LIBS)]
        if missing:
            problems.append(f"ldd {f}: not found: {', '.join(missing)}")
    print(f"ldd: {len(files)} shared objects checked")
    return problems


def main() -> int:
    problems = check_imports() + check_plugins() + check_ldd()
    for p in problems:
        print(f"SMOKE CHECK FAILED: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
