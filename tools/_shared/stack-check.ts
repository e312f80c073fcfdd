/**
 * The stack config check `render` and `verify` share: the merged config map from
 * `./stackfile.ts`, read back exactly as the program reads it (`rawStackConfig` over the runtime's
 * string map) and checked by the program's own `checkStackConfig`, plus the numbers JSON cannot carry.
 * No Pulumi import: cheap enough for verify and for the fuzz test.
 */
import type { Problem } from "../../components/_shared/problems";
import { checkStackConfig, rawStackConfig, StackConfig, StackKind, stackKindOf } from "../../program/config";
import { AnyStackConfig, checkAnyStackConfig } from "../../program/kinds";
import { nonFiniteProblems, StackConfigMap } from "./stackfile";

/**
 * The checked config (when valid) and every problem, as the program would report them. `offline` (render and
 * verify: neither deploys) accepts the placeholders a real preview/up refuses (documentation CIDRs).
 */
export function checkStackConfigMap(
  project: string,
  cfg: StackConfigMap,
  hfTokenSet = `${project}:hfToken` in cfg.config,
  offline = true,
): { config?: StackConfig; problems: Problem[] } {
  const raw = rawStackConfig((k) => cfg.config[k], Object.keys(cfg.config), hfTokenSet, offline);
  const kind = stackKindOf(raw);
  if (kind !== StackKind.Whole)
    return {
      problems: [
        {
          propertyPath: kind === StackKind.Model ? "clusterStack" : "inference",
          reason:
            kind === StackKind.Model
              ? "this is a model stack (on the cluster stack it names); this tool reads a stack that deploys its own cluster and graph (p5en-8gpu, p5en-1gpu)"
              : "this is a cluster stack (no inference, no cluster.gpuPools); this tool reads a stack that serves a graph on its own cluster (p5en-8gpu, p5en-1gpu)",
        },
      ],
    };
  return withNonFinite(project, cfg, checkStackConfig(raw));
}

/**
 * `checkStackConfigMap` for a stack of any kind (`render`): a whole stack, a cluster stack, or a model stack's own
 * config (what its cluster stack must fit is checked when the program reads that stack's output). `stack` is the
 * stack's name, which a model stack's names default to.
 */
export function checkAnyStackConfigMap(
  project: string,
  cfg: StackConfigMap,
  stack: string,
  hfTokenSet = `${project}:hfToken` in cfg.config,
  offline = true,
): { config?: AnyStackConfig; problems: Problem[] } {
  const raw = rawStackConfig((k) => cfg.config[k], Object.keys(cfg.config), hfTokenSet, offline);
  return withNonFinite(project, cfg, checkAnyStackConfig({ ...raw, stack }));
}

/** The stack's kind as the program picks it from the keys written (program/config.ts `stackKindOf`). */
export function stackKindOfMap(project: string, cfg: StackConfigMap): StackKind {
  const given = `${project}:hfToken` in cfg.config;
  return stackKindOf(rawStackConfig((k) => cfg.config[k], Object.keys(cfg.config), given, true));
}

/**
 * Whether the Hugging Face token counts as set for a tool that reads a deployed stack (verify, measure): a stack
 * that serves a graph had one at `pulumi up` (a secret these tools never read, often not in the local file); a
 * cluster stack takes none, so only what its file says counts there (and is refused, as at render).
 */
export function deployedTokenSet(project: string, cfg: StackConfigMap): boolean {
  return `${project}:hfToken` in cfg.config || stackKindOfMap(project, cfg) !== StackKind.Cluster;
}

/** The numbers JSON cannot carry (NaN, infinities), reported in place of what the check said at the same key. */
function withNonFinite<C>(
  project: string,
  cfg: StackConfigMap,
  checked: { config?: C; problems: Problem[] },
): { config?: C; problems: Problem[] } {
  const nonFinite = nonFiniteProblems(project, cfg.values);
  const problems = [
    ...nonFinite,
    ...checked.problems.filter((p) => !nonFinite.some((n) => n.propertyPath === p.propertyPath)),
  ];
  return problems.length > 0 ? { problems } : { config: checked.config, problems };
}
