/**
 * The Kubernetes API's `exec` subresource for the fake cluster: a WebSocket (channel protocol v4) that answers
 * each pod's command with a fixed stdout (stream 1) and a `Success` status (stream 3), as the kubelet does when the
 * command exits 0. Pods without an answer get a `Failure` status (the command is "not found" there).
 */
import * as http from "node:http";
import { Duplex } from "node:stream";

interface WsSocket {
  send(data: Buffer): void;
  close(): void;
}
interface WsServer {
  handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer, done: (ws: WsSocket) => void): void;
}
type WsServerCtor = new (o: {
  noServer: true;
  handleProtocols: (protocols: Set<string>) => string | false;
}) => WsServer;

/** Serves `<podsPath>/<pod>/exec` upgrades on `server` from `stdoutOf` (pod name -> stdout). */
export function serveExec(
  server: http.Server,
  podsPath: string,
  stdoutOf: Readonly<Record<string, string>>,
  requests: { path: string; body: unknown }[],
): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- `ws` (a dependency of @kubernetes/client-node) ships no type declarations
  const { WebSocketServer } = require("ws") as { WebSocketServer: WsServerCtor };
  const wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (p) => (p.has("v4.channel.k8s.io") ? "v4.channel.k8s.io" : false),
  });
  server.on("upgrade", (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const u = new URL(req.url ?? "/", "http://x");
    const m = u.pathname.match(/\/pods\/([^/]+)\/exec$/);
    if (!m || !u.pathname.startsWith(podsPath)) return; // another subresource (portforward) answers it
    requests.push({ path: u.pathname + u.search, body: undefined });
    wss.handleUpgrade(req, socket, head, (ws) => {
      const out = stdoutOf[m[1]];
      if (out !== undefined) ws.send(Buffer.concat([Buffer.from([1]), Buffer.from(out)]));
      const status =
        out !== undefined ? { status: "Success" } : { status: "Failure", message: `sh: not found in ${m[1]}` };
      ws.send(Buffer.concat([Buffer.from([3]), Buffer.from(JSON.stringify(status))]));
      ws.close();
    });
  });
}
