/**
 * The shape of a model catalog row (`ModelRow`): the `config.json` dimensions the fit arithmetic reads, with the
 * weight dtypes and their sizes. Split from `./models.ts`, which holds the rows themselves. Pure.
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
