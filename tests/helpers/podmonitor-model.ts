/**
 * The fields of a Prometheus Operator PodMonitor (monitoring.coreos.com/v1) the program sets, checked
 * like a schema would: kubernetes-models ships no Prometheus Operator types. Empty when valid.
 */
export function podMonitorProblems(o: Record<string, unknown>): string[] {
  const out: string[] = [];
  const md = (o.metadata ?? {}) as Record<string, unknown>;
  const spec = (o.spec ?? {}) as Record<string, unknown>;
  if (o.apiVersion !== "monitoring.coreos.com/v1")
    out.push(`apiVersion ${JSON.stringify(o.apiVersion)} is not monitoring.coreos.com/v1`);
  for (const k of ["name", "namespace"]) if (typeof md[k] !== "string" || !md[k]) out.push(`metadata.${k} missing`);
  const sel = (spec.selector ?? {}) as { matchLabels?: Record<string, unknown> };
  if (!sel.matchLabels || Object.keys(sel.matchLabels).length === 0)
    out.push("spec.selector.matchLabels is empty (would select every pod)");
  const eps = spec.podMetricsEndpoints;
  if (!Array.isArray(eps) || eps.length === 0) out.push("spec.podMetricsEndpoints is empty");
  for (const [i, e] of (Array.isArray(eps) ? eps : []).entries()) {
    const ep = e as Record<string, unknown>;
    if (typeof ep.port !== "string" || !ep.port)
      out.push(`spec.podMetricsEndpoints[${i}].port must name a container port`);
    if (typeof ep.path !== "string" || !ep.path.startsWith("/"))
      out.push(`spec.podMetricsEndpoints[${i}].path must be an absolute path`);
    if (ep.interval !== undefined && !/^\d+(ms|s|m|h)$/.test(String(ep.interval)))
      out.push(`spec.podMetricsEndpoints[${i}].interval ${JSON.stringify(ep.interval)} is not a Prometheus duration`);
    for (const [j, r] of (Array.isArray(ep.relabelings) ? ep.relabelings : []).entries()) {
      const rl = r as Record<string, unknown>;
      if (rl.action === "replace" && (typeof rl.targetLabel !== "string" || !Array.isArray(rl.sourceLabels)))
        out.push(`spec.podMetricsEndpoints[${i}].relabelings[${j}] needs sourceLabels and targetLabel`);
    }
  }
  return out;
}
