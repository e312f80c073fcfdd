/**
 * Extracts the Prometheus series vLLM's NIXL connector registers (`NixlPromMetrics`), which `measure` reads to
 * put the KV bytes NIXL moved beside the plan's rate:
 *   npx tsx tests/contracts/extract/vllm-nixl-metrics.ts <checkout> --ref <ref> [--commit <sha>] [--notes <text>]
 * from `vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py`: each `self._histogram_cls(name=...)`
 * and `self._counter_cls(name=...)`, with its kind (a histogram exports `_sum`, `_count` and `_bucket`; a counter
 * `_total`).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { checkoutArgs, printFacts } from "./_checkout";

const FILE = "vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py";

export function extract(root: string): Record<string, unknown> {
  const src = readFileSync(join(root, FILE), "utf8");
  const start = src.indexOf("class NixlPromMetrics(");
  if (start < 0) throw new Error(`class NixlPromMetrics not found in ${FILE}`);
  const body = src.slice(start);
  const series: Record<string, "histogram" | "counter"> = {};
  for (const m of body.matchAll(/self\._(histogram|counter)_cls\(\s*name="([^"]+)"/g))
    series[m[2]!] = m[1] as "histogram" | "counter";
  return { series };
}

if (require.main === module) {
  const a = checkoutArgs(process.argv.slice(2), "npx tsx tests/contracts/extract/vllm-nixl-metrics.ts");
  printFacts(
    {
      repository: "vllm-project/vllm",
      ref: a.ref,
      commit: a.commit,
      paths: [FILE],
      extracted: new Date().toISOString().slice(0, 10),
      extractor: `tests/contracts/extract/vllm-nixl-metrics.ts <checkout> --ref ${a.ref} --commit ${a.commit}`,
      ...(a.notes ? { notes: a.notes } : {}),
    },
    extract(a.root),
  );
}
