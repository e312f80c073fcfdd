/**
 * The rendered TensorRT-LLM engine-args file (components/inference/graph.ts `trtllmEngineYaml`) key by key against
 * Dynamo's own disaggregated examples at the pinned commit (facts/trtllm-engine-configs.json) and the field's working
 * args (facts/field-trtllm-engine-args.json): only keys Dynamo's examples use; prefill without the overlap scheduler
 * and without block reuse; decode as Dynamo's decode examples; the KV memory fraction inside `kv_cache_config`, where
 * the file's `kv_cache_config` replaces the one Dynamo builds from the flag.
 */
import { strict as assert } from "assert";
import { parse } from "yaml";
import { trtllmEngineYaml } from "../../components/inference/graph";
import { ServingRole } from "../../components/inference/args";
import { resolved } from "../helpers/inference-fixtures";
import { loadFacts } from "./facts";

interface DynamoFile {
  path: string;
  role: "prefill" | "decode";
  disableOverlapScheduler: boolean | null;
  kvCacheConfigKeys: string[];
  enableBlockReuse: boolean | null;
  cacheTransceiverBackend: string | null;
}
interface DynamoFacts {
  files: DynamoFile[];
  keys: { topLevel: string[]; kvCacheConfig: string[]; cacheTransceiverConfig: string[] };
  worker: { kvCacheConfigFromFlag: boolean; extraArgsMerge: string | null };
}
interface FieldFacts {
  appliedTo: string[];
  args: Record<string, { value: unknown; why: string }>;
}
const dyn = loadFacts<DynamoFacts>("trtllm-engine-configs").facts;
const field = loadFacts<FieldFacts>("field-trtllm-engine-args").facts;

type Obj = Record<string, unknown>;

/** The value most of Dynamo's examples of `role` set explicitly for `disable_overlap_scheduler`. */
function dynamoOverlap(role: string): boolean {
  const set = dyn.files.filter((f) => f.role === role && f.disableOverlapScheduler !== null);
  const t = set.filter((f) => f.disableOverlapScheduler === true).length;
  return t * 2 > set.length;
}

/** Problems of one role's engine file (`fraction`: the worker's --free-gpu-memory-fraction). */
export function engineProblems(yaml: string, role: ServingRole, fraction: number): string[] {
  const y = parse(yaml) as Obj;
  const kv = (y.kv_cache_config ?? {}) as Obj;
  const out: string[] = [];
  for (const k of Object.keys(y)) if (!dyn.keys.topLevel.includes(k)) out.push(`${k} is no key of Dynamo's examples`);
  for (const k of Object.keys(kv))
    if (!dyn.keys.kvCacheConfig.includes(k)) out.push(`kv_cache_config.${k} is no key of Dynamo's examples`);
  for (const k of Object.keys((y.cache_transceiver_config ?? {}) as Obj))
    if (!dyn.keys.cacheTransceiverConfig.includes(k))
      out.push(`cache_transceiver_config.${k} is no key of Dynamo's examples`);
  if (y.disable_overlap_scheduler !== dynamoOverlap(role))
    out.push(
      `${role}: disable_overlap_scheduler ${String(y.disable_overlap_scheduler)}, Dynamo's ${role} examples set ${dynamoOverlap(role)}`,
    );
  if (role === ServingRole.Prefill) {
    if (y.disable_overlap_scheduler !== field.args.disable_overlap_scheduler.value)
      out.push(`prefill: disable_overlap_scheduler is not the field's (${field.args.disable_overlap_scheduler.why})`);
    if (kv.enable_block_reuse !== field.args.enable_block_reuse.value)
      out.push(`prefill: kv_cache_config.enable_block_reuse is not the field's (${field.args.enable_block_reuse.why})`);
  }
  // Dynamo builds kv_cache_config from the flag, then the file's top level replaces it.
  if (
    dyn.worker.kvCacheConfigFromFlag &&
    dyn.worker.extraArgsMerge &&
    "kv_cache_config" in y &&
    kv.free_gpu_memory_fraction !== fraction
  )
    out.push(
      `kv_cache_config replaces the flag's, and its free_gpu_memory_fraction ${String(kv.free_gpu_memory_fraction)} is not the flag's ${fraction}`,
    );
  const backend = (y.cache_transceiver_config as Obj | undefined)?.backend;
  // DEFAULT/UCX are what Dynamo's examples use; NIXL is TensorRT-LLM's name of DEFAULT's backend (CacheTransceiverConfig).
  const backends = new Set([...dyn.files.map((f) => f.cacheTransceiverBackend), "NIXL"]);
  if (!backends.has(backend as string))
    out.push(`cache_transceiver_config.backend ${String(backend)} is not one of ${[...backends].join(", ")}`);
  return out;
}

describe("contract: TRT-LLM engine config vs Dynamo's disaggregated examples and the field's working args", () => {
  it("the facts say what the render relies on: every Dynamo prefill example disables the overlap scheduler", () => {
    const prefill = dyn.files.filter((f) => f.role === "prefill");
    assert.ok(prefill.length >= 10, `${prefill.length} prefill examples`);
    assert.deepEqual(
      prefill.filter((f) => f.disableOverlapScheduler !== true).map((f) => f.path),
      [],
    );
    assert.deepEqual(
      [dyn.worker.kvCacheConfigFromFlag, dyn.worker.extraArgsMerge],
      [true, "update_llm_args_with_extra_options"],
    );
  });

  for (const [variant, dtype] of [
    ["p5en-1gpu", "auto"],
    ["p5en-8x1gpu", "fp8"],
  ] as const) {
    it(`${variant} (kvCacheDtype ${dtype}): both roles' engine.yaml pass, key by key`, () => {
      const r = resolved(variant, "trtllm", { kvCacheDtype: dtype, gpuMemoryUtilization: 0.8 });
      for (const role of [ServingRole.Prefill, ServingRole.Decode])
        assert.deepEqual(engineProblems(trtllmEngineYaml(r, role), role, 0.8), [], role);
    });
  }

  it("mutations are caught: overlap scheduler on in prefill, block reuse on, fraction lost, an unknown key", () => {
    const r = resolved("p5en-1gpu", "trtllm");
    const y = trtllmEngineYaml(r, ServingRole.Prefill);
    const cases: [string, string, RegExp][] = [
      [
        "disable_overlap_scheduler: true",
        "disable_overlap_scheduler: false",
        /prefill: disable_overlap_scheduler false/,
      ],
      ["enable_block_reuse: false", "enable_block_reuse: true", /enable_block_reuse is not the field's/],
      ["free_gpu_memory_fraction: 0.85", "dtype: fp8", /free_gpu_memory_fraction undefined is not the flag's/],
      ["tensor_parallel_size:", "tensor_parallel:", /tensor_parallel is no key/],
      ["backend: NIXL", "backend: LIBFABRIC", /backend LIBFABRIC is not one of/],
    ];
    for (const [from, to, expect] of cases) {
      assert.ok(y.includes(from), `the file has ${from}`);
      const problems = engineProblems(y.replace(from, to), ServingRole.Prefill, 0.85);
      assert.ok(
        problems.some((p) => expect.test(p)),
        `${from} -> ${to}: ${problems.join("; ")}`,
      );
    }
  });
});
