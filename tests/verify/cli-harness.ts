/**
 * The verify CLI in-process for its end-to-end tests: the real entry (`main`) loaded once, runs
 * against the fake cluster and Frontend with the flags of the fake graph, and the gates' statuses.
 */
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { FrontendMode, MODEL, startFrontend } from "./fake-frontend";
import { FakeKube, GRAPH, KubeScenario, NAMESPACE, startKube } from "./fake-kube";

export const ROOT = path.resolve(__dirname, "..", "..");
type Main = (
  argv: readonly string[],
  io?: { stdout: (s: string) => void; stderr: (s: string) => void; root: string },
) => Promise<number>;
let main: Main;

/** One in-process run: exit code, stdout, stderr and the --json report. */
export interface Run {
  readonly code: number;
  readonly out: string;
  readonly err: string;
  readonly json: { exitCode: number; gates: { id: string; status: string; evidence: string[] }[] } | undefined;
}

let tmp: string;

/** Runs the CLI in-process (after `useVerifyCli`), with a --json report in the suite's scratch directory. */
export async function verify(argv: string[], root = ROOT): Promise<Run> {
  let out = "";
  let err = "";
  const jsonFile = path.join(tmp, `r-${Math.random().toString(36).slice(2)}.json`);
  const code = await main([...argv, "--json", jsonFile], {
    stdout: (s) => (out += s),
    stderr: (s) => (err += s),
    root,
  });
  const json = fs.existsSync(jsonFile) ? JSON.parse(fs.readFileSync(jsonFile, "utf8")) : undefined;
  return { code, out, err, json };
}

/** The per-request budget the runs get (seconds). */
const TIMEOUT_S = 5;
/** The slow Frontend holds its first token this long; its runs use a threshold below it, so E fails however fast. */
const SLOW_FIRST_TOKEN_MS = 350;
export const SLOW_TTFT_THRESHOLD_MS = 150;

/** The argv naming the fake cluster's graph; each suite picks the stack name, budget and threshold it needs. */
export function verifyFlags(o: {
  stack: string;
  kubeconfig: string;
  url: string;
  backend: string;
  timeoutS: number;
  ttftThresholdMs: number;
}): string[] {
  return [
    o.stack,
    "--kubeconfig",
    o.kubeconfig,
    "--url",
    o.url,
    "--namespace",
    NAMESPACE,
    "--graph",
    GRAPH,
    "--model",
    MODEL,
    "--backend",
    o.backend,
    "--timeout",
    String(o.timeoutS),
    "--ttft-threshold-ms",
    String(o.ttftThresholdMs),
  ];
}

/**
 * Flags naming the fake cluster's graph, a 5 s budget per request and a time-to-first-token threshold. The
 * threshold defaults to the budget, so gate E can fail only where the stream also timed out: a loaded machine
 * never turns a healthy run's E into a FAIL. A run that must fail E passes a threshold below the fake's delay.
 */
export function flags(kube: FakeKube, url: string, backend = "vllm", ttftThresholdMs = TIMEOUT_S * 1000): string[] {
  return verifyFlags({
    stack: "test-stack",
    kubeconfig: kube.kubeconfig,
    url,
    backend,
    timeoutS: TIMEOUT_S,
    ttftThresholdMs,
  });
}

/** One run against a fresh fake Frontend in `mode` and a fake cluster in `scenario`; the bodies the Frontend received. */
export async function against(
  mode: FrontendMode,
  scenario: KubeScenario,
  backend = "vllm",
): Promise<Run & { bodies: unknown[] }> {
  const fe = await startFrontend(mode, SLOW_FIRST_TOKEN_MS);
  const kube = await startKube(scenario);
  try {
    const threshold = mode === "slowFirstToken" ? SLOW_TTFT_THRESHOLD_MS : undefined;
    const r = await verify(flags(kube, fe.url, backend, threshold));
    return { ...r, bodies: fe.requests.map((q) => q.body) };
  } finally {
    await fe.close();
    await kube.close();
  }
}

/** The gates' statuses, `A:PASS B:FAIL ...`. */
export function statuses(r: Run): string {
  return (r.json?.gates ?? []).map((g) => `${g.id}:${g.status}`).join(" ");
}

/** A TCP port with nothing listening on it. */
export async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/**
 * Loads the CLI in a `before` hook of the calling suite and gives it a scratch directory (removed after).
 * 17: loading the CLI, the schema and @kubernetes/client-node takes ~2 s alone and much longer on a
 * loaded machine; no bound on it means anything, so the hook has none (a real hang still ends at
 * mocha's run-level limits, and the reporter counts any test a failed hook leaves unrun).
 */
export function useVerifyCli(): void {
  before(async function () {
    this.timeout(0);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "verify-cli-"));
    main = (await import("../../tools/verify/cli")).main;
    await import("../../tools/verify/run");
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));
}

/** The calling suite's scratch directory. */
export const scratch = (): string => tmp;
