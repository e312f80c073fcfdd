#!/usr/bin/env python3
"""Measures the rates the serving estimate is calibrated on (serving/facts/h200-serving-calibration.json):

    python3 tests/contracts/extract/h200-serving-calibration.py > serving/facts/h200-serving-calibration.json

On one GPU, with the torch that is there, it times (CUDA events, median of repeats after warm-up):
  - gemm: bf16 torch.matmul at the weight shapes of Llama-3.1-8B and -70B layers (q/k/v, o, gate+up, down;
    70B at TP1 and TP8), for token counts 1..8192 (decode batches up to prefill chunks): ms and TFLOP/s;
  - attention: causal flash SDPA for one prompt at 1k..16k tokens (GQA 32/8 and 64/8 heads, head dim 128): ms, TFLOP/s;
  - hbm: the read bandwidth of a reduction over 4 GiB and the copy bandwidth (bytes read + written);
  - decodeStep: a Llama-3.1-8B-shaped decode step (32 layers: RMSNorm, fused qkv, GQA attention over a KV cache of
    `context` tokens per sequence, o proj, SiLU MLP, then the 128256-token lm_head), captured in a CUDA graph and
    replayed, for batch 1/8/32/64/128 at contexts 1k..8k (skipped where the KV cache would not fit): ms per step,
    with the bytes it must read (weights + KV) so the per-step overhead can be fitted;
  - prefillForward: transformers' LlamaForCausalLM built from the Llama-3.1-8B config (random bf16 weights, sdpa
    attention, no cache) at batch 1, ISL 1k/2k/4k/8k: ms per forward (an eager engine; vLLM's is faster).
Prints JSON only. Random weights change no timing of these dense kernels (the matrix rate on zeros is ~13% higher,
which is why the inputs are random normals).
"""
import datetime
import json
import platform
import statistics

import torch
import torch.nn.functional as F

DEV = "cuda"
BF16 = torch.bfloat16
LLAMA8B = dict(hidden=4096, inter=14336, heads=32, kv=8, head_dim=128, layers=32, vocab=128256)
LLAMA70B = dict(hidden=8192, inter=28672, heads=64, kv=8, head_dim=128, layers=80, vocab=128256)


def timed(fn, repeats=20, warmup=3):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


