/**
 * Extracts the published all-reduce latencies per tensor-parallel size and message size on H100 (NVLink) from the
 * description of sgl-project/sglang pull request #2904 ("optimize custom allreduce kernel", merged 2025-01-15):
 * vLLM's custom all-reduce and the TensorRT-LLM-derived custom all-reduce, each `| 2/4/8 | bytes | a/b/c |` in ms.
 * The serving estimate prices a TP all-reduce from them (serving/worker-speed.ts).
 * Usage: npx tsx tests/contracts/extract/allreduce-latency.ts <the PR description as markdown>
 *        > serving/facts/allreduce-h100.json
 */
import { readFileSync } from "node:fs";
import { printFacts, today } from "./_checkout";

/** Rows [tp, bytes, microseconds] of the table that follows `heading` in `md`. */
export function table(md: string, heading: string): [number, number, number][] {
  const at = md.indexOf(heading);
  if (at < 0) throw new Error(`allreduce-latency: no "${heading}" table`);
  const out: [number, number, number][] = [];
  for (const line of md.slice(at).split("\n").slice(1)) {
    const m = /^\|\s*([\d/]+)\s*\|\s*(\d+)\s*\|\s*([\d./]+)\s*\|/.exec(line.trim());
    if (!m) {
      if (out.length > 0) break;
      continue;
    }
    const tps = m[1]!.split("/").map(Number);
    const ms = m[3]!.split("/").map(Number);
    tps.forEach((tp, i) => out.push([tp, Number(m[2]), Math.round(ms[i]! * 1e4) / 10]));
  }
  return out;
}

if (require.main === module) {
  const md = readFileSync(process.argv[2]!, "utf8");
  printFacts(
    {
      repository: "https://github.com/sgl-project/sglang/pull/2904",
      ref: "pull request #2904 description (merged 2025-01-15)",
      commit: "published",
      paths: ["pull request description: unit test performance in H100 (without cuda graph)"],
      extracted: today(),
      extractor: "tests/contracts/extract/allreduce-latency.ts",
      notes:
        "H100 SXM, NVLink, `python3 tests/test_trt_reduce.py` without CUDA graphs; latency per call in microseconds. The PR description is not a commit of the repository: the figures are what the page says.",
    },
    { gpu: "H100", vllmCustom: table(md, "vllm"), trtllmCustom: table(md, "custom allreduce") },
  );
}
