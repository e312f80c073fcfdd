/**
 * The model section of `plan.json` / `plan.md`: which model, from which `config.json`, how it fits
 * each worker (weights and KV cache per GPU, KV capacity, `maxModelLen` sequences at once) and how
 * long its KV cache takes to cross from prefill to decode. Pure.
 *
 * Computed from the graph's plain plan facts, which the program returns with its run
 * (`DisaggInference.plan`, components/inference/plan.ts), with the same pure fit and KV-transfer functions
 * the component sizes the graph with: the render never parses the graph's engine flags or annotations back.
 */
import type { GpuPoolFacts } from "../../../components/catalog/pool";
import { INSTANCES } from "../../../components/catalog/instances";
import { KvCacheDtype, kvBytesPerTokenPerGpu, ModelFacts } from "../../../components/catalog/models";
import type { InferencePlan, WorkerPlanRow } from "../../../components/inference/plan";
import type { RevisionPlan } from "../../../components/inference/revision";
import {
  GIB,
  KvLink,
  kvLink,
  RUNTIME_RESERVE_GIB,
  SHORT_PROMPT_TOKENS,
  kvTransfer,
  NIXL_LIBFABRIC_MEASURED_GBYTES_PER_S,
  TCP_FLOW_GBPS,
  workerFit,
  WorkerFit,
} from "../../../components/inference/fit";
import { modelFacts } from "../../../components/catalog/models";
import { table } from "../output/md-table";
import { loadMarkdown, loadPlan, ModelLoadPlan } from "./load";

/** The model in the plan. `known: false` = not in the catalog and no `modelShape`: fit unknown. */
export type PlanModel =
  | { readonly id: string; readonly known: false; readonly note: string }
  | {
      readonly id: string;
      readonly known: true;
      readonly source: string;
      readonly paramsB: number;
      readonly paramsActiveB?: number;
      readonly weightDtype: string;
      readonly weightBytes: number;
      readonly weightGiB: number;
      readonly maxContext: number;
      readonly kvCacheDtype: KvCacheDtype;
      /** KV-cache bytes of one token at tensor parallel 1 (all layers, K and V or the MLA latent). */
      readonly kvBytesPerToken: number;
    };

/** How the model fits one worker of a role, and its KV transfer. */
export interface PlanWorkerFit extends Pick<
  WorkerFit,
  | "tensorParallel"
  | "weightsGiBPerGpu"
  | "kvCacheGiBPerGpu"
  | "kvCacheGiB"
  | "kvCapacityTokens"
  | "maxConcurrentAtMaxLen"
> {
  /** The worker's `subComponentType` and service key, as in `PlanWorker`. */
  readonly role: string;
  readonly service: string;
  /** The engine's `--max-model-len` / `--max-seq-len`. */
  readonly maxModelLen: number;
  readonly kvTransport: KvLink["transport"];
  /** Line rate of the worker's KV link, in Gbps. */
  readonly kvLinkGbps: number;
  readonly kvLinkBasis: string;
  /** Bytes of a `maxModelLen` prompt's KV cache, counted once (tensor parallel 1). */
  readonly kvBytesAtMaxLen: number;
  /** Bytes each rank of the worker sends for that prompt, and the replication factor (MLA: tp; TP > KV heads). */
  readonly kvBytesPerRankAtMaxLen: number;
  readonly kvReplication: number;
  /** The rate one rank is expected to reach, GB/s (measured NIXL over libfabric, at most its line rate). */
  readonly kvExpectedGBytesPerS: number;
  /** Expected transfer time of a `maxModelLen` prompt at that rate, and the line-rate bound it cannot beat. */
  readonly kvTransferMs: number;
  readonly kvTransferBoundMs: number;
  /** Same for a 1,024-token prompt. */
  readonly kvBytes1k: number;
  readonly kvTransferMs1k: number;
  readonly kvTransferBoundMs1k: number;
  /** Expected KV transfer milliseconds per prompt token of one request (the serving model multiplies by its prompt). */
  readonly kvTransferMsPerPromptToken: number;
  /** The workload's prompt (`inference.workload.isl`, declared or the default), tokens, and its expected transfer. */
  readonly kvPromptTokens: number;
  readonly kvTransferMsAtPrompt: number;
}

/** What `buildPlan` adds for the model. */
export interface ModelPlanSection {
  readonly model?: PlanModel;
  /** The revision and the one commit every worker serves (components/inference/revision.ts). */
  readonly revision?: RevisionPlan;
  readonly fit?: readonly PlanWorkerFit[];
  readonly fitAssumptions?: readonly string[];
  /** Where the weights live, downloads per deploy, estimated download and load vs budgets. */
  readonly modelLoad?: ModelLoadPlan;
}

