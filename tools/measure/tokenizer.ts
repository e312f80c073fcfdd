/**
 * Where a benchmark Job's tokenizer comes from, and whether the Hugging Face token goes with it. AIPerf sizes its
 * synthetic prompts with the model's tokenizer (`--tokenizer`, AutoTokenizer: a hub id or a local directory,
 * aiperf/common/tokenizer.py). The Job's own init container fetches it from the hub with the prefetch script's
 * METADATA_ONLY mode (the files a model card names: config, tokenizer, tokenizer config; components/inference/
 * prefetch/prefetch.py), into an emptyDir AIPerf reads offline: AIPerf, a third-party tool in a user-chosen image,
 * never holds the token and never reaches the hub. The token goes to that init container only when the tokenizer
 * needs it: the model is gated or private, or the hub could not say. Pure but `hubAccess`, one bounded request.
 */
import { HF_ENDPOINT } from "../../components/inference/hf-commit";

/** Where the init container puts the tokenizer (its CACHE_ROOT; AIPerf reads `modelCacheDir` of it). */
export const TOKENIZER_ROOT = "/tokenizer";
/** Most bytes of the hub's model-info answer read (it lists the repository's files: tens of kB). */
export const MODEL_INFO_MAX_BYTES = 4 * 1024 * 1024;
/** Seconds the question may take. */
export const MODEL_INFO_SECONDS = 15;

/** Whether fetching the tokenizer needs the graph's token, and why (printed by measure). */
export interface HubAccess {
  readonly token: boolean;
  readonly why: string;
}

/**
 * What the hub's public model info (`GET {endpoint}/api/models/{id}`, asked without a token) says about access:
 * `gated` is `false`, `"auto"` or `"manual"` and `private` a boolean (huggingface_hub ModelInfo;
 * tests/contracts/facts/hf-hub-api.json). Anything but a public, ungated answer gives the token: a private model
 * answers 401 or 404 without one, and a hub that cannot be asked leaves the safe side (a gated tokenizer still loads).
 */
export function accessOf(status: number, body: unknown): HubAccess {
  if (status === 401 || status === 403 || status === 404)
    return { token: true, why: `the hub shows the model only with a token (HTTP ${status}: private or gated)` };
  if (status !== 200) return { token: true, why: `the hub answered HTTP ${status}; giving the token to be safe` };
  const info = (typeof body === "object" && body !== null ? body : {}) as { gated?: unknown; private?: unknown };
  if (info.private === true) return { token: true, why: "the model is private" };
  if (info.gated === "auto" || info.gated === "manual")
    return { token: true, why: `the model is gated (${info.gated} approval)` };
  if (info.gated === false && info.private === false) return { token: false, why: "the model is public, not gated" };
  return { token: true, why: "the hub's answer does not say the model is public; giving the token to be safe" };
}

/** Asks the hub whether the model's files need a token; a failure is an answer (`token: true`), never thrown. */
export async function hubAccess(
  model: string,
  endpoint = HF_ENDPOINT,
  fetchImpl: typeof fetch = fetch,
  seconds = MODEL_INFO_SECONDS,
): Promise<HubAccess> {
  try {
    const res = await fetchImpl(`${endpoint}/api/models/${model}`, {
      headers: { "User-Agent": "dynamo-efa/1" },
      redirect: "follow",
      signal: AbortSignal.timeout(seconds * 1000),
    });
    if (res.status !== 200) {
      await res.body?.cancel().catch(() => undefined);
      return accessOf(res.status, undefined);
    }
    return accessOf(200, JSON.parse(await boundedText(res)));
  } catch (e) {
    const why = (e as { name?: string }).name === "TimeoutError" ? `no answer in ${seconds} s` : (e as Error).message;
    return { token: true, why: `could not ask the hub (${why.split("\n")[0]}); giving the token to be safe` };
  }
}

/** The body up to `MODEL_INFO_MAX_BYTES`; past it, an error (the reader is cancelled). */
async function boundedText(res: Response): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > MODEL_INFO_MAX_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new Error(`the answer is larger than ${MODEL_INFO_MAX_BYTES} bytes`);
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}
