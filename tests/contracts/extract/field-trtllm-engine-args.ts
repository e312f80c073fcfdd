/**
 * Extracts the field's working TensorRT-LLM engine args from its 1-GPU disaggregated manifest
 * (dmvevents/awsome-inference-1 `2.projects/dynamo-inference/k8s/dynamo-combined-disagg-1gpu.yaml`, "Extracted
 * from working deployment"): the "Critical engine args" comment lists each key of the JSON both workers load
 * (`--override-engine-args "$(cat nemotron_disagg_args.json)"`), its value and why the field set it.
 * Usage: npx tsx tests/contracts/extract/field-trtllm-engine-args.ts <checkout> --ref <ref> [--commit <sha>] > tests/contracts/facts/field-trtllm-engine-args.json
 */
import { checkoutArgs, factJson, readText, today, withNotes } from "./_checkout";

export const PATH = "2.projects/dynamo-inference/k8s/dynamo-combined-disagg-1gpu.yaml";

export function extract(text: string) {
  const start = text.indexOf("# Critical engine args");
  if (start < 0) throw new Error(`field-trtllm-engine-args extractor: no "Critical engine args" block in ${PATH}`);
  const args: Record<string, { value: unknown; why: string }> = {};
  for (const line of text.slice(start).split("\n").slice(1)) {
    const m = /^#\s+- (\w+): (.+?)\s+— (.+)$/.exec(line);
    if (!m) break;
    args[m[1]] = { value: JSON.parse(m[2]), why: m[3].trim() };
  }
  return { appliedTo: ["prefill", "decode"], args };
}

if (require.main === module) {
  const args = checkoutArgs(process.argv.slice(2), "field-trtllm-engine-args.ts");
  const provenance = {
    repository: "dmvevents/awsome-inference-1",
    ref: args.ref,
    commit: args.commit,
    paths: [PATH],
    extracted: today(),
    extractor: "tests/contracts/extract/field-trtllm-engine-args.ts",
    notes: withNotes(
      "The field's engine args JSON itself lives on the field's FSx, not in the repository; the manifest's comment is the record. The same JSON is passed to both workers. k8s/dgd-dynamo-combined-trtllm.yaml@816a624a repeats it with enable_block_reuse at the JSON's top level; TensorRT-LLM's field is kv_cache_config.enable_block_reuse (Dynamo's --override-engine-args help text uses that form).",
      args,
    ),
  };
  process.stdout.write(`${factJson({ provenance, facts: extract(readText(args.root, PATH)) })}\n`);
}
