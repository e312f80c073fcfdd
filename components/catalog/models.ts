/**
 * Model catalog: the dimensions of each model as its published `config.json` states them, one row per
 * Hugging Face model id, each with its source. Pure data; the arithmetic on it (parameter counts,
 * weight bytes, KV bytes per token) is in `./model-math.ts`, the row type in `./model-row.ts`.
 *
 * Source of every row: the model's Hugging Face `config.json`, read from the copies NVIDIA's
 * AIConfigurator vendors (ai-dynamo/aiconfigurator@095f58a51c4ca8e61b66ec108d86f223f8d559ce,
 * `aic-core/src/aiconfigurator_core/model_configs/<org>--<name>_config.json`; Llama-3.3 at f577ab84,
 * `src/aiconfigurator/model_configs/`). Every row's parameter count is checked against transformers
 * 5.17 building the model from the same config (tests/contracts/facts/model-shapes.json).
 */

import { ModelRow, WeightDtype } from "./model-row";

export { WEIGHT_DTYPE_BYTES, WeightDtype } from "./model-row";
export type { MlaDims, ModelRow, MoeDims, QuantScope } from "./model-row";

const AIC = "ai-dynamo/aiconfigurator@095f58a5 aic-core/src/aiconfigurator_core/model_configs/";
const hf = (repo: string, file: string, note = "") => `huggingface.co/${repo} config.json (copy: ${AIC}${file})${note}`;
const BF16 = { dtype: WeightDtype.Bf16, scope: "all" } as const;
const FP8_LINEAR = { dtype: WeightDtype.Fp8, scope: "linear" } as const;

const LLAMA_8B = {
  architecture: "LlamaForCausalLM",
  hiddenSize: 4096,
  intermediateSize: 14336,
  layers: 32,
  attentionHeads: 32,
  kvHeads: 8,
  headDim: 128,
  vocabSize: 128256,
  maxContext: 131072,
} as const;
const LLAMA_70B = {
  architecture: "LlamaForCausalLM",
  hiddenSize: 8192,
  intermediateSize: 28672,
  layers: 80,
  attentionHeads: 64,
  kvHeads: 8,
  headDim: 128,
  vocabSize: 128256,
  maxContext: 131072,
} as const;
const LLAMA_405B = {
  architecture: "LlamaForCausalLM",
  hiddenSize: 16384,
  intermediateSize: 53248,
  layers: 126,
  attentionHeads: 128,
  kvHeads: 8,
  headDim: 128,
  vocabSize: 128256,
  maxContext: 131072,
} as const;
const INSTRUCT = "; the Instruct model is a fine-tune of the base model with the same dimensions";
const QWEN3_235B = {
  architecture: "Qwen3MoeForCausalLM",
  hiddenSize: 4096,
  intermediateSize: 12288,
  layers: 94,
  attentionHeads: 64,
  kvHeads: 4,
  headDim: 128,
  vocabSize: 151936,
  maxContext: 40960,
  qkNorm: true,
  moe: { experts: 128, expertsPerToken: 8, expertIntermediateSize: 1536 },
} as const;
const GPT_OSS = {
  architecture: "GptOssForCausalLM",
  hiddenSize: 2880,
  intermediateSize: 2880,
  attentionHeads: 64,
  kvHeads: 8,
  headDim: 64,
  vocabSize: 201088,
  maxContext: 131072,
  attentionBias: true,
  attentionSinks: true,
  weights: { dtype: WeightDtype.Mxfp4, scope: "experts" },
} as const;
const GPT_OSS_MOE = { expertsPerToken: 4, expertIntermediateSize: 2880, routerBias: true, expertBias: true } as const;

