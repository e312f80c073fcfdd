/**
 * The stack config check `render` and `verify` share: the merged config map from
 * `./stackfile.ts`, read back exactly as the program reads it (`rawStackConfig` over the runtime's
 * string map) and checked by the program's own `checkStackConfig`, plus the numbers JSON cannot carry.
 * No Pulumi import: cheap enough for verify and for the fuzz test.
 */
import type { Problem } from "../../components/_shared/problems";
import { checkStackConfig, rawStackConfig, StackConfig } from "../../program/config";
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
  const nonFinite = nonFiniteProblems(project, cfg.values);
  const raw = rawStackConfig((k) => cfg.config[k], Object.keys(cfg.config), hfTokenSet, offline);
  const checked = checkStackConfig(raw);
  const problems = [
    ...nonFinite,
    ...checked.problems.filter((p) => !nonFinite.some((n) => n.propertyPath === p.propertyPath)),
  ];
  return problems.length > 0 ? { problems } : { config: checked.config, problems };
}
