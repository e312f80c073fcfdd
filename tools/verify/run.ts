/**
 * Runs the gates in order against a live deployment: fetch (k8s.ts, http.ts), judge (gates.ts,
 * kvlog.ts). A gate whose prerequisite did not pass is SKIPPED. Everything runs inside one time
 * budget (`timeoutMs`); a gate reached with no time left is NOT RUN, saying so. When the cluster or the
 * Frontend becomes unreachable, the gates that ran keep their results and the rest are NOT RUN
 * (`RunOutcome.unreachable` says why; the CLI still prints the table and writes --json, exit 3).
 */
import { DynamoPort, GraphService, podSelector } from "../../components/_shared/names";
import { blockersOf, gatePods, GateId, GateResult, GateStatus, isWorker, result, skipped } from "./gates";
import { gateCompletions, gateModels, gateTtft } from "./gates-http";
import { requestJson, requestSse, UnreachableError } from "./http";
import type { KubeConfig } from "@kubernetes/client-node";
import { ClusterReader, execInPod, Forward, forwardToPod, loadKubeConfig, PodRef } from "./k8s";
import { gateKvLogs } from "./kvlog";
import { withNodes } from "./nodes";
import { gateF } from "./gate-f";
import { gateEfaProcess, WORKER_PROBE_SCRIPT } from "./efa-process";
import { gateLocality, LOCALITY_PROBE_SCRIPT } from "./locality";
import type { PrometheusTarget } from "./prometheus";
import { Target } from "./target";
import { KvTransport } from "../../components/inference/args";

/** How to run the gates. */
export interface RunOptions {
  readonly target: Target;
  /** Kubeconfig file. @default - KUBECONFIG, then ~/.kube/config, then in-cluster */
  readonly kubeconfig?: string;
  /** Frontend base URL. @default - a port-forward to a Ready Frontend pod through the Kubernetes API */
  readonly url?: string;
  /** Budget for the whole run, in milliseconds. */
  readonly timeoutMs: number;
  /** Gate E passes when the first token arrives within this many milliseconds. */
  readonly ttftThresholdMs: number;
  /** Where gate F reads TTFT/ITL series. @default - gate F does not run */
  readonly prometheus?: PrometheusTarget;
  /** Run gate G: exec a probe in every worker (needs `pods/exec`). @default false */
  readonly probeWorkers?: boolean;
  /** Run gate L: exec the PCIe locality probe in every worker (needs `pods/exec`). @default false */
  readonly checkLocality?: boolean;
}

/** What a run produced. */
export interface RunOutcome {
  readonly results: GateResult[];
  /** Frontend URL used (undefined when no HTTP gate ran). */
  readonly frontend: string | undefined;
  /** Why the run stopped early: the cluster or Frontend could not be reached (exit code 3). */
  readonly unreachable?: string;
}

const ORDER: readonly GateId[] = ["A", "B", "C", "D", "E", "F", "G", "L"];
const COMPONENTS: readonly string[] = [GraphService.Frontend, GraphService.Prefill, GraphService.Decode];
const WORKERS: readonly string[] = [GraphService.Prefill, GraphService.Decode];
/** Prompt of the smoke requests (the field report's: docs/FIELD-FAILURES.md#the-field-report). `stream` is always explicit (F4). */
const PROMPT = "The capital of France is";

class Budget {
  private readonly deadline: number;
  constructor(private readonly totalMs: number) {
    this.deadline = Date.now() + totalMs;
  }
  left(): number {
    return Math.max(0, this.deadline - Date.now());
  }
  outOfTime(id: GateId): GateResult | undefined {
    if (this.left() > 0) return undefined;
    return result(id, GateStatus.NotRun, [`not run: no time left (--timeout ${this.totalMs / 1000} s)`]);
  }
}

function elapsed(t0: number): number {
  return Date.now() - t0;
}

