/**
 * The scheduler settings each engine runs a worker at, as the engine's own defaults set them (the graph passes
 * none of them): how many sequences decode at once, how many tokens one step takes (the prefill chunk budget),
 * up to which batch a step replays a CUDA graph, and how its tensor-parallel all-reduce is priced. Read from the
 * engines' source (serving/facts/engine-vllm.json, engine-trtllm.json) and from published all-reduce
 * latencies (serving/facts/allreduce-h100.json), shipped with the package. Pure.
 */
import { Backend } from "../components/inference/args";
import vllmFacts from "./facts/engine-vllm.json";
import trtllmFacts from "./facts/engine-trtllm.json";
import allReduceFacts from "./facts/allreduce-h100.json";

/** A published all-reduce latency: [tensor parallel, bytes, microseconds per call]. */
export type AllReducePoint = readonly [number, number, number];

/** One engine's settings on one GPU type. */
export interface EngineSettings {
  readonly backend: Backend;
  /** Sequences a worker decodes at once at most (vLLM `max_num_seqs`, TensorRT-LLM `max_batch_size`). */
  readonly maxNumSeqs: number;
  /** Tokens one step takes at most: the prefill chunk budget (`max_num_batched_tokens` / `max_num_tokens`). */
  readonly maxBatchedTokens: number;
  /** Largest decode batch replayed as a CUDA graph; larger batches launch their kernels one by one. */
  readonly cudaGraphMaxBatch: number;
  /** The engine's all-reduce latency by TP and message size (H100, NVLink). */
  readonly allReduce: readonly AllReducePoint[];
  /** Where the settings come from, for the plan. */
  readonly basis: string;
}

const VLLM = vllmFacts.facts;
const TRTLLM = trtllmFacts.facts;
const AR = allReduceFacts.facts as unknown as {
  vllmCustom: AllReducePoint[];
  trtllmCustom: AllReducePoint[];
};

/** vLLM's defaults on a GPU of `memoryGiB` (its large-GPU branch excludes A100). */
function vllm(gpuModel: string, memoryGiB: number): EngineSettings {
  const large = memoryGiB >= VLLM.largeGpuMinGiB && !gpuModel.toLowerCase().includes(VLLM.largeGpuExcludes);
  const d = large ? VLLM.apiServer.largeGpu : VLLM.apiServer.otherGpu;
  const graph = Math.min(
    d.maxNumSeqs * VLLM.cudaGraph.perSeqFactor,
    VLLM.cudaGraph.maxCaptureSize,
    d.maxNumBatchedTokens,
  );
  return {
    backend: Backend.Vllm,
    maxNumSeqs: d.maxNumSeqs,
    maxBatchedTokens: d.maxNumBatchedTokens,
    cudaGraphMaxBatch: graph,
    allReduce: AR.vllmCustom,
    basis: `vLLM defaults (${vllmFacts.provenance.repository}@${vllmFacts.provenance.commit.slice(0, 8)} get_batch_defaults): max_num_seqs ${d.maxNumSeqs}, max_num_batched_tokens ${d.maxNumBatchedTokens}, CUDA graphs to batch ${graph}; custom all-reduce as published for H100`,
  };
}

/** TensorRT-LLM's LLM-API defaults; CUDA graphs up to its batch limit (as NVIDIA's published runs set them). */
function trtllm(): EngineSettings {
  return {
    backend: Backend.Trtllm,
    maxNumSeqs: TRTLLM.maxBatchSize,
    maxBatchedTokens: TRTLLM.maxNumTokens,
    cudaGraphMaxBatch: TRTLLM.maxBatchSize,
    allReduce: AR.trtllmCustom,
    basis: `TensorRT-LLM defaults (${trtllmFacts.provenance.repository}@${trtllmFacts.provenance.commit.slice(0, 8)} llm_args.py): max_batch_size ${TRTLLM.maxBatchSize}, max_num_tokens ${TRTLLM.maxNumTokens}; CUDA graphs assumed up to the batch limit; its custom all-reduce as published for H100`,
  };
}

/** The settings `backend` runs a worker at on a GPU (`gpuModel`, `memoryGiB` per GPU). */
export function engineSettings(backend: Backend, gpuModel: string, memoryGiB: number): EngineSettings {
  return backend === Backend.Trtllm ? trtllm() : vllm(gpuModel, memoryGiB);
}

/** vLLM on an H200: the engine a worker speed assumes when none is named (the project's default backend). */
export const DEFAULT_ENGINE: EngineSettings = engineSettings(Backend.Vllm, "H200 141GB", 141);
