#!/usr/bin/env python3
"""Measures attention as the serving engines run it, for issue 42 (serving/facts/h200-serving-attention.json):

    SCRIPT_SHA=$(sha256sum tests/contracts/extract/h200-serving-attention.py | cut -d' ' -f1) \
      python3 tests/contracts/extract/h200-serving-attention.py > serving/facts/h200-serving-attention.json

On one GPU, CUDA-event medians after warm-up, random-normal inputs (FP8 inputs: random normals cast to e4m3):
  - hbm: read bandwidth of a reduction over 4 GiB and the copy bandwidth (bytes read + written): the HBM floor of
    this run;
  - check: the split-KV decode kernel below against a float32 reference (relative error), per head shape and KV dtype;
  - decodeAttention: one layer's decode attention (one query token per sequence) over a paged KV cache (vLLM's layout:
    pages of 16 tokens, [page, token, kv head, head dim], pages of a sequence in random order) with a flash-decoding
    kernel written here in Triton: each (sequence, kv head, split of the context) is one program that reads its K/V
    pages once and keeps the group's query heads in registers (GQA), then a second kernel merges the splits by their
    log-sum-exp. KV in bf16 and in FP8 (e4m3, per-tensor scale, dequantized in registers, as vLLM's and FlashInfer's
    FP8 KV; FP8 also with fp16 dots, whose dequantization is one instruction per two values). Head shapes: Llama-3.1-8B at TP1 (32 query / 8 KV heads), Llama-3.1-70B at TP1 (64/8), TP4 (16/2) and
    TP8 (8/1); batch 1-256, context 1k-128k (at most 8 GiB of KV per layer); 8 layers' calls (each over its own pages)
    replayed in one CUDA graph, the time per call. Two tile sizes (and for FP8 KV the fp16 variant); the fastest is
    kept, as an engine's tuned kernel;
  - sdpaDecode: the same shapes through torch's SDPA (the GQA group as query rows, a dense KV cache): what the earlier
    calibration measured (no split of the context: few programs at small batch);
  - prefillAttention: causal attention of one prompt, 1k-128k tokens, through torch's flash and cuDNN SDPA backends:
    ms and TFLOP/s (2 s^2 heads d FLOPs, causal);
  - chunkAttention: what chunked prefill runs: C new tokens attending to a prefix of P cached tokens and causally to
    themselves (bottom-right causal mask through SDPA), C 512-8192, P 0-120k;
  - decodeStep: the Llama-3.1-8B-shaped decode step of the first calibration (32 layers, the lm_head in bf16) with
    this paged split-KV attention, in a CUDA graph, at batch 1-1024 and context 512-128k where the KV cache fits
    (<= 100 GiB): bf16 weights with bf16 and FP8 KV, FP8 weights (torch._scaled_mm, activations quantized per GEMM,
    rows padded to 16) with bf16 and FP8 KV: ms, with the weight and KV bytes.
A part that fails records its error and the others still run; the whole stops adding parts after TIME_BUDGET_S.
Prints JSON only (and writes it to $OUT/h200-serving-attention.json after each part when OUT is set).
"""
import datetime
import json
import math
import os
import platform
import statistics
import sys
import time

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

DEV, BF16, FP8 = "cuda", torch.bfloat16, torch.float8_e4m3fn
PAGE, D = 16, 128
LOG2E = 1.4426950408889634
T0 = time.time()
TIME_BUDGET_S = float(os.environ.get("TIME_BUDGET_S", "500"))
OUT = os.environ.get("OUT")
LLAMA8B = dict(hidden=4096, inter=14336, heads=32, kv=8, head_dim=128, layers=32, vocab=128256)
SHAPES = (("Llama-3.1-8B tp1", 32, 8), ("Llama-3.1-70B tp1", 64, 8), ("Llama-3.1-70B tp4", 16, 2),
          ("Llama-3.1-70B tp8", 8, 1))
CONTEXTS = (1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072)
BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256)
MAX_LAYER_BYTES = 8 * 2**30