async function httpGates(
  frontend: Forward | undefined,
  t: Target,
  o: RunOptions,
  budget: Budget,
  done: Map<GateId, GateResult>,
): Promise<void> {
  // B needs A, C needs B, E needs C: a gate that runs always has an open `frontend`.
  const run = async (id: GateId, f: (base: string) => Promise<GateResult>) => {
    const blockers = blockersOf(id, done);
    done.set(
      id,
      blockers.length || !frontend ? skipped(id, blockers) : (budget.outOfTime(id) ?? (await f(frontend.url))),
    );
  };
  await run("B", async (base) => {
    const models = await requestJson(`${base}/v1/models`, "GET", undefined, budget.left());
    if (models.status === 0) {
      const via = frontend?.lastError() ? ` (${frontend.lastError()})` : "";
      throw new UnreachableError(`frontend unreachable at ${frontend?.label}: ${models.error}${via}`);
    }
    return gateModels(models, t.servedModel);
  });
  const completion = { model: t.servedModel, prompt: PROMPT, max_tokens: 16, temperature: 0 };
  await run("C", async (base) => {
    const nonStream = await requestJson(
      `${base}/v1/completions`,
      "POST",
      { ...completion, stream: false },
      budget.left(),
    );
    const stream = await requestSse(`${base}/v1/completions`, { ...completion, stream: true }, budget.left());
    const chat = await requestJson(
      `${base}/v1/chat/completions`,
      "POST",
      {
        model: t.servedModel,
        messages: [{ role: "user", content: `Complete: ${PROMPT}` }],
        max_tokens: 16,
        stream: false,
      },
      budget.left(),
    );
    return gateCompletions({ completion: nonStream, stream, chat }, t.servedModel);
  });
  await run("E", async (base) => {
    const s = await requestSse(
      `${base}/v1/completions`,
      { ...completion, stream: true },
      Math.min(budget.left(), o.ttftThresholdMs * 4 + 1000),
    );
    return gateTtft(s, o.ttftThresholdMs);
  });
}

/** The Frontend: `--url`, else a port-forward to a Running+Ready Frontend pod (what `kubectl port-forward svc/...` does). */
async function openFrontend(o: RunOptions, pods: readonly PodRef[], kc: KubeConfig): Promise<Forward> {
  if (o.url) {
    const url = o.url.replace(/\/+$/, "");
    return { url, label: url, lastError: () => undefined, close: async () => undefined };
  }
  const pod = pods.find((p) => p.component === GraphService.Frontend && p.phase === "Running" && p.ready);
  if (!pod)
    throw new UnreachableError(
      `no Running+Ready pod matches ${podSelector(o.target.graph, GraphService.Frontend)} to port-forward to`,
    );
  return forwardToPod(kc, o.target.namespace, pod.name, DynamoPort.FrontendHttp);
}

/** Gates A-D's reads and checks, then the HTTP gates; results go to `done` as they finish. */
async function runAll(
  o: RunOptions,
  budget: Budget,
  done: Map<GateId, GateResult>,
  opened: (f: Forward) => void,
  kc: KubeConfig,
): Promise<void> {
  const t = o.target;
  const reader = new ClusterReader(kc, t.namespace);
  const t0 = Date.now();
  const selector = podSelector(t.graph);
  const pods = await reader.pods(selector, budget.left());
  const endpoints = await reader.endpoints(budget.left());
  const nodes = await reader.gpuNodes(budget.left(), t.pool);
  const a = withNodes(gatePods(pods, endpoints, COMPONENTS, WORKERS, elapsed(t0)), nodes);
  // An empty match usually means a wrong namespace or graph name: say what was looked for.
  done.set(
    "A",
    pods.length ? a : { ...a, evidence: [...a.evidence, `no pod in namespace ${t.namespace} matches ${selector}`] },
  );

  const t1 = Date.now();
  const workers = pods.filter((p) => isWorker(p, WORKERS));
  const logs = await Promise.all(workers.map((p) => reader.log(p, budget.left())));
  done.set("D", budget.outOfTime("D") ?? gateKvLogs(t.backend, logs, elapsed(t1), t.kvTransport));

  const frontend = blockersOf("B", done).length === 0 ? await openFrontend(o, pods, kc) : undefined;
  if (frontend) opened(frontend);
  await httpGates(frontend, t, o, budget, done);
  if (o.prometheus) {
    const b = blockersOf("F", done);
    done.set(
      "F",
      b.length
        ? skipped("F", b)
        : (budget.outOfTime("F") ?? (await gateF(kc, o.prometheus, t.graph, t.namespace, budget.left(), t.estimate))),
    );
  }
  const probe: WorkerProbe = { kc, t, workers, budget, done };
  if (o.probeWorkers) done.set("G", await gateG(probe));
  if (o.checkLocality) done.set("L", await gateL(probe));
}

