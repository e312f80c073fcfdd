/**
 * Everything that differs between vLLM and TensorRT-LLM workers, and nothing else: the command,
 * the engine's own env, and (TRT-LLM only) the engine-args file. Switching `backend` changes only
 * what this module returns (tested by diffing two renders). Pure.
 *
 * Flags checked against ai-dynamo/dynamo `components/src/dynamo/vllm/backend_args.py`
 * (`--disaggregation-mode` agg|prefill|decode; `--is-prefill-worker` is deprecated) and
 * `components/src/dynamo/trtllm/backend_args.py` (`--model`, `--served-model-name`,
 * `--tensor-parallel-size`, `--max-seq-len`, `--free-gpu-memory-fraction`, `--extra-engine-args`
 * = path to a YAML file, `--disaggregation-mode`). `--model`, `--served-model-name`,
 * `--tensor-parallel-size`, `--max-model-len`, `--gpu-memory-utilization` and
 * `--kv-transfer-config` of `dynamo.vllm` are vLLM's own engine args.
 */
import { createHash } from "crypto";
import { stringify } from "yaml";
import { Backend, ResolvedInference } from "./args";
import { DEFAULT_MODEL_REVISION } from "./model-id";
import { KvCacheDtype } from "../catalog/models";
import { KvTransport, NIXL_SIDE_CHANNEL_PORT, roleArgs, ServingRole } from "./derive";
import { engineModelArg, usesNodeCache } from "./cache";
import { shellQuote } from "../_shared/shell";
import type { EnvVar } from "./graph";

/** A file the engine reads, delivered as a ConfigMap key mounted read-only into the worker. */
export interface EngineFile {
  readonly configMapName: string;
  readonly key: string;
  readonly content: string;
  readonly mountDir: string;
  /** sha256 of `content`, put on the pod template so an edit rolls the workers. */
  readonly sha256: string;
}

/** The engine-specific part of one worker. */
export interface EngineParts {
  readonly command: readonly string[];
  readonly args: readonly string[];
  readonly env: readonly EnvVar[];
  readonly file?: EngineFile;
}

/** Where the TRT-LLM engine-args ConfigMap is mounted. */
export const TRTLLM_ENGINE_DIR = "/etc/dynamo-efa/engine";

/**
 * vLLM's NixlConnector config. The ONLY way to choose NIXL's backend in vLLM is
 * `kv_connector_extra_config.backends` (F3): `NIXL_BACKEND` / `VLLM_NIXL_KVCACHE_BACKEND` are
 * not read. LIBFABRIC on EFA pools; UCX only on pools without EFA (KV then crosses nodes over TCP).
 */
export function vllmKvTransferConfig(transport: KvTransport): string {
  return JSON.stringify({
    kv_connector: "NixlConnector",
    kv_role: "kv_both",
    kv_connector_extra_config: { backends: [transport] },
  });
}

/** Flags both engines' Dynamo workers take with the same names: model, served name, role, tensor parallel. */
function servingArgs(r: ResolvedInference, role: ServingRole): string[] {
  return [
    "--model",
    engineModelArg(r),
    "--served-model-name",
    r.servedModelName,
    "--disaggregation-mode",
    role,
    "--tensor-parallel-size",
    String(roleArgs(r, role).gpusPerWorker),
  ];
}

