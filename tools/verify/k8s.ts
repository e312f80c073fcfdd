/**
 * Thin client over `@kubernetes/client-node` 1.x: the few reads `verify` needs (pods by label
 * selector, EndpointSlices, pod logs) reduced to the facts the gates judge, and a local
 * port-forward to the Frontend. Connection failures become `UnreachableError` (exit code 3).
 */
import type { ClaimSource, SliceSource } from "./claims";
import type { DraAllocation } from "./locality";
import { givenDevices, type GivenDevices, type PodDevicesSource } from "./efa-process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { PassThrough } from "node:stream";
import type * as k8s from "@kubernetes/client-node";
import { kubeModule, loadKubeModule } from "../_shared/kube-client";
import { OperatorLabel } from "../../components/_shared/names";
import { EndpointFact, execOverflow, PodFact } from "./gates";
import { errorCode, UnreachableError, UNREACHABLE_CODES } from "./http";
import { WorkerLog } from "./kvlog";
import { readUserFile, UsageError } from "../_shared/input";
import { POOL_LABEL } from "../../components/catalog/pool";
import type { NodeFact, NodesRead } from "./nodes";

/** Label the EndpointSlice controller puts on every slice of a Service. */
export const SERVICE_NAME_LABEL = "kubernetes.io/service-name";

/** Largest log read per worker; NIXL logs its backend at start-up, so the whole log is read up to this. */
export const LOG_LIMIT_BYTES = 16 * 1024 * 1024;

/** A pod plus what is needed to read its log and forward to it. */
export interface PodRef extends PodFact {
  /** Container whose log to read (`main` when present, the operator's main container name). */
  readonly container: string | undefined;
  /** The GPUs and EFA devices the pod was given (workers; gate G holds the container to them). */
  readonly given?: GivenDevices;
  /** The pod takes its devices through DRA claims (`cluster.deviceAllocation: dra`); gate L then reads them. */
  readonly claimed?: boolean;
}

/** The kubeconfig files the client would read without --kubeconfig: KUBECONFIG's list, else ~/.kube/config. */
function defaultKubeconfigFiles(): string[] {
  const env = process.env.KUBECONFIG;
  if (env) {
    const listed = env.split(path.delimiter).filter((f) => f !== "");
    const found = listed.filter((f) => fs.existsSync(f));
    if (found.length === 0)
      throw new UsageError(`KUBECONFIG=${env.slice(0, 200)} names no existing file; fix it, or pass --kubeconfig FILE`);
    return found;
  }
  const home = path.join(os.homedir(), ".kube", "config");
  return fs.existsSync(home) ? [home] : [];
}

/** A kubeconfig file's text, or a usage error saying plainly why it cannot be used. */
function kubeconfigText(file: string): string {
  const text = readUserFile(file, "kubeconfig");
  if (text.trim() === "")
    throw new UsageError(
      `kubeconfig ${file} is empty; run e.g. \`aws eks update-kubeconfig --name <cluster>\`, or pass another --kubeconfig`,
    );
  return text;
}

/**
 * Loads a kubeconfig: the given file, else KUBECONFIG / ~/.kube/config, else in-cluster. Missing,
 * unreadable, empty, malformed or context-less kubeconfigs are usage errors (exit 2) with a plain
 * message, never a client stack trace.
 */
export async function loadKubeConfig(file?: string): Promise<k8s.KubeConfig> {
  const kc = new (await loadKubeModule()).KubeConfig();
  if (file && !fs.existsSync(file)) throw new UsageError(`--kubeconfig ${file}: no such file`);
  const files = file ? [file] : defaultKubeconfigFiles();
  if (files.length === 0) {
    if (process.env.KUBERNETES_SERVICE_HOST) {
      kc.loadFromCluster();
      return kc;
    }
    throw new UsageError(
      "no kubeconfig: pass --kubeconfig FILE, set KUBECONFIG, or create ~/.kube/config (aws eks update-kubeconfig --name <cluster>)",
    );
  }
  const texts = files.map(kubeconfigText);
  try {
    if (files.length === 1) kc.loadFromString(texts[0]);
    else kc.loadFromDefault();
  } catch (e) {
    throw new UsageError(
      `kubeconfig ${files.join(", ")} is not a valid kubeconfig: ${String((e as Error).message ?? e)
        .split("\n")[0]
        .slice(0, 200)}`,
    );
  }
  if (!kc.getCurrentCluster()) {
    throw new UsageError(
      `kubeconfig ${files.join(", ")} has no current cluster (current-context: ${kc.getCurrentContext() || "unset"}); set current-context, or pass another --kubeconfig`,
    );
  }
  return kc;
}

/**
 * Maps client errors to one clear line (exit code 3): no connection, refused credentials, an API error
 * status (e.g. RBAC 403, a 5xx), or no answer within the budget. Anything else is a bug and rethrown.
 */
