"""Probes what torch's extension builder accepts in TORCH_CUDA_ARCH_LIST, on a machine with the real torch:

    python3 tests/contracts/extract/torch-cuda-archs.py > tests/contracts/facts/torch-cuda-archs-device.json

It calls torch.utils.cpp_extension._get_cuda_arch_flags (the function every CUDAExtension build goes through) with
candidate lists and with every single arch with and without "+PTX" and the "a"/"f" suffixes, and records which it
accepts, the error text of each rejection, and the `supported_arches` list of the installed source.
`--from-raw raw.json` rewrites an earlier raw probe (the output of `--raw`) into the fact file shape.
"""
import datetime
import inspect
import json
import os
import platform
import re
import sys

LISTS = ["8.0;8.6;8.7;8.9;9.0;10.0;10.1;12.0+PTX", "8.0;8.6;8.9;9.0;10.0;12.0+PTX", "9.0", "8.0;8.6;8.9;9.0;10.0;10.3;12.0+PTX",
         "8.0;8.6;8.7;8.9;9.0;10.0;10.3;11.0;12.0;12.1+PTX", "9.0 10.0", "9.0a;10.0a"]
BASES = ["7.5", "8.0", "8.6", "8.7", "8.8", "8.9", "9.0", "10.0", "10.1", "10.3", "11.0", "12.0", "12.1"]
SINGLES = [b + s for b in BASES for s in ("", "+PTX", "a", "a+PTX", "f", "f+PTX")]


def probe_raw() -> dict:
    import torch
    from torch.utils import cpp_extension as ce
    src = inspect.getsource(ce._get_cuda_arch_flags)
    m = re.search(r"supported_arches\s*=\s*\[(.*?)\]", src, re.S)

    def probe(s):
        os.environ["TORCH_CUDA_ARCH_LIST"] = s
        try:
            return {"list": s, "accepted": True, "flags": ce._get_cuda_arch_flags()}
        except Exception as e:  # noqa: BLE001 - the rejection is the fact
            return {"list": s, "accepted": False, "error": f"{type(e).__name__}: {e}"}

    return {"python": sys.version.split()[0], "machine": platform.machine(), "torch": torch.__version__,
            "torch_cuda": torch.version.cuda, "torch_git_version": getattr(torch.version, "git_version", None),
            "supported_arches_source": re.findall(r"'([^']+)'", m.group(1)) if m else None,
            "lists": [probe(s) for s in LISTS], "singles": [probe(s) for s in SINGLES]}


def fact_file(raw: dict, extracted: str) -> dict:
    def brief(r):
        return {"list": r["list"], "accepted": r["accepted"], **({} if r["accepted"] else {"error": r["error"]})}
    return {
        "provenance": {
            "repository": f"torch {raw['torch']} (CUDA {raw['torch_cuda']}, Python {raw['python']}, {raw['machine']}) on the device machine (H200)",
            "ref": raw["torch"], "commit": raw["torch_git_version"], "paths": ["torch/utils/cpp_extension.py"],
            "extracted": extracted, "extractor": "tests/contracts/extract/torch-cuda-archs.py (python3, on the device machine)",
            "notes": "torch.utils.cpp_extension._get_cuda_arch_flags called with TORCH_CUDA_ARCH_LIST set to each list; commit is torch.version.git_version",
        },
        "facts": {
            "torch": raw["torch"], "supportedArches": raw["supported_arches_source"],
            "lists": [brief(r) for r in raw["lists"]],
            "acceptedSingles": [r["list"] for r in raw["singles"] if r["accepted"]],
            "rejectedSingles": [r["list"] for r in raw["singles"] if not r["accepted"]],
            "rejectionErrors": sorted({r["error"] for r in raw["singles"] if not r["accepted"]})[:3],
        },
    }


if __name__ == "__main__":
    today = datetime.date.today().isoformat()
    if len(sys.argv) == 3 and sys.argv[1] == "--from-raw":
        with open(sys.argv[2]) as f:
            json.dump(fact_file(json.load(f), today), sys.stdout, indent=2)
    elif len(sys.argv) == 2 and sys.argv[1] == "--raw":
        json.dump(probe_raw(), sys.stdout, indent=1)
    else:
        json.dump(fact_file(probe_raw(), today), sys.stdout, indent=2)
    sys.stdout.write("\n")
