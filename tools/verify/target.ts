/**
 * What `verify` checks: namespace, graph, served model and engine of a stack. Read with the same
 * loader and the same schema as `render` and the program: `tools/_shared/stackfile.ts`
 * merges `Pulumi.yaml` defaults and `stacks/Pulumi.<stack>.yaml` (namespaced or not, merge keys and
 * all), `tools/_shared/stack-check.ts` checks it with `checkStackConfig`, so verify accepts exactly the
 * stacks the program deploys and reads them with the program's defaults.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { DEFAULT_GRAPH_NAME, DEFAULT_GRAPH_NAMESPACE, K8S_NAME } from "../../components/_shared/names";
import { formatProblems, Problem } from "../../components/_shared/problems";
import { checkStackConfigMap } from "../_shared/stack-check";
import { loadProject, stackConfig, stackFilePath, UsageError } from "../_shared/stackfile";
import { type KvTransport, type ResolvedInference, resolveArgs } from "../../components/inference/args";
import type { StackConfig } from "../../program/config";
import { servingEstimate, servingInputOf } from "../../serving";
import { inferencePlan } from "../../components/inference/plan";
import { LatencyEstimate, prometheusFor, PrometheusTarget } from "./prometheus";
import { Backend } from "./kvlog";
import { Backend as ProgramBackend } from "../../components/inference/args";

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
 * A stack file's config, checked as the program checks it, and its inference settings resolved as the program
 * resolves them (`kvTransport` is the backend the workers were told to use). Also `measure`'s reader.
 */
export function stackInference(root: string, file: string): { config: StackConfig; resolved: ResolvedInference } {
  const project = loadProject(root);
  // verify and measure never need the token, and a deployed stack had one: do not require it here.
  const { config, problems } = checkStackConfigMap(project.name, stackConfig(project, file), true);
  if (!config)
    throw new UsageError(
      `${formatProblems(`${path.relative(root, file)} is not a valid stack config`, problems)}\n(fix the stack file, or pass --namespace, --graph, --model and --backend without a stack file)`,
    );
  return {
    config,
    resolved: resolveArgs(config.graphName, { ...config.inference, gpuPool: config.gpuPool }, undefined),
  };
}

/** The stack file's inference target, checked as the program checks it. */
function fromStackFile(root: string, file: string): Omit<Target, "source"> {
  const { config, resolved } = stackInference(root, file);
  const inf = config.inference;
  // The estimate of the plan the program renders the graph from, as plan.json's `serving` is.
  const input = servingInputOf(inferencePlan(resolved), resolved.pool);
  const e = "why" in input ? undefined : servingEstimate(input);
  return {
    ...(e && !("why" in e) ? { estimate: { ttftMs: e.ttftMs, itlMs: e.itlMs, declared: e.workload.declared } } : {}),
    namespace: inf.namespace ?? DEFAULT_NAMESPACE,
    graph: config.graphName,
    servedModel: inf.servedModelName ?? inf.model,
    backend: (inf.backend ?? Backend.Vllm) as Backend,
    kvTransport: resolved.kvTransport,
  };
}

/** Gate F's Prometheus as the stack file's observability config installs it; undefined without one (or without a file). */
export function stackPrometheus(root: string, stack: string): PrometheusTarget | undefined {
  const file = stackFilePath(root, loadProject(root), stack);
  if (!fs.existsSync(file)) return undefined;
  const project = loadProject(root);
  return prometheusFor(checkStackConfigMap(project.name, stackConfig(project, file), true).config?.observability);
}

/**
 * Resolution order: explicit flags; else `stacks/Pulumi.<stack>.yaml` under `root`, checked and
 * defaulted by the program's schema. No file and no --model/--backend => UsageError.
 */
export function resolveTarget(stack: string, flags: TargetFlags, root: string): Target {
  const problems = flagProblems(flags);
  if (problems.length > 0) throw new UsageError(formatProblems("invalid flags", problems));
  const file = stackFilePath(root, loadProject(root), stack);
  const haveFile = fs.existsSync(file);
  const fromFile = haveFile ? fromStackFile(root, file) : undefined;
  const model = flags.model ?? fromFile?.servedModel;
  const backend = flags.backend ?? fromFile?.backend;
  if (!model || !backend) {
    const missing = [...(model ? [] : ["--model"]), ...(backend ? [] : ["--backend"])];
    throw new UsageError(
      `no stack file ${file}; pass ${missing.join(" and ")} (and --namespace/--graph if not "${DEFAULT_NAMESPACE}"/"${DEFAULT_GRAPH_NAME}")`,
    );
  }
  return {
    namespace: flags.namespace ?? fromFile?.namespace ?? DEFAULT_NAMESPACE,
    graph: flags.graph ?? fromFile?.graph ?? DEFAULT_GRAPH_NAME,
    servedModel: model,
    backend: backend as Backend,
    ...(fromFile?.kvTransport ? { kvTransport: fromFile.kvTransport } : {}),
    ...(fromFile?.estimate ? { estimate: fromFile.estimate } : {}),
    source: haveFile ? path.relative(root, file) : "flags",
  };
}
