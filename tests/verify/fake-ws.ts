/**
 * The Kubernetes API's WebSocket subresources for the fake cluster (channel protocol v4, as the kubelet serves them
 * through the API server): `portforward` relayed to a local TCP target, so verify reaches the Frontend or Prometheus
 * the way it does in a cluster, and `exec` answering each pod's command with a fixed stdout (stream 1) and a
 * `Success` status (stream 3), as when the command exits 0; a pod without an answer gets a `Failure` status (the
 * command is "not found" there). An upgrade with no target is refused.
 */
import * as http from "node:http";
import * as net from "node:net";
import { Duplex } from "node:stream";

/** The slice of the `ws` package (a dependency of @kubernetes/client-node, untyped here) the fake uses. */
interface WsSocket {
  send(data: Buffer): void;
  close(): void;
  on(event: "message", f: (data: Buffer) => void): void;
  on(event: "close", f: () => void): void;
}
interface WsServer {
  handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer, done: (ws: WsSocket) => void): void;
}
type WsServerCtor = new (o: {
  noServer: true;
  handleProtocols: (protocols: Set<string>) => string | false;
}) => WsServer;

/** What the subresources answer. */
export interface WsTargets {
  /** `portforward` path -> the URL its TCP bytes are relayed to. */
  readonly forwards: Readonly<Record<string, string>>;
  /** `exec` of pods under `podsPath`: pod name -> the command's stdout. */
  readonly execs?: { readonly podsPath: string; readonly stdoutOf: Readonly<Record<string, string>> };
}

/**
 * `portforward`: the first frame of each of stream 0 (data) and 1 (error) carries the port; then stream-0 frames
 * are TCP bytes, relayed to `target`.
 */
function relay(ws: WsSocket, target: string, port: number): void {
  const prefix = (ch: number) => Buffer.from([ch, port & 0xff, port >> 8]);
  ws.send(prefix(0));
  ws.send(prefix(1));
  const t = new URL(target);
  const tcp = net.connect(Number(t.port), t.hostname);
  tcp.on("data", (d) => ws.send(Buffer.concat([Buffer.from([0]), d])));
  tcp.on("close", () => ws.close());
  tcp.on("error", () => ws.close());
  ws.on("message", (m) => (m[0] === 0 ? tcp.write(m.subarray(1)) : undefined));
  ws.on("close", () => tcp.destroy());
}

/** `exec`: the pod's stdout on stream 1, then its status on stream 3. */
function answer(ws: WsSocket, pod: string, stdout: string | undefined): void {
  if (stdout !== undefined) ws.send(Buffer.concat([Buffer.from([1]), Buffer.from(stdout)]));
  const status =
    stdout !== undefined ? { status: "Success" } : { status: "Failure", message: `sh: not found in ${pod}` };
  ws.send(Buffer.concat([Buffer.from([3]), Buffer.from(JSON.stringify(status))]));
  ws.close();
}

/** Serves the `portforward` and `exec` upgrades of `server` from `targets`, recording each request once. */
export function serveWebSockets(
  server: http.Server,
  targets: WsTargets,
  requests: { path: string; body: unknown }[],
): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- `ws` (a dependency of @kubernetes/client-node) ships no type declarations, so an `import` would be untyped; the slice used is typed above
  const { WebSocketServer } = require("ws") as { WebSocketServer: WsServerCtor };
  const wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (p) => (p.has("v4.channel.k8s.io") ? "v4.channel.k8s.io" : false),
  });
  server.on("upgrade", (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const u = new URL(req.url ?? "/", "http://x");
    requests.push({ path: u.pathname + u.search, body: undefined });
    const pod = u.pathname.match(/\/pods\/([^/]+)\/exec$/)?.[1];
    const execs = targets.execs;
    if (pod !== undefined && execs && u.pathname.startsWith(execs.podsPath))
      return wss.handleUpgrade(req, socket, head, (ws) => answer(ws, pod, execs.stdoutOf[pod]));
    const target = targets.forwards[u.pathname];
    if (!target) return void socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => relay(ws, target, Number(u.searchParams.get("ports"))));
  });
}
