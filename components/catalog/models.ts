/**
 * Model catalog: the dimensions of each model as its published `config.json` states them, one row per
 * Hugging Face model id, each with its source. The row type, the rows and the arithmetic on them (parameter counts,
 * weight bytes, KV bytes per token) all live here.
 *
 * Source of every row: the model's Hugging Face `config.json`, read from the copies NVIDIA's
 * AIConfigurator vendors (ai-dynamo/aiconfigurator@095f58a51c4ca8e61b66ec108d86f223f8d559ce,
 * `aic-core/src/aiconfigurator_core/model_configs/<org>--<name>_config.json`; Llama-3.3 at f577ab84,
 * `src/aiconfigurator/model_configs/`). Every row's parameter count is checked against transformers
 * 5.17 building the model from the same config (tests/contracts/facts/model-shapes.json).
 */
/**
 * The shape of a model catalog row (`ModelRow`): the `config.json` dimensions the fit arithmetic reads, with the
 * weight dtypes and their sizes. Pure.
 */

/** How a checkpoint stores its weights. */
export const WeightDtype = {
  /** bfloat16: 2 bytes per parameter. */
  Bf16: "bf16",
  /** float16: 2 bytes per parameter. */
  Fp16: "fp16",
  /** FP8 (e4m3): 1 byte per parameter (block or tensor scales add < 0.1%, not counted). */
  Fp8: "fp8",
  /** MXFP4: 4-bit values plus one 8-bit scale per 32 values = 4.25 bits per parameter. */
  Mxfp4: "mxfp4",
} as const;
export type WeightDtype = (typeof WeightDtype)[keyof typeof WeightDtype];

/** Bytes per parameter of each weight dtype. */
export const WEIGHT_DTYPE_BYTES: Readonly<Record<WeightDtype, number>> = { bf16: 2, fp16: 2, fp8: 1, mxfp4: 4.25 / 8 };

/**
 * Which parameters a quantized checkpoint stores in its `dtype`; the rest stay bf16.
 * `all`: every parameter (unquantized checkpoints). `linear`: the attention and MLP/expert projection
 * matrices (embedding, lm_head, norms, router and biases stay bf16: the FP8 checkpoints'
 * `modules_to_not_convert` / `exclude_modules`). `experts`: only the routed experts' matrices
 * (gpt-oss: `modules_to_not_convert` = self_attn, router, embed_tokens, lm_head).
 */
export type QuantScope = "all" | "linear" | "experts";

/** Multi-head latent attention (DeepSeek-V3/R1): `config.json` keys in camelCase. */
export interface MlaDims {
  /** `q_lora_rank`. */
  readonly qLoraRank: number;
  /** `kv_lora_rank`: the compressed KV latent cached per token and layer. */
  readonly kvLoraRank: number;
  /** `qk_nope_head_dim`. */
  readonly qkNopeHeadDim: number;
  /** `qk_rope_head_dim`: the decoupled RoPE key, cached per token and layer beside the latent. */
  readonly qkRopeHeadDim: number;
  /** `v_head_dim`. */
  readonly vHeadDim: number;
}

/** Mixture of experts. */
export interface MoeDims {
  /** Routed experts per MoE layer (`num_experts` / `num_local_experts` / `n_routed_experts`). */
  readonly experts: number;
  /** Routed experts each token uses (`num_experts_per_tok`). */
  readonly expertsPerToken: number;
  /** Hidden size of one expert (`moe_intermediate_size`, or `intermediate_size` when the model has no dense MLP). */
  readonly expertIntermediateSize: number;
  /** Always-on shared experts (`n_shared_experts`). @default 0 */
  readonly sharedExperts?: number;
  /** Leading layers with a dense MLP instead of experts (`first_k_dense_replace`). @default 0 */
  readonly denseLayers?: number;
  /** The router has a bias (gpt-oss). @default false */
  readonly routerBias?: boolean;
  /** Expert projections have biases (gpt-oss). @default false */
  readonly expertBias?: boolean;
}

