/**
 * The KV-transfer line of the plan: which NIXL backend the rendered graph chose
 * (`inference.kvTransport`) and whether KV moves over RDMA (EFA) or TCP. Read from the rendered
 * DynamoGraphDeployment's annotation, which the inference component writes from the same value its
 * engine selectors use. Pure.
 */
import { DGD_TYPE_TOKEN } from "../../components/inference/dgd-types";
import { KV_TRANSPORT_ANNOTATION, KvTransport, kvWire } from "../../components/inference/transport";

/** The plan's KV-transfer facts. */
export interface PlanKvTransport {
  /** NIXL backend (`LIBFABRIC` or `UCX`). */
  readonly transport: string;
  /** True when KV moves by RDMA over EFA; false for TCP. */
  readonly rdma: boolean;
  /** One line for people. */
  readonly description: string;
}

/** The KV transport of the stack's graphs; undefined when no graph records one. */
export function kvTransportOf(
  resources: readonly { readonly type: string; readonly inputs: Record<string, unknown> }[],
): PlanKvTransport | undefined {
  for (const r of resources.filter((x) => x.type === DGD_TYPE_TOKEN)) {
    const t = ((r.inputs.metadata as { annotations?: Record<string, unknown> } | undefined)?.annotations ?? {})[
      KV_TRANSPORT_ANNOTATION
    ];
    if (t === KvTransport.Libfabric || t === KvTransport.Ucx) return { transport: t, ...kvWire(t) };
  }
  return undefined;
}

/** The plan.md section for it. */
export function kvTransportMarkdown(kv: PlanKvTransport | undefined): string[] {
  if (!kv) return ["## KV transfer", "", "- no DynamoGraphDeployment records a KV transport", ""];
  return [
    "## KV transfer",
    "",
    `- NIXL backend: **${kv.transport}** (\`inference.kvTransport\`)`,
    `- KV moves over: **${kv.rdma ? "RDMA" : "TCP"}**: ${kv.description}`,
    "",
  ];
}
