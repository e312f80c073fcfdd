/**
 * The stack config through Pulumi: the raw values of every key, checked for the stack's kind (program/kinds.ts),
 * with the Hugging Face token as a secret. The one impure step of reading the config.
 */
import * as pulumi from "@pulumi/pulumi";
import { throwIfAny } from "../components/_shared/problems";
import { CONFIG_NAMESPACE, rawStackConfig } from "./config";
import { AnyStackConfig, checkAnyStackConfig } from "./kinds";

/** The checked config plus the HF token (a secret), when set. */
export interface ProgramConfig<C extends AnyStackConfig = AnyStackConfig> {
  readonly config: C;
  readonly hfToken?: pulumi.Output<string>;
}

/**
 * The stack config through Pulumi, checked: one `ValidationError` listing every problem at its key. `offline` is true
 * only under the render's mocks, which accept placeholders a real preview/up refuses (documentation CIDRs).
 */
export function readStackConfig(offline = false): ProgramConfig {
  const hfToken = new pulumi.Config(CONFIG_NAMESPACE).getSecret("hfToken");
  const keys = Object.keys(pulumi.runtime.allConfig());
  const raw = {
    ...rawStackConfig((k) => pulumi.runtime.getConfig(k), keys, hfToken !== undefined, offline),
    stack: pulumi.getStack(),
  };
  const { config, problems } = checkAnyStackConfig(raw);
  throwIfAny(`${CONFIG_NAMESPACE} stack config`, problems);
  return { config: config!, ...(hfToken ? { hfToken } : {}) };
}
