/**
 * A vendor image's digest, resolved once and kept in state (components/image/image-digest.ts and registry-digest.ts),
 * against fake registries on loopback, as the Docker provider's lookup does it (tests/contracts/facts/
 * registry-digest.json): HEAD with the manifest media types; a Bearer challenge answered with a token from its realm
 * (its scope, or pull on the name); GET and the manifest's sha256 when HEAD names no digest; a clear error naming
 * the image and the fix otherwise. The provider resolves on create only, and is replaced only when the repository,
 * the tag or the registry changes: a rotated ECR token or an unrelated `pulumi up` keeps the digest.
 */
import { strict as assert } from "assert";
import { createHash } from "crypto";
import * as http from "http";
import type { AddressInfo } from "net";
import { loadFacts } from "../contracts/facts";
import { imageDigestProvider } from "../../components/image/image-digest";
import { MANIFEST_ACCEPT, resolveImageDigest } from "../../components/image/registry-digest";

const F = loadFacts<{
  manifestPath: string;
  firstMethod: string;
  digestHeader: string;
  tokenFields: string[];
  bodySha256WithoutHeader: boolean;
}>("registry-digest").facts;
const DIGEST = `sha256:${"ab".repeat(32)}`;
const MANIFEST = '{"schemaVersion":2,"manifests":[]}';
const REPO = "nvcr.io/nvidia/ai-dynamo/vllm-runtime";

interface Seen {
  method: string;
  url: string;
  auth?: string;
  accept?: string;
}

/** A fake registry: `mode` says how it answers the manifest request. */
async function registry(mode: "open" | "bearer" | "no-header" | "missing" | "bad-digest" | "redirect") {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method!, url: req.url!, auth: req.headers.authorization, accept: req.headers.accept });
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (req.url!.startsWith("/token")) {
      res.writeHead(200, { "Content-Type": "application/json" });
      return void res.end(JSON.stringify({ token: "t0k" }));
    }
    if (mode === "missing") return void res.writeHead(404).end();
    if (mode === "redirect") return void res.writeHead(307, { Location: "http://elsewhere.invalid/x" }).end();
    if (mode === "bearer" && req.headers.authorization !== "Bearer t0k") {
      res.writeHead(401, {
        "WWW-Authenticate": `Bearer realm="${base}/token",service="registry",scope="repository:nvidia/ai-dynamo/vllm-runtime:pull"`,
      });
      return void res.end();
    }
    const headers: Record<string, string> = { "Content-Type": "application/vnd.oci.image.index.v1+json" };
    if (mode !== "no-header") headers["Docker-Content-Digest"] = mode === "bad-digest" ? "md5:xyz" : DIGEST;
    res.writeHead(200, headers);
    res.end(req.method === "GET" ? MANIFEST : undefined);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe("image: a vendor tag resolved to its digest once, kept in state", () => {
  it("the facts: HEAD the manifest, the digest header, token or access_token, the body's sha256 without a header", () => {
    assert.deepEqual([F.firstMethod, F.manifestPath, F.digestHeader], ["HEAD", "/manifests/", "Docker-Content-Digest"]);
    assert.deepEqual(F.tokenFields, ["token", "access_token"]);
    assert.ok(F.bodySha256WithoutHeader);
  });

  it("an open registry: one HEAD with the index and manifest media types, the header's digest", async () => {
    const r = await registry("open");
    try {
      assert.equal(await resolveImageDigest({ repository: REPO, tag: "1.6.2-efa", endpoint: r.endpoint }), DIGEST);
      assert.deepEqual(
        r.seen.map((s) => [s.method, s.url, s.accept]),
        [["HEAD", "/v2/nvidia/ai-dynamo/vllm-runtime/manifests/1.6.2-efa", MANIFEST_ACCEPT]],
      );
    } finally {
      await r.close();
    }
  });

  it("a Bearer challenge (nvcr.io): an anonymous token for the challenge's scope, then the HEAD again", async () => {
    const r = await registry("bearer");
    try {
      assert.equal(await resolveImageDigest({ repository: REPO, tag: "1.6.2-efa", endpoint: r.endpoint }), DIGEST);
      const token = r.seen.find((s) => s.url.startsWith("/token"))!;
      assert.match(token.url, /scope=repository%3Anvidia%2Fai-dynamo%2Fvllm-runtime%3Apull/);
      assert.match(token.url, /service=registry/);
      assert.equal(token.auth, undefined, "anonymous");
      assert.equal(r.seen.at(-1)!.auth, "Bearer t0k");
    } finally {
      await r.close();
    }
  });

  it("no digest header: a GET, and the manifest's sha256", async () => {
    const r = await registry("no-header");
    try {
      const want = `sha256:${createHash("sha256").update(MANIFEST).digest("hex")}`;
      assert.equal(await resolveImageDigest({ repository: REPO, tag: "t", endpoint: r.endpoint }), want);
      assert.deepEqual(
        r.seen.map((s) => s.method),
        ["HEAD", "GET"],
      );
    } finally {
      await r.close();
    }
  });

  it("basic credentials (an ECR token) go to the registry", async () => {
    const r = await registry("open");
    try {
      await resolveImageDigest({ repository: REPO, tag: "t", endpoint: r.endpoint, basicAuth: "AWS:secret" });
      assert.equal(r.seen[0].auth, `Basic ${Buffer.from("AWS:secret").toString("base64")}`);
    } finally {
      await r.close();
    }
  });

  for (const [mode, message] of [
    ["missing", /cannot resolve nvcr\.io\/nvidia\/ai-dynamo\/vllm-runtime:t to a digest: HTTP 404: .*pin image\.ref/],
    ["bad-digest", /named "md5:xyz", not a sha256 digest/],
    ["redirect", /redirected the manifest request \(HTTP 307\), which is not followed/],
  ] as const)
    it(`${mode}: a clear error naming the image`, async () => {
      const r = await registry(mode);
      try {
        await assert.rejects(resolveImageDigest({ repository: REPO, tag: "t", endpoint: r.endpoint }), message);
      } finally {
        await r.close();
      }
    });

  it("the provider resolves on create, and is replaced only when the repository, the tag or the registry changes", async () => {
    const r = await registry("open");
    try {
      const inputs = { repository: REPO, tag: "1.6.2-efa", endpoint: r.endpoint };
      const made = await imageDigestProvider.create(inputs);
      assert.deepEqual(made.outs, { repository: REPO, tag: "1.6.2-efa", digest: DIGEST, ref: `${REPO}@${DIGEST}` });
      const diff = (news: object) =>
        imageDigestProvider.diff!("id", { ...inputs, basicAuth: "AWS:a" }, { ...inputs, ...news });
      assert.deepEqual(await diff({ basicAuth: "AWS:b" }), {
        changes: false,
        replaces: [],
        deleteBeforeReplace: false,
      });
      assert.deepEqual((await diff({ tag: "1.6.3-efa" })).replaces, ["tag"]);
      assert.deepEqual((await diff({ repository: `${REPO}x` })).replaces, ["repository"]);
      assert.equal(imageDigestProvider.update, undefined, "no update: a kept digest is never re-read");
      assert.equal(imageDigestProvider.read, undefined, "no refresh from the registry");
    } finally {
      await r.close();
    }
  });
});
