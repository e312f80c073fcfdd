/**
 * The env-var contract's view of facts/env-*.json: the verdict comes from the reader the `no-noop-nixl-env`
 * policy uses (policy/rules/_env-facts.ts), so the contract test and the policy judge a name the same way; the
 * fact files themselves are loaded here through `loadFacts`, which checks their whole provenance block.
 */
import { ENV_PROJECTS, EnvProject, envFactsPath } from "../../policy/rules/_env-facts";
import { FactFile, loadFacts } from "./facts";

export { envVerdict } from "../../policy/rules/_env-facts";
export type { EnvVerdict } from "../../policy/rules/_env-facts";

/** Each env fact file the policy reads, with its path, loaded with the provenance check. */
export function envFactFiles(): { project: EnvProject; path: string; file: FactFile<{ prefix: string }> }[] {
  return ENV_PROJECTS.map((project) => ({
    project,
    path: envFactsPath(project),
    file: loadFacts<{ prefix: string }>(`env-${project}`),
  }));
}