/** Every catalogued model. */
export const MODEL_ROWS: readonly ModelRow[] = [
  {
    id: "meta-llama/Llama-3.1-8B-Instruct",
    source: hf("meta-llama/Meta-Llama-3.1-8B", "meta-llama--Meta-Llama-3.1-8B_config.json", INSTRUCT),
    ...LLAMA_8B,
    weights: BF16,
  },
  {
    id: "meta-llama/Llama-3.1-70B-Instruct",
    source: hf("meta-llama/Meta-Llama-3.1-70B", "meta-llama--Meta-Llama-3.1-70B_config.json", INSTRUCT),
    ...LLAMA_70B,
    weights: BF16,
  },
  {
    id: "nvidia/Llama-3.1-70B-Instruct-FP8",
    source: hf(
      "nvidia/Llama-3.1-70B-Instruct-FP8",
      "nvidia--Llama-3.1-70B-Instruct-FP8_config.json",
      "; hf_quant_config.json: ModelOpt FP8, exclude_modules [lm_head]",
    ),
    ...LLAMA_70B,
    weights: FP8_LINEAR,
  },
  {
    id: "meta-llama/Llama-3.1-405B-Instruct",
    source: hf("meta-llama/Meta-Llama-3.1-405B", "meta-llama--Meta-Llama-3.1-405B_config.json", INSTRUCT),
    ...LLAMA_405B,
    weights: BF16,
  },
  {
    id: "meta-llama/Llama-3.3-70B-Instruct",
    source:
      "huggingface.co/meta-llama/Llama-3.3-70B-Instruct config.json (copy: ai-dynamo/aiconfigurator@f577ab84 src/aiconfigurator/model_configs/meta-llama--Llama-3.3-70B-Instruct_config.json)",
    ...LLAMA_70B,
    weights: BF16,
  },
  {
    id: "Qwen/Qwen3-8B",
    source: hf("Qwen/Qwen3-8B", "Qwen--Qwen3-8B_config.json"),
    architecture: "Qwen3ForCausalLM",
    hiddenSize: 4096,
    intermediateSize: 12288,
    layers: 36,
    attentionHeads: 32,
    kvHeads: 8,
    headDim: 128,
    vocabSize: 151936,
    maxContext: 40960,
    qkNorm: true,
    weights: BF16,
  },
  {
    id: "Qwen/Qwen3-32B",
    source: hf("Qwen/Qwen3-32B", "Qwen--Qwen3-32B_config.json"),
    architecture: "Qwen3ForCausalLM",
    hiddenSize: 5120,
    intermediateSize: 25600,
    layers: 64,
    attentionHeads: 64,
    kvHeads: 8,
    headDim: 128,
    vocabSize: 151936,
    maxContext: 40960,
    qkNorm: true,
    weights: BF16,
  },
  {
    id: "Qwen/Qwen3-235B-A22B",
    source: hf("Qwen/Qwen3-235B-A22B", "Qwen--Qwen3-235B-A22B_config.json"),
    ...QWEN3_235B,
    weights: BF16,
  },
  {
    id: "Qwen/Qwen3-235B-A22B-FP8",
    source: hf(
      "Qwen/Qwen3-235B-A22B-FP8",
      "Qwen--Qwen3-235B-A22B-FP8_config.json",
      "; quantization_config fp8 block [128, 128], not converted: lm_head, norms, mlp.gate",
    ),
    ...QWEN3_235B,
    weights: FP8_LINEAR,
  },
  {
    id: "deepseek-ai/DeepSeek-R1",
    source: hf(
      "deepseek-ai/DeepSeek-R1",
      "deepseek-ai--DeepSeek-R1_config.json",
      "; quantization_config fp8 e4m3 block [128, 128]; the multi-token-prediction layer (num_nextn_predict_layers 1) is not counted",
    ),
    architecture: "DeepseekV3ForCausalLM",
    hiddenSize: 7168,
    intermediateSize: 18432,
    layers: 61,
    attentionHeads: 128,
    kvHeads: 128,
    headDim: 192,
    vocabSize: 129280,
    maxContext: 163840,
    moe: { experts: 256, expertsPerToken: 8, expertIntermediateSize: 2048, sharedExperts: 1, denseLayers: 3 },
    mla: { qLoraRank: 1536, kvLoraRank: 512, qkNopeHeadDim: 128, qkRopeHeadDim: 64, vHeadDim: 128 },
    weights: FP8_LINEAR,
  },
  {
    id: "openai/gpt-oss-20b",
    source: hf(
      "openai/gpt-oss-20b",
      "openai--gpt-oss-20b_config.json",
      "; quantization_config mxfp4, not converted: self_attn, router, embed_tokens, lm_head",
    ),
    ...GPT_OSS,
    layers: 24,
    moe: { experts: 32, ...GPT_OSS_MOE },
  },
  {
    id: "openai/gpt-oss-120b",
    source: hf(
      "openai/gpt-oss-120b",
      "openai--gpt-oss-120b_config.json",
      "; quantization_config mxfp4, not converted: self_attn, router, embed_tokens, lm_head",
    ),
    ...GPT_OSS,
    layers: 36,
    moe: { experts: 128, ...GPT_OSS_MOE },
  },
  {
    id: "mistralai/Mixtral-8x7B-Instruct-v0.1",
    source: hf("mistralai/Mixtral-8x7B-v0.1", "mistralai--Mixtral-8x7B-v0.1_config.json", INSTRUCT),
    architecture: "MixtralForCausalLM",
    hiddenSize: 4096,
    intermediateSize: 14336,
    layers: 32,
    attentionHeads: 32,
    kvHeads: 8,
    headDim: 128,
    vocabSize: 32000,
    maxContext: 32768,
    moe: { experts: 8, expertsPerToken: 2, expertIntermediateSize: 14336 },
    weights: BF16,
  },
];

/** The catalog, by model id. */
export const MODELS: ReadonlyMap<string, ModelRow> = new Map(MODEL_ROWS.map((r) => [r.id, Object.freeze(r)] as const));

/** The catalog row of a model id, or undefined for a model the catalog does not know. */
export function modelRow(id: string): ModelRow | undefined {
  return MODELS.get(id);
}
