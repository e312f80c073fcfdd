#!/usr/bin/env python3
"""Measures what an image smoke check can and cannot learn about a torch extension, on a machine with the real torch:

    python3 tests/contracts/extract/torch-extension-load.py > tests/contracts/facts/torch-extension-load.json

It builds two real torch extensions with torch.utils.cpp_extension.load_inline (the path every setuptools/CMake
torch extension shares: it links libc10, libtorch, libtorch_cpu, libtorch_python and, for CUDA, libc10_cuda and
libcudart, with no RUNPATH), one good CUDA extension and one that calls a C++ symbol nothing defines (what a
prebuilt wheel compiled against another torch build looks like to the loader: eugr/spark-vllm-docker#141). For each
it records:
  - `ldd` with the caller's environment (a bare ldd): the "not found" lines;
  - `ldd` with torch/lib on LD_LIBRARY_PATH (the path the engines run with): the "not found" lines;
  - importing the module in a fresh python WITHOUT importing torch first;
  - importing it in a fresh python AFTER `import torch` (what the engine does);
  - calling its function (the good one on the GPU).
So a check that runs bare ldd fails a good extension, and a check that only runs ldd passes a broken one; only the
import after torch tells them apart.
"""
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import tempfile

import torch
from torch.utils import cpp_extension

GOOD_CPP = "torch::Tensor add_one(torch::Tensor x);"
GOOD_CU = r"""
#include <torch/extension.h>
__global__ void add_one_kernel(float* p, int64_t n) { int64_t i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] += 1.0f; }
torch::Tensor add_one(torch::Tensor x) {
  auto y = x.clone();
  int64_t n = y.numel();
  add_one_kernel<<<(n + 255) / 256, 256>>>(y.data_ptr<float>(), n);
  return y;
}
"""
# A declaration of a c10 function that no libc10 defines: the shared object links (undefined symbols are allowed in
# a shared library), and the dynamic loader refuses it at dlopen, exactly like a wheel built against another torch.
BAD_CPP = r"""
#include <torch/extension.h>
namespace c10 { namespace dynamo_efa_probe { void symbol_from_another_torch_build(int); } }
int64_t call_missing(int64_t v) { c10::dynamo_efa_probe::symbol_from_another_torch_build((int)v); return v; }
"""


def build(name, cpp, cuda, functions, build_dir):
    os.makedirs(build_dir, exist_ok=True)
    try:
        cpp_extension.load_inline(name=name, cpp_sources=[cpp], cuda_sources=[cuda] if cuda else None,
                                  functions=functions, build_directory=build_dir, verbose=False, is_python_module=True)
    except ImportError:
        pass  # load_inline imports what it built; the broken one is meant to fail that import, probed below
    so = [f for f in os.listdir(build_dir) if f.endswith(".so")]
    return os.path.join(build_dir, so[0])


def not_found(so, env):
    out = subprocess.run(["ldd", so], capture_output=True, text=True, env=env).stdout
    return sorted({line.split("=>")[0].strip() for line in out.splitlines() if "not found" in line})


def readelf_runpath(so):
    out = subprocess.run(["readelf", "-d", so], capture_output=True, text=True).stdout
    return [line.strip() for line in out.splitlines() if "RPATH" in line or "RUNPATH" in line]


def try_import(so_dir, name, torch_first, call):
    code = ("import torch\n" if torch_first else "") + (
        f"import sys; sys.path.insert(0, {so_dir!r})\nimport {name} as m\n{call}\nprint('OK')")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    err = (p.stderr.strip().splitlines() or [""])[-1]
    return {"ok": p.returncode == 0 and p.stdout.strip().endswith("OK"), "error": re.sub(r"/tmp/[^ :]*/", "<build>/", err)}


def probe(name, so, call):
    env_bare = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    torch_lib = os.path.join(os.path.dirname(torch.__file__), "lib")
    env_engine = dict(env_bare, LD_LIBRARY_PATH=torch_lib)
    so_dir = os.path.dirname(so)
    return {
        "runpath": readelf_runpath(so),
        "bareLddNotFound": not_found(so, env_bare),
        "lddWithTorchLibNotFound": not_found(so, env_engine),
        "importWithoutTorch": try_import(so_dir, name, False, call),
        "importAfterTorch": try_import(so_dir, name, True, call),
    }


def main():
    root = tempfile.mkdtemp(prefix="ext-probe-")
    good = build("dynamo_efa_good_ext", GOOD_CPP, GOOD_CU, ["add_one"], os.path.join(root, "good"))
    bad = build("dynamo_efa_bad_ext", BAD_CPP, None, ["call_missing"], os.path.join(root, "bad"))
    call_good = "x = torch.zeros(4, device='cuda'); assert m.add_one(x).sum().item() == 4.0"
    facts = {
        "torch": torch.__version__, "torchCuda": torch.version.cuda, "gitVersion": torch.version.git_version,
        "python": platform.python_version(), "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "good": probe("dynamo_efa_good_ext", good, call_good),
        "undefinedSymbol": probe("dynamo_efa_bad_ext", bad, "m.call_missing(1)"),
    }
    print(json.dumps({
        "provenance": {
            "repository": f"torch {torch.__version__} (CUDA {torch.version.cuda}, Python {platform.python_version()}) on the device machine (H200)",
            "ref": torch.__version__, "commit": torch.version.git_version, "paths": ["torch/utils/cpp_extension.py"],
            "extracted": datetime.date.today().isoformat(),
            "extractor": "tests/contracts/extract/torch-extension-load.py (python3, on the device machine)",
            "notes": "two extensions built with torch.utils.cpp_extension.load_inline; ldd, readelf -d and fresh-process imports as described in the extractor's docstring",
        },
        "facts": facts,
    }, indent=1))


if __name__ == "__main__":
    main()