/** One model, as its `config.json` describes it. */
export interface ModelRow {
  /** Hugging Face model id, what `inference.model` names. */
  readonly id: string;
  /** Where the dimensions come from (a `config.json`), and anything inferred. */
  readonly source: string;
  /** `architectures[0]`. */
  readonly architecture: string;
  /** `hidden_size`. */
  readonly hiddenSize: number;
  /** `intermediate_size` of the dense MLP (dense layers of MoE models too). */
  readonly intermediateSize: number;
  /** `num_hidden_layers`. */
  readonly layers: number;
  /** `num_attention_heads`. */
  readonly attentionHeads: number;
  /** `num_key_value_heads`. */
  readonly kvHeads: number;
  /** `head_dim` (or `hidden_size / num_attention_heads` where the config has none). */
  readonly headDim: number;
  /** `vocab_size`. */
  readonly vocabSize: number;
  /** `max_position_embeddings`: the longest sequence the model supports. */
  readonly maxContext: number;
  /** `tie_word_embeddings`. @default false */
  readonly tiedEmbeddings?: boolean;
  /** q/k/v/o projections have biases (`attention_bias`). @default false */
  readonly attentionBias?: boolean;
  /** Per-head RMSNorm on q and k (Qwen3). @default false */
  readonly qkNorm?: boolean;
  /** One learned attention-sink logit per head and layer (gpt-oss). @default false */
  readonly attentionSinks?: boolean;
  /** Mixture-of-experts dimensions. @default - none (a dense model) */
  readonly moe?: MoeDims;
  /** Multi-head latent attention dimensions (then `kvHeads`/`headDim` are not used for the KV cache). @default - none (GQA/MHA) */
  readonly mla?: MlaDims;
  /** Storage dtype of the quantized parameters and which ones (`quantization_config`). */
  readonly weights: { readonly dtype: WeightDtype; readonly scope: QuantScope };
}

/*
 * Arithmetic on a model's dimensions: parameter counts (total, per token), weight bytes, KV-cache
 * bytes per token. Pure; no Pulumi import. The formulas follow the module layout transformers builds
 * from a `config.json` (checked against it: tests/contracts/facts/model-shapes.json).
 */

/** Bytes per element of the KV cache: `auto` = the model's activation dtype (bf16), `fp8` = 1 byte. */
export const KvCacheDtype = { Auto: "auto", Fp8: "fp8" } as const;
export type KvCacheDtype = (typeof KvCacheDtype)[keyof typeof KvCacheDtype];
/** Bytes per KV element per `KvCacheDtype` (every catalogued model computes in bf16). */
export const KV_DTYPE_BYTES: Readonly<Record<KvCacheDtype, number>> = { auto: 2, fp8: 1 };

/**
 * The shape of a model the catalog does not know (`inference.modelShape`): what fit and KV transfer
 * need, nothing more. For an MLA model set `mla`; `kvHeads` and `headDim` are then not used.
 */
export interface ModelShape {
  /** Total parameters, in billions (the model card's number). */
  readonly paramsB: number;
  /** Storage dtype of the weights; every parameter is counted at this size. */
  readonly weightDtype: WeightDtype;
  /** `num_hidden_layers`. */
  readonly layers: number;
  /** `num_attention_heads`. */
  readonly attentionHeads: number;
  /** `num_key_value_heads`. Required unless `mla` is set. @default - required for non-MLA models */
  readonly kvHeads?: number;
  /** `head_dim`. Required unless `mla` is set. @default - required for non-MLA models */
  readonly headDim?: number;
  /** `max_position_embeddings`. */
  readonly maxContext: number;
  /** Multi-head latent attention: `kv_lora_rank` and `qk_rope_head_dim`. @default - none (GQA/MHA) */
  readonly mla?: { readonly kvLoraRank: number; readonly qkRopeHeadDim: number };
}

