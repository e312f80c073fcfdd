/**
 * Which NIXL backend moves the KV cache between prefill and decode, chosen by `inference.kvTransport`,
 * and what that means for the wire (RDMA over EFA or TCP). Pure, no imports: the one home of it for the
 * inference component, the policy pack, the offline plan and `verify` (gate D checks the chosen backend in
 * the worker logs).
 */

/** What the user asks for. */
export const KvTransportChoice = {
  /** LIBFABRIC on pools with EFA and GPUDirect RDMA, UCX elsewhere. */
  Auto: "auto",
  /** NIXL's LIBFABRIC plugin over EFA RDMA; needs an EFA pool. */
  Libfabric: "libfabric",
  /** NIXL's UCX plugin; the workers get no EFA devices and KV crosses nodes over TCP. */
  Ucx: "ucx",
} as const;
export type KvTransportChoice = (typeof KvTransportChoice)[keyof typeof KvTransportChoice];

/** The NIXL backend name the engines' selectors take. */
export const KvTransport = {
  /** NIXL's LIBFABRIC plugin over EFA RDMA (pools with EFA and GPUDirect RDMA). */
  Libfabric: "LIBFABRIC",
  /** NIXL's UCX plugin (TCP across nodes here). Much slower across nodes. */
  Ucx: "UCX",
} as const;
export type KvTransport = (typeof KvTransport)[keyof typeof KvTransport];

/** The backend for a choice on a pool that does (not) carry EFA with GPUDirect RDMA. */
export function resolveKvTransport(choice: KvTransportChoice, poolHasEfa: boolean): KvTransport {
  if (choice === KvTransportChoice.Libfabric) return KvTransport.Libfabric;
  if (choice === KvTransportChoice.Ucx) return KvTransport.Ucx;
  return poolHasEfa ? KvTransport.Libfabric : KvTransport.Ucx;
}

/** The backend a DGD's `dynamo-efa/kv-transport` annotation names, or undefined when it names none (a DGD written by hand). */
export function annotatedKvTransport(value: unknown): KvTransport | undefined {
  return value === KvTransport.Libfabric || value === KvTransport.Ucx ? value : undefined;
}

/**
 * Whether a worker requests EFA devices: only the LIBFABRIC backend uses them, and only on a pool whose nodes
 * carry NIXL over EFA (EFA attached and GPUDirect RDMA). UCX workers hold none: the image's UCX is not set up for
 * EFA, so a device given to them would sit idle. The one truth the inference component (which sets the request)
 * and the policy `efa-per-worker-matches-pool` (which checks it) share.
 */
export function requestsEfaDevices(t: KvTransport, poolCarriesNixlOverEfa: boolean): boolean {
  return t === KvTransport.Libfabric && poolCarriesNixlOverEfa;
}

/** A backend and how KV bytes travel with it (plan.json's `kvTransport`). */
export interface KvWire {
  /** NIXL backend (`LIBFABRIC` or `UCX`). */
  readonly transport: KvTransport;
  /** True when KV moves by RDMA over EFA; false for TCP. */
  readonly rdma: boolean;
  /** One line for people. */
  readonly description: string;
}

/**
 * How KV bytes travel with a backend. LIBFABRIC here always means the EFA provider with GPU RDMA
 * (`FI_PROVIDER=efa`, `FI_EFA_USE_DEVICE_RDMA=1`). UCX workers are given no EFA device and the
 * image's UCX is not set up for EFA, so across nodes UCX uses TCP (published: TTFT ~98 s over TCP
 * vs ~1 s on EFA for the same request; docs/ARCHITECTURE.md#dynamo-on-kubernetes).
 */
export function kvWire(t: KvTransport): KvWire {
  return t === KvTransport.Libfabric
    ? { transport: t, rdma: true, description: "RDMA over EFA (NIXL LIBFABRIC, GPUDirect)" }
    : {
        transport: t,
        rdma: false,
        description: "TCP (NIXL UCX; no EFA devices given to workers), much slower across nodes",
      };
}
