/**
 * The model catalog against the parameter counts transformers 5.17 gives for the same config.json
 * (tests/contracts/facts/model-shapes.json), and the KV-per-token formulas against hand arithmetic.
 */
import { strict as assert } from "assert";
import { modelRow, ModelRow } from "../../components/catalog";
import {
  MODEL_ROWS,
  activeParams,
  factsOfRow,
  factsOfShape,
  kvBytesPerTokenPerGpu,
  totalParams,
  weightBytes,
} from "../../components/catalog/models";
import { loadFacts } from "../contracts/facts";

interface ShapeFact {
  readonly configFile: string;
  readonly architecture: string;
  readonly totalParams: number;
  readonly activeParams?: number;
}
const facts = loadFacts<Record<string, ShapeFact>>("model-shapes");

/** Relative tolerance of a recomputed parameter count (the formulas are exact today; 0.1% leaves room for a rounding change, far below any wrong dimension). */
const TOLERANCE = 0.001;
const GIB = 2 ** 30;

function within(actual: number, expected: number): boolean {
  return Math.abs(actual - expected) <= TOLERANCE * expected;
}

/** Why a row's counts disagree with transformers, or undefined. */
function disagreement(row: ModelRow): string | undefined {
  const f = facts.facts[row.id];
  if (!f) return `${row.id}: no transformers count in model-shapes.json`;
  if (f.architecture !== row.architecture) return `${row.id}: architecture ${row.architecture} vs ${f.architecture}`;
  if (!within(totalParams(row), f.totalParams))
    return `${row.id}: ${totalParams(row)} parameters vs transformers' ${f.totalParams}`;
  if (f.activeParams !== undefined && !within(activeParams(row), f.activeParams))
    return `${row.id}: ${activeParams(row)} active vs ${f.activeParams}`;
  return undefined;
}