/** What fit and transfer math needs about a model, from the catalog or a stated `ModelShape`. */
export interface ModelFacts {
  readonly id: string;
  /** The catalog row's source, or "inference.modelShape (stated by the user)". */
  readonly source: string;
  readonly paramsTotal: number;
  /** Parameters one token activates (MoE only). */
  readonly paramsActive?: number;
  /** Bytes of all weights. */
  readonly weightBytes: number;
  readonly weightDtype: WeightDtype;
  readonly layers: number;
  readonly attentionHeads: number;
  readonly kvHeads: number;
  readonly headDim: number;
  readonly maxContext: number;
  readonly mla?: { readonly kvLoraRank: number; readonly qkRopeHeadDim: number };
}

/** Parameters of one layer's attention (projections, biases, q/k norms, sinks). */
function attentionParams(m: ModelRow): { linear: number; other: number } {
  const h = m.hiddenSize;
  if (m.mla) {
    const a = m.mla;
    const qk = a.qkNopeHeadDim + a.qkRopeHeadDim;
    const linear =
      h * a.qLoraRank +
      a.qLoraRank * m.attentionHeads * qk +
      h * (a.kvLoraRank + a.qkRopeHeadDim) +
      a.kvLoraRank * m.attentionHeads * (a.qkNopeHeadDim + a.vHeadDim) +
      m.attentionHeads * a.vHeadDim * h;
    return { linear, other: a.qLoraRank + a.kvLoraRank }; // q_a_layernorm, kv_a_layernorm
  }
  const q = m.attentionHeads * m.headDim;
  const kv = m.kvHeads * m.headDim;
  const linear = 2 * h * q + 2 * h * kv;
  const bias = m.attentionBias ? q + 2 * kv + h : 0;
  return { linear, other: bias + (m.qkNorm ? 2 * m.headDim : 0) + (m.attentionSinks ? m.attentionHeads : 0) };
}

/** Parameter counts by group; every weight-bytes and per-token number derives from these. */
export interface ParamGroups {
  /** Embedding + lm_head (0 for lm_head when tied). */
  readonly embeddings: number;
  /** Attention, dense-MLP and shared-expert projection matrices. */
  readonly linear: number;
  /** Routed experts' projection matrices. */
  readonly routedExperts: number;
  /** Routed experts' biases (gpt-oss): stored in bf16, but used only by the tokens routed there. */
  readonly routedExpertBiases: number;
  /** Norms, other biases, routers, sinks: always stored in bf16. */
  readonly other: number;
}

/** Parameter counts of a catalog row, by group. */
export function paramGroups(m: ModelRow): ParamGroups {
  const h = m.hiddenSize;
  const attn = attentionParams(m);
  const moe = m.moe;
  const moeLayers = moe ? m.layers - (moe.denseLayers ?? 0) : 0;
  const denseLayers = m.layers - moeLayers;
  const mlp = (i: number) => 3 * h * i;
  let linear = m.layers * attn.linear + denseLayers * mlp(m.intermediateSize);
  let routed = 0;
  let routedBiases = 0;
  let other = m.layers * (attn.other + 2 * h) + h; // two norms per layer, final norm
  if (moe) {
    const perExpertBias = moe.expertBias ? 2 * moe.expertIntermediateSize + h : 0;
    routed = moeLayers * moe.experts * mlp(moe.expertIntermediateSize);
    linear += moeLayers * (moe.sharedExperts ?? 0) * mlp(moe.expertIntermediateSize);
    routedBiases = moeLayers * moe.experts * perExpertBias;
    other += moeLayers * (moe.experts * h + (moe.routerBias ? moe.experts : 0));
  }
  return {
    embeddings: m.vocabSize * h * (m.tiedEmbeddings ? 1 : 2),
    linear,
    routedExperts: routed,
    routedExpertBiases: routedBiases,
    other,
  };
}

/** Total parameters of a catalog row. */
export function totalParams(m: ModelRow): number {
  const g = paramGroups(m);
  return g.embeddings + g.linear + g.routedExperts + g.routedExpertBiases + g.other;
}

/**
 * Parameters one token activates: the total less the routed experts it does not use
 * (`routed x (1 - expertsPerToken / experts)`); equal to the total for dense models.
 */
