/**
 * Extracts AIConfigurator's published H200 case from its README: the example command's workload and SLA, and
 * the top-1 disaggregated and aggregated rows of its output (tokens/s/GPU, TTFT, worker layout). It is
 * AIConfigurator's prediction, compared model against model in docs/SERVING.md#validation.
 * Usage: npx tsx tests/contracts/extract/aiconfigurator-h200-case.ts <ai-dynamo/aiconfigurator checkout> --ref main [--commit <sha>] > tests/contracts/facts/aiconfigurator-h200-case.json
 */
import { checkoutArgs, matcher, printFacts, readText, today, withNotes } from "./_checkout";

export const PATH = "README.md";

const must = matcher("aiconfigurator-h200-case");

/** The cells of the rank-1 row of the table headed `title` (at the start of a line: "agg" is in "disagg"). */
function topRow(text: string, title: string): string[] {
  const at = text.search(new RegExp(`^${title}`, "m"));
  if (at < 0) throw new Error(`aiconfigurator-h200-case extractor: table ${JSON.stringify(title)} not found`);
  const line = must(/^\|\s+1\s+\|.*$/m, text.slice(at), `${title} rank 1`)[0];
  return line
    .split("|")
    .slice(1, -1)
    .map((c) => c.trim());
}

const lead = (cell: string) => Number(/^[\d.]+/.exec(cell)![0]);

export function extract(readme: string) {
  const cmd = must(
    /--model (\w+) --total_gpus (\d+) --system (\w+) --isl (\d+) --osl (\d+) --ttft (\d+) --tpot (\d+)/,
    readme,
    "the example command",
  );
  const d = topRow(readme, "disagg Top Configurations");
  const a = topRow(readme, "agg Top Configurations");
  return {
    model: "Qwen/Qwen3-32B (FP8)",
    system: cmd[3],
    totalGpus: Number(cmd[2]),
    isl: Number(cmd[4]),
    osl: Number(cmd[5]),
    ttftMs: Number(cmd[6]),
    tpotMs: Number(cmd[7]),
    disaggregated: {
      tokensPerSecondPerGpu: Number(d[1]),
      ttftMs: Number(d[3]),
      tpotMs: Number(must(/- TPOT: ([\d.]+)ms/, readme, "TPOT")[1]),
      replicas: Number(d[6]),
      prefillWorkers: Number(d[8]),
      prefillTp: lead(d[9]!),
      decodeWorkers: Number(d[12]),
      decodeTp: lead(d[13]!),
      decodeBatch: Number(d[15]),
    },
    aggregated: {
      tokensPerSecondPerGpu: Number(a[1]),
      ttftMs: Number(a[3]),
      replicas: Number(a[6]),
      tp: lead(a[8]!),
      batch: Number(a[10]),
    },
    disaggOverAgg: Number(must(/disagg at [\d.]+ tokens\/s\/gpu \(([\d.]+)x better\)/, readme, "the ratio")[1]),
  };
}

if (require.main === module) {
  const a = checkoutArgs(process.argv.slice(2), "npx tsx tests/contracts/extract/aiconfigurator-h200-case.ts");
  printFacts(
    {
      repository: "ai-dynamo/aiconfigurator",
      ref: a.ref,
      commit: a.commit,
      paths: [PATH],
      extracted: today(),
      extractor: `tests/contracts/extract/aiconfigurator-h200-case.ts <checkout> --ref ${a.ref} --commit ${a.commit}`,
      notes: withNotes("AIConfigurator's prediction, not a measurement; not used for calibration.", a),
    },
    extract(readText(a.root, PATH)),
  );
}
