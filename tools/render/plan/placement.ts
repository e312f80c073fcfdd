/**
 * The plan's `placement`: which GPU nodes each role is expected to hold, how many nodes the graph needs and
 * how many it leaves idle (billed, running nothing). Pure. Computed from the same layout the topology picture
 * draws (`./layout.ts`), so the plan, the picture and the policy that warns about idle nodes agree.
 */
import { LayoutInput, layoutOf } from "./layout";
import { priceOf } from "./prices";

/** Where the roles go and what stays idle. */
export interface PlanPlacement {
  /** `separate-nodes` when every GPU role's required anti-affinity keeps it off the other roles' nodes. */
  readonly mode: "separate-nodes" | "shared";
  /** GPU nodes each role holds in the expected layout, by role (`prefill-0` style node names). */
  readonly nodesByRole: Readonly<Record<string, readonly string[]>>;
  /** GPU nodes holding at least one worker. */
  readonly nodesUsed: number;
  readonly nodesProvisioned: number;
  /** Nodes with no worker at all: billed, idle. */
  readonly idleNodes: readonly string[];
  /** On-demand $/hour of the idle nodes (null when a type is not in the price table). */
  readonly idleUsdPerHour: number | null;
}

/** The placement section of a plan. */
export function placementOf(plan: LayoutInput): PlanPlacement {
  const layout = layoutOf(plan);
  const name = (n: { pool: string; index: number }) => `${n.pool}-${n.index}`;
  const gpuWorkers = plan.workers.filter((w) => w.gpusPerWorker > 0);
  const separate =
    gpuWorkers.length > 1 &&
    gpuWorkers.every((w) =>
      gpuWorkers.every((o) => o.service === w.service || w.avoids.includes(o.service) || o.avoids.includes(w.service)),
    );
  const nodesByRole: Record<string, string[]> = {};
  for (const n of layout.nodes)
    for (const role of new Set(n.workers.map((w) => w.role))) (nodesByRole[role] ??= []).push(name(n));
  const idle = layout.nodes.filter((n) => n.workers.length === 0);
  const prices = idle.map((n) => priceOf(n.instanceType)?.usdPerHour);
  const idleUsd = prices.some((p) => p === undefined)
    ? null
    : Math.round(prices.reduce((s: number, p) => s + (p ?? 0), 0) * 100) / 100;
  return {
    mode: separate ? "separate-nodes" : "shared",
    nodesByRole,
    nodesUsed: layout.nodes.length - idle.length,
    nodesProvisioned: layout.nodes.length,
    idleNodes: idle.map(name),
    idleUsdPerHour: idleUsd,
  };
}

/** One line for the CLI summary and plan.md; undefined when no node is idle. */
export function idleNodesLine(p: PlanPlacement): string | undefined {
  if (p.idleNodes.length === 0) return undefined;
  const usd = p.idleUsdPerHour === null ? "price unknown" : `~$${p.idleUsdPerHour.toFixed(2)}/hour`;
  return `IDLE: ${p.idleNodes.length} of ${p.nodesProvisioned} GPU nodes hold no worker (${p.idleNodes.join(", ")}; ${usd} on demand, billed while running); lower the GPU pool's node count (cluster.gpuPools.<pool>.nodes) to ${p.nodesUsed} or add replicas`;
}