export function activeParams(m: ModelRow): number {
  const g = paramGroups(m);
  if (!m.moe) return totalParams(m);
  return (
    totalParams(m) - Math.round((g.routedExperts + g.routedExpertBiases) * (1 - m.moe.expertsPerToken / m.moe.experts))
  );
}

/** Bytes of all weights of a catalog row: quantized groups at their dtype, the rest bf16. */
export function weightBytes(m: ModelRow): number {
  const g = paramGroups(m);
  const q = WEIGHT_DTYPE_BYTES[m.weights.dtype];
  const bf16 = WEIGHT_DTYPE_BYTES.bf16;
  switch (m.weights.scope) {
    case "all":
      return totalParams(m) * q;
    case "linear":
      return (g.linear + g.routedExperts) * q + (g.embeddings + g.routedExpertBiases + g.other) * bf16;
    case "experts":
      return g.routedExperts * q + (g.embeddings + g.linear + g.routedExpertBiases + g.other) * bf16;
  }
}

/** A catalog row as fit facts. */
export function factsOfRow(m: ModelRow): ModelFacts {
  return {
    id: m.id,
    source: m.source,
    paramsTotal: totalParams(m),
    ...(m.moe ? { paramsActive: activeParams(m) } : {}),
    weightBytes: weightBytes(m),
    weightDtype: m.weights.dtype,
    layers: m.layers,
    attentionHeads: m.attentionHeads,
    kvHeads: m.kvHeads,
    headDim: m.headDim,
    maxContext: m.maxContext,
    ...(m.mla ? { mla: { kvLoraRank: m.mla.kvLoraRank, qkRopeHeadDim: m.mla.qkRopeHeadDim } } : {}),
  };
}

/** Source recorded for a stated shape. */
export const STATED_SHAPE_SOURCE =
  "inference.modelShape (stated in the stack config, not checked against a config.json)";

/** A stated `ModelShape` as fit facts (every parameter at `weightDtype`). */
export function factsOfShape(id: string, s: ModelShape): ModelFacts {
  return {
    id,
    source: STATED_SHAPE_SOURCE,
    paramsTotal: Math.round(s.paramsB * 1e9),
    weightBytes: Math.round(s.paramsB * 1e9 * WEIGHT_DTYPE_BYTES[s.weightDtype]),
    weightDtype: s.weightDtype,
    layers: s.layers,
    attentionHeads: s.attentionHeads,
    kvHeads: s.kvHeads ?? s.attentionHeads,
    headDim: s.headDim ?? 0,
    maxContext: s.maxContext,
    ...(s.mla ? { mla: s.mla } : {}),
  };
}

/** KV heads one GPU holds at tensor parallel `tp`: an even share, at least one (vLLM replicates a head when tp > heads). */
export function kvHeadsPerGpu(m: ModelFacts, tp: number): number {
  return Math.max(1, Math.ceil(m.kvHeads / tp));
}

/**
 * KV-cache bytes one token takes on ONE GPU of a worker at tensor parallel `tp`.
 * GQA/MHA: `layers x 2 (K and V) x kvHeadsPerGpu x headDim x dtypeBytes`.
 * MLA: `layers x (kv_lora_rank + qk_rope_head_dim) x dtypeBytes`: one latent per token and layer,
 * which every tensor-parallel rank holds whole (vLLM's MLA backends do not shard it by heads).
 */
export function kvBytesPerTokenPerGpu(m: ModelFacts, tp: number, kvDtype: KvCacheDtype): number {
  const b = KV_DTYPE_BYTES[kvDtype];
  if (m.mla) return m.layers * (m.mla.kvLoraRank + m.mla.qkRopeHeadDim) * b;
  return m.layers * 2 * kvHeadsPerGpu(m, tp) * m.headDim * b;
}

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

/** The model a config names, as fit facts: the catalog row, else the stated shape, else unknown. */
export function modelFacts(id: string, shape?: ModelShape): ModelFacts | undefined {
  const row = modelRow(id);
  if (row) return factsOfRow(row);
  return shape ? factsOfShape(id, shape) : undefined;
}
