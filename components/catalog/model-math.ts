/**
 * Arithmetic on a model's dimensions: parameter counts (total, per token), weight bytes, KV-cache
 * bytes per token. Pure; no Pulumi import. The formulas follow the module layout transformers builds
 * from a `config.json` (checked against it: tests/contracts/facts/model-shapes.json).
 */
import { ModelRow, WEIGHT_DTYPE_BYTES, WeightDtype } from "./model-row";

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
