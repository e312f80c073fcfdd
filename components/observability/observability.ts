/**
 * `DynamoObservability`: metrics for one Dynamo graph. kube-prometheus-stack (or an existing
 * Prometheus Operator, by labels), the DCGM exporter on the GPU nodes, PodMonitors generated from the
 * graph's operator labels, and a generated Grafana dashboard. A thin class over `render.ts`.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { assertValid } from "../_shared/pulumi-errors";
import { DynamoObservabilityArgs, resolveArgs } from "./args";
import { observabilityNames, renderDashboardConfigMap, renderPodMonitors, renderReleases } from "./render";
import { validate } from "./validate";

/** Pulumi type token. */
export const DYNAMO_OBSERVABILITY_TYPE = "dynamo-efa:observability:DynamoObservability";

/**
 * Metrics for one Dynamo graph: kube-prometheus-stack (or an existing Prometheus Operator, found by
 * `monitorLabels`), the DCGM exporter on the GPU nodes, PodMonitors selecting the graph's pods by the operator's
 * labels, and a generated Grafana dashboard. The Kubernetes provider comes through the resource options (every
 * child inherits it through `parent`), and so does what the releases must wait for (`dependsOn:
 * cluster.workloadPrerequisites`: Prometheus's and Grafana's pods need a node, the admission webhook's hook Jobs
 * too). Pulumi does not hand a component's `dependsOn` to its children, so each child gets it explicitly.
 *
 * @example
 * new DynamoObservability("llm", { graphName: "llm" }, { providers: { kubernetes: cluster.k8sProvider } });
 */
export class DynamoObservability extends pulumi.ComponentResource {
  /** Namespace of Prometheus (and of the releases). */
  public readonly namespace: pulumi.Output<string>;
  /** Prometheus Service (`<namespace>/<name>:<port name>`) when this component installs it; undefined otherwise. */
  public readonly prometheusService: pulumi.Output<string | undefined>;
  /** The kube-prometheus-stack release, when installed. */
  public readonly stackRelease: k8s.helm.v3.Release | undefined;
  /** The DCGM exporter release, when installed. */
  public readonly dcgmRelease: k8s.helm.v3.Release | undefined;

  constructor(name: string, args: DynamoObservabilityArgs, opts?: pulumi.ComponentResourceOptions) {
    super(DYNAMO_OBSERVABILITY_TYPE, name, {}, opts);
    const r = resolveArgs(args);
    assertValid("DynamoObservability", validate(r));

    const child = { parent: this, dependsOn: opts?.dependsOn };
    const rel = renderReleases(r);
    this.stackRelease = rel.stack
      ? new k8s.helm.v3.Release(`${name}-kube-prometheus-stack`, rel.stack, child)
      : undefined;
    // DCGM's ServiceMonitor needs the Prometheus Operator's CRDs; the stack release waits for the nodes itself.
    const afterStack = { parent: this, dependsOn: this.stackRelease ? [this.stackRelease] : opts?.dependsOn };
    this.dcgmRelease = rel.dcgm ? new k8s.helm.v3.Release(`${name}-dcgm-exporter`, rel.dcgm, afterStack) : undefined;
    for (const { role, monitor } of renderPodMonitors(r)) {
      new k8s.apiextensions.CustomResource(`${name}-${role}-podmonitor`, monitor, afterStack);
    }
    const cm = renderDashboardConfigMap(r);
    if (cm) new k8s.core.v1.ConfigMap(`${name}-dashboard`, cm, child);

    const n = observabilityNames(r.graphName);
    this.namespace = pulumi.output(r.namespace);
    this.prometheusService = pulumi.output(
      rel.stack ? `${r.namespace}/${n.prometheusService}:${n.prometheusPort}` : undefined,
    );
    this.registerOutputs({
      namespace: this.namespace,
      prometheusService: this.prometheusService,
      stackRelease: this.stackRelease,
      dcgmRelease: this.dcgmRelease,
    });
  }
}