/** What a gate that probes the workers from inside their pods needs: the cluster, the target, the budget. */
interface WorkerProbe {
  readonly kc: KubeConfig;
  readonly t: RunOptions["target"];
  readonly workers: readonly PodRef[];
  readonly budget: Budget;
  readonly done: ReadonlyMap<GateId, GateResult>;
}

/** Gate L: one sysfs probe per worker; the KV path only exists on EFA, so UCX graphs are told so. */
async function gateL(w: WorkerProbe): Promise<GateResult> {
  const b = blockersOf("L", w.done);
  if (b.length) return skipped("L", b);
  if ((w.t.kvTransport ?? KvTransport.Libfabric) !== KvTransport.Libfabric)
    return result("L", GateStatus.Skipped, [
      `the stack moves KV over ${w.t.kvTransport}: its workers hold no EFA device`,
    ]);
  const late = w.budget.outOfTime("L");
  if (late) return late;
  const { probes, ms } = await probeEach(w, LOCALITY_PROBE_SCRIPT);
  // Under DRA the allocation itself is read too: each worker's claim and the devices' PCIe roots.
  const dra = w.workers.some((p) => p.claimed)
    ? await new ClusterReader(w.kc, w.t.namespace).draAllocation(w.budget.left())
    : undefined;
  return gateLocality(probes, ms, dra);
}

/** `script` run in every worker at once, within what is left of the budget, and how long that took. */
async function probeEach(w: WorkerProbe, script: string) {
  const t0 = Date.now();
  const probes = await Promise.all(w.workers.map((p) => execInPod(w.kc, w.t.namespace, p, script, w.budget.left())));
  return { probes, ms: elapsed(t0) };
}

/** Gate G after C's requests (so NIXL has moved KV): one exec probe per worker. */
async function gateG(w: WorkerProbe): Promise<GateResult> {
  const b = blockersOf("G", w.done);
  if (b.length) return skipped("G", b);
  const late = w.budget.outOfTime("G");
  if (late) return late;
  const { probes, ms } = await probeEach(w, WORKER_PROBE_SCRIPT);
  const given = new Map(w.workers.flatMap((p) => (p.given ? [[p.name, p.given] as const] : [])));
  return gateEfaProcess(w.t.backend, probes, w.t.kvTransport ?? KvTransport.Libfabric, ms, given);
}

/** Runs gates A-E, and F when there is a Prometheus to read. Unreachable cluster or Frontend: the outcome keeps what ran and says why. */
export async function runGates(o: RunOptions): Promise<RunOutcome> {
  // Loading the kubeconfig loads the Kubernetes client (~2 s): before the budget, which is the cluster's time.
  const kc = await loadKubeConfig(o.kubeconfig);
  const budget = new Budget(o.timeoutMs);
  const done = new Map<GateId, GateResult>();
  let frontend: Forward | undefined;
  let unreachable: string | undefined;
  try {
    await runAll(o, budget, done, (f) => (frontend = f), kc);
  } catch (e) {
    if (!(e instanceof UnreachableError)) throw e;
    unreachable = e.message;
  } finally {
    await (frontend as Forward | undefined)?.close();
  }
  const notRun = (id: GateId) => result(id, GateStatus.NotRun, [`not run: ${unreachable ?? "stopped early"}`]);
  const asked = (id: GateId) =>
    (id !== "F" || o.prometheus) && (id !== "G" || o.probeWorkers) && (id !== "L" || o.checkLocality);
  const results = ORDER.filter(asked).map((id) => done.get(id) ?? notRun(id));
  return { results, frontend: (frontend as Forward | undefined)?.url, ...(unreachable ? { unreachable } : {}) };
}
