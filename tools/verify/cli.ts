/**
 * `npm run verify -- <stack> [--kubeconfig F] [--namespace N] [--graph G] [--model M] [--backend B]
 *  [--cluster-outputs F] [--url http://frontend:8000] [--json out.json] [--timeout S] [--ttft-threshold-ms MS] [--prometheus-url U]
 *  [--probe-workers] [--check-locality]`
 *
 * Exit codes: `ExitCode` of the CLI family (the README's verify section lists them). Arguments are parsed before
 * anything heavy loads; the stack file is read with render's loader and the program's schema.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parseStackCommand, UsageError } from "../_shared/input";
import { DEFAULT_GRAPH_NAME } from "../../components/_shared/names";
import { ExitCode } from "../_shared/exit-codes";

/** Where output goes and where stacks are read from (injectable for tests). */
export interface Io {
  readonly stdout: (s: string) => void;
  readonly stderr: (s: string) => void;
  /** Project root holding `stacks/`. @default - the repository root (two levels above this file) */
  readonly root: string;
  /** Directory --kubeconfig and --json resolve against. @default - INIT_CWD (where npm was run), else the process cwd */
  readonly cwd?: string;
}

/** Default run budget, seconds. */
export const DEFAULT_TIMEOUT_S = 120;
/** Default gate E threshold: the field saw ~1 s on EFA and ~100 s on a TCP fallback. */
export const DEFAULT_TTFT_THRESHOLD_MS = 5000;

/** Bounds of --timeout (s): Node's timers overflow past ~24.8 days, and below 0.1 s nothing can run. */
export const TIMEOUT_S = { min: 0.1, max: 86400 } as const;
/** Bounds of --ttft-threshold-ms. */
export const TTFT_MS = { min: 1, max: 600000 } as const;

export const USAGE = `usage: npm run verify -- <stack> [options]
  a whole or model stack: the graph's gates; a cluster stack: its nodes, platform, device plugins, monitoring
  --kubeconfig F          kubeconfig file (default: KUBECONFIG, ~/.kube/config)
  --namespace N           namespace of the graph (default: stack config, else "dynamo")
  --graph G               DynamoGraphDeployment name (default: stack config graphName, else "${DEFAULT_GRAPH_NAME}")
  --model M               served model id (default: stack config servedModelName/model)
  --backend B             vllm | trtllm (default: stack config backend)
  --cluster-outputs F     a model stack's cluster stack outputs (pulumi stack output --json -s <cluster stack> > F)
                          (default: the file the stack names in dynamo-efa:clusterOutputs)
  --url U                 Frontend base URL (default: port-forward to a Ready Frontend pod)
  --json F                also write the results as JSON to F
  --timeout S             budget for the whole run, seconds, ${TIMEOUT_S.min}..${TIMEOUT_S.max} (default ${DEFAULT_TIMEOUT_S})
  --ttft-threshold-ms MS  gate E threshold, ${TTFT_MS.min}..${TTFT_MS.max} (default ${DEFAULT_TTFT_THRESHOLD_MS})
  --prometheus-url U      gate F: read TTFT/ITL back from this Prometheus (default: the stack's own, through a port-forward)
  --probe-workers         gate G: exec into each worker (needs pods/exec): memlock, CapEff, LIBFABRIC mapped, KV bytes, GPU registration path, devices seen
  --check-locality        gate L: exec into each worker (needs pods/exec): its EFA devices on its GPUs' PCIe tree
exit: 0 all gates pass, 1 a gate did not pass, 2 usage / stack config / kubeconfig, 3 cluster or
frontend unreachable (gates that ran are still reported), 70 internal error, 73 --json not writable
`;

const OPTIONS = {
  kubeconfig: { type: "string" },
  namespace: { type: "string" },
  graph: { type: "string" },
  model: { type: "string" },
  backend: { type: "string" },
  "cluster-outputs": { type: "string" },
  url: { type: "string" },
  json: { type: "string" },
  timeout: { type: "string" },
  "ttft-threshold-ms": { type: "string" },
  "prometheus-url": { type: "string" },
  "probe-workers": { type: "boolean" },
  "check-locality": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

function bounded(flag: string, v: string | undefined, dflt: number, b: { min: number; max: number }): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (v.trim() === "" || !Number.isFinite(n) || n < b.min || n > b.max)
    throw new UsageError(`${flag} must be a number from ${b.min} to ${b.max}; got ${JSON.stringify(v.slice(0, 40))}`);
  return n;
}

/** `--url`, `--prometheus-url`: http(s)://host[:port] with a valid port, else a usage error. */
function httpUrl(flag: string, v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  let u: URL | undefined;
  try {
    u = new URL(v);
  } catch {
    // reported below
  }
  if (!u || (u.protocol !== "http:" && u.protocol !== "https:") || u.hostname === "") {
    throw new UsageError(
      `${flag} must be http(s)://host[:port] with a port 1..65535; got ${JSON.stringify(v.slice(0, 80))}`,
    );
  }
  if (u.port === "0") throw new UsageError(`${flag} port must be 1..65535; got 0`);
  return v;
}

function parse(argv: readonly string[]) {
  const parsed = parseStackCommand(argv, OPTIONS);
  if (parsed.help) return { help: true as const };
  const { values } = parsed;
  return {
    help: false as const,
    stack: parsed.stack,
    values: {
      ...values,
      url: httpUrl("--url", values.url),
      "prometheus-url": httpUrl("--prometheus-url", values["prometheus-url"]),
    },
    timeoutMs: bounded("--timeout", values.timeout, DEFAULT_TIMEOUT_S, TIMEOUT_S) * 1000,
    ttftThresholdMs: bounded("--ttft-threshold-ms", values["ttft-threshold-ms"], DEFAULT_TTFT_THRESHOLD_MS, TTFT_MS),
  };
}

