/**
 * A fake Kubernetes API for the verify tests: the pods, EndpointSlices, worker logs and the Frontend
 * pod's port-forward of one graph in each cluster scenario (docs/FIELD-FAILURES.md#gate-matrix), the
 * in-cluster Prometheus pod, and a generated kubeconfig pointing at it (client-node 1.x accepts `http:`
 * only with insecure-skip-tls-verify).
 */
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { componentServiceName, GraphService, OperatorLabel } from "../../components/_shared/names";
import { OBSERVABILITY_DEFAULTS } from "../../components/observability/args";
import { PROMETHEUS_POD_LABEL } from "../../components/observability/render";
import { GPU_POOL_TAINTS, POOL_LABEL } from "../../components/catalog/pool";
import { HUGEPAGES_TAINT, hugepagesTaintValue } from "../../components/cluster/user-data";
import { Fake, json, listen, closer } from "./fake-http";
import { serveWebSockets } from "./fake-ws";

/** The namespace and the name of the fake cluster's one graph. */
export const NAMESPACE = "dynamo";
export const GRAPH = "llama";

/** Cluster scenarios of the field report (docs/FIELD-FAILURES.md#gate-matrix). */
export type KubeScenario =
  | "libfabric"
  | "ucx"
  | "handshakeFailed"
  | "notReadyWorker"
  | "trtllmNoLine"
  /** A GPU node's kernel reserved too few hugepages: it registered tainted, the decode worker stays Pending. */
  | "hugepagesShort"
  /** Listing nodes is refused (RBAC 403); everything else is healthy. */
  | "nodesForbidden";

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
  readonly phase?: string;
}

function podsOf(scenario: KubeScenario): FakePod[] {
  return [
    { name: `${GRAPH}-frontend-0`, component: GraphService.Frontend, type: "frontend", ready: true, ip: "10.1.0.10" },
    { name: `${GRAPH}-prefillworker-0`, component: GraphService.Prefill, type: "worker", ready: true, ip: "10.1.0.11" },
    {
      name: `${GRAPH}-decodeworker-0`,
      component: GraphService.Decode,
      type: "worker",
      ready: scenario !== "notReadyWorker" && scenario !== "hugepagesShort",
      ip: "10.1.0.198",
      ...(scenario === "hugepagesShort" ? { phase: "Pending" } : {}),
    },
  ];
}

/** The operator's labels on a pod of the graph. */
function podLabels(p: FakePod): Record<string, string> {
  return {
    [OperatorLabel.GraphName]: GRAPH,
    [OperatorLabel.Component]: p.component,
    [OperatorLabel.ComponentType]: p.type,
  };
}

