/**
 * What `inference.model` and `inference.modelRevision` may be: one rule for the render's validation and the
 * in-cluster prefetch (`./prefetch/prefetch.py` carries the same expressions; tests/unit/model-id.spec.ts checks
 * they are character for character the same and runs both over the same cases). A model id the prefetch would
 * refuse must fail the render, not every worker at deploy time. Pure.
 *
 * The id is Hugging Face's `namespace/repo_name` (huggingface_hub `validate_repo_id`: letters, digits, "_", "-",
 * "."; starts and ends with a letter, digit or "_"; at most 96 characters; no "--" or ".."), with the namespace
 * required: the prefetch's listing URL and its cache directory (`org--name`, hence no "--") need both parts. Not a
 * path: the engine gets a local path only from the model cache, never from the user.
 */

/** The revision when none is set: the model's default branch, which moves (the plan says so). Also the script's default. */
export const DEFAULT_MODEL_REVISION = "main";

/** A Hugging Face model id, `org/name`. */
export const MODEL_ID_RULE =
  /^(?!.*--)(?!.*\.\.)(?=[^/]{1,96}\/[^/]{1,96}$)[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?\/[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?$/;

/** A branch, tag or commit the prefetch can use as one directory name (no "/"). */
export const REVISION_RULE = /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,126}[A-Za-z0-9_])?$/;

/** A full commit hash: the only revision that pins the weights (a branch moves). */
export const COMMIT_RULE = /^[0-9a-f]{40}$/;

/** Why `id` is not a model id the prefetch and the engines accept, or undefined when it is. */
export function modelIdProblem(id: string): string | undefined {
  if (MODEL_ID_RULE.test(id)) return undefined;
  const parts = id.split("/");
  const hint =
    id.startsWith("/") || id.startsWith(".")
      ? "a local path is not a model id: the model cache (inference.modelCacheMode) puts the weights on the nodes"
      : parts.length > 2
        ? `an id has exactly one "/" (did you mean ${JSON.stringify(parts.slice(-2).join("/"))}?)`
        : parts.length < 2
          ? 'an id names its organization, "org/name" (e.g. "meta-llama/Llama-3.1-8B-Instruct")'
          : 'each part: letters, digits, "_", "-", "." (starting and ending with a letter, digit or "_", at most 96), no "--" or ".."';
  return `must be a Hugging Face model id "org/name"; got ${JSON.stringify(id)}: ${hint}`;
}

/** Why `rev` is not a usable revision, or undefined when it is. */
export function revisionProblem(rev: string): string | undefined {
  if (REVISION_RULE.test(rev)) return undefined;
  return `must be a 40-hex commit (pins the weights) or a branch or tag without "/" (e.g. "main"); got ${JSON.stringify(rev)}`;
}
