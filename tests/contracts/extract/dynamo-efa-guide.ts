/**
 * Extracts what Dynamo's EFA guide (`docs/kubernetes/cloud-providers/eks/efa.md`, "Verification") checks in a
 * running worker, which verify's gate G reads the same way: the NIXL plugin library grepped in
 * `/proc/<pid>/maps`, the mapping that proves it runs ("r-xp") against the one that only opened it ("r--p"), the
 * NIXL metrics it reads (bytes moved, failed transfers), the prefix vLLM publishes them under, and the guide's
 * word on IPC_LOCK.
 * Usage: npx tsx tests/contracts/extract/dynamo-efa-guide.ts <ai-dynamo/dynamo checkout> --ref main --commit <sha> > tests/contracts/facts/dynamo-efa-guide.json
 */
import { checkoutArgs, matcher, printFacts, readText, today, withNotes } from "./_checkout";

export const FILE = "docs/kubernetes/cloud-providers/eks/efa.md";

const must = matcher("dynamo-efa-guide");

/** The facts, from the guide's text. */
export function extract(text: string) {
  const verification = text.slice(must(/^## Verification$/m, text, "## Verification").index);
  return {
    pluginLibrary: must(/grep "(libplugin_[A-Z]+)" \/proc\/\$\([^)]*\)\/maps/, verification, "maps grep")[1],
    executableMapping: must(/ending in "([rwxp-]{4})"\s+\(executable/, verification, "executable mapping")[1],
    openedOnlyMapping: must(/If only "([rwxp-]{4})"\s*: library opened but never run/, verification, "r--p")[1],
    metrics: must(/grep -E "([a-z_|]+)"/, verification, "metrics grep")[1].split("|"),
    vllmMetricPrefix: must(
      /same metrics with the `([a-z]+:)` prefix are also published to vLLM/,
      verification,
      "prefix",
    )[1],
    ipcLockAloneInsufficient: /IPC_LOCK alone is insufficient/.test(text),
  };
}

if (require.main === module) {
  const args = checkoutArgs(process.argv.slice(2), "dynamo-efa-guide.ts");
  printFacts(
    {
      repository: "ai-dynamo/dynamo",
      ref: args.ref,
      commit: args.commit,
      paths: [FILE],
      extracted: today(),
      extractor: "tests/contracts/extract/dynamo-efa-guide.ts",
      notes: withNotes(
        "Added by PR #9521 (merged 2026-05-14). Read with the index's read_file at this main commit; the securityContext block and the Verification section were saved verbatim into a scratch checkout and this extractor run on it. The guide runs workers privileged; this project keeps them unprivileged and raises RLIMIT_MEMLOCK instead (facts/nodeadm-nodeconfig.json). vLLM's own metric definitions (NixlPromMetrics: histogram vllm:nixl_bytes_transferred, counter vllm:nixl_num_failed_transfers) were read in a stored source file whose repository and commit the index did not name: not pinned here.",
        args,
      ),
    },
    extract(readText(args.root, FILE)),
  );
}
