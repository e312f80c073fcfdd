/**
 * The workers' device claims under `cluster.deviceAllocation: dra`: one ResourceClaimTemplate per role, from which the
 * scheduler makes one ResourceClaim per worker pod. Each of the worker's GPUs is a request of its own, paired with a
 * request for that GPU's EFA devices (EFA per GPU from the catalog), and a `matchAttribute` constraint on the
 * standard `resource.kubernetes.io/pcieRoot` attribute keeps every pair on one PCIe root: AWS's EKS guide pairs one
 * GPU with its EFA devices the same way ("Topology-aware EFA and GPU/Neuron device allocation"). One constraint over
 * all of a multi-GPU worker's devices would demand one root for all of them, which no two GPUs of a p5en share, so
 * the pairing is per GPU; a device is never allocated twice within one claim, so the GPUs differ. Pure.
 * Schema: tests/contracts/facts/k8s-resource-v1-<minor>.json (kubernetes/api resource/v1 at each supported minor).
 */
import { DeviceAllocation } from "../catalog/pool";
import { EFA_DEVICE_CLASS, GPU_DEVICE_CLASS, PCIE_ROOT_ATTRIBUTE, RESOURCE_API_VERSION } from "../_shared/dra";
import { ResolvedInference, ServingRole } from "./args";
import { WorkerShape, workerShape } from "./fit";
import type { PodResourceClaim, StringMap } from "./dgd";

/** The name a worker's pod gives its claim (in `resourceClaims` and the main container's `resources.claims`). */
export const WORKER_CLAIM = "devices";

/** One device request of a claim (`spec.devices.requests[]`, the `exactly` form). */
export interface DeviceRequest {
  readonly name: string;
  readonly exactly: {
    readonly deviceClassName: string;
    readonly allocationMode: "ExactCount";
    readonly count: number;
  };
}

/** A constraint across requests (`spec.devices.constraints[]`). */
export interface DeviceConstraint {
  readonly requests: readonly string[];
  readonly matchAttribute: string;
}

/** A `resource.k8s.io/v1` ResourceClaimTemplate, as this package writes it. */
export interface ClaimTemplate {
  readonly apiVersion: typeof RESOURCE_API_VERSION;
  readonly kind: "ResourceClaimTemplate";
  readonly metadata: { readonly name: string; readonly namespace: string; readonly labels: StringMap };
  readonly spec: {
    readonly spec: {
      readonly devices: {
        readonly requests: readonly DeviceRequest[];
        readonly constraints?: readonly DeviceConstraint[];
      };
    };
  };
}

/** Whether the graph's pool hands out devices through DRA claims instead of extended-resource counts. */
export function usesDra(r: Pick<ResolvedInference, "pool">): boolean {
  return r.pool.deviceAllocation === DeviceAllocation.Dra;
}

/** The template a role's workers claim from. */
export function claimTemplateName(graphName: string, role: ServingRole): string {
  return `${graphName}-${role}-devices`;
}

/** What one worker claims: its GPUs, and per GPU the EFA devices on that GPU's PCIe root (0 without EFA). */
export interface WorkerClaim {
  readonly gpus: number;
  readonly efaPerGpu: number;
}

/** A worker's claim from its shape: `efaPerWorker` is GPUs x EFA per GPU (`efaPerWorker` in ./fit.ts). */
export function workerClaim(shape: Pick<WorkerShape, "gpusPerWorker" | "efaPerWorker">): WorkerClaim {
  const gpus = shape.gpusPerWorker;
  return { gpus, efaPerGpu: gpus > 0 ? shape.efaPerWorker / gpus : 0 };
}

/** The requests and constraints of a claim: one GPU request and one EFA request per GPU, paired on the PCIe root. */
export function claimDevices(c: WorkerClaim): ClaimTemplate["spec"]["spec"]["devices"] {
  const exactly = (deviceClassName: string, count: number) =>
    ({ deviceClassName, allocationMode: "ExactCount", count }) as const;
  if (c.efaPerGpu === 0) return { requests: [{ name: "gpus", exactly: exactly(GPU_DEVICE_CLASS, c.gpus) }] };
  const pairs = Array.from({ length: c.gpus }, (_, i) => i);
  return {
    requests: pairs.flatMap((i) => [
      { name: `gpu-${i}`, exactly: exactly(GPU_DEVICE_CLASS, 1) },
      { name: `efa-${i}`, exactly: exactly(EFA_DEVICE_CLASS, c.efaPerGpu) },
    ]),
    constraints: pairs.map((i) => ({ requests: [`gpu-${i}`, `efa-${i}`], matchAttribute: PCIE_ROOT_ATTRIBUTE })),
  };
}

/** The ResourceClaimTemplate of one role. */
export function renderClaimTemplate(r: ResolvedInference, role: ServingRole): ClaimTemplate {
  return {
    apiVersion: RESOURCE_API_VERSION,
    kind: "ResourceClaimTemplate",
    metadata: {
      name: claimTemplateName(r.graphName, role),
      namespace: r.namespace,
      labels: { "app.kubernetes.io/part-of": r.graphName, "app.kubernetes.io/component": role },
    },
    spec: { spec: { devices: claimDevices(workerClaim(workerShape(r, role))) } },
  };
}

/** Both roles' templates under DRA; none under the device plugins. */
export function renderClaimTemplates(r: ResolvedInference): { role: ServingRole; template: ClaimTemplate }[] {
  if (!usesDra(r)) return [];
  return [ServingRole.Prefill, ServingRole.Decode].map((role) => ({ role, template: renderClaimTemplate(r, role) }));
}

/** A worker pod's reference to its role's template. */
export function podClaims(r: ResolvedInference, role: ServingRole): PodResourceClaim[] {
  return [{ name: WORKER_CLAIM, resourceClaimTemplateName: claimTemplateName(r.graphName, role) }];
}

/** Which EFA devices a worker gets and by what rule: what the plan and the picture say. */
export interface WorkerPairing {
  /** How the pool hands out devices (the cluster's `deviceAllocation`). */
  readonly allocation: DeviceAllocation;
  /** EFA devices per GPU the worker gets (0 without EFA). */
  readonly efaPerGpu: number;
  /** Under DRA: the ResourceClaimTemplate the worker's claim is made from. */
  readonly claimTemplate?: string;
}

/** A role's pairing: under DRA each GPU with its EFA devices on one PCIe root by the claim; else the plugin's choice. */
export function workerPairing(r: ResolvedInference, role: ServingRole): WorkerPairing {
  const { efaPerGpu } = workerClaim(workerShape(r, role));
  if (!usesDra(r)) return { allocation: DeviceAllocation.DevicePlugin, efaPerGpu };
  return { allocation: DeviceAllocation.Dra, efaPerGpu, claimTemplate: claimTemplateName(r.graphName, role) };
}
