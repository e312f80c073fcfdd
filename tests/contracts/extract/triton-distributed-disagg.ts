/**
 * Extracts NVIDIA's early disaggregated-against-aggregated measurement of Llama-3.1-70B FP8 on H100 from
 * triton-inference-server/triton_distributed (Dynamo's predecessor) `examples/llm/vllm/benchmark/README.md`: the
 * workload (ISL, OSL, the model), each layout's configuration (prefill and decode workers, their tensor and data
 * parallelism), concurrency, output tokens/s per GPU, TTFT and ITL. The serving estimate's held-out set
 * (serving/validation.ts) compares against them; nothing is fitted on them.
 * Usage: npx tsx tests/contracts/extract/triton-distributed-disagg.ts <triton_distributed checkout> --ref main [--commit <sha>]
 *        > serving/published/triton-distributed-disagg.json
 */
import { checkoutArgs, matcher, printFacts, readText, today, withNotes } from "./_checkout";

export const PATH = "examples/llm/vllm/benchmark/README.md";

const must = matcher("triton-distributed-disagg");

/** `tpXdpY` as tensor parallel X and Y workers. */
const parallel = (s: string) => {
  const m = must(/tp(\d+)dp(\d+)/, s, `parallelism in ${s}`);
  return { tensorParallel: Number(m[1]), workers: Number(m[2]) };
};

/** One results row: `| label | configuration | concurrency | per request | per GPU | TTFT | ITL |`. */
function row(doc: string, label: string) {
  const n = "\\s*([\\d.]+)\\s*";
  const m = must(
    new RegExp(`^\\| ${label}\\s*\\|\\s*(\\S+)\\s*\\|${n}\\|${n}\\|${n}\\|${n}\\|${n}\\|`, "m"),
    doc,
    label,
  );
  return {
    configuration: m[1]!,
    concurrency: Number(m[2]),
    outputTokensPerSecondPerRequest: Number(m[3]),
    outputTokensPerSecondPerGpu: Number(m[4]),
    ttftMs: Number(m[5]),
    itlMs: Number(m[6]),
  };
}

export function extract(doc: string) {
  must(/two\s+8 x H100 GPU nodes/, doc, "the hardware");
  const d = row(doc, "disagg");
  const b = row(doc, "baseline");
  const [, context, generate] = must(/context_(tp\d+dp\d+)_generate_(tp\d+dp\d+)/, d.configuration, "the disagg split");
  return {
    model: must(/--tokenizer (\S+)/, doc, "the model")[1],
    gpu: "H100",
    isl: Number(must(/--synthetic-input-tokens-mean (\d+)/, doc, "ISL")[1]),
    osl: Number(must(/--output-tokens-mean (\d+)/, doc, "OSL")[1]),
    disaggregated: { prefill: parallel(context!), decode: parallel(generate!), ...d },
    aggregated: { worker: parallel(b.configuration), ...b },
  };
}

if (require.main === module) {
  const a = checkoutArgs(process.argv.slice(2), "npx tsx tests/contracts/extract/triton-distributed-disagg.ts");
  printFacts(
    {
      repository: "triton-inference-server/triton_distributed",
      ref: a.ref,
      commit: a.commit,
      paths: [PATH],
      extracted: today(),
      extractor: `tests/contracts/extract/triton-distributed-disagg.ts <checkout> --ref ${a.ref} --commit ${a.commit}`,
      notes: withNotes(
        "NVIDIA's 'early measurements' (the README: 'not fully optimized'), vLLM, genai-perf closed loop, ISL/OSL fixed; each layout at the concurrency where it keeps ~50 tokens/s per user. The values were read from the stored copy of the file at this commit (the extractor was run on that copy's text). Held out: the serving estimate is never fitted on it.",
        a,
      ),
    },
    extract(readText(a.root, PATH)),
  );
}
