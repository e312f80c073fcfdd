/**
 * The KV-transfer line of the plan: which NIXL backend the rendered graph chose
 * (`inference.kvTransport`) and whether KV moves over RDMA (EFA) or TCP. From the graph's plan facts
 * (`DisaggInference.plan.kvTransport`, the same value its engine selectors use). Pure.
 */
import { KvTransport, kvWire } from "../../components/inference/transport";

/** The plan's KV-transfer facts. */
export interface PlanKvTransport {
  /** NIXL backend (`LIBFABRIC` or `UCX`). */
  readonly transport: string;
  /** True when KV moves by RDMA over EFA; false for TCP. */
  readonly rdma: boolean;
  /** One line for people. */
  readonly description: string;
}

/** The plan's KV-transfer facts of a graph's transport. */
export function planKvTransport(t: KvTransport): PlanKvTransport {
  return { transport: t, ...kvWire(t) };
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
