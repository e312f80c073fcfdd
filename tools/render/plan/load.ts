/**
 * The model-load section of `plan.json` / `plan.md`: where the weights live, how many times a deploy downloads
 * them, and estimated download and load times against their budgets. Pure; from the graph's plain plan facts (cache
 * mode and budgets, `DisaggInference.plan`), with the weight bytes from the model catalog (or a stated `modelShape`).
 *
 * The estimate and the budgets it is checked against come from components/inference/args.ts (the same
 * function that derives the default budgets and validates explicit ones); this module adds the words.
 */
import type { GpuPoolFacts } from "../../../components/catalog/pool";
import type { ModelFacts } from "../../../components/catalog/models";
import {
  ModelCacheMode,
  LOAD_ASSUMPTIONS,
  loadEstimate,
  noCacheWorkersPerNode,
  overBudget,
} from "../../../components/inference/model-load";
import { nodeCacheHostPath } from "../../../components/inference/cache";
import type { InferencePlan } from "../../../components/inference/plan";

export { LOAD_ASSUMPTIONS };

/** The model-load section. */
export interface ModelLoadPlan {
  readonly mode: ModelCacheMode;
  /** Where the weights live on the nodes, in words. */
  readonly where: string;
  /** Downloads from Hugging Face per deploy. */
  readonly downloads: number;
  readonly weightBytes: number;
  readonly downloadSeconds: number;
  /** Budget of the download (local-nvme: the prefetch's own; otherwise part of the load budget). */
  readonly downloadBudgetSeconds?: number;
  readonly loadSeconds: number;
  readonly loadBudgetSeconds: number;
  readonly basis: { readonly download: string; readonly load: string };
  /** Budgets the estimate exceeds. */
  readonly overBudget: readonly string[];
}

const GB = 1e9;
const gbOf = (bytes: number) => `${(bytes / GB).toFixed(1)} GB`;

/** The plan facts the section reads: the cache mode and the budgets. */
export type LoadFacts = Pick<InferencePlan, "modelCacheMode" | "modelLoadBudgetSeconds" | "modelDownloadBudgetSeconds">;

/** The estimate of one cache mode, before the budgets are checked. */
type ModeEstimate = Omit<ModelLoadPlan, "overBudget" | "weightBytes" | "mode" | "loadBudgetSeconds">;

/** The two step times of the shared estimate. */
function seconds(mode: ModelCacheMode, w: number, pool: GpuPoolFacts, workers: number) {
  const e = loadEstimate(mode, w, pool, workers);
  return { downloadSeconds: e.downloadSeconds, loadSeconds: e.loadSeconds };
}

/** `local-nvme`: each node downloads once into its NVMe array, then its workers read from it. */
function localNvmeEstimate(w: number, facts: LoadFacts, pool: GpuPoolFacts): ModeEstimate {
  const a = LOAD_ASSUMPTIONS;
  const gb = gbOf(w);
  return {
    where: `each node's NVMe RAID0 array (${nodeCacheHostPath(pool.localNvme?.mountPath ?? "?")}), downloaded once per node before its workers start`,
    downloads: pool.nodes,
    ...seconds(ModelCacheMode.LocalNvme, w, pool, pool.nodes),
    downloadBudgetSeconds: facts.modelDownloadBudgetSeconds ?? 0,
    basis: {
      download: `${gb} at ${a.hfDownloadMBps} MB/s, the ${pool.nodes} nodes in parallel`,
      load: `${gb} at ${a.nvmeReadMBps} MB/s from NVMe (co-located workers share the page cache) + ${a.engineStartSeconds} s engine start`,
    },
  };
}