function vllm(r: ResolvedInference, role: ServingRole): EngineParts {
  const a = roleArgs(r, role);
  return {
    command: ["python3", "-m", "dynamo.vllm"],
    args: [
      ...servingArgs(r, role),
      "--max-model-len",
      String(r.maxModelLen),
      "--gpu-memory-utilization",
      String(r.gpuMemoryUtilization),
      ...(r.kvCacheDtype === KvCacheDtype.Fp8 ? ["--kv-cache-dtype", "fp8"] : []),
      // The engine downloads the model itself only without the node cache; with it, --model is that revision's directory.
      ...(!usesNodeCache(r) && r.modelRevision !== DEFAULT_MODEL_REVISION ? ["--revision", r.modelRevision] : []),
      "--kv-transfer-config",
      vllmKvTransferConfig(r.kvTransport),
      ...a.extraArgs,
    ],
    env: [
      // The side channel must advertise the pod's own IP (vLLM's default is "localhost").
      { name: "VLLM_NIXL_SIDE_CHANNEL_HOST", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
      // Each worker is its own pod with its own IP and no hostNetwork, and runs one engine process
      // (data-parallel rank 0, so vLLM adds no offset): port 5600 cannot collide with another
      // worker's (F6 arose only with hostNetwork). Set explicitly so the plan shows it.
      { name: "VLLM_NIXL_SIDE_CHANNEL_PORT", value: String(NIXL_SIDE_CHANNEL_PORT) },
    ],
  };
}

/**
 * The TRT-LLM engine-args YAML of a role, key by key as Dynamo's own disaggregated examples and the field's working
 * args set them (tests/contracts/trtllm-engine-config.spec.ts against facts/trtllm-engine-configs.json and
 * facts/field-trtllm-engine-args.json):
 * - `disable_overlap_scheduler`: true on prefill (every Dynamo prefill example: "Overlap scheduler not currently
 *   supported in prefill only workers"; the field: "fixes pytorch backend bug"), false on decode (Dynamo's decode
 *   examples; the overlap scheduler is TRT-LLM's throughput default there).
 * - `kv_cache_config.free_gpu_memory_fraction`: the same fraction as `--free-gpu-memory-fraction`. Dynamo's worker
 *   builds `kv_cache_config` from that flag and TensorRT-LLM merges this file over it key by key at the top level,
 *   so a `kv_cache_config` here replaces the flag's: the file must carry the fraction itself.
 * - `kv_cache_config.enable_block_reuse: false` on prefill (the field: "fixes context-only assertion"; Dynamo's
 *   llama4 and qwen3-vl prefill examples set it too).
 * - `cache_transceiver_config.backend: NIXL`: KV cache moves through NIXL; which NIXL plugin is chosen by
 *   TRTLLM_NIXL_KVCACHE_BACKEND. (Dynamo's examples say DEFAULT, which TRT-LLM resolves to NIXL; NIXL names it.)
 */
export function trtllmEngineYaml(r: ResolvedInference, role: ServingRole): string {
  const prefill = role === ServingRole.Prefill;
  return stringify({
    tensor_parallel_size: roleArgs(r, role).gpusPerWorker,
    disable_overlap_scheduler: prefill,
    kv_cache_config: {
      free_gpu_memory_fraction: r.gpuMemoryUtilization,
      ...(prefill ? { enable_block_reuse: false } : {}),
      ...(r.kvCacheDtype === KvCacheDtype.Fp8 ? { dtype: "fp8" } : {}),
    },
    cache_transceiver_config: { backend: "NIXL" },
  });
}

function trtllm(r: ResolvedInference, role: ServingRole): EngineParts {
  const a = roleArgs(r, role);
  const content = trtllmEngineYaml(r, role);
  const file: EngineFile = {
    configMapName: `${r.graphName}-trtllm-${role}`,
    key: "engine.yaml",
    content,
    mountDir: TRTLLM_ENGINE_DIR,
    sha256: createHash("sha256").update(content).digest("hex"),
  };
  return {
    command: ["python3", "-m", "dynamo.trtllm"],
    args: [
      ...servingArgs(r, role),
      "--max-seq-len",
      String(r.maxModelLen),
      "--free-gpu-memory-fraction",
      String(r.gpuMemoryUtilization),
      "--extra-engine-args",
      `${TRTLLM_ENGINE_DIR}/${file.key}`,
      ...a.extraArgs,
    ],
    env: [{ name: "TRTLLM_NIXL_KVCACHE_BACKEND", value: r.kvTransport }],
    file,
  };
}

/**
 * The engine part of a worker of `role`.
 *
 * TRT-LLM reads its engine args from a file. It is rendered into a ConfigMap mounted read-only,
 * rather than written by a shell heredoc in the command: the command stays a plain exec (no shell
 * quoting of model names, same shape as vLLM's), the root filesystem need not be writable, and the
 * YAML is a visible object in the plan. The content hash goes on the pod template so an edit rolls
 * the workers (a ConfigMap change alone would not).
 */
export function engineFor(r: ResolvedInference, role: ServingRole): EngineParts {
  return r.backend === Backend.Trtllm ? trtllm(r, role) : vllm(r, role);
}

/** The worker command line as one shell-quoted string (for plan summaries and `verify`). */
export function commandLine(parts: EngineParts): string {
  return [...parts.command, ...parts.args].map(shellQuote).join(" ");
}
