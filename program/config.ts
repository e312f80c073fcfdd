/**
 * Reads the stack config through Pulumi (`dynamo-efa:*` and `aws:region`) and checks it with
 * `checkStackConfig`. The only module of the program that touches `pulumi.Config`.
 */
import * as pulumi from "@pulumi/pulumi";
import { throwIfAny } from "../components/_shared/problems";
import { checkStackConfig, StackConfig } from "./config-schema";
import { CONFIG_NAMESPACE } from "./config-fields";
import { rawStackConfig } from "./config-keys";

/** The checked config plus the HF token (a secret), when set. */
export interface ProgramConfig {
  readonly config: StackConfig;
  readonly hfToken?: pulumi.Output<string>;
}

/**
 * The stack config, checked. Throws one `ValidationError` listing every problem with its key path
 * (`inference.prefill.replicas`, `cluster.gpuNodes.instanceType`, ...). `offline` is true only under the render's
 * mocks, which accept placeholders a real preview/up refuses (documentation CIDRs).
 */
export function readStackConfig(offline = false): ProgramConfig {
  const cfg = new pulumi.Config(CONFIG_NAMESPACE);
  const hfToken = cfg.getSecret("hfToken");
  const keys = Object.keys(pulumi.runtime.allConfig());
  const { config, problems } = checkStackConfig(
    rawStackConfig((k) => pulumi.runtime.getConfig(k), keys, hfToken !== undefined, offline),
  );
  throwIfAny(`${CONFIG_NAMESPACE} stack config`, problems);
  return { config: config!, ...(hfToken ? { hfToken } : {}) };
}
