/**
 * A fake Hugging Face Hub on 127.0.0.1 for the prefetch script's tests (tests/unit/prefetch.spec.ts): one model's
 * revision listing and file downloads, with the failures the script must survive (a bad token, 429s, a download that
 * stalls halfway, a redirect to a CDN) or must refuse (an empty listing, a truncated body, same-size wrong content,
 * a server that never answers or drips) switched on per test. The listing has the Hub's `?blobs=true` shape
 * (tests/contracts/facts/hf-hub-api.json): `size` and `blobId` (the git blob sha1) on every file, and
 * `lfs: { sha256, size, pointerSize }` on the Git LFS ones (the safetensors).
 */
import { createHash } from "crypto";
import * as http from "http";
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

/** The running fake: what it was asked, and the switches a test sets before the script runs. */
export interface Fake {
  url: string;
  gets: Record<string, number>;
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
  res.writeHead(200, { "Content-Type": "application/json" }).end(
    JSON.stringify({
      sha: f.listingSha ?? SHA,
      siblings: f.emptyListing ? [] : Object.keys(FILES).map((name) => sibling(name, FILES[name])),
    }),
  );
}

/** Where a stalled download is kept (so `close()` can drop it) and whom to tell once its half is sent. */
interface Stall {
  readonly open: Set<http.ServerResponse>;
  readonly sent: () => void;
}

/** One file of the revision: a CDN redirect, the whole file, or (the first time, for `stallFile`) half of it. */
function download(f: Fake, pathname: string, res: http.ServerResponse, stall: Stall): void {
  const m = new RegExp(`^/${MODEL}/resolve/${SHA}/(.+)$`).exec(pathname);
  const body = m ? FILES[decodeURIComponent(m[1])] : undefined;
  if (!m || !body) {
    res.writeHead(404).end();
    return;
  }
  const name = decodeURIComponent(m[1]);
  if (f.cdn) {
    res.writeHead(302, { Location: `${f.cdn}/blobs/${encodeURIComponent(name)}` }).end();
    return;
  }
  f.gets[name] = (f.gets[name] ?? 0) + 1;
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
    return; // never ends: the client is killed while it waits for the rest
  }
  res.end(body);
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

/** Starts the fake on a free port; `close()` also drops a stalled download. */
export async function fakeHf(): Promise<Fake> {
  const open = new Set<http.ServerResponse>();
  let onStall: (() => void) | undefined;
  const f: Fake = {
    url: "",
    gets: {},
    listingFailures: [],
    authorized: 0,
    token: "hf_good",
    close: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    const auth = req.headers.authorization;
    if (auth !== `Bearer ${f.token}`) {
      res.writeHead(auth ? 403 : 401).end("gated");
      return;
    }
    f.authorized += 1;
    const { pathname } = new URL(req.url ?? "/", "http://x");
    if (pathname === `/api/models/${MODEL}/revision/main` || pathname === `/api/models/${MODEL}/revision/${SHA}`)
      listing(f, res, { open, sent: () => onStall?.() });
    else download(f, pathname, res, { open, sent: () => onStall?.() });
  });
  f.stalled = new Promise((resolve) => {
    onStall = resolve;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  f.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  f.close = () =>
    new Promise((resolve) => {
      for (const r of open) r.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return f;
}