/**
 * Writes the --json report; a file that cannot be written is exit 73 (the table was printed already). A regular
 * file (or a new one) is written beside and renamed over, so an interrupted run never leaves half a report in
 * place of the last one. Anything else (`/dev/stdout`, a pipe) is opened non-blocking: a FIFO nobody reads is an
 * ENXIO error at once instead of a run that never ends.
 */
function writeJson(file: string, text: string, io: Io): boolean {
  try {
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (st === undefined || st.isFile()) {
      const tmp = `${file}.${process.pid}.tmp`;
      try {
        fs.writeFileSync(tmp, text, { flag: "wx" });
        fs.renameSync(tmp, file);
      } finally {
        fs.rmSync(tmp, { force: true });
      }
    } else {
      const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
      try {
        fs.writeFileSync(fd, text);
      } finally {
        fs.closeSync(fd);
      }
    }
    return true;
  } catch (e) {
    io.stderr(`verify: cannot write --json ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`);
    return false;
  }
}

type Parsed = Exclude<ReturnType<typeof parse>, { help: true }>;

/** A cluster stack: its own gates, the graph gates SKIPPED as not applying; the table and --json as for a graph. */
async function verifyCluster(
  read: Extract<import("./target").VerifyTarget, { kind: "cluster" }>,
  a: Parsed,
  userPath: (p: string | undefined) => string | undefined,
  io: Io,
): Promise<number> {
  for (const flag of ["url", "prometheus-url", "probe-workers", "check-locality"] as const)
    if (a.values[flag] !== undefined)
      throw new UsageError(`--${flag} checks a graph; ${a.stack} is a cluster stack and serves none`);
  const { runClusterGates } = await import("./cluster-run");
  const { exitCodeOf } = await import("./gates");
  const { renderJson, renderTable } = await import("./report");
  const { results, unreachable } = await runClusterGates({
    stack: a.stack,
    cluster: read.cluster,
    kubeconfig: userPath(a.values.kubeconfig),
    timeoutMs: a.timeoutMs,
  });
  const exitCode = unreachable ? ExitCode.Unreachable : exitCodeOf(results);
  const target = {
    kind: "cluster" as const,
    stack: a.stack,
    source: read.source,
    modelStacks: read.cluster.modelStacks,
  };
  io.stdout(renderTable(target, results));
  const report = renderJson({
    target,
    frontend: undefined,
    exitCode,
    gates: results,
    ...(unreachable ? { unreachable } : {}),
  });
  const wrote = a.values.json ? writeJson(userPath(a.values.json)!, report, io) : true;
  if (unreachable) io.stderr(`verify: ${unreachable}\n`);
  return wrote ? exitCode : ExitCode.CantCreate;
}

/** The command, in-process: returns the exit code instead of exiting. Never throws. */
export async function main(argv: readonly string[], io: Io = defaultIo()): Promise<number> {
  try {
    const a = parse(argv);
    if (a.help) {
      io.stdout(USAGE);
      return ExitCode.Ok;
    }
    // Loaded lazily: the schema and @kubernetes/client-node take seconds to import; usage errors should not wait.
    const { resolveVerifyTarget } = await import("./target");
    const userPath = (p: string | undefined) =>
      p === undefined ? undefined : path.resolve(io.cwd ?? process.cwd(), p);
    const { "cluster-outputs": clusterOutputs, ...flags } = a.values;
    const { namespace, graph, model, backend } = flags;
    const read = resolveVerifyTarget(a.stack, { namespace, graph, model, backend }, io.root, userPath(clusterOutputs));
    if (read.kind === "cluster") return await verifyCluster(read, a, userPath, io);
    const target = read.target;
    const promUrl = a.values["prometheus-url"];
    const prometheus = promUrl !== undefined ? { url: promUrl } : read.prometheus;
    const { runGates } = await import("./run");
    const { exitCodeOf } = await import("./gates");
    const { renderJson, renderTable } = await import("./report");
    const { results, frontend, unreachable } = await runGates({
      target,
      kubeconfig: userPath(a.values.kubeconfig),
      url: a.values.url,
      timeoutMs: a.timeoutMs,
      ttftThresholdMs: a.ttftThresholdMs,
      ...(prometheus ? { prometheus } : {}),
      ...(a.values["probe-workers"] ? { probeWorkers: true } : {}),
      ...(a.values["check-locality"] ? { checkLocality: true } : {}),
    });
    const exitCode = unreachable ? ExitCode.Unreachable : exitCodeOf(results);
    io.stdout(renderTable(target, results));
    const wrote = a.values.json
      ? writeJson(
          userPath(a.values.json)!,
          renderJson({ target, frontend, exitCode, gates: results, ...(unreachable ? { unreachable } : {}) }),
          io,
        )
      : true;
    if (unreachable) io.stderr(`verify: ${unreachable}\n`);
    return wrote ? exitCode : ExitCode.CantCreate;
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`verify: ${e.message}\n${USAGE}`);
      return ExitCode.InvalidConfig;
    }
    io.stderr(
      `verify: internal error (a bug in dynamo-efa, please report it): ${String((e as Error)?.message ?? e)
        .split("\n")[0]
        .slice(0, 200)}\n`,
    );
    return ExitCode.Internal;
  }
}

function defaultIo(): Io {
  return {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    root: path.resolve(__dirname, "..", ".."),
    cwd: process.env.INIT_CWD || process.cwd(),
  };
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`verify: internal error: ${String((e as Error)?.message ?? e).slice(0, 200)}\n`);
      process.exit(ExitCode.Internal);
    },
  );
}
