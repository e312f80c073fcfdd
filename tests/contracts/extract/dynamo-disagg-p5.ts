/**
 * Extracts Dynamo's measured p5 disaggregation table (Llama-3.1-8B on p5.48xlarge, NIXL over libfabric) from the
 * disaggregated-communication guide: the throughput and ITL change by ISL, the ISL-8000 metrics of both layouts,
 * the KV transfer cost and rate. The serving model's validation (docs/SERVING.md#validation) compares against them.
 * Usage: npx tsx tests/contracts/extract/dynamo-disagg-p5.ts <ai-dynamo/dynamo checkout> --ref main [--commit <sha>] > tests/contracts/facts/dynamo-disagg-p5.json
 */
import { checkoutArgs, matcher, printFacts, readText, today, withNotes } from "./_checkout";

export const PATH =
  "docs/fern/pages/developer-guide/knowledge-base/kubernetes/kubernetes-operator/disagg-communication.md";

const must = matcher("dynamo-disagg-p5");

const pct = (s: string) => Math.round(Number(s.replace(/[~%*+\s]/g, "")) * 10) / 1000;

/** The metrics row `| <label> | <agg> <unit> | <disagg> <unit> | ... |` as two numbers. */
function row(text: string, label: string): [number, number] {
  const esc = label.replace(/[()=,]/g, (c) => `\\${c}`);
  const m = must(new RegExp(`^\\| ${esc} \\| ([\\d.]+) [^|]*\\| ([\\d.]+) [^|]*\\|`, "m"), text, label);
  return [Number(m[1]), Number(m[2])];
}

export function extract(doc: string) {
  must(/Llama-3\.1-8B-Instruct\*\* on AWS p5\.48xlarge with NIXL\+libfabric/, doc, "the measured setup");
  const load = must(/all at OSL=(\d+), concurrency=(\d+)/, doc, "OSL and concurrency");
  const gain: Record<string, number> = {};
  const itl: Record<string, number> = {};
  for (const m of doc.matchAll(/^\| (\d{4}) \| ([^|]+) \| ([^|]+) \| [^|]+ \|$/gm)) {
    gain[m[1]!] = pct(m[2]!);
    itl[m[1]!] = pct(m[3]!);
  }
  const [tpA, tpD] = row(doc, "Output throughput (ISL=8000, OSL=50)");
  const [itlA, itlD] = row(doc, "ITL (avg)");
  const [minA, minD] = row(doc, "TTFT (min, unqueued)");
  const [p95A, p95D] = row(doc, "TTFT (p95)");
  return {
    model: "meta-llama/Llama-3.1-8B-Instruct",
    instanceType: "p5.48xlarge",
    osl: Number(load[1]),
    concurrency: Number(load[2]),
    throughputGainByIsl: gain,
    itlChangeByIsl: itl,
    isl8000: {
      aggregated: { outputTokensPerSecond: tpA, itlMsAvg: itlA, ttftMsMin: minA, ttftMsP95: p95A },
      disaggregated: { outputTokensPerSecond: tpD, itlMsAvg: itlD, ttftMsMin: minD, ttftMsP95: p95D },
    },
    kvTransferMsIsl8000: Number(must(/KV transfer cost: ~(\d+)ms/, doc, "KV transfer cost")[1]),
    kvTransferGBs: Number(
      must(/libfabric \+ GDRCopy \| \*\*\+\d+ms\*\* \| \*\*~([\d.]+) GB\/s\*\*/, doc, "KV rate")[1],
    ),
  };
}

if (require.main === module) {
  const a = checkoutArgs(process.argv.slice(2), "npx tsx tests/contracts/extract/dynamo-disagg-p5.ts");
  printFacts(
    {
      repository: "ai-dynamo/dynamo",
      ref: a.ref,
      commit: a.commit,
      paths: [PATH],
      extracted: today(),
      extractor: `tests/contracts/extract/dynamo-disagg-p5.ts <checkout> --ref ${a.ref} --commit ${a.commit}`,
      notes: withNotes("Measured by NVIDIA on AWS p5.48xlarge; not used for calibration.", a),
    },
    extract(readText(a.root, PATH)),
  );
}
