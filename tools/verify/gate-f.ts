/**
 * Gate F against a live cluster: reach Prometheus (a URL, or a port-forward to a Running+Ready
 * Prometheus pod through the Kubernetes API, as for the Frontend) and judge its TTFT/ITL series.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import type { GateResult } from "./gates";
import { GateStatus, result } from "./gates";
import { ClusterReader, forwardToPod } from "./k8s";
import { type LatencyEstimate, PrometheusTarget, readLatencies } from "./prometheus";

/** Reads TTFT/ITL for `graph` from the Prometheus `p` points at. */
export async function gateF(
  kc: KubeConfig,
  p: PrometheusTarget,
  graph: string,
  namespace: string,
  timeoutMs: number,
  estimate?: LatencyEstimate,
): Promise<GateResult> {
  if ("url" in p) return readLatencies(p.url, graph, namespace, timeoutMs, estimate);
  const t0 = Date.now();
  const pods = await new ClusterReader(kc, p.namespace).pods(p.selector, timeoutMs);
  const pod = pods.find((x) => x.phase === "Running" && x.ready);
  if (!pod) {
    const seen = pods.length
      ? ` (${pods.map((x) => `${x.name} ${x.phase ?? "?"}${x.ready ? "" : " not ready"}`).join(", ")})`
      : "";
    return result(
      "F",
      GateStatus.Fail,
      [
        `no Running+Ready Prometheus pod matches ${p.selector} in namespace ${p.namespace}${seen}; observability off? pass --prometheus-url`,
      ],
      Date.now() - t0,
    );
  }
  const fwd = await forwardToPod(kc, p.namespace, pod.name, p.port);
  try {
    const r = await readLatencies(fwd.url, graph, namespace, Math.max(1, timeoutMs - (Date.now() - t0)), estimate);
    return { ...r, evidence: [...r.evidence, `Prometheus ${fwd.label}`] };
  } finally {
    await fwd.close();
  }
}
