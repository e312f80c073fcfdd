/**
 * Extracts TensorRT-LLM's published offline-throughput tables (docs/source/performance/perf-overview.md): for each
 * model section, every H100/H200 column (GPU, TP, weight dtype) and its Total Output Throughput (tokens/s) per
 * ISL/OSL row, as the serving validation set reads them (serving/validation.ts). B200/GB200/RTX
 * columns are left out (no Blackwell rates in the estimate).
 * Usage: npx tsx tests/contracts/extract/trtllm-perf-overview.ts <TensorRT-LLM checkout> --ref <ref> [--commit <sha>]
 *        > tests/contracts/facts/trtllm-perf-overview.json
 */
import { checkoutArgs, printFacts, readText, today, withNotes } from "./_checkout";

export const PATH = "docs/source/performance/perf-overview.md";

/** One published point. */
export interface PerfPoint {
  readonly model: string;
  readonly gpu: "H100" | "H200";
  readonly tp: number;
  readonly dtype: string;
  readonly isl: number;
  readonly osl: number;
  readonly outputTokensPerSecond: number;
}

const cellsOf = (line: string) =>
  line
    .trim()
    .replace(/^\||\|$/g, "")
    .split("|")
    .map((c) => c.trim());

/** Every H100/H200 point of the tables that follow a `#### <model>` heading (the first table of each section). */
export function extract(md: string): PerfPoint[] {
  const out: PerfPoint[] = [];
  for (const section of md.split(/^#### /m).slice(1)) {
    const model = section.slice(0, section.indexOf("\n")).trim();
    const lines = section.split("\n");
    const head = lines.findIndex((l) => l.startsWith("| Sequence Length"));
    if (head < 0) continue;
    const columns = cellsOf(lines[head]!).map((c) => /^(H100|H200)<br\/>TP(\d+) \((\w+)\)$/.exec(c));
    for (const line of lines.slice(head + 2)) {
      if (!line.startsWith("|")) break;
      const cells = cellsOf(line);
      const [isl, osl] = cells[0]!.split("/").map(Number);
      columns.forEach((c, i) => {
        const v = cells[i]?.replace(/,/g, "");
        if (!c || !v) return;
        out.push({
          model,
          gpu: c[1] as "H100" | "H200",
          tp: Number(c[2]),
          dtype: c[3]!,
          isl: isl!,
          osl: osl!,
          outputTokensPerSecond: Number(v),
        });
      });
    }
  }
  return out;
}

if (require.main === module) {
  const args = checkoutArgs(process.argv.slice(2), "trtllm-perf-overview.ts");
  printFacts(
    {
      repository: "NVIDIA/TensorRT-LLM",
      ref: args.ref,
      commit: args.commit,
      paths: [PATH],
      extracted: today(),
      extractor: "tests/contracts/extract/trtllm-perf-overview.ts",
      notes: withNotes(
        "trtllm-bench throughput (PyTorch backend, offline: every request queued at once), Total Output Throughput tokens/s of the whole TP group; CUDA graphs padded up to batch 8192; MoE runs with enable_attention_dp and expert parallel.",
        args,
      ),
    },
    { points: extract(readText(args.root, PATH)) },
  );
}
