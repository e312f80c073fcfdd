#!/usr/bin/env python3
"""Measures what the first H200 calibration (h200-serving-calibration.json) lacks, for issue 34
(serving/facts/h200-serving-extended.json):

    python3 tests/contracts/extract/h200-serving-extended.py > serving/facts/h200-serving-extended.json

On one GPU, CUDA-event medians after warm-up, random-normal inputs:
  - gemm: bf16 torch.matmul and FP8 (e4m3, per-tensor scales) torch._scaled_mm at the weight shapes of
    Llama-3.1-8B (TP1) and Llama-3.1-70B (TP1, 2, 4, 8) layers, token counts 1..8192. _scaled_mm needs rows
    in multiples of 16: fewer rows are padded to 16 (as the engines' FP8 kernels pad), the time is the padded call's;
  - decodeStep: the Llama-3.1-8B-shaped CUDA-graph decode step of the first calibration (32 layers, GQA SDPA over a
    dense KV cache, lm_head) with bf16 and with FP8 weights (activations quantized per GEMM, lm_head bf16), at
    batch 1..1024 and the contexts whose KV cache fits (<= ~96 GiB): ms, weight and KV bytes;
  - decodeAttention: one layer's decode attention alone (SDPA, one query token per sequence, GQA 32/8, d 128) at
    batch 1..1024 and context 1k..8k: ms and the KV read rate;
  - hostOverhead: the same 8B decode step at batch 1 launched eagerly (one Python call per kernel, as an engine
    without CUDA graphs) against its CUDA-graph replay: ms each, and kernels per step.
torch has no FP8-KV attention kernel: FP8 KV is not measured here (the model prices it as half the bytes at the
measured bf16 KV read rate).
"""
import datetime
import importlib.util
import json
import os
import platform
import statistics

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("cal", os.path.join(HERE, "h200-serving-calibration.py"))
cal = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cal)

DEV, BF16, FP8 = "cuda", torch.bfloat16, torch.float8_e4m3fn
ONE = torch.ones((), device=DEV, dtype=torch.float32)
ROWS = (1, 8, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192)


def timed(fn, repeats=15, warmup=3):
    return cal.timed(fn, repeats=repeats, warmup=warmup)


def mm8(x, w8t):
    """FP8 GEMM of a bf16 activation x (m, k) by an FP8 weight stored (n, k): quantize x, pad rows to 16."""
    m = x.shape[0]
    pad = (-m) % 16
    xq = x.to(FP8)
    if pad:
        xq = F.pad(xq.view(torch.uint8), (0, 0, 0, pad)).view(FP8)
    return torch._scaled_mm(xq, w8t.t(), scale_a=ONE, scale_b=ONE, out_dtype=BF16)[:m]


def gemm():
    out = []
    shapes = [("Llama-3.1-8B", cal.LLAMA8B, 1)] + [("Llama-3.1-70B", cal.LLAMA70B, tp) for tp in (1, 2, 4, 8)]
    for model, m, tp in shapes:
        for op, (k, n) in cal.layer_shapes(m, tp).items():
            w = torch.randn(k, n, device=DEV, dtype=BF16)
            w8t = (w.t().contiguous() * 0.1).to(FP8)
            for tokens in ROWS:
                x = torch.randn(tokens, k, device=DEV, dtype=BF16)
                bf = timed(lambda: torch.matmul(x, w))
                f8 = timed(lambda: mm8(x, w8t))
                flops = 2 * tokens * k * n
                out.append({"model": model, "tp": tp, "op": op, "m": tokens, "k": k, "n": n,
                            "bf16Ms": round(bf, 5), "fp8Ms": round(f8, 5),
                            "bf16Tflops": round(flops / bf / 1e9, 1), "fp8Tflops": round(flops / f8 / 1e9, 1)})
            del w, w8t
            torch.cuda.empty_cache()
    return out


class Fp8DecodeStep(cal.DecodeStep):
    """The 8B decode step with FP8 linear weights (stored (n, k) for _scaled_mm); lm_head stays bf16."""

    def __init__(self, m, batch, context):
        super().__init__(m, batch, context)
        self.w8 = [{k: (t.t().contiguous()).to(FP8) for k, t in w.items()} for w in self.w]
        self.w = None
        torch.cuda.empty_cache()
        self.weight_bytes = sum(t.numel() for w in self.w8 for t in w.values()) + self.lm_head.numel() * 2

    def __call__(self):
        m, b = self.m, self.batch
        g, d = m["heads"] // m["kv"], m["head_dim"]
        x = self.x
        for w, k, v in zip(self.w8, self.k, self.v):
            hdn = F.rms_norm(x, (m["hidden"],), self.norm)
            qkv = mm8(hdn, w["qkv"])
            q = qkv[:, : m["heads"] * d].view(b, m["kv"], g, d)
            attn = F.scaled_dot_product_attention(q, k, v)
            x = x + mm8(attn.reshape(b, m["heads"] * d).contiguous(), w["o"])
            gu = mm8(F.rms_norm(x, (m["hidden"],), self.norm), w["gate_up"])
            gate, up = gu.chunk(2, dim=-1)
            x = x + mm8((F.silu(gate) * up).contiguous(), w["down"])
        return F.rms_norm(x, (m["hidden"],), self.norm) @ self.lm_head