describe("catalog: models", () => {
  it("covers the issue's models, each with a config.json source", () => {
    for (const id of [
      "meta-llama/Llama-3.1-8B-Instruct",
      "meta-llama/Llama-3.1-70B-Instruct",
      "meta-llama/Llama-3.1-405B-Instruct",
      "meta-llama/Llama-3.3-70B-Instruct",
      "Qwen/Qwen3-8B",
      "Qwen/Qwen3-32B",
      "Qwen/Qwen3-235B-A22B",
      "deepseek-ai/DeepSeek-R1",
      "openai/gpt-oss-20b",
      "openai/gpt-oss-120b",
      "mistralai/Mixtral-8x7B-Instruct-v0.1",
    ]) {
      assert.ok(modelRow(id), `${id} missing`);
    }
    for (const r of MODEL_ROWS) assert.match(r.source, /config\.json/, `${r.id}: source must name its config.json`);
  });

  for (const row of MODEL_ROWS) {
    it(`${row.id}: parameters recomputed from the dimensions match transformers within ${TOLERANCE * 100}%`, () => {
      assert.equal(disagreement(row), undefined);
    });
  }

  it("every fact has a catalog row (no stale facts)", () => {
    assert.deepEqual(
      Object.keys(facts.facts).filter((id) => !modelRow(id)),
      [],
    );
  });

  it("the comparison fails for a wrong dimension (mutations)", () => {
    const r8 = modelRow("meta-llama/Llama-3.1-8B-Instruct")!;
    const qwen = modelRow("Qwen/Qwen3-235B-A22B")!;
    const r1 = modelRow("deepseek-ai/DeepSeek-R1")!;
    assert.match(disagreement({ ...r8, intermediateSize: 14336 + 128 }) ?? "", /parameters vs transformers/);
    assert.match(disagreement({ ...r8, tiedEmbeddings: true }) ?? "", /parameters vs transformers/);
    assert.match(disagreement({ ...qwen, moe: { ...qwen.moe!, expertsPerToken: 4 } }) ?? "", /active vs/);
    assert.match(disagreement({ ...r1, moe: { ...r1.moe!, denseLayers: 0 } }) ?? "", /parameters vs transformers/);
  });

  it("Llama-3.1-8B-Instruct (bf16): 131072 KV bytes per token at TP 1, ~15 GiB of weights", () => {
    const m = factsOfRow(modelRow("meta-llama/Llama-3.1-8B-Instruct")!);
    assert.equal(kvBytesPerTokenPerGpu(m, 1, "auto"), 32 * 2 * 8 * 128 * 2);
    assert.equal(kvBytesPerTokenPerGpu(m, 1, "auto"), 131072);
    assert.equal(kvBytesPerTokenPerGpu(m, 1, "fp8"), 65536);
    assert.equal(Math.round(m.weightBytes / GIB), 15);
  });

  it("KV heads per GPU: split by TP, replicated (at least one) past the KV head count", () => {
    const m = factsOfRow(modelRow("meta-llama/Llama-3.1-70B-Instruct")!); // 80 layers, 8 KV heads
    const table: [number, number][] = [
      [1, 80 * 2 * 8 * 128 * 2],
      [2, 80 * 2 * 4 * 128 * 2],
      [8, 80 * 2 * 1 * 128 * 2],
    ];
    for (const [tp, bytes] of table) assert.equal(kvBytesPerTokenPerGpu(m, tp, "auto"), bytes, `tp ${tp}`);
    const qwen = factsOfRow(modelRow("Qwen/Qwen3-235B-A22B")!); // 4 KV heads: TP 8 keeps one per GPU
    assert.equal(kvBytesPerTokenPerGpu(qwen, 8, "auto"), 94 * 2 * 1 * 128 * 2);
  });

  it("DeepSeek-R1 (MLA): layers x (kv_lora_rank + qk_rope_head_dim) x 2 bytes, whole on every GPU", () => {
    const m = factsOfRow(modelRow("deepseek-ai/DeepSeek-R1")!);
    assert.equal(kvBytesPerTokenPerGpu(m, 1, "auto"), 61 * (512 + 64) * 2);
    assert.equal(kvBytesPerTokenPerGpu(m, 8, "auto"), 70272);
  });

  it("weights: quantized groups at their dtype, the rest bf16", () => {
    const gib = (id: string) => Math.round(weightBytes(modelRow(id)!) / GIB);
    // FP8 checkpoints are about half the bf16 ones; gpt-oss MXFP4 experts at 4.25 bits.
    assert.deepEqual(
      [
        "meta-llama/Llama-3.1-70B-Instruct",
        "nvidia/Llama-3.1-70B-Instruct-FP8",
        "deepseek-ai/DeepSeek-R1",
        "openai/gpt-oss-120b",
        "openai/gpt-oss-20b",
      ].map(gib),
      [131, 68, 627, 61, 13],
    );
    const r8 = modelRow("meta-llama/Llama-3.1-8B-Instruct")!;
    assert.equal(weightBytes(r8), totalParams(r8) * 2);
  });

  it("a stated shape: every parameter at its dtype; MLA shapes need no KV heads", () => {
    const s = factsOfShape("acme/private-13b", {
      paramsB: 13,
      weightDtype: "fp8",
      layers: 40,
      attentionHeads: 40,
      kvHeads: 8,
      headDim: 128,
      maxContext: 32768,
    });
    assert.equal(s.weightBytes, 13e9);
    assert.equal(kvBytesPerTokenPerGpu(s, 1, "auto"), 40 * 2 * 8 * 128 * 2);
    const mla = factsOfShape("acme/private-mla", {
      paramsB: 16,
      weightDtype: "bf16",
      layers: 27,
      attentionHeads: 16,
      maxContext: 32768,
      mla: { kvLoraRank: 512, qkRopeHeadDim: 64 },
    });
    assert.equal(kvBytesPerTokenPerGpu(mla, 4, "auto"), 27 * 576 * 2);
  });
});
