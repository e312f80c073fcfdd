/**
 * A stack file as the tools that run after `pulumi up` (verify, measure) read it, for each stack kind
 * (program/config.ts `stackKindOf`): checked with the program's own checks (program/kinds.ts), and for a stack that
 * serves a graph, its settings resolved as the program resolves them. A model stack is wired to its cluster stack
 * exactly as the program wires it (`readClusterHandoff`, then `wireModelStack`), from the cluster stack's outputs:
 * the file the stack names (`dynamo-efa:clusterOutputs`, the one the offline render reads) or the one
 * `--cluster-outputs` gives (`pulumi stack output --json -s <cluster stack>` of the deployed cluster stack). Nothing
 * here restates what the program derives.
 */
import * as path from "node:path";
import { formatProblems, Problem } from "../../components/_shared/problems";
import { type ResolvedInference, resolveArgs } from "../../components/inference/args";
import { StackKind, type StackConfig } from "../../program/config";
import { HANDOFF_OUTPUT, readClusterHandoff } from "../../program/handoff";
import { ClusterStackConfig, ModelStackConfig, wireModelStack } from "../../program/kinds";
import { recordedClusterOutputs } from "../render/cli/cluster-outputs";
import { checkAnyStackConfigMap, deployedTokenSet, stackKindOfMap } from "../_shared/stack-check";
import { loadProject, Project, stackConfig, stackFilePath, stackNames, UsageError } from "../_shared/stackfile";
import { prometheusFor, prometheusIn, PrometheusTarget } from "./prometheus";

/** A stack that serves a graph: a whole stack, or a model stack on its cluster stack. */
export interface ServingStack {
  readonly kind: typeof StackKind.Whole | typeof StackKind.Model;
  /** The graph's settings, resolved as the program resolves them (namespace, graph, model, pool, transport...). */
  readonly resolved: ResolvedInference;
  /** The Prometheus the graph's metrics are scraped into (gate F); undefined when the graph has no monitoring. */
  readonly prometheus?: PrometheusTarget;
  /** A model stack's cluster stack, and the outputs file it was read from. */
  readonly cluster?: { readonly stack: string; readonly outputs: string };
}

/** A cluster stack: its cluster, platform and monitoring; it serves no graph. */
export interface ClusterStack {
  readonly kind: typeof StackKind.Cluster;
  readonly config: ClusterStackConfig;
  /** The project's model stacks that name this cluster stack (what to verify and measure for their graphs). */
  readonly modelStacks: readonly string[];
  /** The Prometheus the cluster's monitoring installs; undefined when monitoring is off. */
  readonly prometheus?: PrometheusTarget;
}

export type DeployedStack = ServingStack | ClusterStack;

/** Where a command found what it reads, for messages: `stacks/Pulumi.x.yaml`. */
const rel = (root: string, file: string) => path.relative(root, file) || file;

/**
 * Reads and checks `stack`'s file (`file`) as the program would; a model stack with its cluster stack's outputs
 * (`clusterOutputs`, an absolute path, else the stack's `dynamo-efa:clusterOutputs` under `root`). Every problem is
 * a `UsageError` (exit 2) naming the file and the fix.
 */
export function readDeployedStack(root: string, stack: string, file: string, clusterOutputs?: string): DeployedStack {
  const project = loadProject(root);
  const cfg = stackConfig(project, file);
  const { config, problems } = checkAnyStackConfigMap(project.name, cfg, stack, deployedTokenSet(project.name, cfg));
  if (!config) {
    // Which kind the file was read as: an empty one is a cluster stack, whose problems would otherwise puzzle.
    const kind = stackKindOfMap(project.name, cfg);
    throw new UsageError(
      `${formatProblems(`${rel(root, file)} is not a valid stack config (read as a ${KIND_READ[kind]})`, problems)}\n(fix the stack file, or pass --namespace, --graph, --model and --backend without a stack file)`,
    );
  }
  switch (config.kind) {
    case StackKind.Cluster:
      return {
        kind: StackKind.Cluster,
        config,
        modelStacks: modelStacksOn(root, project, stack),
        ...optional(config.observability ? prometheusFor(config.observability) : undefined),
      };
    case StackKind.Model:
      return servingModel(root, file, config, clusterOutputs);
    default:
      return servingWhole(config);
  }
}

