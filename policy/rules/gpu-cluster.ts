/**
 * Policies tying workers to the GPU pool they run on: EFA devices per worker from the instance catalog
 * (F8, F12) and the hugepages of the workers that can share a node (F14). The pool's AWS resources are
 * checked in `efa-network.ts` (security group, subnet) and `launch-template.ts` (IMDSv2, tags).
 */
import type { PolicyResource, ReportViolation, StackValidationPolicy } from "@pulumi/policy";
import {
  efaPerGpu,
  INSTANCES,
  unknownInstanceReason,
  GpuInstance,
  supportsNixlOverEfa,
} from "../../components/catalog/instances";
import { KvTransport } from "../../components/inference/args";
import { statedKvBackend } from "./kv-transfer";
import { dgdPolicy, schemaFor } from "./_policy";
import {
  annotation,
  containerResource,
  dgdName,
  efaOf,
  gpusOf,
  GraphService,
  hugepagesOf,
  instanceTypeOf,
  rawPropsOf,
  requestsEfa,
  workers,
} from "./_predicates";
import { EFA_RESOURCE } from "../../components/inference/dgd";
import { isUnknownValue } from "./_unknowns";
import { ofType } from "./_stack";
import { POOL_LABEL } from "../../components/catalog/pool";
import { show } from "../../components/_shared/problems";
import { ResourceType } from "./_resources";
import { Annotation } from "../../components/_shared/annotations";

const GPU_K8S = "nvidia.com/gpu";

function checkKubernetesForm(w: GraphService, report: ReportViolation): void {
  for (const [key, dynamo, what] of [
    [GPU_K8S, "resources.limits.gpu", "GPUs"],
    [EFA_RESOURCE, `resources.limits.custom["${EFA_RESOURCE}"]`, "EFA devices"],
  ]) {
    if (containerResource(w.svc, key) !== undefined) {
      report(
        `${w.label} sets ${key} on extraPodSpec.mainContainer.resources (Kubernetes form), which the operator ignores, so it schedules 0 ${what} (F8); move it to ${dynamo}`,
      );
    }
  }
}

function checkEfaCount(
  w: GraphService,
  row: GpuInstance,
  transport: KvTransport | undefined,
  allowWithoutEfa: boolean,
  report: ReportViolation,
): void {
  const gpus = gpusOf(w.svc);
  const efa = efaOf(w.svc);
  const field = `resources.limits.custom["${EFA_RESOURCE}"]`;
  if (gpus === 0) return report(`${w.label} requests no GPU in Dynamo form; set resources.limits.gpu (F8)`);
  if (row.efaDevices === 0) {
    if (efa > 0) report(`${w.label} requests ${efa} EFA device(s) but ${row.name} has no EFA; remove ${field}`);
    return;
  }
  // The worker's own NIXL selector decides: UCX uses no EFA device (the rule the component requests devices by,
  // `requestsEfaDevices`); LIBFABRIC is held to the instance's EFA below.
  if (transport === KvTransport.Ucx) {
    if (efa > 0)
      report(
        `${w.label} requests ${efa} EFA device(s) but its engine selects NIXL's ${transport} backend, which uses none; remove ${field}, or select LIBFABRIC`,
      );
    return;
  }
  // Without GPUDirect RDMA (g family) NIXL cannot use EFA for KV, so a worker there may go without it.
  if (efa === 0 && (allowWithoutEfa || !supportsNixlOverEfa(row))) return;
  const perGpu = efaPerGpu(row);
  const expected = gpus * perGpu;
  if (!Number.isInteger(expected) || expected < 1) {
    return report(
      `${w.label}: ${gpus} GPU(s) x ${perGpu} EFA per GPU of a ${row.name} = ${expected}, not a whole number of EFA devices (F12); use a GPU count per worker that is a multiple of ${Math.ceil(1 / perGpu)}`,
    );
  }
  if (efa !== expected) {
    report(
      `${w.label} requests ${efa} EFA device(s) for ${gpus} GPU(s); on ${row.name} a worker gets ${gpus} GPU(s) x ${perGpu} EFA per GPU = ${expected} (EFA counts come from the instance catalog: F12); set ${field} to "${expected}"`,
    );
  }
}

/** 5. EFA requested = GPUs x EFA-per-GPU of the instance the worker is pinned to, in Dynamo resource form. */
export const efaPerWorkerMatchesPool = dgdPolicy({
  name: "efa-per-worker-matches-pool",
  description:
    "Each worker requests GPUs and EFA in Dynamo resource form, and EFA devices equal its GPUs times the EFA-per-GPU of its instance type (none where NIXL cannot use EFA, or where the worker's engine selects NIXL's UCX backend, which uses none).",
  defaults: { allowWithoutEfa: false },
  check: (props, args, report, cfg) => {
    for (const w of workers(props, args.name)) {
      const transport = statedKvBackend(props, w);
      checkKubernetesForm(w, report);
      const type = instanceTypeOf(w.svc);
      if (type === undefined) {
        if (requestsEfa(w.svc))
          report(
            `${w.label} requests EFA but is not pinned to an instance type; add extraPodSpec.nodeSelector["node.kubernetes.io/instance-type"] so its EFA count matches the node's`,
          );
        continue;
      }
      const row = INSTANCES.get(type);
      if (!row) report(`${w.label} is pinned to an ${unknownInstanceReason(type)}`);
      else checkEfaCount(w, row, transport, cfg.allowWithoutEfa, report);
    }
  },
});

