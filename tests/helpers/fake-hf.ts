/**
 * A fake Hugging Face Hub on 127.0.0.1 for the prefetch script's tests (tests/unit/prefetch.spec.ts): one model's
 * revision listing and file downloads, with the failures the script must survive (a bad token, 429s, a download that
 * stalls halfway, a redirect to a CDN) or must refuse (an empty listing, a truncated body, same-size wrong content,
 * a server that never answers or drips) switched on per test. The listing has the Hub's `?blobs=true` shape
 * (tests/contracts/facts/hf-hub-api.json): `size` and `blobId` (the git blob sha1) on every file, and
 * `lfs: { sha256, size, pointerSize }` on the Git LFS ones (the safetensors). It answers the listing of any revision
 * name with its one commit (a branch, a tag, the commit itself), serves plain HTTP or, given a key and certificate,
 * HTTPS, and logs every request with the Authorization header it carried (`requests`).
 */
import { createHash } from "crypto";
import * as http from "http";
import * as https from "https";
import { AddressInfo } from "net";

/** The one model the fake serves, its revision and its files (a sub-folder included). */
export const MODEL = "acme/tiny-llm";
export const SHA = "0123456789abcdef0123456789abcdef01234567";
export const FILES: Record<string, Buffer> = {
  "config.json": Buffer.from('{"model_type": "llama"}'),
  "model-00001-of-00002.safetensors": Buffer.alloc(3 << 20, 7),
  "model-00002-of-00002.safetensors": Buffer.alloc(1 << 20, 9),
  "original/consolidated.00.pth": Buffer.alloc(1024, 1),
};

/** The git blob id of a file: sha1 of "blob <size>\0" + content (what the Hub lists as `blobId`). */
export function gitBlobId(body: Buffer): string {
  return createHash("sha1")
    .update(Buffer.concat([Buffer.from(`blob ${body.length}\0`), body]))
    .digest("hex");
}

/** One listing entry as the Hub sends it with `?blobs=true`. */
export function sibling(rfilename: string, body: Buffer): Record<string, unknown> {
  const lfs = rfilename.endsWith(".safetensors") || rfilename.endsWith(".pth");
  return {
    rfilename,
    size: body.length,
    blobId: gitBlobId(lfs ? Buffer.from(`version https://git-lfs.github.com/spec/v1\n`) : body),
    ...(lfs
      ? { lfs: { sha256: createHash("sha256").update(body).digest("hex"), size: body.length, pointerSize: 134 } }
      : {}),
  };
}

/** One request the fake answered: its path and query, and the Authorization header it carried. */
export interface Seen {
  readonly path: string;
  readonly auth?: string;
}

/** The running fake: what it was asked, and the switches a test sets before the script runs. */
export interface Fake {
  url: string;
  gets: Record<string, number>;
  /** Every request, in order. */
  requests: Seen[];
  /** The files of the revision (a copy of FILES; a test may add or replace some). */
  files: Record<string, Buffer>;
  /** Rewrites the listing before it is sent (a malformed shape, another size); the default listing is its argument. */
  listing?: (standard: { sha: string; siblings: Record<string, unknown>[] }) => unknown;
  /** The listing's body as raw text (not JSON, for instance). */
  listingText?: string;
  /** Every GET of this file sends its body and then endless further bytes (`contentLength`: the header it announces, none when unset). */
  oversizeFile?: { name: string; contentLength?: number };
  /** File downloads answer 302 to the URL this returns for a file name (undefined: served here). */
  redirect?: (name: string) => string | undefined;
  /** Lets a stalled download (`stallFile`) send the rest of its body and end. */
  release(): void;
  /** Status codes to answer the next listing requests with, before answering normally. */
  listingFailures: number[];
  /** Requests that carried the expected token. */
  authorized: number;
  /** When set, the first GET of this file sends half and then stalls; `stalled` resolves at that point. */
  stallFile?: string;
  stalled?: Promise<void>;
  /** Token that has access; others get 403. */
  token: string;
  /** When set, file downloads answer 302 to this base URL (a CDN on another host), as huggingface.co does. */
  cdn?: string;
  /** The commit the listing reports (default SHA). */
  listingSha?: string;
  /** The listing names no files. */
  emptyListing?: boolean;
  /** Every GET of this file sends the first half and ends the response, with no Content-Length. */
  truncateFile?: string;
  /** Every GET of this file sends bytes of the right length but other content. */
  corruptFile?: string;
  /** The listing request is accepted and never answered. */
  hangListing?: boolean;
  /** Every GET of this file sends one byte every 200 ms (a server that drips, never times out a read). */
  dripFile?: string;
  close(): Promise<void>;
}

/** The revision listing, or one of the queued failures (with `Retry-After: 0`, so a retry is immediate). */
function listing(f: Fake, res: http.ServerResponse, stall: Stall): void {
  if (f.hangListing) {
    stall.open.add(res);
    return;
  }
  const code = f.listingFailures.shift();
  if (code !== undefined) {
    res.writeHead(code, { "Retry-After": "0" }).end("slow down");
    return;
  }
  const standard = {
    sha: f.listingSha ?? SHA,
    siblings: f.emptyListing ? [] : Object.keys(f.files).map((name) => sibling(name, f.files[name])),
  };
  const body = f.listingText ?? JSON.stringify(f.listing ? f.listing(standard) : standard);
  res.writeHead(200, { "Content-Type": "application/json" }).end(body);
}