export function clusterError(kc: k8s.KubeConfig, e: unknown, what: string): unknown {
  const server = kc.getCurrentCluster()?.server ?? "?";
  const code = errorCode(e);
  if (code && (UNREACHABLE_CODES.includes(code) || code === "ECONNRESET"))
    return new UnreachableError(`cluster unreachable at ${server}: ${code}`);
  const status = (e as { code?: unknown }).code;
  if (typeof status === "number") {
    const body = (e as { body?: unknown }).body;
    const reason =
      typeof body === "string"
        ? (/"message":"([^"]*)"/.exec(body)?.[1] ?? /"reason":"([^"]*)"/.exec(body)?.[1])
        : undefined;
    return new UnreachableError(
      `cluster at ${server} answered HTTP ${status} to ${what}${reason ? `: ${reason}` : ""}`,
    );
  }
  if (e instanceof Error && /timed out/.test(e.message))
    return new UnreachableError(`cluster at ${server}: ${e.message}`);
  if (e instanceof Error && /HTTP protocol is not allowed/.test(e.message)) {
    return new UsageError(
      `kubeconfig cluster ${server} is plain http:// without insecure-skip-tls-verify, which the Kubernetes client refuses; use the https:// endpoint (or set insecure-skip-tls-verify: true for a local test cluster)`,
    );
  }
  return e;
}

/** Races `p` against a timer. */
export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

