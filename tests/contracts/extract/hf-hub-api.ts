/**
 * Extracts the Hugging Face Hub HTTP API the prefetch script speaks, from huggingface_hub (the client vLLM itself
 * uses): the default endpoint and its HF_ENDPOINT override, the file download URL template, the model-info URL of
 * a revision with its `blobs` parameter (file sizes), the JSON keys of the listing (`sha`, `siblings[].rfilename`,
 * `siblings[].size`, `siblings[].blobId` = the git blob id, `siblings[].lfs.sha256` and `.lfs.size` of Git LFS files:
 * what the prefetch verifies each file against; `sha` is the commit the revision names, which the program pins once
 * per deployment), and the offline switch the engines read.
 * Usage: npx tsx tests/contracts/extract/hf-hub-api.ts <huggingface_hub checkout> --ref main [--commit <sha>] > tests/contracts/facts/hf-hub-api.json
 */
import { checkoutArgs, matcher, printFacts, readText, today, withNotes } from "./_checkout";

export const PATHS = { constants: "src/huggingface_hub/constants.py", api: "src/huggingface_hub/hf_api.py" } as const;

const must = matcher("hf-hub-api");

export function extract(read: (p: string) => string) {
  const c = read(PATHS.constants);
  const api = read(PATHS.api);
  const modelInfo = api.slice(api.indexOf("def model_info("), api.indexOf("def dataset_info("));
  const modelInfoClass = api.slice(
    api.indexOf("class ModelInfo:"),
    api.indexOf("\nclass ", api.indexOf("class ModelInfo:")),
  );
  return {
    defaultEndpoint: must(/_HF_DEFAULT_ENDPOINT = "([^"]+)"/, c, "_HF_DEFAULT_ENDPOINT")[1],
    endpointEnv: must(/ENDPOINT = os\.getenv\("([A-Z_]+)", _HF_DEFAULT_ENDPOINT\)/, c, "ENDPOINT env")[1],
    resolveUrl: `{endpoint}${must(/HUGGINGFACE_CO_URL_TEMPLATE = ENDPOINT \+ "([^"]+)"/, c, "HUGGINGFACE_CO_URL_TEMPLATE")[1]}`,
    modelRevisionUrl:
      must(
        /f"\{self\.endpoint\}(\/api\/models\/\{repo_id\}\/revision\/)\{quote\(revision, safe=''\)\}"/,
        modelInfo,
        "model_info revision path",
      )[1].replace(/^/, "{endpoint}") + "{revision}",
    blobsParam: /params\["blobs"\] = True/.test(modelInfo),
    listingKeys: {
      sha: /self\.sha = kwargs\.pop\("sha", None\)/.test(api),
      // ModelInfo's docstring: the listing's sha is the commit the asked revision names (what ModelCommit pins).
      shaIsRevisionCommit: /sha \(`str`, \*optional\*\):\s+Repo SHA at this particular revision\./.test(modelInfoClass),
      siblingFile: must(/rfilename=sibling\["(rfilename)"\]/, api, "sibling rfilename")[1],
      siblingSize: must(/size=sibling\.get\("(size)"\)/, api, "sibling size")[1],
      siblingBlobId: must(/blob_id=sibling\.get\("(blobId)"\)/, api, "sibling blobId")[1],
      siblingLfs: must(/if sibling\.get\("(lfs)"\)/, api, "sibling lfs")[1],
      lfsSha256: must(/sha256=sibling\["lfs"\]\["(sha256)"\]/, api, "lfs sha256")[1],
      lfsSize: must(/size=sibling\["lfs"\]\["(size)"\]/, api, "lfs size")[1],
    },
    // ModelInfo's access fields, which measure reads (without a token) to give the graph's token to the benchmark's
    // tokenizer download only for a gated or private model (tools/measure/tokenizer.ts).
    modelInfoUrl: `{endpoint}${must(/f"\{self\.endpoint\}(\/api\/models\/\{repo_id\})"/, modelInfo, "model_info path")[1]}`,
    access: {
      // The docstring's type, `Literal["auto", "manual", False]`, spelled as the JSON the hub sends.
      gatedValues: must(/gated \(`Literal\["auto", "manual", False\]`/, modelInfoClass, "ModelInfo.gated's values")
        ? ["auto", "manual", false]
        : [],
      gatedKey: must(/self\.gated = kwargs\.pop\("(gated)"/, modelInfoClass, "ModelInfo.gated")[1],
      privateKey: must(/self\.private = kwargs\.pop\("(private)"/, modelInfoClass, "ModelInfo.private")[1],
    },
    offlineEnv: must(/HF_HUB_OFFLINE = _is_true\(os\.environ\.get\("([A-Z_]+)"\)/, c, "HF_HUB_OFFLINE")[1],
  };
}

if (require.main === module) {
  const args = checkoutArgs(process.argv.slice(2), "hf-hub-api.ts");
  printFacts(
    {
      repository: "huggingface/huggingface_hub",
      ref: args.ref,
      commit: args.commit,
      paths: Object.values(PATHS),
      extracted: today(),
      extractor: "tests/contracts/extract/hf-hub-api.ts",
      notes: withNotes(
        "The Hub's HTTP API as its own client calls it. Status codes (401/403 gated or no access, 404 not found or hidden, 429 rate limit, Retry-After) are the Hub's documented HTTP behaviour, not extracted here.",
        args,
      ),
    },
    extract((p) => readText(args.root, p)),
  );
}
