/**
 * `npm run verify -- <stack> [--kubeconfig F] [--namespace N] [--graph G] [--model M] [--backend B]
 *  [--url http://frontend:8000] [--json out.json] [--timeout S] [--ttft-threshold-ms MS] [--prometheus-url U]`
 *
 * Exit codes: 0 every gate passed; 1 a gate failed (or was INCONCLUSIVE/SKIPPED); 2 usage;
 * 3 cluster or Frontend unreachable (one line on stderr, no stack trace).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { parse as parseYaml } from "yaml";
import { exitCodeOf } from "./gates";
import { UnreachableError } from "./http";
import { renderJson, renderTable } from "./report";
import { resolveTarget, stackFile, UsageError } from "./target";
import { prometheusFromConfig, PrometheusTarget } from "./prometheus";

/** Exit codes of the command. */
export const ExitCode = { Pass: 0, GateFailed: 1, Usage: 2, Unreachable: 3 } as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** Where output goes and where stacks are read from (injectable for tests). */
export interface Io {
  readonly stdout: (s: string) => void;
  readonly stderr: (s: string) => void;
  /** Project root holding `stacks/`. @default - the repository root (two levels above this file) */
  readonly root: string;
}

/** Default run budget, seconds. */
export const DEFAULT_TIMEOUT_S = 120;
/** Default gate E threshold: the field saw ~1 s on EFA and ~100 s on a TCP fallback. */
export const DEFAULT_TTFT_THRESHOLD_MS = 5000;

export const USAGE = `usage: npm run verify -- <stack> [options]
  --kubeconfig F          kubeconfig file (default: KUBECONFIG, ~/.kube/config)
  --namespace N           namespace of the graph (default: stack config, else "dynamo")
  --graph G               DynamoGraphDeployment name (default: stack config graphName, else <stack>)
  --model M               served model id (default: stack config servedModelName/model)
  --backend B             vllm | trtllm | sglang (default: stack config backend)
  --url U                 Frontend base URL (default: port-forward to a Ready Frontend pod)
  --json F                also write the results as JSON to F
  --timeout S             budget for the whole run, seconds (default ${DEFAULT_TIMEOUT_S})
  --ttft-threshold-ms MS  gate E threshold (default ${DEFAULT_TTFT_THRESHOLD_MS})
  --prometheus-url U      run gate F: read TTFT/ITL back from this Prometheus (e.g. a port-forward to svc/kps-prometheus)
exit: 0 all gates pass, 1 a gate failed, 2 usage, 3 cluster or frontend unreachable
`;

const OPTIONS = {
  kubeconfig: { type: "string" },
  namespace: { type: "string" },
  graph: { type: "string" },
  model: { type: "string" },
  backend: { type: "string" },
  url: { type: "string" },
  json: { type: "string" },
  timeout: { type: "string" },
  "ttft-threshold-ms": { type: "string" },
  "prometheus-url": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

function positiveNumber(flag: string, v: string | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${flag} must be a positive number; got ${JSON.stringify(v)}`);
  return n;
}

function parse(argv: readonly string[]) {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { help: true as const };
  if (positionals.length !== 1) throw new UsageError(`expected exactly one <stack>; got ${positionals.length ? positionals.join(" ") : "none"}`);
  if (values.url !== undefined && !/^https?:\/\/[^/]+/.test(values.url)) throw new UsageError(`--url must be http(s)://host[:port]; got ${values.url}`);
  return {
    help: false as const,
    stack: positionals[0],
    values,
    timeoutMs: positiveNumber("--timeout", values.timeout, DEFAULT_TIMEOUT_S) * 1000,
    ttftThresholdMs: positiveNumber("--ttft-threshold-ms", values["ttft-threshold-ms"], DEFAULT_TTFT_THRESHOLD_MS),
  };
}

/** Gate F's Prometheus: `--prometheus-url`, else the one the stack file's observability config installs. */
function withPrometheus(url: string | undefined, file: string): { prometheus?: PrometheusTarget } {
  if (url !== undefined) {
    if (!/^https?:\/\/[^/]+/.test(url)) throw new UsageError(`--prometheus-url must be http(s)://host[:port]; got ${url}`);
    return { prometheus: { url } };
  }
  if (!fs.existsSync(file)) return {};
  const doc = parseYaml(fs.readFileSync(file, "utf8")) as { config?: Record<string, unknown> } | null;
  const p = prometheusFromConfig(doc?.config);
  return p ? { prometheus: p } : {};
}

/** The command, in-process: returns the exit code instead of exiting. */
export async function main(argv: readonly string[], io: Io = defaultIo()): Promise<number> {
  try {
    const a = parse(argv);
    if (a.help) {
      io.stdout(USAGE);
      return ExitCode.Pass;
    }
    const target = resolveTarget(a.stack, a.values, io.root);
    // Loaded lazily: @kubernetes/client-node takes ~1 s to import, and usage errors should not wait for it.
    const { runGates } = await import("./run");
    const { results, frontend } = await runGates({
      target,
      kubeconfig: a.values.kubeconfig,
      url: a.values.url,
      timeoutMs: a.timeoutMs,
      ttftThresholdMs: a.ttftThresholdMs,
      ...withPrometheus(a.values["prometheus-url"], stackFile(io.root, a.stack)),
    });
    const exitCode = exitCodeOf(results);
    io.stdout(renderTable(target, results));
    if (a.values.json) fs.writeFileSync(a.values.json, renderJson({ target, frontend, exitCode, gates: results }));
    return exitCode;
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`verify: ${e.message}\n${USAGE}`);
      return ExitCode.Usage;
    }
    if (e instanceof UnreachableError) {
      io.stderr(`verify: ${e.message}\n`);
      return ExitCode.Unreachable;
    }
    throw e;
  }
}

function defaultIo(): Io {
  return {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    root: path.resolve(__dirname, "..", ".."),
  };
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`verify: unexpected error: ${(e as Error).message ?? String(e)}\n`);
      process.exit(1);
    },
  );
}
