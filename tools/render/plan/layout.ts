/**
 * Where the plan's workers are expected to land: each GPU node's GPUs and EFA rails, and which
 * worker replica holds each. Pure, computed from `plan.json` alone (pools and workers), so the
 * picture and its test read the same facts.
 *
 * The scheduler decides the real placement; this models what it is constrained to do. Replicas are
 * placed in plan order (prefill, decode, others) on the first node with enough free GPUs and EFA
 * devices whose workers the replica does not avoid (its required anti-affinity). A worker's GPUs
 * are contiguous and its rails are the ones on its GPUs' PCIe roots where free (what a DRA claim
 * constrains, and what AWS documents the EFA device plugin doing on the AL2023 accelerated AMIs; what a
 * node actually gave is verify's gate L), so on a p5en (16 rails, 8 GPUs) GPU g owns rails 2g and 2g+1.
 */
import type { SummaryPool } from "../../../program/summary";
import type { PlanWorker } from "./workers";

/** What a layout is computed from: the plan's pools and workers (not the whole plan, which holds the layout's result). */
export interface LayoutInput {
  readonly gpuPools: readonly Pick<SummaryPool, "name" | "instanceType" | "nodes" | "gpusPerNode" | "efaPerNode">[];
  readonly workers: readonly PlanWorker[];
}

/** One worker replica on a node. */
export interface PlacedWorker {
  readonly service: string;
  readonly role: string;
  readonly replica: number;
  readonly gpus: readonly number[];
  readonly rails: readonly number[];
}

/** One GPU node of a pool. */
export interface LaidOutNode {
  readonly pool: string;
  readonly instanceType: string;
  /** Index within its pool. */
  readonly index: number;
  readonly gpuCount: number;
  readonly railCount: number;
  readonly workers: readonly PlacedWorker[];
}

/** The whole layout; `unplaced` lists replicas no node could take (the scheduler would leave them Pending). */
export interface Layout {
  readonly nodes: readonly LaidOutNode[];
  readonly unplaced: readonly { readonly service: string; readonly role: string; readonly replica: number }[];
}

interface MutableNode extends Omit<LaidOutNode, "workers"> {
  readonly workers: PlacedWorker[];
  readonly gpuFree: boolean[];
  readonly railFree: boolean[];
}

/** `count` contiguous free GPU indices, or undefined. */
function freeGpus(node: MutableNode, count: number): number[] | undefined {
  for (let start = 0; start + count <= node.gpuCount; start++) {
    const run = Array.from({ length: count }, (_, i) => start + i);
    if (run.every((g) => node.gpuFree[g])) return run;
  }
  return undefined;
}

/** `count` free rails, those aligned to `gpus` first. */
function freeRails(node: MutableNode, gpus: readonly number[], count: number): number[] | undefined {
  const perGpu = node.gpuCount > 0 ? node.railCount / node.gpuCount : 0;
  const aligned = gpus.flatMap((g) => Array.from({ length: Math.floor(perGpu) }, (_, i) => Math.floor(g * perGpu) + i));
  const rest = node.railFree.map((_, r) => r).filter((r) => !aligned.includes(r));
  const picked = [...aligned, ...rest].filter((r) => node.railFree[r]).slice(0, count);
  return picked.length === count ? picked.sort((a, b) => a - b) : undefined;
}

function tryPlace(node: MutableNode, w: PlanWorker, replica: number): boolean {
  if (node.workers.some((p) => w.avoids.includes(p.service))) return false;
  const gpus = freeGpus(node, w.gpusPerWorker);
  const rails = gpus && freeRails(node, gpus, w.efaPerWorker);
  if (!gpus || !rails) return false;
  gpus.forEach((g) => (node.gpuFree[g] = false));
  rails.forEach((r) => (node.railFree[r] = false));
  node.workers.push({ service: w.service, role: w.role, replica, gpus, rails });
  return true;
}

/** The expected layout of the plan's GPU workers on its GPU nodes. */
export function layoutOf(plan: LayoutInput): Layout {
  const nodes: MutableNode[] = plan.gpuPools.flatMap((p) =>
    Array.from({ length: p.nodes }, (_, index) => ({
      pool: p.name,
      instanceType: p.instanceType,
      index,
      gpuCount: p.gpusPerNode,
      railCount: p.efaPerNode,
      workers: [],
      gpuFree: Array<boolean>(p.gpusPerNode).fill(true),
      railFree: Array<boolean>(p.efaPerNode).fill(true),
    })),
  );
  const unplaced: Layout["unplaced"][number][] = [];
  for (const w of plan.workers.filter((x) => x.gpusPerWorker > 0)) {
    for (let replica = 0; replica < w.replicas; replica++) {
      if (!nodes.some((n) => tryPlace(n, w, replica))) unplaced.push({ service: w.service, role: w.role, replica });
    }
  }
  return {
    nodes: nodes.map(({ gpuFree: _g, railFree: _r, ...n }) => n),
    unplaced,
  };
}