def layer_shapes(m, tp):
    h, i, d = m["hidden"], m["inter"], m["head_dim"]
    qkv = (m["heads"] + 2 * m["kv"]) * d // tp
    return {"qkv": (h, qkv), "o": (m["heads"] * d // tp, h), "gate_up": (h, 2 * i // tp), "down": (i // tp, h)}


def gemm():
    out = []
    for model, m, tp in (("Llama-3.1-8B", LLAMA8B, 1), ("Llama-3.1-70B", LLAMA70B, 1), ("Llama-3.1-70B", LLAMA70B, 8)):
        for op, (k, n) in layer_shapes(m, tp).items():
            w = torch.randn(k, n, device=DEV, dtype=BF16)
            for tokens in (1, 8, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192):
                x = torch.randn(tokens, k, device=DEV, dtype=BF16)
                ms = timed(lambda: torch.matmul(x, w))
                out.append({"model": model, "tp": tp, "op": op, "m": tokens, "k": k, "n": n, "ms": round(ms, 5),
                            "tflops": round(2 * tokens * k * n / ms / 1e9, 2)})
            del w
    return out


def attention():
    out = []
    for heads, kv in ((32, 8), (64, 8)):
        for seq in (1024, 2048, 4096, 8192, 16384):
            q = torch.randn(1, heads, seq, 128, device=DEV, dtype=BF16)
            k = torch.randn(1, kv, seq, 128, device=DEV, dtype=BF16)
            v = torch.randn(1, kv, seq, 128, device=DEV, dtype=BF16)
            # GQA as flash attention sees it: the kv heads repeated (flash kernels read them per group).
            kr, vr = k.repeat_interleave(heads // kv, 1), v.repeat_interleave(heads // kv, 1)
            with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.FLASH_ATTENTION):
                ms = timed(lambda: F.scaled_dot_product_attention(q, kr, vr, is_causal=True), repeats=10)
            flops = 4 * seq * seq * heads * 128 / 2  # QK^T and PV, causal half
            out.append({"heads": heads, "kvHeads": kv, "headDim": 128, "seq": seq, "ms": round(ms, 4),
                        "tflops": round(flops / ms / 1e9, 1)})
    return out


def hbm():
    n = 4 * 2**30 // 2
    x = torch.randn(n, device=DEV, dtype=BF16)
    y = torch.empty_like(x)
    read_ms = timed(lambda: x.sum(dtype=torch.float32), repeats=10)
    copy_ms = timed(lambda: y.copy_(x), repeats=10)
    return {"bytes": 2 * n, "readMs": round(read_ms, 4), "readGBs": round(2 * n / read_ms / 1e6, 1),
            "copyMs": round(copy_ms, 4), "copyGBs": round(4 * n / copy_ms / 1e6, 1)}


class DecodeStep:
    """One decode step of a Llama-3.1-8B-shaped model with its own tensors (no transformers): what a CUDA-graph
    decode of an engine executes per step, minus sampling and paging. The KV cache is one buffer per layer."""

    def __init__(self, m, batch, context):
        h, d = m["hidden"], m["head_dim"]
        s = layer_shapes(m, 1)
        self.m, self.batch, self.context = m, batch, context
        self.w = [{k: torch.randn(*shape, device=DEV, dtype=BF16) * 0.02 for k, shape in s.items()} for _ in range(m["layers"])]
        self.norm = torch.ones(h, device=DEV, dtype=BF16)
        self.lm_head = torch.randn(h, m["vocab"], device=DEV, dtype=BF16) * 0.02
        self.k = [torch.randn(batch, m["kv"], context, d, device=DEV, dtype=BF16) for _ in range(m["layers"])]
        self.v = [torch.randn(batch, m["kv"], context, d, device=DEV, dtype=BF16) for _ in range(m["layers"])]
        self.x = torch.randn(batch, h, device=DEV, dtype=BF16)
        self.weight_bytes = sum(t.numel() * 2 for w in self.w for t in w.values()) + self.lm_head.numel() * 2
        self.kv_bytes = sum(t.numel() * 2 for t in self.k + self.v)

    def __call__(self):
        m, b = self.m, self.batch
        g, d = m["heads"] // m["kv"], m["head_dim"]
        x = self.x
        for w, k, v in zip(self.w, self.k, self.v):
            hdn = F.rms_norm(x, (m["hidden"],), self.norm)
            qkv = hdn @ w["qkv"]
            q = qkv[:, : m["heads"] * d].view(b, m["kv"], g, d)  # the g query heads of one kv head, as q rows
            attn = F.scaled_dot_product_attention(q, k, v)  # one new token attends to the whole context
            x = x + attn.reshape(b, m["heads"] * d) @ w["o"]
            gu = F.rms_norm(x, (m["hidden"],), self.norm) @ w["gate_up"]
            gate, up = gu.chunk(2, dim=-1)
            x = x + (F.silu(gate) * up) @ w["down"]
        return F.rms_norm(x, (m["hidden"],), self.norm) @ self.lm_head


def decode_steps():
    out = []
    free, _ = torch.cuda.mem_get_info()
    for context in (1024, 2048, 4096, 8192):
        for batch in (1, 8, 32, 64, 128):
            kv_bytes = batch * context * LLAMA8B["layers"] * 2 * LLAMA8B["kv"] * LLAMA8B["head_dim"] * 2
            if kv_bytes + 20 * 2**30 > free * 0.9:
                out.append({"batch": batch, "context": context, "skipped": "KV cache would not fit one GPU"})
                continue
            step = DecodeStep(LLAMA8B, batch, context)
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
                ms = timed(graph.replay, repeats=20)
            bytes_read = step.weight_bytes + step.kv_bytes
            out.append({"batch": batch, "context": context, "ms": round(ms, 4), "weightBytes": step.weight_bytes,
                        "kvBytes": step.kv_bytes, "effectiveGBs": round(bytes_read / ms / 1e6, 1)})
            del step, graph
            torch.cuda.empty_cache()
    return out


def prefill_forward():
    from transformers import LlamaConfig, LlamaForCausalLM
    import transformers
    cfg = LlamaConfig(hidden_size=4096, intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32,
                      num_key_value_heads=8, head_dim=128, vocab_size=128256, max_position_embeddings=131072,
                      rope_theta=500000.0, torch_dtype="bfloat16")
    cfg._attn_implementation = "sdpa"
    with torch.device(DEV):
        model = LlamaForCausalLM(cfg).to(BF16).eval()
    params = sum(p.numel() for p in model.parameters())
    out = {"transformers": transformers.__version__, "params": params, "attn": "sdpa", "runs": []}
    with torch.inference_mode():
        for isl in (1024, 2048, 4096, 8192):
            ids = torch.randint(0, cfg.vocab_size, (1, isl), device=DEV)
            ms = timed(lambda: model(input_ids=ids, use_cache=False, logits_to_keep=1), repeats=5, warmup=2)
            out["runs"].append({"isl": isl, "ms": round(ms, 3)})
    del model
    torch.cuda.empty_cache()
    return out


def guarded(fn):
    """One measurement's failure is recorded as its result, so the others still come back from a short lease."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 -- the error text is the fact
        torch.cuda.empty_cache()
        return {"error": f"{type(e).__name__}: {e}"[:500]}


def main():
    torch.manual_seed(0)
    p = torch.cuda.get_device_properties(0)
    facts = {"gpu": p.name, "smCount": p.multi_processor_count, "memoryGiB": round(p.total_memory / 2**30, 1),
             "torch": torch.__version__, "cuda": torch.version.cuda, "python": platform.python_version(),
             **{name: guarded(fn) for name, fn in (("hbm", hbm), ("gemm", gemm), ("attention", attention),
                                                   ("decodeStep", decode_steps), ("prefillForward", prefill_forward))}}
    print(json.dumps({
        "provenance": {
            "repository": f"measured on the device machine: {p.name}, torch {torch.__version__} (CUDA {torch.version.cuda})",
            "ref": torch.__version__, "commit": torch.version.git_version, "paths": ["tests/contracts/extract/h200-serving-calibration.py"],
            "extracted": datetime.date.today().isoformat(),
            "extractor": "tests/contracts/extract/h200-serving-calibration.py (python3, on the device machine)",
            "notes": "CUDA-event medians after warm-up; random-normal bf16 inputs; see the extractor's docstring for each measurement",
        },
        "facts": facts,
    }, indent=1))


if __name__ == "__main__":
    main()