const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

/** The assumptions every fit number rests on (printed with the table). */
export function fitAssumptions(): string[] {
  return [
    `Estimated, not measured: weights = parameters x bytes of their stored dtype (quantized layers at their dtype, the rest bf16), split evenly over tensor-parallel GPUs.`,
    `KV cache per GPU = GPU memory x gpuMemoryUtilization - weights - ${RUNTIME_RESERVE_GIB} GiB runtime reserve (CUDA context and cuBLAS, measured 0.86 GiB on an H200; CUDA graphs and profiling activations, estimated); TensorRT-LLM: (GPU memory - weights - reserve) x free-gpu-memory-fraction. GPU memory is the instance catalog's (141 GiB for an H200, of which CUDA exposes 139.8: the reserve covers the gap).`,
    `KV bytes per token = layers x 2 x KV heads (per GPU: KV heads / TP, at least 1) x head dim x dtype bytes; MLA: layers x (kv_lora_rank + qk_rope_head_dim) x dtype bytes, whole on every GPU. Sliding-window layers (gpt-oss: every other layer, window 128) are counted at full length, so their capacity is understated.`,
    `KV transfer: each rank of the prefill worker sends the KV cache it holds (prompt tokens x KV bytes per token per GPU: its share of the heads, all of an MLA latent, a replicated head when TP > KV heads; "xN" = bytes sent / bytes counted once) over its share of the worker's rails, the ranks in parallel. Expected time at ${NIXL_LIBFABRIC_MEASURED_GBYTES_PER_S} GB/s per rank for LIBFABRIC (NIXL over libfabric per worker of one GPU on p5.48xlarge, the project's recorded published figure: docs/ARCHITECTURE.md#dynamo-on-kubernetes; at most the rank's line rate), or one TCP flow at ${TCP_FLOW_GBPS} Gbps per rank over ENA for UCX; the bound in parentheses is line rate (EFA rails x per-rail Gbps / TP), never reached.`,
  ];
}

function planModel(id: string, m: ModelFacts | undefined, kvDtype: KvCacheDtype): PlanModel {
  if (!m)
    return {
      id,
      known: false,
      note: "not in the model catalog (components/catalog/models.ts) and no inference.modelShape: fit unknown",
    };
  return {
    id,
    known: true,
    source: m.source,
    paramsB: round(m.paramsTotal / 1e9),
    ...(m.paramsActive !== undefined ? { paramsActiveB: round(m.paramsActive / 1e9) } : {}),
    weightDtype: m.weightDtype,
    weightBytes: m.weightBytes,
    weightGiB: round(m.weightBytes / GIB),
    maxContext: m.maxContext,
    kvCacheDtype: kvDtype,
    kvBytesPerToken: kvBytesPerTokenPerGpu(m, 1, kvDtype),
  };
}

function workerRow(m: ModelFacts, p: InferencePlan, w: WorkerPlanRow, pool: GpuPoolFacts): PlanWorkerFit | undefined {
  const instance = INSTANCES.get(pool.instanceType);
  if (!instance) return undefined;
  const tensorParallel = w.gpusPerWorker;
  const { maxModelLen, gpuMemoryUtilization, backend, kvCacheDtype: kvDtype } = p;
  const f = workerFit({
    model: m,
    instance,
    backend,
    tensorParallel,
    maxModelLen,
    gpuMemoryUtilization,
    kvCacheDtype: kvDtype,
  });
  const link = kvLink(pool, w.efaPerWorker);
  const atMax = kvTransfer(m, tensorParallel, kvDtype, maxModelLen, link);
  const short = kvTransfer(m, tensorParallel, kvDtype, SHORT_PROMPT_TOKENS, link);
  const prompt = kvTransfer(m, tensorParallel, kvDtype, p.workload.isl, link);
  return {
    role: w.role,
    service: w.service,
    tensorParallel,
    weightsGiBPerGpu: round(f.weightsGiBPerGpu),
    kvCacheGiBPerGpu: round(f.kvCacheGiBPerGpu),
    kvCacheGiB: round(f.kvCacheGiB),
    kvCapacityTokens: f.kvCapacityTokens,
    maxModelLen,
    maxConcurrentAtMaxLen: f.maxConcurrentAtMaxLen,
    kvTransport: link.transport,
    kvLinkGbps: link.gbps,
    kvLinkBasis: link.basis,
    kvBytesAtMaxLen: atMax.uniqueBytes,
    kvBytesPerRankAtMaxLen: atMax.bytesPerRank,
    kvReplication: round(atMax.replication),
    kvExpectedGBytesPerS: round(atMax.expectedGBytesPerS),
    kvTransferMs: round(atMax.expectedMs),
    kvTransferBoundMs: round(atMax.lineRateMs),
    kvBytes1k: short.uniqueBytes,
    kvTransferMs1k: round(short.expectedMs, 3),
    kvTransferBoundMs1k: round(short.lineRateMs, 3),
    kvTransferMsPerPromptToken: atMax.expectedMs / maxModelLen,
    kvPromptTokens: p.workload.isl,
    kvTransferMsAtPrompt: round(prompt.expectedMs, 3),
  };
}

