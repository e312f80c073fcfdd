/**
 * Fakes for `verify` tests, both plain HTTP servers on 127.0.0.1 (ephemeral ports):
 * - an OpenAI-compatible Frontend with one healthy mode and each failure the field saw;
 * - a Kubernetes API serving the pods, EndpointSlices, worker logs and the Frontend pod's port-forward
 *   of one graph, plus a generated
 *   kubeconfig pointing at it (client-node 1.x accepts `http:` only with insecure-skip-tls-verify).
 */
import * as fs from "node:fs";
import * as http from "node:http";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { Duplex } from "node:stream";
import { componentServiceName, GraphService, OperatorLabel } from "../../components/_shared/names";
import { OBSERVABILITY_DEFAULTS } from "../../components/observability/args";
import { PROMETHEUS_POD_LABEL } from "../../components/observability/render";

export const MODEL = "meta-llama/Llama-3.1-8B-Instruct";
export const NAMESPACE = "dynamo";
export const GRAPH = "llama";

/** How the fake Frontend behaves. The field's failure modes, one each. */
export type FrontendMode =
  | "pass"
  | "noModels"
  | "emptyText"
  | "doubleWrapped"
  | "brokenSse"
  | "slowFirstToken"
  | "hangStream"
  // hostile or broken answers verify must survive and fail on
  | "hugeBody"
  | "manyEvents"
  | "errorMidStream"
  | "dataAfterDone"
  | "modelIdList";

/** Bytes the `hugeBody` mode sends (over the client's cap); events the `manyEvents` mode sends. */
export const HUGE_BODY_BYTES = 64 * 1024 * 1024;
export const MANY_EVENTS = 200_000;

export interface Fake {
  readonly url: string;
  /** Request bodies received, in order. */
  readonly requests: { path: string; body: unknown }[];
  close(): Promise<void>;
}