interface HugepageItem {
  readonly who: string;
  readonly pages: number;
  readonly gpus: number;
}
interface NodePool {
  readonly type: string;
  readonly pool: string;
  readonly row: GpuInstance;
  total: number;
  source: string;
  readonly items: HugepageItem[];
  readonly urns: Set<string>;
}

/** The most hugepages any set of worker replicas that fits one node's GPUs can request (0/1 knapsack on GPUs). */
export function worstNodeHugepages(
  items: readonly HugepageItem[],
  gpusPerNode: number,
): { pages: number; who: string[] } {
  const free = items.filter((i) => i.gpus === 0);
  let best = Array.from({ length: gpusPerNode + 1 }, () => ({ pages: 0, who: [] as string[] }));
  for (const it of items.filter((i) => i.gpus > 0)) {
    const next = best.map((b) => ({ ...b }));
    for (let c = it.gpus; c <= gpusPerNode; c++) {
      const cand = best[c - it.gpus].pages + it.pages;
      if (cand > next[c].pages) next[c] = { pages: cand, who: [...best[c - it.gpus].who, it.who] };
    }
    best = next;
  }
  const top = best.reduce((a, b) => (b.pages > a.pages ? b : a));
  return { pages: top.pages + free.reduce((n, i) => n + i.pages, 0), who: [...top.who, ...free.map((i) => i.who)] };
}

const summarize = (who: readonly string[]) => {
  const counts = new Map<string, number>();
  for (const w of who) counts.set(w, (counts.get(w) ?? 0) + 1);
  return [...counts].map(([w, n]) => `${n} x ${w}`).join(" + ");
};

function collectPools(resources: readonly PolicyResource[]): Map<string, NodePool> {
  const pools = new Map<string, NodePool>();
  for (const r of ofType(resources, ResourceType.Dgd)) {
    const props = rawPropsOf(r, ResourceType.Dgd);
    const override = Number(annotation(props, Annotation.Hugepages2MiPerNode));
    for (const w of workers(props, r.name)) {
      const type = instanceTypeOf(w.svc);
      const row = type === undefined ? undefined : INSTANCES.get(type);
      const pages = hugepagesOf(w.svc);
      if (!row || pages === 0) continue;
      const poolName = w.svc?.extraPodSpec?.nodeSelector?.[POOL_LABEL];
      const key = `${row.name}|${poolName ?? ""}`;
      const pool = pools.get(key) ?? {
        type: key,
        pool: typeof poolName === "string" ? ` of pool ${show(poolName)}` : "",
        row,
        total: row.efaHugepages2Mi,
        source: `the ${row.name} catalog value`,
        items: [],
        urns: new Set<string>(),
      };
      if (Number.isFinite(override) && override >= 0 && (pool.source.startsWith("the ") || override < pool.total)) {
        pool.total = override;
        pool.source = `annotation ${Annotation.Hugepages2MiPerNode} on ${show(dgdName(props, r.name))}`;
      }
      const replicas = isUnknownValue(w.svc.replicas) ? 1 : Number(w.svc.replicas ?? 1);
      for (let i = 0; i < replicas; i++)
        pool.items.push({
          who: `${w.key} of ${show(dgdName(props, r.name))} at ${pages} pages`,
          pages,
          gpus: gpusOf(w.svc),
        });
      pool.urns.add(r.urn);
      pools.set(key, pool);
    }
  }
  return pools;
}

/** 6. (stack) Hugepages of the workers that can share a node fit the node's pre-allocated total. */
export const hugepagesFitNode: StackValidationPolicy = {
  name: "hugepages-fit-node",
  description:
    "The 2 MiB hugepages requested by worker replicas that can share a node fit the hugepages that node pre-allocates.",
  configSchema: schemaFor({}),
  validateStack: (args, report) => {
    const pools = collectPools(args.resources);
    if (pools.size === 0) args.notApplicable("no worker requests hugepages-2Mi on a known instance type");
    for (const p of pools.values()) {
      const worst = worstNodeHugepages(p.items, p.row.gpuCount);
      if (worst.pages <= p.total) continue;
      const perGpu = Math.floor(p.total / p.row.gpuCount);
      const msg = `${p.row.name} nodes${p.pool}: worker replicas that can share one node request up to ${worst.pages} hugepages-2Mi pages (${summarize(worst.who)}), but a node pre-allocates ${p.total} (${p.source}), so only some of them ever schedule (F14); request at most ${perGpu} pages (${perGpu * 2}Mi) per GPU of a worker, or none with FI_EFA_USE_HUGE_PAGE=0`;
      for (const urn of p.urns) report(msg, urn);
    }
  },
};

/** Policies of this module, in pack order. */
export const gpuClusterPolicies = [efaPerWorkerMatchesPool, hugepagesFitNode];
