/**
 * What `verify` checks: namespace, graph, served model and engine of a stack. Resolved in ONE place
 * (`resolveTarget`) so it is easy to align with the stack config schema the inference program reads.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";
import { DEFAULT_GRAPH_NAME, DEFAULT_GRAPH_NAMESPACE } from "../../components/_shared/names";
import { INFERENCE_DEFAULTS } from "../../components/inference/args";
import type { KvTransport } from "../../components/inference/transport";
import { Backend } from "./kvlog";
import { stackKvTransport } from "./transport";

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

/** A usage problem (exit code 2). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** Config key holding the inference settings in `stacks/Pulumi.<stack>.yaml`. */
export const INFERENCE_CONFIG_KEY = "dynamo-efa:inference";
/** Config key holding the graph name (top level, as the program reads it). */
export const GRAPH_NAME_CONFIG_KEY = "dynamo-efa:graphName";
/** Namespace when neither flag nor stack says: the inference component's own default. */
export const DEFAULT_NAMESPACE = DEFAULT_GRAPH_NAMESPACE;

const BACKENDS: readonly string[] = Object.values(Backend);

/** Path of a stack's config file under `root`. */
export function stackFile(root: string, stack: string): string {
  return path.join(root, "stacks", `Pulumi.${stack}.yaml`);
}

function readStack(file: string): { inf: Record<string, unknown>; graphName?: string; cluster?: Record<string, unknown> } {
  const doc = parse(fs.readFileSync(file, "utf8")) as { config?: Record<string, unknown> } | null;
  const inf = doc?.config?.[INFERENCE_CONFIG_KEY];
  if (typeof inf !== "object" || inf === null || Array.isArray(inf)) {
    throw new UsageError(`${file}: no "config.${INFERENCE_CONFIG_KEY}" object; pass --namespace, --graph, --model and --backend instead`);
  }
  const cluster = doc?.config?.["dynamo-efa:cluster"];
  return { inf: inf as Record<string, unknown>, graphName: str(doc?.config?.[GRAPH_NAME_CONFIG_KEY]), ...(typeof cluster === "object" && cluster !== null ? { cluster: cluster as Record<string, unknown> } : {}) };
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

/**
 * Resolution order: explicit flags; else `stacks/Pulumi.<stack>.yaml` under `root`, read with the
 * program's own keys and defaults: `dynamo-efa:graphName` (default `DEFAULT_GRAPH_NAME`), and under
 * `dynamo-efa:inference`: `backend` (default vllm), `model`, `servedModelName` (default: model),
 * `namespace` (default "dynamo"). No file and no --model => UsageError.
 */
export function resolveTarget(stack: string, flags: TargetFlags, root: string): Target {
  const file = stackFile(root, stack);
  const haveFile = fs.existsSync(file);
  const { inf, graphName, cluster } = haveFile ? readStack(file) : { inf: {} as Record<string, unknown>, graphName: undefined, cluster: undefined };
  const model = flags.model ?? str(inf.servedModelName) ?? str(inf.model);
  const backend = flags.backend ?? str(inf.backend) ?? (haveFile ? INFERENCE_DEFAULTS.backend : undefined);
  const missing: string[] = [];
  if (!model) missing.push("--model");
  if (!backend) missing.push("--backend");
  if (missing.length > 0) {
    const where = haveFile ? `${file} has no ${INFERENCE_CONFIG_KEY}.model/backend` : `no stack file ${file}`;
    throw new UsageError(`${where}; pass ${missing.join(" and ")} (and --namespace/--graph if not "${DEFAULT_NAMESPACE}"/"${DEFAULT_GRAPH_NAME}")`);
  }
  if (!BACKENDS.includes(backend as string)) {
    throw new UsageError(`backend ${JSON.stringify(backend)} is not one of ${BACKENDS.join(", ")}`);
  }
  return {
    namespace: flags.namespace ?? str(inf.namespace) ?? DEFAULT_NAMESPACE,
    graph: flags.graph ?? graphName ?? DEFAULT_GRAPH_NAME,
    servedModel: model as string,
    backend: backend as Backend,
    ...(haveFile ? { kvTransport: stackKvTransport(inf, cluster) } : {}),
    source: haveFile ? path.relative(root, file) : "flags",
  };
}