def graphed(step):
    with torch.inference_mode():
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(2):
                step()
        torch.cuda.current_stream().wait_stream(s)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            step()
    return graph


KV_LIMIT = 96 * 2**30
POINTS = [(b, c) for b in (1, 32, 128, 256, 512, 1024) for c in (256, 512, 1024, 2048, 4096)]


def decode_steps():
    out = []
    m = cal.LLAMA8B
    per_token = m["layers"] * 2 * m["kv"] * m["head_dim"] * 2
    for dtype, cls in (("bf16", cal.DecodeStep), ("fp8", Fp8DecodeStep)):
        for batch, context in POINTS:
            if batch * context * per_token > KV_LIMIT:
                continue
            try:
                step = cls(m, batch, context)
                graph = graphed(step)
                ms = timed(graph.replay, repeats=10)
                out.append({"weights": dtype, "batch": batch, "context": context, "ms": round(ms, 4),
                            "weightBytes": step.weight_bytes, "kvBytes": step.kv_bytes})
                del graph
            except Exception as e:  # noqa: BLE001 -- the error is the fact
                out.append({"weights": dtype, "batch": batch, "context": context, "error": str(e)[:200]})
            step = None
            torch.cuda.empty_cache()
    return out


def decode_attention():
    out = []
    h, kv, d = 32, 8, 128
    for batch in (1, 8, 32, 128, 256, 512, 1024):
        for context in (1024, 4096, 8192):
            q = torch.randn(batch, kv, h // kv, d, device=DEV, dtype=BF16)
            k = torch.randn(batch, kv, context, d, device=DEV, dtype=BF16)
            v = torch.randn_like(k)
            ms = timed(lambda: F.scaled_dot_product_attention(q, k, v))
            kv_bytes = 2 * k.numel() * 2
            out.append({"batch": batch, "context": context, "ms": round(ms, 4), "kvBytes": kv_bytes,
                        "kvGBs": round(kv_bytes / ms / 1e6, 1)})
            del q, k, v
            torch.cuda.empty_cache()
    return out


def host_overhead():
    out = []
    for dtype, cls in (("bf16", cal.DecodeStep), ("fp8", Fp8DecodeStep)):
        step = cls(cal.LLAMA8B, 1, 1024)
        with torch.inference_mode():
            eager = timed(step, repeats=10)
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
                step()
                torch.cuda.synchronize()
            kernels = sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)
        graph = graphed(step)
        replay = timed(graph.replay, repeats=10)
        out.append({"weights": dtype, "batch": 1, "context": 1024, "eagerMs": round(eager, 4),
                    "graphMs": round(replay, 4), "kernelsPerStep": kernels})
        del graph, step
        torch.cuda.empty_cache()
    return out


def main():
    torch.manual_seed(0)
    p = torch.cuda.get_device_properties(0)
    only = os.environ.get("ONLY")
    parts = (("gemm", gemm), ("decodeAttention", decode_attention), ("hostOverhead", host_overhead),
             ("decodeStep", decode_steps))
    facts = {"gpu": p.name, "smCount": p.multi_processor_count, "memoryGiB": round(p.total_memory / 2**30, 1),
             "torch": torch.__version__, "cuda": torch.version.cuda, "python": platform.python_version(),
             **{n: cal.guarded(fn) for n, fn in parts if not only or n in only.split(",")}}
    print(json.dumps({
        "provenance": {
            "repository": f"measured on the device machine: {p.name}, torch {torch.__version__} (CUDA {torch.version.cuda})",
            "ref": torch.__version__, "commit": torch.version.git_version,
            "paths": ["tests/contracts/extract/h200-serving-extended.py"],
            "extracted": datetime.date.today().isoformat(),
            "extractor": "tests/contracts/extract/h200-serving-extended.py (python3, on the device machine)",
            "notes": "CUDA-event medians after warm-up; random-normal inputs; the script's sha256 is scriptSha256",
        },
        "facts": {**facts, "scriptSha256": os.environ.get("SCRIPT_SHA", "")},
    }, indent=1))


if __name__ == "__main__":
    main()
