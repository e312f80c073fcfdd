/**
 * Extracts the scheduler settings the serving estimate runs each engine at (serving/engine-settings.ts):
 * - vLLM (`vllm/engine/arg_utils.py` `get_batch_defaults`, `vllm/config/vllm.py` `_set_cudagraph_sizes`): the API
 *   server's `max_num_seqs` and `max_num_batched_tokens` on GPUs of >= 70 GiB that are not A100 and on the others,
 *   and the largest CUDA-graph batch (`min(max_num_seqs * 2, 512)` without speculative decoding);
 * - TensorRT-LLM (`tensorrt_llm/llmapi/llm_args.py` `BaseLlmArgs`): `max_batch_size` and `max_num_tokens` defaults
 *   and the attention-DP / expert-parallel switches (`enable_attention_dp`, `moe_expert_parallel_size`).
 * Usage: npx tsx tests/contracts/extract/engine-settings.ts <checkout> --engine vllm|trtllm --ref <ref> [--commit <sha>]
 *        > tests/contracts/facts/engine-<engine>.json
 */
import { checkoutArgs, matcher, printFacts, readText, today, withNotes } from "./_checkout";

const must = matcher("engine-settings");
const int = (s: string) => Number(s);

export const VLLM_PATHS = { args: "vllm/engine/arg_utils.py", config: "vllm/config/vllm.py" } as const;
export const TRTLLM_PATHS = { args: "tensorrt_llm/llmapi/llm_args.py" } as const;

/** vLLM's batch defaults for the API server (the Dynamo worker's usage context) and its CUDA-graph cap. */
export function extractVllm(read: (p: string) => string) {
  const a = read(VLLM_PATHS.args);
  const fn = a.slice(a.indexOf("def get_batch_defaults("), a.indexOf("def _set_default_chunked_prefill"));
  const large = must(
    /device_memory >= (\d+) \* GiB_bytes and "a100" not in device_name:([\s\S]*?)else:/,
    fn,
    "large-GPU branch",
  );
  const small = fn.slice(large.index + large[0].length);
  const api = (block: string, what: string) =>
    must(new RegExp(`${what} = \\{[\\s\\S]*?UsageContext\\.OPENAI_API_SERVER: (\\d+)`), block, what)[1];
  const cfg = read(VLLM_PATHS.config);
  const cap = must(
    /max_cudagraph_capture_size = min\(\s*self\.scheduler_config\.max_num_seqs \* decode_query_len \* (\d+), (\d+)\s*\)/,
    cfg,
    "cudagraph cap",
  );
  return {
    largeGpuMinGiB: int(large[1]!),
    largeGpuExcludes: "a100",
    apiServer: {
      largeGpu: {
        maxNumSeqs: int(api(large[2]!, "default_max_num_seqs")),
        maxNumBatchedTokens: int(api(large[2]!, "default_max_num_batched_tokens")),
      },
      otherGpu: {
        maxNumSeqs: int(api(small, "default_max_num_seqs")),
        maxNumBatchedTokens: int(api(small, "default_max_num_batched_tokens")),
      },
    },
    cudaGraph: { perSeqFactor: int(cap[1]!), maxCaptureSize: int(cap[2]!) },
    chunkedPrefill: true,
  };
}

/** TensorRT-LLM's LLM-API defaults (trtllm-serve and Dynamo's TRT-LLM worker build on them). */
export function extractTrtllm(read: (p: string) => string) {
  const a = read(TRTLLM_PATHS.args);
  return {
    maxBatchSize: int(must(/max_batch_size: Optional\[int\] = Field\(default=(\d+)/, a, "max_batch_size")[1]!),
    maxNumTokens: int(must(/max_num_tokens: Optional\[int\] = Field\(\s*default=(\d+)/, a, "max_num_tokens")[1]!),
    attentionDpSwitch: must(/(enable_attention_dp): bool = Field\(\s*default=False/, a, "enable_attention_dp")[1],
    expertParallelSwitch: must(/(moe_expert_parallel_size): Optional\[int\]/, a, "moe_expert_parallel_size")[1],
  };
}

if (require.main === module) {
  const argv = process.argv.slice(2);
  const engine = argv[argv.indexOf("--engine") + 1];
  const args = checkoutArgs(argv, "engine-settings.ts");
  const vllm = engine === "vllm";
  printFacts(
    {
      repository: vllm ? "vllm-project/vllm" : "NVIDIA/TensorRT-LLM",
      ref: args.ref,
      commit: args.commit,
      paths: Object.values(vllm ? VLLM_PATHS : TRTLLM_PATHS),
      extracted: today(),
      extractor: "tests/contracts/extract/engine-settings.ts",
      notes: withNotes("Scheduler defaults the serving estimate runs this engine at.", args),
    },
    vllm ? extractVllm((p) => readText(args.root, p)) : extractTrtllm((p) => readText(args.root, p)),
  );
}