/** The pool a graph's workers run on (the first pool when the plan names none the cluster has). */
export function planPool(p: InferencePlan, pools: readonly GpuPoolFacts[]): GpuPoolFacts | undefined {
  return pools.find((x) => x.name === p.gpuPool) ?? pools[0];
}

/** The model section of the plan, from the graph's plan facts (`DisaggInference.plan`) and the pools. */
export function modelPlan(p: InferencePlan | undefined, pools: readonly GpuPoolFacts[]): ModelPlanSection {
  if (!p) return {};
  const m = modelFacts(p.model, p.modelShape);
  const model = planModel(p.model, m, p.kvCacheDtype);
  const pool = planPool(p, pools);
  const revision = p.revision;
  if (!m || !pool) return { model, revision };
  const fit = p.workers.map((w) => workerRow(m, p, w, pool)).filter((w): w is PlanWorkerFit => w !== undefined);
  const replicas = p.workers.reduce((n, w) => n + w.replicas, 0);
  return { model, revision, fit, fitAssumptions: fitAssumptions(), modelLoad: loadPlan(m, p, pool, replicas) };
}

const n = (v: number) => v.toLocaleString("en-US");

/** The plan's line on the revision: which commit every worker serves, or that `pulumi up` resolves it. */
function revisionLine(r: RevisionPlan): string {
  const what = r.commit ? `commit \`${r.commit}\`` : r.resolution;
  return `- Revision \`${r.requested}\`: ${what}. ${r.note}.`;
}

/** The `plan.md` lines of the model section. */
export function modelMarkdown(p: ModelPlanSection): string[] {
  const m = p.model;
  if (!m) return [];
  const rev = p.revision ? [revisionLine(p.revision)] : [];
  if (!m.known) return [`## Model: \`${m.id}\``, "", ...rev, `Fit unknown: ${m.note}.`, ""];
  const active = m.paramsActiveB !== undefined ? ` (${m.paramsActiveB}B active per token)` : "";
  const out = [
    `## Model: \`${m.id}\``,
    "",
    `- ${m.paramsB}B parameters${active}, ${m.weightDtype} weights: ${m.weightGiB} GiB; max context ${n(m.maxContext)} tokens`,
    `- KV cache (${m.kvCacheDtype}): ${n(m.kvBytesPerToken)} bytes per token at tensor parallel 1`,
    `- Source: ${m.source}`,
    ...rev,
    "",
  ];
  if (p.fit && p.fit.length > 0) {
    out.push(
      table(
        [
          "role",
          "TP",
          "weights GiB/GPU",
          "KV GiB/GPU",
          "KV tokens",
          "seqs of maxModelLen",
          "KV link",
          "KV of maxModelLen: MB/rank, expected ms (line-rate ms)",
          "KV of 1k prompt: expected ms (line-rate ms)",
          "KV of the workload's prompt: expected ms",
        ],
        p.fit.map((f) => [
          f.role,
          f.tensorParallel,
          f.weightsGiBPerGpu,
          f.kvCacheGiBPerGpu,
          n(f.kvCapacityTokens),
          `${f.maxConcurrentAtMaxLen} x ${n(f.maxModelLen)}`,
          `${f.kvTransport} ${f.kvLinkGbps} Gbps`,
          `${round(f.kvBytesPerRankAtMaxLen / 1e6, 1)}${f.kvReplication > 1 ? ` (x${f.kvReplication})` : ""}, ${f.kvTransferMs} (${f.kvTransferBoundMs})`,
          `${f.kvTransferMs1k} (${f.kvTransferBoundMs1k})`,
          `${f.kvTransferMsAtPrompt} (${n(f.kvPromptTokens)} tokens)`,
        ]),
      ),
      "",
    );
    out.push(...(p.fitAssumptions ?? []).map((a) => `- ${a}`), "");
  }
  out.push(...loadMarkdown(p.modelLoad, table));
  return out;
}
