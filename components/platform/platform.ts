/**
 * `DynamoPlatform`: the Dynamo operator and its CRDs, once per cluster. A thin class over `render.ts`.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { assertValid } from "../_shared/pulumi-errors";
import { DynamoPlatformArgs, resolveArgs } from "./args";
import { renderPlatformRelease } from "./render";
import { validate } from "./validate";

/** Pulumi type token. */
export const DYNAMO_PLATFORM_TYPE = "dynamo-efa:platform:DynamoPlatform";

/**
 * The Dynamo platform of a cluster: ONE `dynamo-platform` Helm release (the operator, cluster-wide, and the
 * DynamoGraphDeployment CRDs its hook applies). A cluster add-on: create it once per cluster and pass it to every
 * `DisaggInference` as `platform`, so each graph waits for the CRDs and the operator's webhook, and destroying a
 * graph never removes the operator the others run on. The Kubernetes provider comes through the resource options,
 * and so does what the release must wait for (`dependsOn: cluster.workloadPrerequisites`): its pre-install hook Jobs
 * need a schedulable node and NATS's JetStream PVC the default StorageClass; the release itself is given that
 * `dependsOn`, since Pulumi does not hand a component's dependencies to its children.
 *
 * @example
 * const platform = new DynamoPlatform("dynamo", {}, {
 *   providers: { kubernetes: cluster.k8sProvider },
 *   dependsOn: [...cluster.workloadPrerequisites],
 * });
 * new DisaggInference("llm", { ...settings, platform }, { providers: { kubernetes: cluster.k8sProvider } });
 */
export class DynamoPlatform extends pulumi.ComponentResource {
  /** Namespace of the operator release. */
  public readonly namespace: pulumi.Output<string>;
  /** Chart version installed. */
  public readonly version: pulumi.Output<string>;
  /** The `dynamo-platform` release; graphs depend on it (or on this component). */
  public readonly release: k8s.helm.v3.Release;

  constructor(name: string, args: DynamoPlatformArgs = {}, opts?: pulumi.ComponentResourceOptions) {
    super(DYNAMO_PLATFORM_TYPE, name, {}, opts);
    const r = resolveArgs(args);
    assertValid("DynamoPlatform", validate(r));
    this.release = new k8s.helm.v3.Release(`${name}-release`, renderPlatformRelease(r), {
      parent: this,
      dependsOn: opts?.dependsOn,
    });
    this.namespace = pulumi.output(r.namespace);
    this.version = pulumi.output(r.version);
    this.registerOutputs({ namespace: this.namespace, version: this.version, release: this.release });
  }
}