function listen(server: http.Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`)),
  );
}

function closer(server: http.Server): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let s = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (s += c));
    req.on("end", () => resolve(s));
  });
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

const COMPLETION = {
  id: "cmpl-0807a0be",
  object: "text_completion",
  created: 1,
  model: MODEL,
  choices: [{ index: 0, text: " Paris. The capital of France is Paris.", finish_reason: "length" }],
  usage: { prompt_tokens: 5, completion_tokens: 16, total_tokens: 21 },
};

function completion(mode: FrontendMode): unknown {
  if (mode === "emptyText") return { ...COMPLETION, choices: [{ index: 0, text: "", finish_reason: "length" }] };
  if (mode === "doubleWrapped") return { data: { data: COMPLETION } };
  return COMPLETION;
}

async function stream(res: http.ServerResponse, mode: FrontendMode, firstTokenDelayMs: number): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream" });
  const words = [" Paris", ".", " The", " capital"];
  if (mode === "slowFirstToken") await new Promise((r) => setTimeout(r, firstTokenDelayMs));
  if (mode === "hangStream")
    return void res.write(`data: ${JSON.stringify({ choices: [{ index: 0, text: " Paris" }] })}\n\n`);
  if (mode === "manyEvents")
    return void writeMany(res, `data: ${JSON.stringify({ choices: [{ index: 0, text: " x" }] })}\n\n`, MANY_EVENTS);
  if (mode === "errorMidStream") words.splice(2, 0, "\u0000error");
  const chunk = (w: string) =>
    w === "\u0000error"
      ? { error: { message: "engine died", code: 500 } }
      : { id: "c", object: "text_completion", choices: [{ index: 0, text: w, finish_reason: null }] };
  for (const w of words) res.write(`data: ${JSON.stringify(chunk(w))}\n\n`);
  if (mode !== "brokenSse") res.write("data: [DONE]\n\n");
  if (mode === "dataAfterDone") res.write(`data: ${JSON.stringify(chunk(" more"))}\n\n`);
  res.end();
}

/** Writes `piece` `n` times, respecting back-pressure, until the client hangs up. */
function writeMany(res: http.ServerResponse, piece: string, n: number): void {
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

/**
 * Starts the fake Frontend. Like the Dynamo Frontend bug of docs/FIELD-FAILURES.md#f4, it answers 500
 * when a request body has no explicit `stream`.
 */
export async function startFrontend(mode: FrontendMode, firstTokenDelayMs = 600): Promise<Fake> {
  const requests: { path: string; body: unknown }[] = [];
  const server = http.createServer(async (req, res) => {
    const raw = await readBody(req);
    const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined;
    requests.push({ path: req.url ?? "", body });
    if (req.method === "GET" && req.url === "/v1/models") {
      if (mode === "hugeBody") {
        res.writeHead(200, { "content-type": "application/json" });
        return writeMany(res, " ".repeat(64 * 1024), HUGE_BODY_BYTES / (64 * 1024));
      }
      return json(res, 200, {
        object: "list",
        data:
          mode === "noModels"
            ? []
            : [{ id: mode === "modelIdList" ? [MODEL] : MODEL, object: "model", owned_by: "nvidia" }],
      });
    }
    if (req.method !== "POST" || !body) return json(res, 404, { error: "not found" });
    if (typeof body.stream !== "boolean") return json(res, 500, { error: "finish_reason: unknown variant `error`" });
    if (req.url === "/v1/completions")
      return body.stream ? stream(res, mode, firstTokenDelayMs) : json(res, 200, completion(mode));
    if (req.url === "/v1/chat/completions") {
      return json(res, 200, {
        id: "chat-1",
        object: "chat.completion",
        choices: [{ index: 0, message: { role: "assistant", content: "Paris." }, finish_reason: "stop" }],
      });
    }
    return json(res, 404, { error: "not found" });
  });
  return { url: await listen(server), requests, close: closer(server) };
}

/** Cluster scenarios of the field report (docs/FIELD-FAILURES.md#gate-matrix). */
export type KubeScenario = "libfabric" | "ucx" | "handshakeFailed" | "notReadyWorker" | "trtllmNoLine";

const LIBFABRIC_LOG = [
  "INFO 05-06 10:00:01 [nixl_connector.py:800] Initializing NIXL worker 966415c7",
  "2026-05-06 10:00:02 NIXL INFO    _api.py:361 Backend LIBFABRIC was instantiated",
  "2026-05-06 10:00:02 NIXL INFO    _api.py:251 Initialized NIXL agent: 72fca207",
  "handle_payload: request received  component=backend  endpoint=generate",
].join("\n");

function logOf(scenario: KubeScenario, pod: string): string {
  if (scenario === "ucx") return LIBFABRIC_LOG.replace("LIBFABRIC", "UCX");
  if (scenario === "handshakeFailed" && pod.includes("decode")) {
    return `${LIBFABRIC_LOG}\nERROR [nixl_connector.py:1263] NIXL transfer failure: handshake_failed | Context: {'remote_host': '10.1.0.198', 'remote_port': 5700}`;
  }
  if (scenario === "trtllmNoLine") return "[TensorRT-LLM][INFO] Using KvCacheTransceiverV2\nExecutor started";
  return LIBFABRIC_LOG;
}

interface FakePod {
  readonly name: string;
  readonly component: GraphService;
  readonly type: string;
  readonly ready: boolean;
  readonly ip: string;
}

function podsOf(scenario: KubeScenario): FakePod[] {
  return [
    { name: `${GRAPH}-frontend-0`, component: GraphService.Frontend, type: "frontend", ready: true, ip: "10.1.0.10" },
    { name: `${GRAPH}-prefillworker-0`, component: GraphService.Prefill, type: "worker", ready: true, ip: "10.1.0.11" },
    {
      name: `${GRAPH}-decodeworker-0`,
      component: GraphService.Decode,
      type: "worker",
      ready: scenario !== "notReadyWorker",
      ip: "10.1.0.198",
    },
  ];
}

function podJson(p: FakePod): unknown {
  return {
    metadata: {
      name: p.name,
      namespace: NAMESPACE,
      labels: {
        [OperatorLabel.GraphName]: GRAPH,
        [OperatorLabel.Component]: p.component,
        [OperatorLabel.ComponentType]: p.type,
      },
    },
    spec: { containers: [{ name: "main", image: "dynamo" }] },
    status: { phase: "Running", podIP: p.ip, conditions: [{ type: "Ready", status: p.ready ? "True" : "False" }] },
  };
}

function sliceJson(p: FakePod): unknown {
  return {
    metadata: {
      name: `${componentServiceName(GRAPH, p.component)}-abcde`,
      namespace: NAMESPACE,
      labels: { "kubernetes.io/service-name": componentServiceName(GRAPH, p.component) },
    },
    addressType: "IPv4",
    endpoints: [
      {
        addresses: [p.ip],
        conditions: { ready: p.ready, serving: p.ready, terminating: false },
        targetRef: { kind: "Pod", name: p.name, namespace: NAMESPACE },
      },
    ],
    ports: [{ name: "system", port: 9090, protocol: "TCP" }],
  };
}

function matches(labels: Record<string, string>, selector: string | null): boolean {
  if (!selector) return true;
  return selector.split(",").every((kv) => {
    const [k, v] = kv.split("=");
    return labels[k] === v;
  });
}

export interface FakeKube extends Fake {
  /** A kubeconfig file pointing at the fake (removed by `close`). */
  readonly kubeconfig: string;
}

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
function servePortForward(
  server: http.Server,
  targets: Readonly<Record<string, string>>,
  requests: { path: string; body: unknown }[],
): void {
  const { WebSocketServer } = require("ws") as { WebSocketServer: WsServerCtor };
  const wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (p) => (p.has("v4.channel.k8s.io") ? "v4.channel.k8s.io" : false),
  });
  server.on("upgrade", (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const u = new URL(req.url ?? "/", "http://x");
    requests.push({ path: u.pathname + u.search, body: undefined });
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

/** Starts the fake Kubernetes API for `scenario`; with `forwardTo`, frontend port-forwards reach that URL. */
export async function startKube(scenario: KubeScenario, forwardTo?: string, prometheusTo?: string): Promise<FakeKube> {
  const requests: { path: string; body: unknown }[] = [];
  const pods = podsOf(scenario);
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? "/", "http://x");
    requests.push({ path: u.pathname + u.search, body: undefined });
    if (u.pathname.includes("/namespaces/broken/")) {
      return json(res, 500, {
        kind: "Status",
        apiVersion: "v1",
        status: "Failure",
        message: "etcdserver: request timed out",
        code: 500,
      });
    }
    if (prometheusTo && u.pathname === `/api/v1/namespaces/${PROMETHEUS_NAMESPACE}/pods`) {
      const items = matches(PROMETHEUS_POD_LABELS, u.searchParams.get("labelSelector")) ? [prometheusPodJson()] : [];
      return json(res, 200, { apiVersion: "v1", kind: "PodList", metadata: {}, items });
    }
    const other =
      /^\/api\/v1\/namespaces\/[^/]+\/pods$|^\/apis\/discovery\.k8s\.io\/v1\/namespaces\/[^/]+\/endpointslices$/;
    if (other.test(u.pathname) && !u.pathname.includes(`/namespaces/${NAMESPACE}/`))
      return json(res, 200, { apiVersion: "v1", kind: "List", metadata: {}, items: [] });
    const base = `/api/v1/namespaces/${NAMESPACE}/pods`;
    if (u.pathname === base) {
      const items = pods
        .map(podJson)
        .filter((p) =>
          matches(
            (p as { metadata: { labels: Record<string, string> } }).metadata.labels,
            u.searchParams.get("labelSelector"),
          ),
        );
      return json(res, 200, { apiVersion: "v1", kind: "PodList", metadata: {}, items });
    }
    if (u.pathname === `/apis/discovery.k8s.io/v1/namespaces/${NAMESPACE}/endpointslices`) {
      return json(res, 200, {
        apiVersion: "discovery.k8s.io/v1",
        kind: "EndpointSliceList",
        metadata: {},
        items: pods.map(sliceJson),
      });
    }
    const m = u.pathname.match(new RegExp(`^${base}/([^/]+)/log$`));
    if (m && pods.some((p) => p.name === m[1])) {
      res.writeHead(200, { "content-type": "text/plain" });
      return res.end(logOf(scenario, m[1]));
    }
    return json(res, 404, { kind: "Status", apiVersion: "v1", status: "Failure", reason: "NotFound", code: 404 });
  });
  const forwards: Record<string, string> = {};
  if (forwardTo) forwards[`/api/v1/namespaces/${NAMESPACE}/pods/${GRAPH}-frontend-0/portforward`] = forwardTo;
  if (prometheusTo)
    forwards[`/api/v1/namespaces/${PROMETHEUS_NAMESPACE}/pods/${PROMETHEUS_POD}/portforward`] = prometheusTo;
  if (Object.keys(forwards).length) servePortForward(server, forwards, requests);
  const url = await listen(server);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verify-kube-"));
  const kubeconfig = path.join(dir, "config");
  fs.writeFileSync(kubeconfig, kubeconfigText(url));
  const close = closer(server);
  return {
    url,
    requests,
    kubeconfig,
    close: async () => (await close(), fs.rmSync(dir, { recursive: true, force: true })),
  };
}

/** The in-cluster Prometheus the program installs, as the fake API lists it (labels from the component). */
export const PROMETHEUS_NAMESPACE = OBSERVABILITY_DEFAULTS.namespace;
const PROMETHEUS_POD = "prometheus-kps-prometheus-0";
const PROMETHEUS_POD_LABELS: Record<string, string> = { ...PROMETHEUS_POD_LABEL };

function prometheusPodJson(): unknown {
  return {
    metadata: { name: PROMETHEUS_POD, namespace: PROMETHEUS_NAMESPACE, labels: PROMETHEUS_POD_LABELS },
    spec: { containers: [{ name: "prometheus", image: "prometheus" }] },
    status: { phase: "Running", podIP: "10.1.0.50", conditions: [{ type: "Ready", status: "True" }] },
  };
}

/**
 * A fake Prometheus HTTP API: `/api/v1/query` answers an instant vector (0.85 s for time-to-first-token
 * queries, 0.012 s for the rest), or an empty result for queries naming a metric in `unscraped`.
 */
export async function startPrometheus(unscraped: readonly string[] = []): Promise<Fake> {
  const requests: { path: string; body: unknown }[] = [];
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? "/", "http://x");
    const q = u.searchParams.get("query") ?? "";
    requests.push({ path: u.pathname, body: q });
    if (u.pathname !== "/api/v1/query")
      return json(res, 404, { status: "error", errorType: "not_found", error: "not found" });
    const seconds = q.includes("time_to_first_token") ? 0.85 : 0.012;
    const result = unscraped.some((m) => q.includes(m)) ? [] : [{ metric: {}, value: [1764500000, String(seconds)] }];
    return json(res, 200, { status: "success", data: { resultType: "vector", result } });
  });
  return { url: await listen(server), requests, close: closer(server) };
}

/** A kubeconfig for `server` (plain http needs insecure-skip-tls-verify with client-node 1.x). */
export function kubeconfigText(server: string): string {
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: fake",
    "  cluster:",
    `    server: ${server}`,
    "    insecure-skip-tls-verify: true",
    "users:",
    "- name: fake",
    "  user:",
    "    token: fake-token",
    "contexts:",
    "- name: fake",
    "  context: {cluster: fake, user: fake}",
    "current-context: fake",
    "",
  ].join("\n");
}
