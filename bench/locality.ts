/**
 * `npm run bench:locality` (not a test): how verify's gate L judges a worker's probe output as it grows. Feeds the
 * parser and the judge N GPU lines and N EFA lines (each GPU and EFA pair behind its own PCIe switch, the worst case
 * for a pairwise comparison) for N = 250, 1,000, 4,000 and 16,000 and prints the milliseconds and each step's ratio:
 * a linear judge grows about 4x per 4x input, a pairwise one about 16x (RELIABILITY-AUDIT-2 L1 measured 158 ms ->
 * 2,435 ms for 250 -> 1,000 lines before the rewrite). The real probe output is bounded far below these sizes
 * (tools/verify/k8s.ts EXEC_OUTPUT_LIMIT_BYTES); the bench shows the judge would not be the bottleneck even past it.
 */
import { loadavg } from "os";
import { gateLocality } from "../tools/verify/locality";

function probe(n: number): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const hex = (v: number, w: number) => v.toString(16).padStart(w, "0");
    const port = `${hex(i >> 8, 4)}:${hex(i & 0xff, 2)}:00.0`;
    const root = `/sys/devices/pci${hex(i >> 8, 4)}:${hex(i & 0xff, 2)}/${port}`;
    lines.push(`gpu ${hex(i, 4)}:01:00.0 ${root}/${hex(i, 4)}:01:00.0`);
    lines.push(`efa rdmap${i}s0 ${root}/${hex(i, 4)}:02:00.0`);
  }
  return lines.join("\n");
}

function main(): void {
  console.log(`load average ${loadavg()[0].toFixed(2)} (1 min)`);
  let previous: number | undefined;
  for (const n of [250, 1000, 4000, 16000]) {
    const text = probe(n);
    const start = process.hrtime.bigint();
    const r = gateLocality([{ pod: "w", text }]);
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    const ratio = previous === undefined ? "" : `  x${(ms / previous).toFixed(1)} for x4 input`;
    console.log(
      `${n} GPU + ${n} EFA lines (${(text.length / 1024).toFixed(0)} KiB): ${ms.toFixed(1)} ms, ${r.status}${ratio}`,
    );
    previous = ms;
  }
}

main();
