/**
 * The KV transfer the plan expects (components/inference/fit.ts `kvTransfer`): bytes each rank sends (replicated
 * with MLA and with TP > KV heads), at the measured NIXL-over-libfabric rate per rank, with line rate as the bound.
 */
import { strict as assert } from "assert";
import { KvCacheDtype, kvBytesPerTokenPerGpu } from "../../components/catalog/models";
import { kvLink, kvTransfer, NIXL_LIBFABRIC_MEASURED_GBYTES_PER_S } from "../../components/inference/fit";
import { modelFacts } from "../../components/catalog/models";
import { pool } from "../helpers/inference-fixtures";

const facts = (id: string) => {
  const m = modelFacts(id);
  assert.ok(m, id);
  return m;
};
const near = (a: number, b: number, what: string) =>
  assert.ok(Math.abs(a - b) < 1e-6 * Math.max(1, b), `${what}: ${a} vs ${b}`);

describe("KV transfer: per-rank bytes at the measured rate, line rate as the bound", () => {
  it("Llama-3.1-8B, 4k prompt, TP 1 on p5en (2 rails x 200 Gbps): ~56 ms expected, 10.74 ms at line rate", () => {
    const t = kvTransfer(facts("meta-llama/Llama-3.1-8B-Instruct"), 1, KvCacheDtype.Auto, 4096, kvLink(pool(), 2));
    assert.equal(t.bytesPerRank, 4096 * 131072);
    assert.equal(t.replication, 1);
    near(t.expectedMs, ((4096 * 131072) / (NIXL_LIBFABRIC_MEASURED_GBYTES_PER_S * 1e9)) * 1000, "expected");
    near(t.lineRateMs, ((4096 * 131072 * 8) / 400e9) * 1000, "line rate");
    assert.equal(Math.round(t.expectedMs), 56);
    assert.ok(t.expectedMs > t.lineRateMs);
  });

  it("DeepSeek-R1 (MLA) at TP 8: every rank sends the whole latent cache (x8), over 1/8 of the worker's rails", () => {
    const m = facts("deepseek-ai/DeepSeek-R1");
    const t = kvTransfer(m, 8, KvCacheDtype.Auto, 4096, kvLink(pool(), 16));
    assert.equal(t.bytesPerRank, t.uniqueBytes);
    assert.equal(t.replication, 8);
    assert.equal(t.rankLineGbps, 400);
    // Unique bytes over the whole worker's 3.2 Tbps would understate the time 8-fold.
    near(t.lineRateMs, ((t.uniqueBytes * 8) / 3200e9) * 1000 * 8, "line rate per rank");
  });

  it("Qwen3-235B (4 KV heads) at TP 8: each head on 2 ranks (x2)", () => {
    const m = facts("Qwen/Qwen3-235B-A22B");
    assert.equal(m.kvHeads, 4);
    const t = kvTransfer(m, 8, KvCacheDtype.Auto, 1024, kvLink(pool(), 16));
    assert.equal(t.bytesPerRank, kvBytesPerTokenPerGpu(m, 8, KvCacheDtype.Auto) * 1024);
    assert.equal(t.replication, 2);
  });

  it("Llama-3.1-70B (8 KV heads) at TP 4: the ranks split the cache (x1); UCX: one 5 Gbps flow per rank, expected = bound", () => {
    const m = facts("meta-llama/Llama-3.1-70B-Instruct");
    assert.equal(kvTransfer(m, 4, KvCacheDtype.Auto, 4096, kvLink(pool(), 8)).replication, 1);
    const tcp = kvTransfer(m, 4, KvCacheDtype.Auto, 4096, kvLink(pool("g6e.48xlarge", 1, false), 0));
    assert.equal(tcp.rankLineGbps, 5);
    near(tcp.expectedMs, tcp.lineRateMs, "TCP expected = line");
  });

  it("the measured rate never exceeds a rank's line rate (1 rail of 100 Gbps = 12.5 GB/s > 9.6; a 25 Gbps share caps it)", () => {
    const m = facts("meta-llama/Llama-3.1-8B-Instruct");
    const slow = { transport: "LIBFABRIC" as const, gbps: 50, basis: "test" };
    const t = kvTransfer(m, 2, KvCacheDtype.Auto, 4096, slow);
    assert.equal(t.expectedGBytesPerS, 25 / 8);
    near(t.expectedMs, t.lineRateMs, "capped at line rate");
  });
});
