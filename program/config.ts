/**
 * Reads the stack config through Pulumi (`dynamo-efa:*` and `aws:region`) and checks it with
 * `checkStackConfig`. The only module of the program that touches `pulumi.Config`.
 */
import * as pulumi from "@pulumi/pulumi";
import { throwIfAny } from "../components/_shared/problems";
import { checkStackConfig, CONFIG_NAMESPACE, StackConfig } from "./config-schema";

export * from "./config-schema";

/** The checked config plus the HF token (a secret), when set. */
export interface ProgramConfig {
  readonly config: StackConfig;
  readonly hfToken?: pulumi.Output<string>;
}

function objectOrRaw(cfg: pulumi.Config, key: string): unknown {
  const text = cfg.get(key);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text; // a scalar where an object belongs: the schema check names the key and the type
  }
}

/**
 * The stack config, checked. Throws one `ValidationError` listing every problem with its key path
 * (`inference.prefill.replicas`, `cluster.gpuNodes.instanceType`, ...).
 */
export function readStackConfig(): ProgramConfig {
  const cfg = new pulumi.Config(CONFIG_NAMESPACE);
  const hfToken = cfg.getSecret("hfToken");
  const { config, problems } = checkStackConfig({
    region: new pulumi.Config("aws").get("region"),
    graphName: cfg.get("graphName"),
    cluster: objectOrRaw(cfg, "cluster"),
    image: objectOrRaw(cfg, "image"),
    inference: objectOrRaw(cfg, "inference"),
    observability: objectOrRaw(cfg, "observability"),
    hfTokenSet: hfToken !== undefined,
  });
  throwIfAny(`${CONFIG_NAMESPACE} stack config`, problems);
  return { config: config!, ...(hfToken ? { hfToken } : {}) };
}