function podRef(p: k8s.V1Pod): PodRef {
  const labels = p.metadata?.labels ?? {};
  const containers = p.spec?.containers ?? [];
  return {
    name: p.metadata?.name ?? "?",
    component: labels[OperatorLabel.Component],
    componentType: labels[OperatorLabel.ComponentType],
    phase: p.status?.phase,
    ready: (p.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True"),
    container: containers.find((c) => c.name === "main")?.name ?? containers[0]?.name,
    ...optionalGiven(givenDevices(p as PodDevicesSource)),
    ...((p.spec?.resourceClaims?.length ?? 0) > 0 ? { claimed: true } : {}),
  };
}

const optionalGiven = (given: GivenDevices | undefined) => (given ? { given } : {});

function endpointFacts(slices: readonly k8s.V1EndpointSlice[]): EndpointFact[] {
  return slices.flatMap((s) =>
    (s.endpoints ?? []).map((e) => ({
      slice: s.metadata?.name ?? "?",
      service: s.metadata?.labels?.[SERVICE_NAME_LABEL],
      pod: e.targetRef?.kind === "Pod" ? e.targetRef.name : undefined,
      ready: e.conditions?.ready,
    })),
  );
}

function nodeFact(n: k8s.V1Node): NodeFact {
  return {
    name: n.metadata?.name ?? "?",
    taints: (n.spec?.taints ?? []).map((t) => ({
      key: t.key,
      effect: t.effect,
      ...(t.value ? { value: t.value } : {}),
    })),
  };
}

/** The reads `verify` does against one namespace. */
export class ClusterReader {
  private readonly core: k8s.CoreV1Api;
  private readonly discovery: k8s.DiscoveryV1Api;
  constructor(
    private readonly kc: k8s.KubeConfig,
    private readonly namespace: string,
  ) {
    const { CoreV1Api, DiscoveryV1Api } = kubeModule();
    this.core = kc.makeApiClient(CoreV1Api);
    this.discovery = kc.makeApiClient(DiscoveryV1Api);
  }

  private async call<T>(p: () => Promise<T>, ms: number, what: string): Promise<T> {
    try {
      return await withTimeout(p(), ms, what);
    } catch (e) {
      throw clusterError(this.kc, e, what);
    }
  }

  /** Pods matching a label selector (`podSelector(...)` from names.ts). */
  async pods(labelSelector: string, ms: number): Promise<PodRef[]> {
    const list = await this.call(
      () => this.core.listNamespacedPod({ namespace: this.namespace, labelSelector }),
      ms,
      "list pods",
    );
    return list.items.map(podRef);
  }

  /**
   * Every EndpointSlice endpoint in the namespace. The gate matches endpoints to worker pods by
   * `targetRef`, so it does not depend on which Service (and so which `kubernetes.io/service-name`)
   * the operator created them for.
   */
  async endpoints(ms: number): Promise<EndpointFact[]> {
    const list = await this.call(
      () => this.discovery.listNamespacedEndpointSlice({ namespace: this.namespace }),
      ms,
      "list EndpointSlices",
    );
    return endpointFacts(list.items);
  }

  /**
   * The namespace's ResourceClaims and the cluster's ResourceSlices (`resource.k8s.io/v1`), for gate L under DRA:
   * needs `list` on both (the slices are cluster-scoped).
   */
  async draAllocation(ms: number): Promise<DraAllocation> {
    const api = this.kc.makeApiClient(kubeModule().ResourceV1Api);
    const claims = await this.call(
      () => api.listNamespacedResourceClaim({ namespace: this.namespace }),
      ms,
      "list ResourceClaims",
    );
    const slices = await this.call(() => api.listResourceSlice(), ms, "list ResourceSlices");
    return { claims: claims.items as ClaimSource[], slices: slices.items as SliceSource[] };
  }

  /**
   * The GPU nodes (those with the pool label the program's node groups set; of `pool` only, when given: on a shared
   * cluster another model's nodes are not this graph's) and their taints, for gate A. Listing nodes is
   * cluster-scoped: an API refusal (RBAC 403) is returned as the reason, not thrown; no connection is.
   */
  async gpuNodes(ms: number, pool?: string): Promise<NodesRead> {
    const labelSelector = pool === undefined ? POOL_LABEL : `${POOL_LABEL}=${pool}`;
    try {
      const list = await withTimeout(this.core.listNode({ labelSelector }), ms, "list nodes");
      return { nodes: list.items.map(nodeFact) };
    } catch (e) {
      const err = clusterError(this.kc, e, "list nodes");
      if (typeof (e as { code?: unknown }).code === "number") return { error: (err as Error).message };
      throw err;
    }
  }

  /** The log of one pod's container (up to `LOG_LIMIT_BYTES`); a read error is returned, not thrown. */
  async log(pod: PodRef, ms: number): Promise<WorkerLog> {
    try {
      const text = await this.call(
        () =>
          this.core.readNamespacedPodLog({
            name: pod.name,
            namespace: this.namespace,
            container: pod.container,
            limitBytes: LOG_LIMIT_BYTES,
          }),
        ms,
        `read log of ${pod.name}`,
      );
      return { pod: pod.name, text: String(text) };
    } catch (e) {
      if (e instanceof UnreachableError) throw e;
      return { pod: pod.name, text: "", error: (e as Error).message.split("\n")[0] };
    }
  }
}

/**
 * Most bytes a probe's output (`execInPod`) may print: the probes print a line per GPU and EFA device (a p5 node: 8
 * GPUs, 32 EFA devices, about 5 kB) or a few counters, so 256 KiB is far past any real answer. More is an exec that
 * went wrong (a shell loop, a debug dump) and is not parsed: it would hold verify past its --timeout.
 */
export const EXEC_OUTPUT_LIMIT_BYTES = 256 * 1024;

/**
 * Runs `sh -c script` in a pod's container through the Kubernetes API (`pods/exec`, what `kubectl exec` does);
 * the output, or the error as `error`. Bounded by `ms` and by `maxBytes` of output: past it the exec is closed and
 * the output is an error, never parsed.
 */
export async function execInPod(
  kc: k8s.KubeConfig,
  namespace: string,
  pod: PodRef,
  script: string,
  ms: number,
  maxBytes = EXEC_OUTPUT_LIMIT_BYTES,
): Promise<{ pod: string; text: string; error?: string }> {
  const out = new PassThrough();
  const err = new PassThrough();
  const chunks: Buffer[] = [];
  let bytes = 0;
  let socket: { close(): void } | undefined;
  let overflow: (e: Error) => void = () => undefined;
  out.on("data", (c: Buffer) => {
    bytes += c.length;
    if (bytes <= maxBytes) chunks.push(c);
    else overflow(new Error(execOverflow(maxBytes)));
  });
  err.on("data", () => undefined);
  try {
    await withTimeout(
      new Promise<void>((resolve, reject) => {
        overflow = (e) => {
          socket?.close();
          reject(e);
        };
        new (kubeModule().Exec)(kc)
          .exec(namespace, pod.name, pod.container ?? "main", ["sh", "-c", script], out, err, null, false, (s) =>
            s.status === "Success" ? resolve() : reject(new Error(s.message ?? s.status ?? "exec failed")),
          )
          .then((ws) => {
            socket = ws;
            if (bytes > maxBytes) ws.close();
          })
          .catch(reject);
      }),
      ms,
      `exec in ${pod.name}`,
    );
    return { pod: pod.name, text: Buffer.concat(chunks).toString("utf8") };
  } catch (e) {
    return { pod: pod.name, text: "", error: (e as Error).message.split("\n")[0] };
  }
}

/** A local TCP listener forwarding each connection to a pod port through the Kubernetes API. */
export interface Forward {
  /** Base URL to send requests to (`http://127.0.0.1:<port>` for a port-forward). */
  readonly url: string;
  /** What the URL reaches, for messages (e.g. `pod/llama-frontend-0:8000 via port-forward`). */
  readonly label: string;
  /** The last port-forward failure (e.g. the API refused the WebSocket), if any. */
  lastError(): string | undefined;
  close(): Promise<void>;
}

/**
 * Forwards 127.0.0.1:<ephemeral> to `port` of `pod` (what `kubectl port-forward svc/...` does: a
 * Service is forwarded through one of its ready pods). A ClusterIP is not reachable from a laptop.
 */
export async function forwardToPod(kc: k8s.KubeConfig, namespace: string, pod: string, port: number): Promise<Forward> {
  const pf = new (kubeModule().PortForward)(kc, true);
  const sockets = new Set<net.Socket>();
  let lastError: string | undefined;
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    const errors = new PassThrough();
    pf.portForward(namespace, pod, [port], socket, errors, socket).then(
      (ws) => socket.on("close", () => (typeof ws === "function" ? ws() : ws)?.close()),
      (e: unknown) => {
        lastError = `port-forward failed: ${(e as { message?: string }).message ?? String(e)}`;
        socket.destroy();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const addr = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${addr.port}`,
    label: `pod/${pod}:${port} via port-forward`,
    lastError: () => lastError,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