/** `efs`: the first worker downloads into the shared file system; every node reads from it. */
function efsEstimate(w: number, pool: GpuPoolFacts): ModeEstimate {
  const a = LOAD_ASSUMPTIONS;
  const gb = gbOf(w);
  return {
    where: "one shared EFS file system (HF_HOME of every worker); the first worker downloads",
    downloads: 1,
    ...seconds(ModelCacheMode.Efs, w, pool, 1),
    basis: {
      download: `${gb} at ${Math.min(a.hfDownloadMBps, a.efsReadMBps)} MB/s into EFS, inside the first engine's start`,
      load: `${gb} at ${a.efsReadMBps} MB/s per node from EFS + ${a.engineStartSeconds} s engine start`,
    },
  };
}

/** `none`: every worker downloads the whole model into its own container file system. */
function noCacheEstimate(w: number, pool: GpuPoolFacts, workers: number): ModeEstimate {
  const a = LOAD_ASSUMPTIONS;
  const gb = gbOf(w);
  const perNode = noCacheWorkersPerNode(pool, workers);
  const local = pool.localNvme
    ? { mbps: a.nvmeReadMBps, what: "NVMe RAID0" }
    : { mbps: a.gp3ReadMBps, what: "gp3 root volume" };
  return {
    where: `every worker's own container file system (${local.what}); each worker downloads the whole model`,
    downloads: workers,
    ...seconds(ModelCacheMode.None, w, pool, workers),
    basis: {
      download: `${perNode} workers per node x ${gb} sharing ${a.hfDownloadMBps} MB/s, inside each engine's start`,
      load: `${gb} at ${local.mbps} MB/s from the ${local.what} + ${a.engineStartSeconds} s engine start`,
    },
  };
}

/** The section for one graph: `workers` worker pods on `pool`, with the graph's cache mode and budgets. */
export function loadPlan(m: ModelFacts, facts: LoadFacts, pool: GpuPoolFacts, workers: number): ModelLoadPlan {
  const mode = facts.modelCacheMode;
  const loadBudget = facts.modelLoadBudgetSeconds;
  const w = m.weightBytes;
  const p =
    mode === ModelCacheMode.LocalNvme
      ? localNvmeEstimate(w, facts, pool)
      : mode === ModelCacheMode.Efs
        ? efsEstimate(w, pool)
        : noCacheEstimate(w, pool, workers);
  const e = {
    downloadSeconds: p.downloadSeconds,
    loadSeconds: p.loadSeconds,
    downloadInLoad: mode !== ModelCacheMode.LocalNvme,
  };
  return {
    mode,
    weightBytes: w,
    loadBudgetSeconds: loadBudget,
    ...p,
    overBudget: overBudget(e, loadBudget, p.downloadBudgetSeconds ?? 0),
  };
}

/** The `plan.md` lines of the section. */
export function loadMarkdown(
  l: ModelLoadPlan | undefined,
  table: (head: string[], rows: (string | number)[][]) => string,
): string[] {
  if (!l) return [];
  const budget = (b: number | undefined, note: string) => (b === undefined ? note : String(b));
  const a = LOAD_ASSUMPTIONS;
  return [
    `## Model load: \`${l.mode}\``,
    "",
    `- Weights live in ${l.where}; ${l.downloads} download${l.downloads === 1 ? "" : "s"} from Hugging Face per deploy.`,
    ...(l.overBudget.length > 0
      ? [`- **Over budget (estimated)**: ${l.overBudget.join("; ")}. Raise the budget or use a faster cache.`]
      : []),
    "",
    table(
      ["step", "estimate s", "budget s", "basis"],
      [
        ["download", l.downloadSeconds, budget(l.downloadBudgetSeconds, "(in load)"), l.basis.download],
        ["load", l.loadSeconds, l.loadBudgetSeconds, l.basis.load],
      ],
    ),
    "",
    `- Estimated from stated bandwidths, not measured: Hugging Face ${a.hfDownloadMBps} MB/s per node, NVMe RAID0 ${a.nvmeReadMBps} MB/s, EFS ${a.efsReadMBps} MB/s per node, gp3 root ${a.gp3ReadMBps} MB/s, engine start ${a.engineStartSeconds} s (tools/render/plan/load.ts).`,
    "",
  ];
}
