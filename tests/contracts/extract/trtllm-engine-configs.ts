/**
 * Extracts what Dynamo's own disaggregated TensorRT-LLM engine configs set, from a Dynamo checkout: every
 * `examples/backends/trtllm/engine_configs/**` file of a prefill or decode worker (name contains "prefill" or
 * "decode"), its role, its `disable_overlap_scheduler`, its `kv_cache_config` keys and `cache_transceiver_config`
 * backend; the union of the keys they use (top level, kv_cache_config, cache_transceiver_config); and how the LLM
 * worker merges the `--extra-engine-args` file (components/src/dynamo/trtllm/workers/llm_worker.py): it builds
 * `kv_cache_config` from `--free-gpu-memory-fraction`, then hands the file to TensorRT-LLM's
 * `update_llm_args_with_extra_options`, whose top-level merge replaces that whole `kv_cache_config` when the
 * file has one (so the file must carry `free_gpu_memory_fraction` itself, as every example with a kv_cache_config but gemma3's does).
 * Usage: npx tsx tests/contracts/extract/trtllm-engine-configs.ts <dynamo checkout> --ref <ref> [--commit <sha>] > tests/contracts/facts/trtllm-engine-configs.json
 */
import { parse } from "yaml";
import { checkoutArgs, factJson, filesUnder, readText, today, withNotes } from "./_checkout";

export const DIR = "examples/backends/trtllm/engine_configs";
export const WORKER = "components/src/dynamo/trtllm/workers/llm_worker.py";

type Obj = Record<string, unknown>;
const keysOf = (o: unknown): string[] => (o && typeof o === "object" ? Object.keys(o as Obj) : []);
const union = (lists: string[][]) => [...new Set(lists.flat())].sort();

export function extract(root: string, read: (p: string) => string) {
  const files = filesUnder(root, DIR, /(prefill|decode)\.ya?ml$/).map((path) => {
    const y = (parse(read(path)) ?? {}) as Obj;
    const tc = (y.cache_transceiver_config ?? {}) as Obj;
    return {
      path,
      role: /prefill\.ya?ml$/.test(path) ? "prefill" : "decode",
      disableOverlapScheduler: y.disable_overlap_scheduler ?? null,
      kvCacheConfigKeys: keysOf(y.kv_cache_config).sort(),
      enableBlockReuse: ((y.kv_cache_config ?? {}) as Obj).enable_block_reuse ?? null,
      cacheTransceiverBackend: tc.backend ?? null,
      topLevelKeys: Object.keys(y).sort(),
    };
  });
  const w = read(WORKER);
  return {
    files: files.map(({ topLevelKeys: _t, ...f }) => f),
    keys: {
      topLevel: union(files.map((f) => f.topLevelKeys)),
      kvCacheConfig: union(files.map((f) => f.kvCacheConfigKeys)),
      cacheTransceiverConfig: union(files.map((f) => keysOf((parse(read(f.path)) as Obj).cache_transceiver_config))),
    },
    worker: {
      kvCacheConfigFromFlag:
        /kv_cache_config = KvCacheConfig\(\s*free_gpu_memory_fraction=config\.free_gpu_memory_fraction\s*\)/.test(w),
      extraArgsMerge: /arg_map = update_llm_args_with_extra_options\(arg_map, config\.extra_engine_args\)/.test(w)
        ? "update_llm_args_with_extra_options"
        : null,
    },
  };
}

if (require.main === module) {
  const args = checkoutArgs(process.argv.slice(2), "trtllm-engine-configs.ts");
  const facts = extract(args.root, (p) => readText(args.root, p));
  const provenance = {
    repository: "ai-dynamo/dynamo (fork zinuga/dynamo)",
    ref: args.ref,
    commit: args.commit,
    paths: [DIR, WORKER],
    extracted: today(),
    extractor: "tests/contracts/extract/trtllm-engine-configs.ts",
    notes: withNotes(
      "Dynamo's disaggregated TRT-LLM example engine configs and the LLM worker's merge of --extra-engine-args. That TensorRT-LLM's update_llm_args_with_extra_dict ends with `llm_args = llm_args | llm_args_dict` (a top-level merge) was read in tensorrt_llm/llmapi/llm_utils.py through code search, not at the v1.3.0rc7 tag.",
      args,
    ),
  };
  process.stdout.write(`${factJson({ provenance, facts })}\n`);
}
