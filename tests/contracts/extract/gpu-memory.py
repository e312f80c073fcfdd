#!/usr/bin/env python3
"""Measures what one GPU really offers an inference engine (tests/contracts/facts/gpu-memory.json).

Usage, on the GPU machine: python3 tests/contracts/extract/gpu-memory.py > facts.json (then wrap in a provenance block)
Reports the memory CUDA exposes (what vLLM's --gpu-memory-utilization is a fraction of), nvidia-smi's
total, and the memory used by the CUDA context alone and after one bf16 cuBLAS matmul (the fixed
overhead every engine process pays before weights or KV cache). Grounds RUNTIME_RESERVE_GIB.
"""
import json, torch, subprocess
free0, total = torch.cuda.mem_get_info()  # initializes the CUDA context
p = torch.cuda.get_device_properties(0)
a = torch.randn(8192, 4096, device="cuda", dtype=torch.bfloat16); b = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
(a @ b).sum().item()
free1, _ = torch.cuda.mem_get_info()
alloc = torch.cuda.memory_reserved()
smi = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
print(json.dumps({"name": p.name, "total_memory_bytes": p.total_memory, "total_GiB": p.total_memory / 2**30,
  "mem_get_info_total": total, "used_after_context_GiB": (total - free0) / 2**30,
  "used_after_bf16_matmul_GiB": (total - free1) / 2**30, "torch_reserved_GiB": alloc / 2**30, "nvidia_smi": smi,
  "torch": torch.__version__, "cuda": torch.version.cuda}, indent=1))
