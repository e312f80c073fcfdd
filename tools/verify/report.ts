/** Renders gate results as a fixed-width table for stdout and as a JSON document. Pure. */
import { GateResult } from "./gates";
import { Target } from "./target";

/** What a verify of a cluster stack checked: the stack, its file, and the model stacks on it. */
export interface ClusterReportTarget {
  readonly kind: "cluster";
  readonly stack: string;
  readonly source: string;
  readonly modelStacks: readonly string[];
}

/** The JSON written by `--json`. */
export interface VerifyReport {
  readonly target: Target | ClusterReportTarget;
  readonly frontend: string | undefined;
  readonly exitCode: number;
  readonly gates: readonly GateResult[];
  /** Set when the run stopped because the cluster or Frontend became unreachable (exit code 3). */
  readonly unreachable?: string;
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + " ".repeat(n - s.length);
}

function ms(n: number | undefined): string {
  return n === undefined ? "-" : `${n} ms`;
}

/** One row per gate plus indented evidence lines; `latency` column uses the gate's own request time. */
export function renderTable(target: Target | ClusterReportTarget, results: readonly GateResult[]): string {
  const head =
    "kind" in target
      ? `verify cluster stack ${target.stack}: system nodes, platform, device plugins, monitoring (from ${target.source}; model stacks on it: ${target.modelStacks.join(", ") || "none in this project"})`
      : `verify ${target.graph} in namespace ${target.namespace} (${target.backend}, model ${target.servedModel}; from ${target.source})`;
  const rows = results.map((r) => [r.id, r.title, r.status, ms(r.latencyMs), r.evidence[0] ?? ""]);
  const header = ["gate", "check", "status", "latency", "evidence"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  widths[4] = header[4].length;
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 4 ? c : pad(c, widths[i])))
      .join("  ")
      .trimEnd();
  const out = [head, "", line(header), line(widths.map((w, i) => "-".repeat(i === 4 ? 8 : w)))];
  for (const r of results) {
    out.push(line([r.id, r.title, r.status, ms(r.latencyMs), r.evidence[0] ?? ""]));
    for (const more of r.evidence.slice(1)) out.push(`${" ".repeat(widths[0] + 2)}  ${more}`);
  }
  return out.join("\n") + "\n";
}

/** The `--json` document. */
export function renderJson(report: VerifyReport): string {
  return JSON.stringify(report, null, 2) + "\n";
}
