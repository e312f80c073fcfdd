/**
 * Gate L under `cluster.deviceAllocation: dra`: the allocation itself, read from the API. Each worker pod's
 * ResourceClaim (made from its role's template, components/inference/device-claims.ts) names the devices the
 * scheduler chose for each request (`status.allocation.devices.results`: request, driver, pool, device); the drivers'
 * ResourceSlices give each device's `resource.kubernetes.io/pcieRoot`. Every GPU request `gpu-<i>` and its EFA request
 * `efa-<i>` must have landed on one root: the constraint should make that so, and this reads that it did. The probe's
 * PCI paths (./locality.ts) are judged either way. Pure: `run.ts` lists the claims and slices.
 */
import { PCIE_ROOT_ATTRIBUTE } from "../../components/_shared/dra";

/** The fields of a ResourceClaim this gate reads. */
export interface ClaimSource {
  readonly metadata?: {
    readonly name?: string;
    readonly ownerReferences?: readonly { readonly kind?: string; readonly name?: string }[];
  };
  readonly status?: {
    readonly allocation?: {
      readonly devices?: {
        readonly results?: readonly {
          readonly request?: string;
          readonly driver?: string;
          readonly pool?: string;
          readonly device?: string;
        }[];
      };
    };
  };
}

/** The fields of a ResourceSlice this gate reads. */
export interface SliceSource {
  readonly spec?: {
    readonly driver?: string;
    readonly pool?: { readonly name?: string };
    readonly devices?: readonly {
      readonly name?: string;
      readonly attributes?: Readonly<Record<string, { readonly string?: string }>>;
    }[];
  };
}

const key = (driver?: string, pool?: string, device?: string) => `${driver}/${pool}/${device}`;

/** Every published device's PCIe root, by `driver/pool/device` (the allocation result's own key). */
export function pcieRoots(slices: readonly SliceSource[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const s of slices)
    for (const d of s.spec?.devices ?? []) {
      const root = d.attributes?.[PCIE_ROOT_ATTRIBUTE]?.string;
      if (root) out.set(key(s.spec?.driver, s.spec?.pool?.name, d.name), root);
    }
  return out;
}

/** The pod a claim was made for (the template's claims are owned by their pod). */
export const claimPod = (c: ClaimSource): string | undefined =>
  c.metadata?.ownerReferences?.find((o) => o.kind === "Pod")?.name;

/** One worker's claim judged: its problems, or one evidence line of what it got. */
export function claimProblems(pod: string, claim: ClaimSource | undefined, roots: Map<string, string>): string[] {
  if (!claim) return [`${pod}: no ResourceClaim owned by the pod: its devices were not allocated through DRA`];
  const results = claim.status?.allocation?.devices?.results ?? [];
  if (results.length === 0) return [`${pod}: claim ${claim.metadata?.name} is not allocated`];
  const byRequest = new Map<string, { device: string; root?: string }[]>();
  for (const r of results) {
    const list = byRequest.get(r.request ?? "?") ?? [];
    list.push({ device: `${r.device}`, root: roots.get(key(r.driver, r.pool, r.device)) });
    byRequest.set(r.request ?? "?", list);
  }
  const out: string[] = [];
  for (const [request, gpus] of byRequest) {
    const i = /^gpu-(\d+)$/.exec(request)?.[1];
    if (i === undefined) continue;
    const efas = byRequest.get(`efa-${i}`) ?? [];
    const all = [...gpus, ...efas];
    const unread = all.filter((d) => d.root === undefined).map((d) => d.device);
    if (unread.length > 0) {
      out.push(`${pod}: no ${PCIE_ROOT_ATTRIBUTE} published for ${unread.join(", ")} (ResourceSlices)`);
      continue;
    }
    const roots = new Set(all.map((d) => d.root));
    if (roots.size > 1)
      out.push(
        `${pod}: claim ${claim.metadata?.name} put GPU ${gpus.map((g) => `${g.device} (${g.root})`).join(", ")} and EFA ${efas.map((e) => `${e.device} (${e.root})`).join(", ")} on different PCIe roots`,
      );
  }
  return out;
}

/** Evidence of a worker whose claim held: each GPU with its EFA devices and their root. */
export function claimEvidence(pod: string, claim: ClaimSource, roots: Map<string, string>): string {
  const results = claim.status?.allocation?.devices?.results ?? [];
  const pairs = results
    .filter((r) => /^gpu-\d+$/.test(r.request ?? ""))
    .map((g) => {
      const i = g.request!.slice(4);
      const efa = results.filter((r) => r.request === `efa-${i}`).map((r) => r.device);
      return `${g.device}+${efa.join("+")} on ${roots.get(key(g.driver, g.pool, g.device))}`;
    });
  return `${pod}: claim ${claim.metadata?.name}: ${pairs.join("; ")}`;
}
