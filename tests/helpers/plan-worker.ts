/** A `plan.json` worker row for the picture and placement specs, which build small plans by hand. */
import type { PlanWorker } from "../../tools/render/plan/workers";

/** The Service the DGD gives each role's workers, which `avoids` names. */
const SERVICE: Readonly<Record<string, string>> = {
  frontend: "Frontend",
  prefill: "PrefillWorker",
  decode: "DecodeWorker",
};

/** `replicas` workers of `role` with `gpus` GPUs and `efa` EFA devices (NIXL on all of them), apart from `avoids`. */
export const planWorker = (
  role: string,
  replicas: number,
  gpus: number,
  efa: number,
  avoids: string[] = [],
): PlanWorker => ({
  role,
  service: SERVICE[role] ?? role,
  replicas,
  gpusPerWorker: gpus,
  efaPerWorker: efa,
  nixlRails: efa,
  cpu: "1",
  memory: "1Gi",
  hugepages2Mi: "-",
  avoids,
});
