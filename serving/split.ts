/**
 * The prefill:decode split the serving estimate recommends (`plan.json` `serving.recommended`): the split with the
 * most requests per second through its slower role on no more GPUs than the graph uses, and, under
 * `separate-nodes`, in whole nodes per role within the nodes the graph's own split takes, so that setting it renders
 * and deploys wherever the graph does (`validate.ts` refuses a split whose roles need more nodes than the pool has).
 * Pure.
 */
import { Placement } from "../components/inference/args";

/** The prefill:decode split that balances the roles and deploys on the pool. */
export interface RecommendedSplit {
  readonly prefill: number;
  readonly decode: number;
  readonly requestsPerSecond: number;
  /** Nodes each role takes under separate-nodes (whole nodes per role), and their sum. */
  readonly nodes: { readonly prefill: number; readonly decode: number; readonly total: number };
  /** Whether it fits the nodes the graph's own split takes (so it deploys wherever the graph does). */
  readonly fitsPool: boolean;
}

/** What the split is chosen from: each role's worker size and per-worker capacity, the GPUs and the pool. */
export interface SplitInput {
  readonly prefillTp: number;
  readonly decodeTp: number;
  /** Requests per second one prefill / decode worker sustains. */
  readonly prefillRps: number;
  readonly decodeRps: number;
  /** GPUs the graph uses now: the split stays within them. */
  readonly gpus: number;
  readonly gpusPerNode: number;
  /** Nodes the split may take; undefined for no limit (the split then says what it needs). */
  readonly nodes?: number;
  readonly placement: Placement;
  /** The graph's own split, kept when nothing better fits. */
  readonly current: { readonly prefill: number; readonly decode: number };
}

/** Nodes each role takes when every node holds one role only. */
export function nodesOfSplit(s: Pick<SplitInput, "prefillTp" | "decodeTp" | "gpusPerNode">, np: number, nd: number) {
  const prefill = Math.ceil((np * s.prefillTp) / s.gpusPerNode);
  const decode = Math.ceil((nd * s.decodeTp) / s.gpusPerNode);
  return { prefill, decode, total: prefill + decode };
}

/** Whether a split's roles fit the pool under the placement. */
function fits(s: SplitInput, np: number, nd: number): boolean {
  if (s.nodes === undefined) return true;
  if (s.placement === Placement.SeparateNodes) return nodesOfSplit(s, np, nd).total <= s.nodes;
  return np * s.prefillTp + nd * s.decodeTp <= s.nodes * s.gpusPerNode;
}

/**
 * The best split: most requests per second through the slower role; ties go to fewer nodes, then fewer prefill
 * workers. The graph's own split when no other fits.
 */
export function recommendedSplit(s: SplitInput): RecommendedSplit {
  let best: { np: number; nd: number; rps: number } | undefined;
  for (let np = 1; np * s.prefillTp + s.decodeTp <= s.gpus; np++) {
    for (let nd = Math.floor((s.gpus - np * s.prefillTp) / s.decodeTp); nd >= 1; nd--) {
      if (!fits(s, np, nd)) continue;
      const rps = Math.min(np * s.prefillRps, nd * s.decodeRps);
      const better =
        !best ||
        rps > best.rps * (1 + 1e-9) ||
        (rps >= best.rps * (1 - 1e-9) && nodesOfSplit(s, np, nd).total < nodesOfSplit(s, best.np, best.nd).total);
      if (better) best = { np, nd, rps };
      break; // fewer decode workers on the same prefill count serve no more
    }
  }
  const np = best?.np ?? s.current.prefill;
  const nd = best?.nd ?? s.current.decode;
  return {
    prefill: np,
    decode: nd,
    requestsPerSecond: Math.round((best?.rps ?? Math.min(np * s.prefillRps, nd * s.decodeRps)) * 1000) / 1000,
    nodes: nodesOfSplit(s, np, nd),
    fitsPool: fits(s, np, nd),
  };
}
