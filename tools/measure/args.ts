/**
 * `measure`'s command line: what it reads (`Io`), its flags and their bounds, the usage text, and `parse`, which
 * checks every flag before anything heavy loads. The CLI (./cli.ts) and the run (./main-run.ts) both read it.
 */
import { parseStackCommand, UsageError } from "../_shared/input";
import { DIGEST_PINNED } from "../../components/inference/validate";

/** Where output goes and where stacks are read from (injectable for tests). */
export interface Io {
  readonly stdout: (s: string) => void;
  readonly stderr: (s: string) => void;
  /** Project root holding `stacks/`. */
  readonly root: string;
  /** Directory --kubeconfig and --out resolve against. */
  readonly cwd: string;
  /** `AIPERF_IMAGE`: an image to run AIPerf from instead of the release's (as --aiperf-image). */
  readonly aiperfImageEnv?: string;
}

/** Default limit of each benchmark Job, seconds. */
export const DEFAULT_DEADLINE_S = 1800;
/** Bounds of --timeout (s) and --requests. */
export const DEADLINE_S = { min: 60, max: 86400 } as const;
export const REQUESTS = { min: 10, max: 1_000_000 } as const;
/** Bounds of each --sweep factor. */
export const SWEEP_FACTOR = { minExclusive: 0, max: 100 } as const;

export const USAGE = `usage: npm run measure -- <stack> [options]
  --aiperf-image REF   run AIPerf from this image, by digest (default: AIPERF_IMAGE, else the release's frontend
                       image, which ships AIPerf, at the digest the cluster runs it: nothing to build)
  --kubeconfig F       kubeconfig file (default: KUBECONFIG, ~/.kube/config)
  --cluster-outputs F  a model stack's cluster stack outputs (pulumi stack output --json -s <cluster stack> > F)
                       (default: the file the stack names in dynamo-efa:clusterOutputs)
  --sweep F,F,...      multiples of the declared load to run, e.g. 0.25,0.5,1,2 (default: 1, the declared load)
  --requests N         requests measured per point, ${REQUESTS.min}..${REQUESTS.max} (default: 8 per in-flight request, 120 s of arrivals, at least 200)
  --twin               also deploy the aggregated twin on the same GPUs, measure it at the same points, tear it down
  --pause-disagg       with --twin on a pool without free GPUs: scale the graph's workers to 0 meanwhile (restored after)
  --out DIR            where measure.json and measure.svg go (default: measure-<stack>)
  --timeout S          limit of each benchmark Job, seconds, ${DEADLINE_S.min}..${DEADLINE_S.max} (default ${DEFAULT_DEADLINE_S})
exit: 0 report written, 2 usage / stack config / kubeconfig, 3 cluster unreachable or a benchmark
produced no AIPerf export, 70 internal error, 73 --out not writable, 130 interrupted (what it created is deleted)
`;

const OPTIONS = {
  "aiperf-image": { type: "string" },
  kubeconfig: { type: "string" },
  "cluster-outputs": { type: "string" },
  sweep: { type: "string" },
  requests: { type: "string" },
  twin: { type: "boolean" },
  "pause-disagg": { type: "boolean" },
  out: { type: "string" },
  timeout: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

function integer(flag: string, v: string | undefined, b: { min: number; max: number }): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || n < b.min || n > b.max)
    throw new UsageError(
      `${flag} must be a whole number from ${b.min} to ${b.max}; got ${JSON.stringify(v.slice(0, 40))}`,
    );
  return n;
}

function sweep(v: string | undefined): number[] {
  if (v === undefined) return [1];
  const parts = v.split(",").map((s) => s.trim());
  const bad = parts.filter(
    (p) => !/^\d+(\.\d+)?$/.test(p) || Number(p) <= SWEEP_FACTOR.minExclusive || Number(p) > SWEEP_FACTOR.max,
  );
  if (parts.length === 0 || bad.length > 0)
    throw new UsageError(
      `--sweep must be a comma-separated list of load multiples in (0, ${SWEEP_FACTOR.max}], e.g. 0.5,1,2; bad: ${JSON.stringify(bad.join(",").slice(0, 60))}`,
    );
  return [...new Set(parts.map(Number))].sort((a, b) => a - b);
}

/** The arguments, checked; every problem of the command line is a usage error naming the flag. */
export function parse(argv: readonly string[], env: string | undefined) {
  const parsed = parseStackCommand(argv, OPTIONS);
  if (parsed.help) return { help: true as const };
  const { values } = parsed;
  const image = values["aiperf-image"] ?? env;
  if (image !== undefined && !DIGEST_PINNED.test(image))
    throw new UsageError(
      `--aiperf-image must be pinned by digest (repo@sha256:<64 hex>), never a moving tag; got ${JSON.stringify(image.slice(0, 100))}`,
    );
  if (values["pause-disagg"] && !values.twin) throw new UsageError("--pause-disagg only applies with --twin");
  return {
    help: false as const,
    stack: parsed.stack,
    ...(image !== undefined ? { image } : {}),
    factors: sweep(values.sweep),
    requests: integer("--requests", values.requests, REQUESTS),
    deadlineSeconds: integer("--timeout", values.timeout, DEADLINE_S) ?? DEFAULT_DEADLINE_S,
    twin: values.twin === true,
    pauseDisagg: values["pause-disagg"] === true,
    kubeconfig: values.kubeconfig,
    clusterOutputs: values["cluster-outputs"],
    out: values.out ?? `measure-${parsed.stack}`,
  };
}
