/**
 * Which EFA devices each worker gets and by what rule, in words, for plan.md and the topology picture: one source of
 * the sentences, read from plan.json's workers. Under DRA the claim pairs each GPU with its own EFA devices on one
 * PCIe root; under the device plugins the EFA device plugin picks, and only the node can tell what it picked
 * (components/releases/known-issues.ts `PARTIAL_EFA_PCIE`, tests/contracts/facts/eks-device-management.json). Pure.
 */
import { DeviceAllocation } from "../../../components/catalog/pool";
import { PCIE_ROOT_ATTRIBUTE } from "../../../components/_shared/dra";
import type { PlanWorker } from "./workers";

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/** One role's rule, e.g. "prefill: each of 1 GPU with its 2 EFA devices on the GPU's PCIe root (DRA claim ...)". */
export function pairingLine(w: PlanWorker): string | undefined {
  const p = w.pairing;
  if (!p || w.gpusPerWorker === 0) return undefined;
  if (p.efaPerGpu === 0) return `${w.role}: ${plural(w.gpusPerWorker, "GPU")}, no EFA device`;
  if (p.allocation === DeviceAllocation.Dra)
    return `${w.role}: each of ${plural(w.gpusPerWorker, "GPU")} with ${plural(p.efaPerGpu, "EFA device")} on that GPU's PCIe root, by construction (DRA claim from ${p.claimTemplate}: one request per GPU and one for its EFA devices, matched on ${PCIE_ROOT_ATTRIBUTE})`;
  return `${w.role}: ${plural(w.gpusPerWorker, "GPU")} + ${plural(w.gpusPerWorker * p.efaPerGpu, "EFA device")} as counts; the EFA device plugin picks which (AWS documents GPU-EFA alignment on the EKS AL2023 accelerated AMIs only, by a mechanism it does not publish; Dynamo 1.3.1 reports partial allocations on another PCIe switch): check with verify --check-locality, or set cluster.deviceAllocation: dra`;
}

/** The picture's one line: the rule, for every EFA worker. */
export function pairingLegend(workers: readonly PlanWorker[]): string {
  const efa = workers.filter((w) => w.pairing && w.gpusPerWorker > 0 && w.pairing.efaPerGpu > 0);
  if (efa.length === 0) return "EFA pairing: no worker uses EFA.";
  if (efa.every((w) => w.pairing!.allocation === DeviceAllocation.Dra))
    return `EFA pairing: each GPU with its own ${plural(efa[0].pairing!.efaPerGpu, "EFA device")} on its PCIe root, by DRA claim (${PCIE_ROOT_ATTRIBUTE}).`;
  return "EFA pairing: the EFA device plugin picks each worker's EFA devices (aligned per AWS on AL2023 accelerated AMIs only); verify --check-locality checks.";
}
