/**
 * Extracts how a Dynamo worker publishes its model card and how the Frontend loads it: when the card keeps the
 * worker's local file paths (its `--model` exists on its disk) and when it is rewritten to `hf://` URLs; that the
 * Frontend uses the card's files where they exist on its own disk and otherwise downloads by the card's source
 * path; that offline it first looks in its hub cache (HF_HUB_CACHE, then HF_HOME/hub); and that the Frontend's
 * `/health` answers 200 whatever it has loaded. Each fact carries the `path:line` it was read at.
 * Usage: npx tsx tests/contracts/extract/dynamo-model-card.ts <ai-dynamo/dynamo checkout> --ref main [--commit <sha>]
 */
import { checkoutArgs, dynamoProvenance, matcher, printFacts, readText } from "./_checkout";

export const PATHS = {
  localModel: "lib/llm/src/local_model.rs",
  modelCard: "lib/llm/src/model_card.rs",
  bindings: "lib/bindings/python/rust/lib.rs",
  hub: "lib/llm/src/hub.rs",
  watcher: "lib/llm/src/discovery/watcher.rs",
  health: "lib/llm/src/http/service/health.rs",
} as const;

const must = matcher("dynamo-model-card");

/** `path:line` of the first match of `re` in the file. */
function at(read: (p: string) => string, path: string, re: RegExp, what: string): string {
  const text = read(path);
  const m = must(re, text, what);
  return `${path}:${text.slice(0, m.index).split("\n").length}`;
}

/** The facts, read from a checkout. */
export function extract(root: string): Record<string, unknown> {
  const read = (p: string) => readText(root, p);
  return {
    // local_model.rs `attach`: the hf:// rewrite happens only when the source path is not on the worker's disk.
    cardRewrittenToHfOnlyWhenSourceMissing: at(
      read,
      PATHS.localModel,
      /if !source_path\.exists\(\) \{[\s\S]{0,900}?\.move_to_url\(&format!\("hf:\/\/\{\}\/", self\.card\.source_path\(\)\)\)/,
      "the hf:// rewrite guarded by !source_path.exists()",
    ),
    // bindings `register_model`: the card's source path is the worker's `--model` (model_path) unless LoRA.
    workerSourcePathIsModelArg: at(
      read,
      PATHS.bindings,
      /let inner_path = model_path\.to_string\(\);[\s\S]{0,1500}?_ => \(inner_path, None\)/,
      "source_path = model_path",
    ),
    // model_card.rs `download_config`: local files win; otherwise from_hf(source_path), config files only.
    frontendUsesLocalFilesFirst: at(
      read,
      PATHS.modelCard,
      /if self\.has_local_files\(\) \{[\s\S]{0,700}?crate::hub::from_hf\(self\.source_path\(\), ignore_weights\)/,
      "download_config: has_local_files before from_hf(source_path)",
    ),
    frontendCallsDownloadConfig: at(read, PATHS.watcher, /card\.download_config\(\)\.await\?/, "download_config call"),
    offlineReadsHubCacheFirst: at(
      read,
      PATHS.hub,
      /if is_offline_mode\(\) \{\s*if let Some\(cached_path\) = get_cached_model_path/,
      "HF_HUB_OFFLINE cache lookup",
    ),
    hubCacheDirOrder: (() => {
      const hub = read(PATHS.hub);
      const body = must(/fn get_model_express_cache_dir\(\)[\s\S]*?\n\}/, hub, "get_model_express_cache_dir")[0];
      const order = [...body.matchAll(/env_model::huggingface::(HF_HUB_CACHE|HF_HOME)/g)].map((m) => m[1]);
      if (/join\("hub"\)/.test(body) && order.includes("HF_HOME")) order[order.indexOf("HF_HOME")] = "HF_HOME/hub";
      return order;
    })(),
    // model_card.rs `from_repo_checkout`: the files a card names (each `CheckedFile::from_disk(directory.join(..))`),
    // which the Frontend reads; the prefetch's METADATA_ONLY fetches exactly these.
    cardFiles: [
      ...new Set(
        [...read(PATHS.modelCard).matchAll(/CheckedFile::from_disk\(directory\.join\("([^"]+)"\)\)/g)].map((m) => m[1]),
      ),
    ].sort(),
    healthAlways200: at(
      read,
      PATHS.health,
      /async fn health_handler\([\s\S]*?\(\s*StatusCode::OK,\s*Json\(json!\(\{\s*"status": "healthy"/,
      "health_handler answers OK unconditionally",
    ),
  };
}

if (require.main === module) {
  const a = checkoutArgs(process.argv.slice(2), "dynamo-model-card.ts");
  printFacts(dynamoProvenance(a, PATHS, "dynamo-model-card.ts"), extract(a.root));
}
