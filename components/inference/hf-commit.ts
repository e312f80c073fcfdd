/**
 * The one request the program makes of the Hugging Face hub: which commit a revision of a model names now (at
 * `pulumi up`, for ./model-commit.ts). Self-contained on purpose (no imports): the dynamic provider that calls it is
 * serialized with everything it references and runs in the Pulumi CLI's Node.js provider host.
 */

/**
 * Most bytes of the hub's answer read: the revision endpoint answers the model's info with its file list (`siblings`),
 * tens of kB for a model repository and about 1 MB for one of ten thousand files; 16 MiB is far past any of them. A
 * larger body is refused unread, never buffered (a 1 GiB answer grew the provider host by 2 GiB).
 */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
/** Seconds each request may take, the answer's body included. */
export const REQUEST_TIMEOUT_SECONDS = 30;

/** How long a request may take and how much of its answer is read (the constants above; tests shorten them). */
export interface AnswerLimits {
  readonly seconds: number;
  readonly bytes: number;
}

/** A git commit as the hub names it. */
export const COMMIT_RULE = /^[0-9a-f]{40}$/;
/** Where the program asks (the prefetch's default HF_ENDPOINT; tests/contracts/facts/hf-hub-api.json). */
export const HF_ENDPOINT = "https://huggingface.co";

/** What `resolveCommit` asks. */
export interface CommitQuery {
  readonly endpoint: string;
  readonly model: string;
  readonly revision: string;
  /** Sent only to the endpoint's own scheme, host and port. */
  readonly token?: string;
}

/** (scheme, host, port) of a URL, the port defaulted: what the token is bound to. */
function originOf(url: URL): string {
  return `${url.protocol}//${url.hostname.toLowerCase()}:${url.port || (url.protocol === "https:" ? "443" : "80")}`;
}

/**
 * The commit a revision of a model names now, asked of the hub: redirects followed by hand (at most 5) so the token
 * never leaves the endpoint's origin; 429 and 5xx retried twice; 30 s per request, body included, reported as a
 * timeout; at most `MAX_ANSWER_BYTES` of answer read. Throws a message naming the
 * model, the revision, what the hub said, and the fix.
 */
export async function resolveCommit(
  q: CommitQuery,
  fetchImpl: typeof fetch = fetch,
  limits: AnswerLimits = { seconds: REQUEST_TIMEOUT_SECONDS, bytes: MAX_ANSWER_BYTES },
): Promise<string> {
  const what = `cannot resolve inference.modelRevision "${q.revision}" of ${q.model} to a commit at ${q.endpoint}`;
  const pin = "or pin inference.modelRevision to a 40-hex commit";
  const home = originOf(new URL(q.endpoint));
  let url = new URL(`${q.endpoint}/api/models/${q.model}/revision/${encodeURIComponent(q.revision)}`);
  for (let hop = 0, attempt = 1; hop <= 5;) {
    const headers: Record<string, string> = { "User-Agent": "dynamo-efa/1" };
    if (q.token && originOf(url) === home) headers.Authorization = `Bearer ${q.token}`;
    let res: Response;
    try {
      res = await fetchImpl(url, {
        headers,
        redirect: "manual",
        signal: AbortSignal.timeout(limits.seconds * 1000),
      });
    } catch (e) {
      const why = isTimeout(e) ? `no answer within ${limits.seconds} s (timeout)` : (e as Error).message;
      throw new Error(`${what}: ${why} (the program asks the hub at pulumi up; check the network, ${pin})`, {
        cause: e,
      });
    }
    if (res.status >= 300 && res.status < 400 && res.headers.get("location")) {
      const next = new URL(res.headers.get("location")!, url);
      if (next.protocol === "http:" && home.startsWith("https:"))
        throw new Error(`${what}: refusing a redirect from https to http (${next.origin}${next.pathname})`);
      if (!["http:", "https:"].includes(next.protocol) || next.username || next.password)
        throw new Error(`${what}: refusing a redirect to ${next.protocol} URL ${next.host}`);
      url = next;
      hop += 1;
      continue;
    }
    if ((res.status === 429 || res.status >= 500) && attempt < 3) {
      await new Promise((resolve) => setTimeout(resolve, 1000 * attempt));
      attempt += 1;
      continue;
    }
    return commitOf(res, what, pin, q.token !== undefined, limits);
  }
  throw new Error(`${what}: more than 5 redirects`);
}

/** The `sha` of the hub's answer, or an error saying why there is none. */
async function commitOf(
  res: Response,
  what: string,
  pin: string,
  hadToken: boolean,
  limits: AnswerLimits,
): Promise<string> {
  if (res.status === 401 || res.status === 403 || res.status === 404)
    throw new Error(
      `${what}: HTTP ${res.status}: the model or revision does not exist, or the model is private and ${hadToken ? "the token (dynamo-efa:hfToken) has no access to it" : "the program has no token (set dynamo-efa:hfToken: a token in a Secret named by hfTokenSecretName is not readable here)"}; ${pin}`,
    );
  if (!res.ok) throw new Error(`${what}: HTTP ${res.status}; ${pin}`);
  const text = await boundedText(res, what, pin, limits);
  let sha: unknown;
  try {
    sha = (JSON.parse(text) as { sha?: unknown } | null)?.sha;
  } catch (e) {
    throw new Error(`${what}: the answer is not JSON (is the endpoint a Hugging Face hub?); ${pin}`, { cause: e });
  }
  if (typeof sha !== "string" || !COMMIT_RULE.test(sha))
    throw new Error(`${what}: the answer carries no commit sha (${JSON.stringify(sha)?.slice(0, 80)}); ${pin}`);
  return sha;
}

/** An abort by the request's own deadline (`AbortSignal.timeout`), as fetch and the body's reader report it. */
function isTimeout(e: unknown): boolean {
  const name = (e as { name?: unknown } | null)?.name;
  const cause = (e as { cause?: { name?: unknown } } | null)?.cause?.name;
  return name === "TimeoutError" || cause === "TimeoutError";
}

/** The answer's body as text, read up to `limits.bytes` (a larger one is cancelled unread); a timeout says so. */
async function boundedText(res: Response, what: string, pin: string, limits: AnswerLimits): Promise<string> {
  const declared = Number(res.headers.get("content-length"));
  const tooLarge = (n: string) =>
    new Error(
      `${what}: the answer is larger than ${limits.bytes} bytes (${n}); is the endpoint a Hugging Face hub? ${pin}`,
    );
  if (Number.isFinite(declared) && declared > limits.bytes) {
    await res.body?.cancel().catch(() => undefined);
    throw tooLarge(`Content-Length ${declared}`);
  }
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes > limits.bytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge("stopped reading there");
      }
      chunks.push(value);
    }
  } catch (e) {
    if (!isTimeout(e) && (e as Error).message.startsWith(what)) throw e;
    if (!isTimeout(e))
      throw new Error(`${what}: the answer broke off after ${bytes} bytes (${(e as Error).message}); ${pin}`, {
        cause: e,
      });
    throw new Error(
      `${what}: the answer did not arrive within ${limits.seconds} s (timeout, ${bytes} bytes read); check the network, ${pin}`,
      { cause: e },
    );
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}
