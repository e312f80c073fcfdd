/**
 * What `verify` checks: namespace, graph, served model and engine of a stack that serves a graph, or a cluster
 * stack's own parts. Read with the same loader and the same checks as `render` and the program:
 * `tools/_shared/stackfile.ts` merges `Pulumi.yaml` defaults and `stacks/Pulumi.<stack>.yaml` (namespaced or not,
 * merge keys and all), ./deployed-stack.ts checks it for its kind with the program's own checks and wires a model
 * stack to its cluster stack's outputs, so verify accepts exactly the stacks the program deploys and reads them with
 * the program's defaults.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { DEFAULT_GRAPH_NAME, DEFAULT_GRAPH_NAMESPACE, K8S_NAME } from "../../components/_shared/names";
import { formatProblems, Problem } from "../../components/_shared/problems";
import { loadProject, stackFilePath, UsageError } from "../_shared/stackfile";
import { type KvTransport, type ResolvedInference } from "../../components/inference/args";
import { StackKind } from "../../program/config";
import { servingEstimate, servingInputOf } from "../../serving";
import { inferencePlan } from "../../components/inference/plan";
import { LatencyEstimate, PrometheusTarget } from "./prometheus";
import { Backend } from "./kvlog";
import { Backend as ProgramBackend } from "../../components/inference/args";
import { ClusterStack, readDeployedStack, ServingStack, servingStack } from "./deployed-stack";

export { UsageError };

/** The deployment `verify` checks. */
export interface Target {
  /** Kubernetes namespace of the graph. */
  readonly namespace: string;
  /** DynamoGraphDeployment name. */
  readonly graph: string;
  /** Model id the Frontend must list in `/v1/models` and that requests name. */
  readonly servedModel: string;
  /** Engine, which decides the log lines of gate D. */
  readonly backend: Backend;
  /** NIXL backend the stack chose (`inference.kvTransport`), the one gate D must find. @default "LIBFABRIC" */
  readonly kvTransport?: KvTransport;
  /** The plan's serving estimate at the stack's workload (gate F reports measured / estimated). @default - none (no stack file, or no estimate) */
  readonly estimate?: LatencyEstimate;
  /** Where the values came from (for the report). */
  readonly source: string;
  /**
   * The graph's GPU pool (its nodes' `dynamo-efa/pool` label): gate A judges only its nodes, never another model's
   * on a shared cluster. @default - every GPU node (no stack file)
   */
  readonly pool?: string;
}

/** Flags that override the stack file. */
export interface TargetFlags {
  readonly namespace?: string;
  readonly graph?: string;
  readonly model?: string;
  readonly backend?: string;
}

/** Namespace when neither flag nor stack says: the inference component's own default. */
export const DEFAULT_NAMESPACE = DEFAULT_GRAPH_NAMESPACE;

/** The flags, checked with the schema's own specs (the backend enum is the program's). */
function flagProblems(flags: TargetFlags): Problem[] {
  const out: Problem[] = [];
  if (flags.backend !== undefined && !(Object.values(ProgramBackend) as string[]).includes(flags.backend))
    out.push({
      propertyPath: "--backend",
      reason: `must be one of ${Object.values(ProgramBackend)
        .map((b) => JSON.stringify(b))
        .join(", ")}; got ${JSON.stringify(flags.backend.slice(0, 80))}`,
    });
  for (const [flag, v] of [
    ["--namespace", flags.namespace],
    ["--graph", flags.graph],
  ] as const) {
    if (v !== undefined && !K8S_NAME.test(v))
      out.push({
        propertyPath: flag,
        reason: `must be a lower-case RFC 1123 name; got ${JSON.stringify(v.slice(0, 80))}`,
      });
  }
  if (flags.model !== undefined && flags.model !== flags.model.trim())
    out.push({ propertyPath: "--model", reason: "must not start or end with whitespace" });
  return out;
}

/**
 * A stack file that serves a graph (a whole stack, or a model stack wired to its cluster stack's outputs), checked
 * as the program checks it, its inference settings resolved as the program resolves them (`kvTransport` is the
 * backend the workers were told to use). Also `measure`'s reader; a cluster stack is a usage error saying what to
 * run instead. `clusterOutputs`: the cluster stack's outputs for a model stack (./deployed-stack.ts).
 */
export function stackInference(
  root: string,
  file: string,
  clusterOutputs?: string,
  tool = "measure",
): { resolved: ResolvedInference; prometheus?: PrometheusTarget } {
  const stack = /^Pulumi\.(.+)\.ya?ml$/.exec(path.basename(file))?.[1] ?? path.basename(file);
  return servingStack(readDeployedStack(root, stack, file, clusterOutputs), stack, tool);
}

