#!/usr/bin/env python3
"""Overlay vLLM's venv onto the TRT-LLM venv of the combined image, one installed distribution at a time.

usage: overlay-venv.py <vllm site-packages> <target site-packages>

Decisions are made per distribution, by the project name inside its METADATA (not by folder name, which left two
versions of flashinfer, transformers, ... side by side), and files move by their RECORD:
- never: torch, torchvision, torchaudio, triton and the `nvidia-*` CUDA wheels (NGC's torch and CUDA 13 stack is the
  one PyTorch both engines share);
- always (replacing whatever version the target has): vLLM and the packages built with or for it;
- otherwise: only when the target has no distribution of that project.
"""
import re
import shutil
import sys
from pathlib import Path

NEVER = re.compile(r"^(torch|torchvision|torchaudio|triton|pytorch-triton|nvidia-.*)$")
ALWAYS = re.compile(r"^(vllm|vllm-.*|flashinfer-.*|lmcache|runai-model-streamer.*|deep-ep|deep-gemm|pplx-kernels)$")


def normalize(name: str) -> str:
    """PEP 503 project name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def project_name(info: Path):
    """The normalized `Name:` of a .dist-info's METADATA, or None."""
    meta = info / "METADATA"
    if not meta.is_file():
        return None
    for line in meta.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("Name:"):
            return normalize(line.split(":", 1)[1].strip())
        if line == "":
            return None
    return None


def distributions(site: Path) -> dict:
    """Project name -> its .dist-info folder."""
    return {name: info for info in sorted(site.glob("*.dist-info")) if (name := project_name(info))}


def record_paths(info: Path) -> list:
    """Paths a distribution installed inside site-packages (scripts outside it, `../`, are left alone)."""
    record = info / "RECORD"
    if not record.is_file():
        return [info.name]
    paths = [line.split(",")[0] for line in record.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [p for p in paths if not p.startswith("..") and not p.startswith("/")] + [info.name]


def remove(site: Path, info: Path) -> None:
    for rel in record_paths(info):
        path = site / rel
        if path.is_file() or path.is_symlink():
            path.unlink()
    shutil.rmtree(info, ignore_errors=True)


def copy(src_site: Path, info: Path, dst_site: Path) -> None:
    for rel in record_paths(info):
        src = src_site / rel
        if src.is_dir():
            shutil.copytree(src, dst_site / rel, symlinks=True, dirs_exist_ok=True)
        elif src.exists():
            (dst_site / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst_site / rel, follow_symlinks=False)


def main(src_site: Path, dst_site: Path) -> int:
    have = distributions(dst_site)
    for name, info in distributions(src_site).items():
        if NEVER.match(name):
            action = "skip (the shared NGC stack)"
        elif ALWAYS.match(name) or name not in have:
            if name in have:
                remove(dst_site, have[name])
            copy(src_site, info, dst_site)
            action = f"replace {have[name].name}" if name in have else "add"
        else:
            action = f"keep {have[name].name}"
        print(f"{name}: {info.name}: {action}")
    names = [project_name(info) for info in dst_site.glob("*.dist-info")]
    dupes = sorted({n for n in names if n and names.count(n) > 1})
    if dupes:
        print(f"two versions of one project installed: {', '.join(dupes)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