/** How each kind was recognized, for the message of a stack file that does not check. */
const KIND_READ: Readonly<Record<StackKind, string>> = {
  [StackKind.Whole]: "whole stack: its own cluster, pools and graph",
  [StackKind.Cluster]: "cluster stack: no inference and no cluster.gpuPools, so no graph",
  [StackKind.Model]: "model stack: clusterStack is set",
};

const optional = (prometheus: PrometheusTarget | undefined) => (prometheus ? { prometheus } : {});

function servingWhole(config: StackConfig): ServingStack {
  return {
    kind: StackKind.Whole,
    resolved: resolveArgs(config.graphName, { ...config.inference, gpuPool: config.gpuPool }, undefined),
    ...optional(prometheusFor(config.observability)),
  };
}

/** A model stack wired to its cluster stack's outputs, as `pulumi up` wires it to the StackReference's. */
function servingModel(root: string, file: string, c: ModelStackConfig, flag: string | undefined): ServingStack {
  const given = flag ?? c.clusterOutputs;
  if (given === undefined)
    throw new UsageError(
      `${rel(root, file)} is a model stack on the cluster stack ${c.clusterStack}: its graph is wired from that stack's outputs. Pass --cluster-outputs FILE (pulumi stack output --json -s ${c.clusterStack} > FILE), or name a file in dynamo-efa:clusterOutputs`,
    );
  const outputs = recordedClusterOutputs({ clusterStack: c.clusterStack, clusterOutputs: given }, root);
  const value = outputs.outputs?.[c.clusterStack]?.[HANDOFF_OUTPUT];
  const handoff = outputs.outputs ? readClusterHandoff(value, "clusterStack") : { problems: [] as Problem[] };
  const problems = [...outputs.problems, ...handoff.problems];
  const wired = handoff.handoff ? wireModelStack(c, handoff.handoff) : undefined;
  problems.push(...(wired?.problems ?? []));
  if (problems.length > 0 || !wired?.model || !handoff.handoff)
    throw new UsageError(
      formatProblems(
        `${rel(root, file)} does not fit its cluster stack ${c.clusterStack} (outputs: ${given})`,
        problems,
      ),
    );
  const m = wired.model;
  const h = handoff.handoff;
  return {
    kind: StackKind.Model,
    resolved: resolveArgs(c.graphName, { ...m.inference, gpuPool: m.gpuPool }, undefined),
    // The graph's metrics go to the cluster's Prometheus (the cluster stack installs it; the model adds monitors).
    ...optional(m.observability && h.monitoring ? prometheusIn(h.monitoring.namespace) : undefined),
    cluster: { stack: c.clusterStack, outputs: given },
  };
}

/** The project's model stacks whose `clusterStack` names `stack` (by name, or as `<org>/<project>/<stack>`). */
function modelStacksOn(root: string, project: Project, stack: string): string[] {
  return stackNames(root, project).filter((other) => {
    if (other === stack) return false;
    try {
      const o = checkAnyStackConfigMap(project.name, stackConfig(project, stackFilePath(root, project, other)), other);
      return o.config?.kind === StackKind.Model && o.config.clusterStack.split("/").pop() === stack;
    } catch {
      return false; // an unreadable stack file is that stack's problem
    }
  });
}

/**
 * A stack that serves a graph, or a usage error for a cluster stack that says what to run instead (`tool` names the
 * command). Measure's reader, and verify's for the graph gates.
 */
export function servingStack(d: DeployedStack, stack: string, tool: string): ServingStack {
  if (d.kind !== StackKind.Cluster) return d;
  const models = d.modelStacks.length ? d.modelStacks.join(", ") : "none in this project yet";
  throw new UsageError(
    `${stack} is a cluster stack: it serves no graph to ${tool}. Run it on each model stack on it (${models}): npm run ${tool} -- <model stack>`,
  );
}