/** The graph's target from a stack that serves one, as the program resolves it. */
function fromServing(d: ServingStack, root: string, file: string): Target {
  const r = d.resolved;
  // The estimate of the plan the program renders the graph from, as plan.json's `serving` is.
  const input = servingInputOf(inferencePlan(r), r.pool);
  const e = "why" in input ? undefined : servingEstimate(input);
  return {
    ...(e && !("why" in e) ? { estimate: { ttftMs: e.ttftMs, itlMs: e.itlMs, declared: e.workload.declared } } : {}),
    namespace: r.namespace,
    graph: r.graphName,
    servedModel: r.servedModelName,
    backend: r.backend as Backend,
    kvTransport: r.kvTransport,
    pool: r.pool.name,
    source: d.cluster
      ? `${path.relative(root, file)} on ${d.cluster.stack} (outputs: ${d.cluster.outputs})`
      : path.relative(root, file),
  };
}

/** What `verify` checks on a stack: a graph (whole or model stack), or a cluster stack's own parts. */
export type VerifyTarget =
  | { readonly kind: "graph"; readonly target: Target; readonly prometheus?: PrometheusTarget }
  | { readonly kind: "cluster"; readonly stack: string; readonly cluster: ClusterStack; readonly source: string };

/**
 * Resolution order: explicit flags; else `stacks/Pulumi.<stack>.yaml` under `root`, checked and defaulted by the
 * program's schema (a model stack with its cluster stack's outputs: `clusterOutputs`, an absolute path, else the
 * file the stack names). A cluster stack is verified as a cluster (graph flags are refused there). No file and no
 * --model/--backend => UsageError.
 */
export function resolveVerifyTarget(
  stack: string,
  flags: TargetFlags,
  root: string,
  clusterOutputs?: string,
): VerifyTarget {
  const problems = flagProblems(flags);
  if (problems.length > 0) throw new UsageError(formatProblems("invalid flags", problems));
  const file = stackFilePath(root, loadProject(root), stack);
  const read = fs.existsSync(file) ? readDeployedStack(root, stack, file, clusterOutputs) : undefined;
  if (read?.kind === StackKind.Cluster) {
    const given = Object.entries(flags).filter(([, v]) => v !== undefined);
    if (given.length > 0)
      throw new UsageError(
        `${stack} is a cluster stack: it serves no graph, so ${given.map(([k]) => `--${k}`).join(", ")} cannot apply. Verify a graph on it with npm run verify -- <model stack>${read.modelStacks.length ? ` (${read.modelStacks.join(", ")})` : ""}`,
      );
    return { kind: "cluster", stack, cluster: read, source: path.relative(root, file) };
  }
  const fromFile = read ? fromServing(read, root, file) : undefined;
  const model = flags.model ?? fromFile?.servedModel;
  const backend = flags.backend ?? fromFile?.backend;
  if (!model || !backend) {
    const missing = [...(model ? [] : ["--model"]), ...(backend ? [] : ["--backend"])];
    throw new UsageError(
      `no stack file ${file}; pass ${missing.join(" and ")} (and --namespace/--graph if not "${DEFAULT_NAMESPACE}"/"${DEFAULT_GRAPH_NAME}")`,
    );
  }
  const target: Target = {
    namespace: flags.namespace ?? fromFile?.namespace ?? DEFAULT_NAMESPACE,
    graph: flags.graph ?? fromFile?.graph ?? DEFAULT_GRAPH_NAME,
    servedModel: model,
    backend: backend as Backend,
    ...(fromFile?.kvTransport ? { kvTransport: fromFile.kvTransport } : {}),
    ...(fromFile?.estimate ? { estimate: fromFile.estimate } : {}),
    ...(fromFile?.pool ? { pool: fromFile.pool } : {}),
    source: fromFile?.source ?? "flags",
  };
  return { kind: "graph", target, ...(read?.prometheus ? { prometheus: read.prometheus } : {}) };
}

/** The graph `verify` checks on a stack that serves one (`resolveVerifyTarget`); a cluster stack is a usage error. */
export function resolveTarget(stack: string, flags: TargetFlags, root: string, clusterOutputs?: string): Target {
  const t = resolveVerifyTarget(stack, flags, root, clusterOutputs);
  if (t.kind === "graph") return t.target;
  return servingStack(t.cluster, stack, "verify") as never;
}
