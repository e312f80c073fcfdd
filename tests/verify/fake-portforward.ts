/**
 * The Kubernetes API's `portforward` subresource for the fake cluster: a WebSocket (channel protocol v4)
 * relayed to a local TCP target, so verify reaches the Frontend or Prometheus the way it does in a cluster.
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

/**
 * Serves `portforward` like the kubelet does through the API server (channel protocol v4): the first
 * frame of each of stream 0 (data) and 1 (error) carries the port; then stream-0 frames are TCP bytes,
 * relayed here to `target` (the fake Frontend).
 */
export function servePortForward(
  server: http.Server,
  targets: Readonly<Record<string, string>>,
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
    if (u.pathname.endsWith("/exec")) return; // fake-exec.ts answers it
    const target = targets[u.pathname];
    if (!target) return void socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => {
      const port = Number(u.searchParams.get("ports"));
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
    });
  });
}
