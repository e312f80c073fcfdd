/**
 * A fake Hugging Face Hub on 127.0.0.1 for the prefetch script's tests (tests/unit/prefetch.spec.ts): one model's
 * revision listing and file downloads, with the failures the script must survive (a bad token, 429s, a download that
 * stalls halfway, a redirect to a CDN) switched on per test.
 */
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
  close(): Promise<void>;
}

/** The revision listing, or one of the queued failures (with `Retry-After: 0`, so a retry is immediate). */
function listing(f: Fake, res: http.ServerResponse): void {
  const code = f.listingFailures.shift();
  if (code !== undefined) {
    res.writeHead(code, { "Retry-After": "0" }).end("slow down");
    return;
  }
  res.writeHead(200, { "Content-Type": "application/json" }).end(
    JSON.stringify({
      sha: SHA,
      siblings: Object.keys(FILES).map((rfilename) => ({ rfilename, size: FILES[rfilename].length })),
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
  res.writeHead(200, { "Content-Length": String(body.length) });
  if (name === f.stallFile && f.gets[name] === 1) {
    stall.open.add(res);
    res.write(body.subarray(0, body.length >> 1), stall.sent);
    return; // never ends: the client is killed while it waits for the rest
  }
  res.end(body);
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
    if (pathname === `/api/models/${MODEL}/revision/main`) listing(f, res);
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
