/**
 * The plan's workers, read back from the rendered DynamoGraphDeployment (what would really be applied, not what
 * the component meant to render): per service its replicas, GPUs, EFA devices, pod requests and anti-affinity.
 * Pure.
 */
import { OperatorLabel } from "../../../components/_shared/names";
import { isDgdType } from "../../../components/inference/dgd-v1beta1";
import { DgdService, EFA_RESOURCE, HUGEPAGES_2MI_RESOURCE } from "../../../components/inference/dgd";
import type { WorkerPlanRow } from "../../../components/inference/render";
import { servicesOf } from "./dgd-inputs";

/** One service of the graph, as the plan shows it. */
export interface PlanWorker extends Pick<WorkerPlanRow, "replicas" | "gpusPerWorker" | "efaPerWorker"> {
  /** The service's `subComponentType` (prefill, decode), else its `componentType`, else its key. */
  readonly role: string;
  /** The service's key in `spec.services`. */
  readonly service: string;
  /** EFA rails NIXL uses per worker: every EFA device the pod is given (docs/FIELD-FAILURES.md#f13). */
  readonly nixlRails: WorkerPlanRow["nixlRails"];
  /** Requests of one worker's pod, as rendered: CPU cores, memory and 2 MiB hugepages (Kubernetes quantities). */
  readonly cpu: string;
  readonly memory: string;
  readonly hugepages2Mi: string;
  /** Services this worker never shares a node with (its required pod anti-affinity). */
  readonly avoids: readonly string[];
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

/** A service's CPU, memory and hugepages requests, and the services its required anti-affinity keeps off its node. */
function podRequests(s: Partial<DgdService>): Pick<PlanWorker, "cpu" | "memory" | "hugepages2Mi" | "avoids"> {
  const req = s.resources?.requests;
  const terms = s.extraPodSpec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
  const avoids = terms
    .map((t) => t.labelSelector?.matchLabels?.[OperatorLabel.Component])
    .filter((x): x is string => typeof x === "string");
  return {
    cpu: String(req?.cpu ?? "-"),
    memory: String(req?.memory ?? "-"),
    hugepages2Mi: String(req?.custom?.[HUGEPAGES_2MI_RESOURCE] ?? "-"),
    avoids,
  };
}

/** Workers of every DGD, in role order (frontend, prefill, decode, others). */
export function workersOf(resources: readonly PlanSourceResource[]): PlanWorker[] {
  const order = ["frontend", "prefill", "decode"];
  const out: PlanWorker[] = [];
  for (const dgd of resources.filter((r) => isDgdType(r.type))) {
    for (const [service, s] of servicesOf(dgd)) {
      const limits = s.resources?.limits;
      const efa = num(limits?.custom?.[EFA_RESOURCE]);
      out.push({
        role: String(s.subComponentType ?? s.componentType ?? service),
        service,
        replicas: num(s.replicas ?? 1),
        gpusPerWorker: num(limits?.gpu),
        efaPerWorker: efa,
        nixlRails: efa,
        ...podRequests(s),
      });
    }
  }
  const rank = (r: string) => (order.indexOf(r) < 0 ? order.length : order.indexOf(r));
  return out.sort((a, b) => rank(a.role) - rank(b.role) || a.service.localeCompare(b.service));
}
