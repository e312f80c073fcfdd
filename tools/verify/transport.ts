/**
 * The NIXL backend a stack chose, resolved from its config the way the program resolves it
 * (`inference.kvTransport`; "auto" = LIBFABRIC when the GPU instance type carries EFA with GPUDirect
 * RDMA, UCX otherwise), so gate D looks for the backend the workers were told to use. Pure.
 */
import { INSTANCES, supportsNixlOverEfa } from "../../components/catalog/instances";
import { KvTransport, KvTransportChoice, resolveKvTransport } from "../../components/inference/transport";

const CHOICES: readonly string[] = Object.values(KvTransportChoice);

/**
 * The backend of a stack's `dynamo-efa:inference` and `dynamo-efa:cluster` objects. An unknown or
 * absent instance type with "auto" resolves to LIBFABRIC (the program rejects such a stack anyway).
 */
export function stackKvTransport(
  inference: Record<string, unknown>,
  cluster: Record<string, unknown> | undefined,
): KvTransport {
  const raw = inference.kvTransport;
  const choice = (typeof raw === "string" && CHOICES.includes(raw) ? raw : KvTransportChoice.Auto) as KvTransportChoice;
  const type = (cluster?.gpuNodes as Record<string, unknown> | undefined)?.instanceType;
  const row = typeof type === "string" ? INSTANCES.get(type) : undefined;
  return resolveKvTransport(choice, row ? supportsNixlOverEfa(row) : true);
}