/** Where a stalled download is kept (so `close()` can drop it), whom to tell once its half is sent, and its rest. */
interface Stall {
  readonly open: Set<http.ServerResponse>;
  readonly sent: () => void;
  readonly held: (rest: () => void) => void;
}

/** One file of the revision: a CDN redirect, the whole file, or (the first time, for `stallFile`) half of it. */
function download(f: Fake, pathname: string, res: http.ServerResponse, stall: Stall): void {
  const m = new RegExp(`^/${MODEL}/resolve/${SHA}/(.+)$`).exec(pathname);
  const name = m ? decodeURIComponent(m[1]) : "";
  const body = m && Object.hasOwn(f.files, name) ? f.files[name] : undefined;
  if (!m || !body) {
    res.writeHead(404).end();
    return;
  }
  const elsewhere = f.cdn ? `${f.cdn}/blobs/${encodeURIComponent(name)}` : f.redirect?.(name);
  if (elsewhere) {
    res.writeHead(302, { Location: elsewhere }).end();
    return;
  }
  f.gets[name] = (f.gets[name] ?? 0) + 1;
  if (name === f.oversizeFile?.name) {
    endless(res, body, stall, f.oversizeFile.contentLength);
    return;
  }
  if (name === f.truncateFile) {
    res.writeHead(200).end(body.subarray(0, body.length >> 1)); // chunked, no length: only the listing knows
    return;
  }
  if (name === f.corruptFile) {
    res.writeHead(200, { "Content-Length": String(body.length) }).end(Buffer.alloc(body.length, 0xee));
    return;
  }
  if (name === f.dripFile) {
    drip(res, body, stall);
    return;
  }
  res.writeHead(200, { "Content-Length": String(body.length) });
  if (name === f.stallFile && f.gets[name] === 1) {
    stall.open.add(res);
    res.write(body.subarray(0, body.length >> 1), stall.sent);
    stall.held(() => res.end(body.subarray(body.length >> 1)));
    return; // ends only when the test releases it; else the client is killed while it waits for the rest
  }
  res.end(body);
}

/** Sends `body`, then 1 MiB blocks until the client goes away (a body longer than the listing says). */
function endless(res: http.ServerResponse, body: Buffer, stall: Stall, contentLength?: number): void {
  stall.open.add(res);
  res.writeHead(200, contentLength === undefined ? {} : { "Content-Length": String(contentLength) });
  const block = Buffer.alloc(1 << 20, 0x41);
  const more = () => {
    while (!res.destroyed && res.write(block));
  };
  res.on("drain", more);
  res.write(body);
  more();
}

/** Sends `body` one byte every 200 ms; `close()` drops it. */
function drip(res: http.ServerResponse, body: Buffer, stall: Stall): void {
  stall.open.add(res);
  res.writeHead(200, { "Content-Length": String(body.length) });
  let i = 0;
  const t = setInterval(() => {
    if (res.destroyed || i >= body.length) {
      clearInterval(t);
      return;
    }
    res.write(body.subarray(i, i + 1));
    i += 1;
  }, 200);
  res.on("close", () => clearInterval(t));
}

/** HTTPS instead of HTTP: the server's key and certificate (PEM). */
export interface Tls {
  readonly key: string;
  readonly cert: string;
}

/** Starts the fake on a free port of 127.0.0.1; `close()` also drops a stalled download. */
export async function fakeHf(tls?: Tls): Promise<Fake> {
  const open = new Set<http.ServerResponse>();
  let onStall: (() => void) | undefined;
  let rest: (() => void) | undefined;
  const f: Fake = {
    url: "",
    gets: {},
    requests: [],
    files: { ...FILES },
    listingFailures: [],
    authorized: 0,
    token: "hf_good",
    release: () => rest?.(),
    close: async () => undefined,
  };
  const stall: Stall = { open, sent: () => onStall?.(), held: (r) => (rest = r) };
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const auth = req.headers.authorization;
    f.requests.push({ path: req.url ?? "/", ...(auth === undefined ? {} : { auth }) });
    if (auth !== `Bearer ${f.token}`) {
      res.writeHead(auth ? 403 : 401).end("gated");
      return;
    }
    f.authorized += 1;
    const { pathname } = new URL(req.url ?? "/", "http://x");
    if (pathname.startsWith(`/api/models/${MODEL}/revision/`)) listing(f, res, stall);
    else download(f, pathname, res, stall);
  };
  const server = tls ? https.createServer({ key: tls.key, cert: tls.cert }, handler) : http.createServer(handler);
  f.stalled = new Promise((resolve) => {
    onStall = resolve;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  f.url = `${tls ? "https" : "http"}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  f.close = () =>
    new Promise((resolve) => {
      for (const r of open) r.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return f;
}