def log(*a):
    print(f"[{time.time() - T0:6.1f}s]", *a, file=sys.stderr, flush=True)


def timed(fn, repeats=10, warmup=2):
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


@triton.jit(do_not_specialize=["ctx", "split_len", "stride_tb"])
def _split_kv(q_ptr, k_ptr, v_ptr, table_ptr, part_ptr, lse_ptr, ctx, split_len, qk_scale, v_scale,
              stride_qb, stride_qh, stride_kp, stride_kt, stride_kh, stride_tb, stride_pb, stride_ph, stride_ps,
              stride_lb, stride_lh,
              G: tl.constexpr, BLOCK_H: tl.constexpr, BLOCK_N: tl.constexpr, PAGE_: tl.constexpr, D_: tl.constexpr,
              F16: tl.constexpr):
    b = tl.program_id(0)
    kvh = tl.program_id(1)
    s = tl.program_id(2)
    offs_h = tl.arange(0, BLOCK_H)
    offs_d = tl.arange(0, D_)
    offs_n0 = tl.arange(0, BLOCK_N)
    hmask = offs_h < G
    heads = kvh * G + offs_h
    q = tl.load(q_ptr + b * stride_qb + heads[:, None] * stride_qh + offs_d[None, :], mask=hmask[:, None], other=0.0)
    if F16:
        q = q.to(tl.float16)
    lo = s * split_len
    hi = tl.minimum(lo + split_len, ctx)
    m_i = tl.full([BLOCK_H], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_H], tl.float32)
    acc = tl.zeros([BLOCK_H, D_], tl.float32)
    for start in range(lo, hi, BLOCK_N):
        offs_n = start + offs_n0
        nmask = offs_n < hi
        page = tl.load(table_ptr + b * stride_tb + offs_n // PAGE_, mask=nmask, other=0)
        base = page.to(tl.int64) * stride_kp + (offs_n % PAGE_) * stride_kt + kvh * stride_kh
        k = tl.load(k_ptr + base[:, None] + offs_d[None, :])
        v = tl.load(v_ptr + base[:, None] + offs_d[None, :])
        if F16:
            qk = tl.dot(q, tl.trans(k.to(tl.float16))) * qk_scale
        else:
            qk = tl.dot(q, tl.trans(k.to(tl.bfloat16))) * qk_scale
        qk = tl.where(nmask[None, :], qk, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(qk - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        if F16:
            acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v.to(tl.float16))
        else:
            acc = acc * alpha[:, None] + tl.dot(p.to(tl.bfloat16), v.to(tl.bfloat16))
        m_i = m_new
    acc = acc * v_scale / l_i[:, None]
    tl.store(part_ptr + b * stride_pb + heads[:, None] * stride_ph + s * stride_ps + offs_d[None, :], acc,
             mask=hmask[:, None])
    tl.store(lse_ptr + b * stride_lb + heads * stride_lh + s, m_i + tl.log2(l_i), mask=hmask)


@triton.jit(do_not_specialize=["splits"])
def _merge(part_ptr, lse_ptr, out_ptr, splits, stride_pb, stride_ph, stride_ps, stride_lb, stride_lh, stride_ob,
           stride_oh, BLOCK_S: tl.constexpr, D_: tl.constexpr):
    b = tl.program_id(0)
    h = tl.program_id(1)
    offs_d = tl.arange(0, D_)
    offs_s0 = tl.arange(0, BLOCK_S)
    m = tl.max(tl.full([BLOCK_S], float("-inf"), tl.float32), 0)
    for s0 in range(0, splits, BLOCK_S):
        offs_s = s0 + offs_s0
        lse = tl.load(lse_ptr + b * stride_lb + h * stride_lh + offs_s, mask=offs_s < splits, other=float("-inf"))
        m = tl.maximum(m, tl.max(lse, 0))
    acc = tl.zeros([D_], tl.float32)
    den = tl.sum(tl.zeros([BLOCK_S], tl.float32), 0)
    for s0 in range(0, splits, BLOCK_S):
        offs_s = s0 + offs_s0
        smask = offs_s < splits
        lse = tl.load(lse_ptr + b * stride_lb + h * stride_lh + offs_s, mask=smask, other=float("-inf"))
        w = tl.exp2(lse - m)
        o = tl.load(part_ptr + b * stride_pb + h * stride_ph + offs_s[:, None] * stride_ps + offs_d[None, :],
                    mask=smask[:, None], other=0.0)
        acc += tl.sum(w[:, None] * o, 0)
        den += tl.sum(w, 0)
    tl.store(out_ptr + b * stride_ob + h * stride_oh + offs_d, (acc / den).to(tl.bfloat16))


SM_COUNT = None
CONFIGS = {"n64": dict(BLOCK_N=64, num_warps=4, num_stages=3, F16=False),
           "n128": dict(BLOCK_N=128, num_warps=8, num_stages=3, F16=False),
           # FP8 KV dequantized to fp16 (one conversion instruction per two values on Hopper) and the dots in fp16,
           # as FP8-KV decode kernels do; bf16 needs a longer conversion. Only for FP8 KV.
           "n64-f16": dict(BLOCK_N=64, num_warps=4, num_stages=3, F16=True),
           "n128-f16": dict(BLOCK_N=128, num_warps=8, num_stages=3, F16=True)}


def configs_for(dtype):
    return [c for c in CONFIGS if dtype == "fp8" or not CONFIGS[c]["F16"]]


class DecodeAttention:
    """Paged split-KV decode attention of `batch` sequences of `ctx` tokens; buffers allocated once (graph-safe)."""

    def __init__(self, batch, heads, kv, ctx, config="n64", k_scale=1.0, v_scale=1.0):
        self.batch, self.heads, self.kv, self.ctx = batch, heads, kv, ctx
        self.g = heads // kv
        self.cfg = CONFIGS[config]
        n = self.cfg["BLOCK_N"]
        target = 4 * SM_COUNT
        splits = max(1, min(math.ceil(target / (batch * kv)), math.ceil(ctx / (4 * n))))
        self.split_len = math.ceil(math.ceil(ctx / splits) / n) * n
        self.splits = math.ceil(ctx / self.split_len)
        self.part = torch.empty(batch, heads, self.splits, D, device=DEV, dtype=torch.float32)
        self.lse = torch.empty(batch, heads, self.splits, device=DEV, dtype=torch.float32)
        self.out = torch.empty(batch, heads, D, device=DEV, dtype=BF16)
        self.qk_scale = LOG2E / math.sqrt(D) * k_scale
        self.v_scale = v_scale

    def __call__(self, q, kpool, vpool, table):
        b, h = self.batch, self.heads
        _split_kv[(b, self.kv, self.splits)](
            q, kpool, vpool, table, self.part, self.lse, self.ctx, self.split_len, self.qk_scale, self.v_scale,
            q.stride(0), q.stride(1), kpool.stride(0), kpool.stride(1), kpool.stride(2), table.stride(0),
            self.part.stride(0), self.part.stride(1), self.part.stride(2), self.lse.stride(0), self.lse.stride(1),
            G=self.g, BLOCK_H=max(16, triton.next_power_of_2(self.g)), BLOCK_N=self.cfg["BLOCK_N"], PAGE_=PAGE, D_=D,
            F16=self.cfg["F16"], num_warps=self.cfg["num_warps"], num_stages=self.cfg["num_stages"])
        _merge[(b, h)](self.part, self.lse, self.out, self.splits, self.part.stride(0), self.part.stride(1),
                       self.part.stride(2), self.lse.stride(0), self.lse.stride(1), self.out.stride(0),
                       self.out.stride(1), BLOCK_S=32, D_=D, num_warps=4)
        return self.out


def pool(pages, kv, dtype):
    x = torch.empty(pages, PAGE, kv, D, device=DEV, dtype=BF16).normal_()
    return x if dtype == "bf16" else x.to(FP8)


def reference(q, kpool, vpool, table, ctx, kv, scale_k, scale_v):
    b, heads, _ = q.shape
    g = heads // kv
    pages = math.ceil(ctx / PAGE)
    k = kpool[table[:, :pages].long()].float().reshape(b, pages * PAGE, kv, D)[:, :ctx] * scale_k
    v = vpool[table[:, :pages].long()].float().reshape(b, pages * PAGE, kv, D)[:, :ctx] * scale_v
    qf = q.float().view(b, kv, g, D)
    s = torch.einsum("bkgd,btkd->bkgt", qf, k) / math.sqrt(D)
    return torch.einsum("bkgt,btkd->bkgd", s.softmax(-1), v).reshape(b, heads, D)


def check():
    out = []
    for name, heads, kv in SHAPES:
        for dtype in ("bf16", "fp8"):
            for ctx in (1000, 5000):
                for config in configs_for(dtype):
                    batch = 3
                    pages = math.ceil(ctx / PAGE)
                    kp, vp = pool(batch * pages + 7, kv, dtype), pool(batch * pages + 7, kv, dtype)
                    table = torch.randperm(batch * pages + 7, device=DEV)[: batch * pages].view(batch, pages).int()
                    q = torch.randn(batch, heads, D, device=DEV, dtype=BF16)
                    sk, sv = (1.0, 1.0) if dtype == "bf16" else (0.5, 0.25)
                    att = DecodeAttention(batch, heads, kv, ctx, config, sk, sv)
                    got = att(q, kp, vp, table).float()
                    ref = reference(q, kp, vp, table, ctx, kv, sk, sv)
                    err = ((got - ref).norm() / ref.norm()).item()
                    out.append({"shape": name, "kvDtype": dtype, "context": ctx, "config": config,
                                "splits": att.splits, "relError": float(f"{err:.2e}")})
    return out


def decode_attention():
    out = []
    for name, heads, kv in SHAPES:
        for dtype in ("bf16", "fp8"):
            if time.time() - T0 > TIME_BUDGET_S:
                out.append({"shape": name, "kvDtype": dtype, "skipped": "time budget"})
                continue
            elt = 2 if dtype == "bf16" else 1
            per_token = 2 * kv * D * elt
            pages_total = MAX_LAYER_BYTES * 2 // (2 * PAGE * kv * D * elt)
            kp, vp = pool(pages_total, kv, dtype), pool(pages_total, kv, dtype)
            perm = torch.randperm(pages_total, device=DEV).int()
            for ctx in CONTEXTS:
                for batch in BATCHES:
                    kv_bytes = batch * ctx * per_token
                    if kv_bytes > MAX_LAYER_BYTES:
                        continue
                    pages = math.ceil(ctx / PAGE)
                    need = batch * pages
                    tables = [perm[(i * need) % (pages_total - need + 1):][:need].view(batch, pages) for i in range(8)]
                    q = torch.randn(batch, heads, D, device=DEV, dtype=BF16)
                    best = None
                    for config in configs_for(dtype):
                        att = DecodeAttention(batch, heads, kv, ctx, config)
                        att(q, kp, vp, tables[0])
                        graph = torch.cuda.CUDAGraph()
                        with torch.cuda.graph(graph):
                            for t in tables:
                                att(q, kp, vp, t)
                        ms = timed(graph.replay, repeats=10) / len(tables)
                        if best is None or ms < best[0]:
                            best = (ms, config, att.splits)
                        del graph
                    ms, config, splits = best
                    out.append({"shape": name, "heads": heads, "kvHeads": kv, "kvDtype": dtype, "batch": batch,
                                "context": ctx, "ms": round(ms, 5), "kvBytes": kv_bytes,
                                "kvGBs": round(kv_bytes / ms / 1e6, 1), "config": config, "splits": splits})
            del kp, vp
            torch.cuda.empty_cache()
            log("decodeAttention", name, dtype, len(out))
    return out


def sdpa_decode():
    out = []
    heads, kv = 32, 8
    for ctx in CONTEXTS:
        for batch in (1, 8, 64):
            kv_bytes = batch * ctx * 2 * kv * D * 2
            if kv_bytes > MAX_LAYER_BYTES:
                continue
            q = torch.randn(batch, kv, heads // kv, D, device=DEV, dtype=BF16)
            k = torch.randn(batch, kv, ctx, D, device=DEV, dtype=BF16)
            v = torch.randn_like(k)
            ms = timed(lambda: F.scaled_dot_product_attention(q, k, v))
            out.append({"heads": heads, "kvHeads": kv, "batch": batch, "context": ctx, "ms": round(ms, 5),
                        "kvBytes": kv_bytes, "kvGBs": round(kv_bytes / ms / 1e6, 1)})
            del q, k, v
    torch.cuda.empty_cache()
    return out


def prefill_attention():
    from torch.nn.attention import SDPBackend, sdpa_kernel
    out = []
    for name, heads, kv in (SHAPES[0], SHAPES[1], SHAPES[3]):
        for seq in CONTEXTS:
            q = torch.randn(1, heads, seq, D, device=DEV, dtype=BF16)
            k = torch.randn(1, kv, seq, D, device=DEV, dtype=BF16).repeat_interleave(heads // kv, 1)
            v = torch.randn(1, kv, seq, D, device=DEV, dtype=BF16).repeat_interleave(heads // kv, 1)
            flops = 2 * seq * seq * heads * D
            for backend in ("FLASH_ATTENTION", "CUDNN_ATTENTION"):
                try:
                    with sdpa_kernel(getattr(SDPBackend, backend)):
                        reps = 3 if seq >= 32768 else 10
                        ms = timed(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True), repeats=reps,
                                   warmup=1)
                    out.append({"shape": name, "heads": heads, "kvHeads": kv, "seq": seq, "backend": backend,
                                "ms": round(ms, 4), "tflops": round(flops / ms / 1e9, 1)})
                except Exception as e:  # noqa: BLE001 -- the error is the fact
                    out.append({"shape": name, "heads": heads, "seq": seq, "backend": backend,
                                "error": f"{type(e).__name__}: {e}"[:200]})
            del q, k, v
            torch.cuda.empty_cache()
    return out


def chunk_attention():
    from torch.nn.attention.bias import causal_lower_right
    out = []
    for name, heads, kv in (SHAPES[0], SHAPES[1]):
        for chunk in (512, 2048, 8192):
            for prefix in (0, 4096, 16384, 65536, 122880):
                total = prefix + chunk
                q = torch.randn(1, heads, chunk, D, device=DEV, dtype=BF16)
                k = torch.randn(1, kv, total, D, device=DEV, dtype=BF16).repeat_interleave(heads // kv, 1)
                v = torch.randn(1, kv, total, D, device=DEV, dtype=BF16).repeat_interleave(heads // kv, 1)
                mask = causal_lower_right(chunk, total)
                flops = 4 * chunk * (prefix + chunk / 2) * heads * D
                try:
                    ms = timed(lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=mask), repeats=5, warmup=1)
                    out.append({"shape": name, "heads": heads, "kvHeads": kv, "chunk": chunk, "prefix": prefix,
                                "ms": round(ms, 4), "tflops": round(flops / ms / 1e9, 1)})
                except Exception as e:  # noqa: BLE001 -- the error is the fact
                    out.append({"shape": name, "chunk": chunk, "prefix": prefix,
                                "error": f"{type(e).__name__}: {e}"[:200]})
                del q, k, v
            torch.cuda.empty_cache()
    return out


def layer_shapes(m):
    h, i, d = m["hidden"], m["inter"], m["head_dim"]
    return {"qkv": (h, (m["heads"] + 2 * m["kv"]) * d), "o": (m["heads"] * d, h), "gate_up": (h, 2 * i),
            "down": (i, h)}


ONE = None


def mm8(x, w8t):
    """FP8 GEMM of a bf16 activation x (m, k) by an FP8 weight stored (n, k): quantize x, pad rows to 16 (as the
    extended calibration's FP8 step and the engines' FP8 kernels pad)."""
    m = x.shape[0]
    pad = (-m) % 16
    xq = x.to(FP8)
    if pad:
        xq = F.pad(xq.view(torch.uint8), (0, 0, 0, pad)).view(FP8)
    return torch._scaled_mm(xq, w8t.t(), scale_a=ONE, scale_b=ONE, out_dtype=BF16)[:m]


class PagedDecodeStep:
    """The first calibration's Llama-3.1-8B-shaped decode step with a paged KV cache (a pool per layer, pages in
    random order) and the split-KV attention above."""

    def __init__(self, m, batch, ctx, kv_dtype, weights="bf16"):
        h = m["hidden"]
        self.m, self.batch, self.weights = m, batch, weights
        s = layer_shapes(m)
        self.w = [{k: torch.randn(*shape, device=DEV, dtype=BF16) * 0.02 for k, shape in s.items()}
                  for _ in range(m["layers"])]
        if weights == "fp8":  # stored (n, k) for _scaled_mm, as the extended calibration's FP8 step
            self.w = [{k: t.t().contiguous().to(FP8) for k, t in w.items()} for w in self.w]
        self.norm = torch.ones(h, device=DEV, dtype=BF16)
        self.lm_head = torch.randn(h, m["vocab"], device=DEV, dtype=BF16) * 0.02
        pages = math.ceil(ctx / PAGE)
        self.k = [pool(batch * pages, m["kv"], kv_dtype) for _ in range(m["layers"])]
        self.v = [pool(batch * pages, m["kv"], kv_dtype) for _ in range(m["layers"])]
        self.table = torch.randperm(batch * pages, device=DEV).int().view(batch, pages)
        self.att = DecodeAttention(batch, m["heads"], m["kv"], ctx, "n64-f16" if kv_dtype == "fp8" else "n64")
        self.x = torch.randn(batch, h, device=DEV, dtype=BF16)
        self.weight_bytes = (sum(t.numel() * t.element_size() for w in self.w for t in w.values())
                             + self.lm_head.numel() * 2)
        self.kv_bytes = batch * ctx * m["layers"] * 2 * m["kv"] * D * (2 if kv_dtype == "bf16" else 1)

    def mm(self, x, w):
        return mm8(x, w) if self.weights == "fp8" else x @ w

    def __call__(self):
        m, b = self.m, self.batch
        x = self.x
        for w, k, v in zip(self.w, self.k, self.v):
            hdn = F.rms_norm(x, (m["hidden"],), self.norm)
            qkv = self.mm(hdn, w["qkv"])
            q = qkv[:, : m["heads"] * D].reshape(b, m["heads"], D)
            attn = self.att(q, k, v, self.table)
            x = x + self.mm(attn.reshape(b, m["heads"] * D), w["o"])
            gu = self.mm(F.rms_norm(x, (m["hidden"],), self.norm), w["gate_up"])
            gate, up = gu.chunk(2, dim=-1)
            x = x + self.mm((F.silu(gate) * up).contiguous(), w["down"])
        return F.rms_norm(x, (m["hidden"],), self.norm) @ self.lm_head


STEP_POINTS = [("bf16", "bf16", b, c) for b, c in ((1, 512), (1, 1024), (1, 4096), (1, 16384), (1, 65536), (1, 131072),
                                           (8, 1024), (8, 8192), (8, 32768), (8, 65536), (32, 1024), (32, 4096),
                                           (32, 16384), (128, 1024), (128, 4096), (256, 1024), (256, 2048),
                                           (512, 1024), (1024, 512))]
STEP_POINTS += [("bf16", "fp8", b, c) for b, c in ((1, 1024), (1, 65536), (1, 131072), (8, 65536), (32, 16384),
                                                   (128, 4096), (512, 1024))]
STEP_POINTS += [("fp8", kv, b, c) for kv in ("bf16", "fp8") for b, c in ((1, 1024), (1, 65536), (8, 8192), (32, 4096),
                                                                         (128, 1024), (256, 2048), (512, 1024),
                                                                         (1024, 512))]


def decode_steps():
    out = []
    for weights, kv_dtype, batch, ctx in STEP_POINTS:
        if time.time() - T0 > TIME_BUDGET_S:
            out.append({"weights": weights, "kvDtype": kv_dtype, "batch": batch, "context": ctx,
                        "skipped": "time budget"})
            continue
        try:
            step = PagedDecodeStep(LLAMA8B, batch, ctx, kv_dtype, weights)
            with torch.inference_mode():
                step()
                graph = torch.cuda.CUDAGraph()
                with torch.cuda.graph(graph):
                    step()
                ms = timed(graph.replay, repeats=10)
            out.append({"weights": weights, "kvDtype": kv_dtype, "batch": batch, "context": ctx, "ms": round(ms, 4),
                        "weightBytes": step.weight_bytes, "kvBytes": step.kv_bytes})
            del graph
        except Exception as e:  # noqa: BLE001 -- the error is the fact
            out.append({"weights": weights, "kvDtype": kv_dtype, "batch": batch, "context": ctx,
                        "error": f"{type(e).__name__}: {e}"[:300]})
        step = None
        torch.cuda.empty_cache()
        log("decodeStep", weights, kv_dtype, batch, ctx, out[-1].get("ms"))
    return out


def hbm():
    n = 4 * 2**30 // 2
    x = torch.randn(n, device=DEV, dtype=BF16)
    y = torch.empty_like(x)
    read_ms = timed(lambda: x.sum(dtype=torch.float32))
    copy_ms = timed(lambda: y.copy_(x))
    return {"bytes": 2 * n, "readMs": round(read_ms, 4), "readGBs": round(2 * n / read_ms / 1e6, 1),
            "copyMs": round(copy_ms, 4), "copyGBs": round(4 * n / copy_ms / 1e6, 1)}


def guarded(name, fn):
    if time.time() - T0 > TIME_BUDGET_S:
        return {"skipped": "time budget"}
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 -- the error text is the fact
        r = {"error": f"{type(e).__name__}: {e}"[:800]}
    torch.cuda.empty_cache()
    log(name, "done")
    return r


def document(p, facts):
    return {
        "provenance": {
            "repository": f"measured on the device machine: {p.name}, torch {torch.__version__} (CUDA {torch.version.cuda}), triton {triton.__version__}",
            "ref": torch.__version__, "commit": "measured",
            "paths": ["tests/contracts/extract/h200-serving-attention.py"],
            "extracted": datetime.date.today().isoformat(),
            "extractor": "tests/contracts/extract/h200-serving-attention.py (python3, on the device machine)",
            "notes": "CUDA-event medians after warm-up; random-normal inputs; the script's sha256 is scriptSha256",
        },
        "facts": {**facts, "scriptSha256": os.environ.get("SCRIPT_SHA", "")},
    }


def main():
    global SM_COUNT, ONE
    torch.manual_seed(0)
    ONE = torch.ones((), device=DEV, dtype=torch.float32)
    p = torch.cuda.get_device_properties(0)
    SM_COUNT = p.multi_processor_count
    facts = {"gpu": p.name, "smCount": p.multi_processor_count, "memoryGiB": round(p.total_memory / 2**30, 1),
             "torch": torch.__version__, "cuda": torch.version.cuda, "triton": triton.__version__,
             "python": platform.python_version(), "page": PAGE, "headDim": D}
    only = os.environ.get("ONLY")
    parts = (("hbm", hbm), ("check", check), ("prefillAttention", prefill_attention), ("chunkAttention", chunk_attention),
             ("decodeAttention", decode_attention), ("decodeStep", decode_steps), ("sdpaDecode", sdpa_decode))
    for name, fn in parts:
        if only and name not in only.split(","):
            continue
        facts[name] = guarded(name, fn)
        if OUT:
            with open(os.path.join(OUT, "h200-serving-attention.json"), "w") as f:
                json.dump(document(p, facts), f, indent=1)
    print(json.dumps(document(p, facts), indent=1))


if __name__ == "__main__":
    main()
