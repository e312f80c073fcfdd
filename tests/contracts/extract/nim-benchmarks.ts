/**
 * Extracts NVIDIA NIM's published latency/throughput table for one model (NIM 1.8.0 on H100, FP8; TTFT and ITL at
 * each closed-loop concurrency, https://docs.nvidia.com/nim/benchmarking/llm/latest/performance.html), as
 * transcribed to CSV by zivbeker42/llm-guesstimator (tested_benchmarks/README.md names the page). The serving
 * validation set reads it (serving/validation.ts).
 * Usage: npx tsx tests/contracts/extract/nim-benchmarks.ts <checkout> <csv path> --ref main --commit <sha>
 *        > tests/contracts/facts/nim-<model>.json
 */
import { checkoutArgs, printFacts, readText, today, withNotes } from "./_checkout";

/** One published row. */
export interface NimRow {
  readonly isl: number;
  readonly osl: number;
  readonly concurrency: number;
  readonly ttftMs: number;
  readonly itlMs: number;
  readonly outputTokensPerSecond: number;
}

/** The CSV's rows, with its GPU count, hardware and data type (one value each). */
export function extract(csv: string) {
  const [head, ...lines] = csv.trim().split("\n");
  const col = (name: RegExp) => head!.split(",").findIndex((c) => name.test(c));
  const at = {
    hw: col(/^hardware$/),
    n: col(/^hardware[ _]count$/),
    dtype: col(/^data_type$/),
    isl: col(/^input_tokens$/),
    osl: col(/^output_tokens$/),
    c: col(/^concurrency$/),
    ttft: col(/^TTFT_ms$/),
    itl: col(/^ITL_ms$/),
    tput: col(/^Throughput_tokens_per_s$/),
  };
  const cells = lines.map((l) => l.split(","));
  const first = cells[0]!;
  return {
    hardware: first[at.hw],
    gpus: Number(first[at.n]),
    dataType: first[at.dtype],
    rows: cells.map((c): NimRow => ({
      isl: Number(c[at.isl]),
      osl: Number(c[at.osl]),
      concurrency: Number(c[at.c]),
      ttftMs: Number(c[at.ttft]),
      itlMs: Number(c[at.itl]),
      outputTokensPerSecond: Number(c[at.tput]),
    })),
  };
}

if (require.main === module) {
  const argv = process.argv.slice(2);
  const path = argv[1]!;
  const args = checkoutArgs([argv[0]!, ...argv.slice(2)], "nim-benchmarks.ts");
  printFacts(
    {
      repository: "zivbeker42/llm-guesstimator",
      ref: args.ref,
      commit: args.commit,
      paths: [path],
      extracted: today(),
      extractor: "tests/contracts/extract/nim-benchmarks.ts",
      notes: withNotes(
        "NIM 1.8.0 (TensorRT-LLM engine, one instance, aggregated), from https://docs.nvidia.com/nim/benchmarking/llm/latest/performance.html as the repository's tested_benchmarks/README.md says; averages per closed-loop concurrency.",
        args,
      ),
    },
    extract(readText(args.root, path)),
  );
}
