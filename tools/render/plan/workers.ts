/**
 * The plan's workers: per service of the graph its replicas, GPUs, EFA devices, pod requests and anti-affinity,
 * from the graph's plan (`DisaggInference.plan`, the facts the graph is rendered from), not read back from the
 * rendered graph: plan.json counts replicas one way. Pure.
 */
import { GraphService } from "../../../components/_shared/names";
import { type DgdResourceItem, HUGEPAGES_2MI_RESOURCE } from "../../../components/inference/dgd";
import type { InferencePlan, WorkerPlanRow } from "../../../components/inference/plan";

/** One service of the graph, as the plan shows it. */
export interface PlanWorker extends Pick<WorkerPlanRow, "replicas" | "gpusPerWorker" | "efaPerWorker" | "avoids"> {
  /** Which EFA devices each worker gets and by what rule; absent on the Frontend (no GPU, no EFA). */
  readonly pairing?: WorkerPlanRow["pairing"];
  /** `frontend`, `prefill` or `decode`. */
  readonly role: string;
  /** The service's key in `spec.services`. */
  readonly service: string;
  /** EFA rails NIXL uses per worker: every EFA device the pod is given (docs/FIELD-FAILURES.md#f13). */
  readonly nixlRails: WorkerPlanRow["nixlRails"];
  /** Requests of one worker's pod, as rendered: CPU cores, memory and 2 MiB hugepages (Kubernetes quantities). */
  readonly cpu: string;
  readonly memory: string;
  readonly hugepages2Mi: string;
}

/** The fields of a captured resource the plan reads. */
export interface PlanSourceResource {
  readonly urn: string;
  readonly type: string;
  readonly name: string;
  readonly inputs: Record<string, unknown>;
  readonly propertyDependencies: Readonly<Record<string, readonly string[]>>;
}

/** A captured number or quantity string as a number (0 when absent or not a number). */
export function num(v: unknown): number {
  const n = typeof v === "string" ? Number(v) : typeof v === "number" ? v : 0;
  return Number.isFinite(n) ? n : 0;
}

/** A pod's requests as plan.json shows them ("-" for none). */
function shown(req: DgdResourceItem): Pick<PlanWorker, "cpu" | "memory" | "hugepages2Mi"> {
  return {
    cpu: String(req.cpu ?? "-"),
    memory: String(req.memory ?? "-"),
    hugepages2Mi: String(req.custom?.[HUGEPAGES_2MI_RESOURCE] ?? "-"),
  };
}

/** The graph's services as plan.json lists them: the Frontend, then each role's workers, from the graph's plan. */
export function planWorkers(p: InferencePlan | undefined): PlanWorker[] {
  if (!p) return [];
  const frontend: PlanWorker = {
    role: "frontend",
    service: GraphService.Frontend,
    replicas: p.frontend.replicas,
    gpusPerWorker: 0,
    efaPerWorker: 0,
    nixlRails: 0,
    ...shown(p.frontend.requests),
    avoids: [],
  };
  return [
    frontend,
    ...p.workers.map((w) => ({
      role: w.role,
      service: w.service,
      replicas: w.replicas,
      gpusPerWorker: w.gpusPerWorker,
      efaPerWorker: w.efaPerWorker,
      nixlRails: w.nixlRails,
      ...shown(w.requests),
      avoids: [...w.avoids],
      pairing: w.pairing,
    })),
  ];
}
