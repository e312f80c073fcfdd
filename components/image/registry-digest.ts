/**
 * The one request the program makes of a container registry: which manifest digest a tag names now (at `pulumi up`,
 * for ./image-digest.ts). The OCI distribution API, as the Docker provider's registry lookup does it
 * (tests/contracts/facts/registry-digest.json): `HEAD /v2/<name>/manifests/<tag>` accepting the image index and
 * manifest media types; on `401` with a `Bearer` challenge, an anonymous (or basic-auth) token from the challenge's
 * realm for its scope (`repository:<name>:pull` when it names none), then the HEAD again; the digest is the `Docker-Content-Digest` header, or the
 * sha256 of the manifest when a registry sends no header. Self-contained on purpose (only node:crypto): the dynamic
 * provider that calls it is serialized with everything it references.
 */
import { createHash } from "crypto";

/** What `resolveImageDigest` asks. */
export interface DigestQuery {
  /** `host/name` of the repository, e.g. `nvcr.io/nvidia/ai-dynamo/vllm-runtime`. */
  readonly repository: string;
  readonly tag: string;
  /** `https://<host>` unless a test serves the registry elsewhere. */
  readonly endpoint?: string;
  /** `user:password` for the registry (ECR's token); sent only to the registry and its token realm. */
  readonly basicAuth?: string;
}

/** The manifest media types asked for: an index first (a multi-arch tag resolves to its index), then single ones. */
export const MANIFEST_ACCEPT = [
  "application/vnd.oci.image.index.v1+json",
  "application/vnd.docker.distribution.manifest.list.v2+json",
  "application/vnd.oci.image.manifest.v1+json",
  "application/vnd.docker.distribution.manifest.v2+json",
].join(", ");

/** A manifest digest as registries name it. */
export const DIGEST_RULE = /^sha256:[0-9a-f]{64}$/;

/** The registry host and the repository's name in it. */
function split(repository: string): { host: string; name: string } {
  const slash = repository.indexOf("/");
  return { host: repository.slice(0, slash), name: repository.slice(slash + 1) };
}

/** The `realm`, `service` and `scope` of a `Bearer` challenge, or undefined for any other challenge. */
function bearerChallenge(header: string | null): Record<string, string> | undefined {
  if (!header || !/^Bearer\s/i.test(header)) return undefined;
  return Object.fromEntries([...header.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1].toLowerCase(), m[2]]));
}

async function send(url: string, init: RequestInit, what: string, fetchImpl: typeof fetch): Promise<Response> {
  try {
    return await fetchImpl(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(30000) });
  } catch (e) {
    throw new Error(`${what}: ${(e as Error).message} (the program asks the registry at pulumi up)`, { cause: e });
  }
}

/** A token for pulling `name` from the challenge's realm (https only, unless the registry itself is http). */
async function bearerToken(
  challenge: Record<string, string>,
  name: string,
  q: DigestQuery,
  what: string,
  fetchImpl: typeof fetch,
): Promise<string> {
  const realm = new URL(challenge.realm);
  if (realm.protocol !== "https:" && !(q.endpoint ?? "https:").startsWith("http:"))
    throw new Error(`${what}: refusing a token realm that is not https (${realm.origin})`);
  // The challenge's own scope where it names one (what the Docker provider's lookup does), else pull on the name.
  realm.searchParams.set("scope", challenge.scope || `repository:${name}:pull`);
  if (challenge.service) realm.searchParams.set("service", challenge.service);
  const headers: Record<string, string> = { "User-Agent": "dynamo-efa/1" };
  if (q.basicAuth) headers.Authorization = `Basic ${Buffer.from(q.basicAuth).toString("base64")}`;
  const res = await send(realm.toString(), { headers }, what, fetchImpl);
  if (!res.ok) throw new Error(`${what}: the token realm ${realm.origin} answered HTTP ${res.status}`);
  const body = (await res.json()) as { token?: unknown; access_token?: unknown };
  const token = body.token ?? body.access_token;
  if (typeof token !== "string" || token === "") throw new Error(`${what}: the token realm sent no token`);
  return token;
}

/** The digest of an answer: the header, or the sha256 of the body a GET sent. */
async function digestOf(res: Response, method: string): Promise<string | undefined> {
  const header = res.headers.get("docker-content-digest");
  if (header) return header.trim();
  if (method !== "GET") return undefined;
  return `sha256:${createHash("sha256")
    .update(Buffer.from(await res.arrayBuffer()))
    .digest("hex")}`;
}

/**
 * The digest a tag names now. Throws a message naming the image, what the registry said, and the fix (pin the
 * digest in `image.ref`).
 */
export async function resolveImageDigest(q: DigestQuery, fetchImpl: typeof fetch = fetch): Promise<string> {
  const what = `cannot resolve ${q.repository}:${q.tag} to a digest`;
  const { host, name } = split(q.repository);
  const url = `${q.endpoint ?? `https://${host}`}/v2/${name}/manifests/${encodeURIComponent(q.tag)}`;
  let auth: string | undefined = q.basicAuth ? `Basic ${Buffer.from(q.basicAuth).toString("base64")}` : undefined;
  for (const method of ["HEAD", "GET"]) {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const headers: Record<string, string> = { Accept: MANIFEST_ACCEPT, "User-Agent": "dynamo-efa/1" };
      if (auth) headers.Authorization = auth;
      const res = await send(url, { method, headers }, what, fetchImpl);
      const challenge = res.status === 401 ? bearerChallenge(res.headers.get("www-authenticate")) : undefined;
      if (challenge && attempt === 0 && challenge.realm) {
        auth = `Bearer ${await bearerToken(challenge, name, q, what, fetchImpl)}`;
        continue;
      }
      if (res.status === 401 || res.status === 403 || res.status === 404)
        throw new Error(
          `${what}: HTTP ${res.status}: the tag does not exist, or the registry refuses this account; pin image.ref to a digest-pinned reference instead`,
        );
      if (res.status >= 300 && res.status < 400)
        throw new Error(
          `${what}: the registry redirected the manifest request (HTTP ${res.status}), which is not followed`,
        );
      if (!res.ok) throw new Error(`${what}: HTTP ${res.status}; try again, or pin image.ref to a digest`);
      const digest = await digestOf(res, method);
      if (digest === undefined) break; // no header on HEAD: ask with GET and hash the manifest
      if (!DIGEST_RULE.test(digest))
        throw new Error(`${what}: the registry named ${JSON.stringify(digest)}, not a sha256 digest`);
      return digest;
    }
  }
  throw new Error(`${what}: the registry answered without a digest`);
}