function podJson(p: FakePod): unknown {
  return {
    metadata: { name: p.name, namespace: NAMESPACE, labels: podLabels(p) },
    spec: { containers: [{ name: "main", image: "dynamo" }] },
    status: {
      phase: p.phase ?? "Running",
      podIP: p.ip,
      conditions: [{ type: "Ready", status: p.ready ? "True" : "False" }],
    },
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

/** A label selector of `key=value` and bare `key` (exists) terms, as the API server reads it. */
function matchesSelector(labels: Record<string, string>, selector: string | null): boolean {
  if (!selector) return true;
  return selector.split(",").every((term) => {
    const [k, v] = term.split("=");
    return v === undefined ? k in labels : labels[k] === v;
  });
}

export interface FakeKube extends Fake {
  /** A kubeconfig file pointing at the fake (removed by `close`). */
  readonly kubeconfig: string;
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

/** The GPU nodes of the p5en-1gpu layout: two nodes of the pool, the second short of hugepages in `hugepagesShort`. */
function nodesOf(scenario: KubeScenario): unknown[] {
  const node = (name: string, short: boolean) => ({
    metadata: { name, labels: { [POOL_LABEL]: "gpu" } },
    spec: {
      taints: [
        ...GPU_POOL_TAINTS,
        ...(short ? [{ key: HUGEPAGES_TAINT.key, value: hugepagesTaintValue(1000, 1282), effect: "NoSchedule" }] : []),
      ],
    },
  });
  return [node("ip-10-1-0-11.ec2.internal", false), node("ip-10-1-0-198.ec2.internal", scenario === "hugepagesShort")];
}

/** `GET /api/v1/nodes`: the GPU nodes matching the label selector, or a 403 in `nodesForbidden`. */
function nodesAnswer(scenario: KubeScenario, u: URL, res: http.ServerResponse): void {
  if (scenario === "nodesForbidden")
    return json(res, 403, {
      kind: "Status",
      apiVersion: "v1",
      status: "Failure",
      message: 'nodes is forbidden: User "verify" cannot list resource "nodes" in API group "" at the cluster scope',
      reason: "Forbidden",
      code: 403,
    });
  const items = nodesOf(scenario).filter((n) =>
    matchesSelector(
      (n as { metadata: { labels: Record<string, string> } }).metadata.labels,
      u.searchParams.get("labelSelector"),
    ),
  );
  return json(res, 200, { apiVersion: "v1", kind: "NodeList", metadata: {}, items });
}

/** The API's answers for `scenario`: an error status in namespace `broken`, empty lists in other namespaces. */
function kubeApi(scenario: KubeScenario, withPrometheus: boolean, requests: Fake["requests"]): http.RequestListener {
  const pods = podsOf(scenario);
  const base = `/api/v1/namespaces/${NAMESPACE}/pods`;
  const other =
    /^\/api\/v1\/namespaces\/[^/]+\/pods$|^\/apis\/discovery\.k8s\.io\/v1\/namespaces\/[^/]+\/endpointslices$/;
  return (req, res) => {
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
    if (withPrometheus && u.pathname === `/api/v1/namespaces/${PROMETHEUS_NAMESPACE}/pods`) {
      const items = matchesSelector(PROMETHEUS_POD_LABELS, u.searchParams.get("labelSelector"))
        ? [prometheusPodJson()]
        : [];
      return json(res, 200, { apiVersion: "v1", kind: "PodList", metadata: {}, items });
    }
    if (other.test(u.pathname) && !u.pathname.includes(`/namespaces/${NAMESPACE}/`))
      return json(res, 200, { apiVersion: "v1", kind: "List", metadata: {}, items: [] });
    if (u.pathname === "/api/v1/nodes") return nodesAnswer(scenario, u, res);
    if (u.pathname === base) {
      const selector = u.searchParams.get("labelSelector");
      const items = pods.filter((p) => matchesSelector(podLabels(p), selector)).map(podJson);
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
  };
}

/**
 * Starts the fake Kubernetes API for `scenario`; with `forwardTo`, frontend port-forwards reach that URL; with
 * `execs`, `pods/exec` answers each named pod with that stdout (gate G's probe).
 */
export async function startKube(
  scenario: KubeScenario,
  forwardTo?: string,
  prometheusTo?: string,
  execs?: Readonly<Record<string, string>>,
): Promise<FakeKube> {
  const requests: Fake["requests"] = [];
  const server = http.createServer(kubeApi(scenario, !!prometheusTo, requests));
  const forwards: Record<string, string> = {};
  if (forwardTo) forwards[`/api/v1/namespaces/${NAMESPACE}/pods/${GRAPH}-frontend-0/portforward`] = forwardTo;
  if (prometheusTo)
    forwards[`/api/v1/namespaces/${PROMETHEUS_NAMESPACE}/pods/${PROMETHEUS_POD}/portforward`] = prometheusTo;
  if (Object.keys(forwards).length || execs)
    serveWebSockets(
      server,
      { forwards, ...(execs ? { execs: { podsPath: `/api/v1/namespaces/${NAMESPACE}/pods/`, stdoutOf: execs } } : {}) },
      requests,
    );
  return serveWithKubeconfig(server, requests, "verify-kube-");
}

/** Listens on `server` and writes a kubeconfig pointing at it into a temporary folder that `close` removes. */
export async function serveWithKubeconfig(
  server: http.Server,
  requests: Fake["requests"],
  prefix: string,
): Promise<FakeKube> {
  const url = await listen(server);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
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
