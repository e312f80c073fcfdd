/**
 * The plumbing every fake server of the verify tests shares: a plain HTTP server on 127.0.0.1 (an
 * ephemeral port) that records what it was asked, JSON answers, and back-pressured bulk writes.
 */
import * as http from "node:http";

/** A running fake: its URL, what it received, and how to stop it. */
export interface Fake {
  readonly url: string;
  /** Request bodies received, in order. */
  readonly requests: { path: string; body: unknown }[];
  close(): Promise<void>;
}

/** Listens on an ephemeral port of 127.0.0.1; resolves to the server's URL. */
export function listen(server: http.Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`)),
  );
}

/** Stops the server, cutting open connections (a hanging stream must not keep a test waiting). */
export function closer(server: http.Server): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

/** The request body as text. */
export function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let s = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (s += c));
    req.on("end", () => resolve(s));
  });
}

/** Answers `status` with `body` as JSON. */
export function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** Writes `piece` `n` times, respecting back-pressure, until the client hangs up. */
export function writeMany(res: http.ServerResponse, piece: string, n: number): void {
  let i = 0;
  const more = () => {
    while (i < n && !res.destroyed) {
      i++;
      if (!res.write(piece)) return void res.once("drain", more);
    }
    res.end();
  };
  res.on("error", () => undefined);
  more();
}
