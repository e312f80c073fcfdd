/**
 * `DisaggInference`: a namespace (unless told otherwise), the HF secret, an optional retained model cache, and ONE
 * DynamoGraphDeployment with Frontend + prefill + decode workers. A thin class: every object comes from the pure
 * renderers in this folder. The Dynamo platform is the cluster's (`components/platform`), passed in as `platform`.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { assertValid } from "../_shared/pulumi-errors";
import { DynamoPort } from "../_shared/names";
import { DisaggInferenceArgs, ResolvedInference, resolveArgs, ServingRole } from "./args";
import {
  frontendUrl,
  renderEngineConfigMaps,
  renderFrontendLoadBalancer,
  renderHfSecret,
  renderModelCachePvc,
  renderNamespace,
} from "./render";
import { InferencePlan, inferencePlan, workerCommands, workerPlan, WorkerPlanRow } from "./plan";
import { DgdObject, deployedForm, renderGraph } from "./graph";
import { DGD_KIND } from "./dgd";
import type { V1beta1Graph } from "./dgd-v1beta1";
import { release } from "../releases";
import { validate, validateImage } from "./validate";
import { renderPrefetchConfigMap, renderPrefetchDaemonSet } from "./cache";
import { renderClaimTemplates } from "./device-claims";
import { renderNetworkPolicies } from "./network";
import { withCommit } from "./revision";
import { graphCommit } from "./model-commit";
import { ImageDigest } from "../image/image-digest";
import { withDigest } from "../image/ref";
import { firstTokenWaitSeconds, renderFirstTokenConfigMap, renderFirstTokenJob } from "./first-token";

/** Pulumi type token. */
export const DISAGG_INFERENCE_TYPE = "dynamo-efa:inference:DisaggInference";

/**
 * The graph for an image ref that was only known at deployment: the ref is validated when it
 * resolves (docs/CONTRIBUTING.md rule 6: the one fact that cannot be checked synchronously), with the same
 * message and property path as the synchronous check.
 */
export function checkedGraph(r: ResolvedInference, image: string, frontendImage: string = image): DgdObject {
  assertValid("DisaggInference", [
    ...validateImage(image),
    ...(frontendImage !== image ? validateImage(frontendImage, "frontendImage") : []),
  ]);
  return renderGraph(r, image, frontendImage);
}

/** The graph as `r.release` deploys it: the model as is (v1alpha1), or its v1beta1 form. */
export function releaseGraph(
  r: ResolvedInference,
  image: string,
  frontendImage: string = image,
): DgdObject | V1beta1Graph {
  return deployedForm(r, checkedGraph(r, image, frontendImage));
}

/**
 * Disaggregated LLM serving on one GPU pool: a namespace (`createNamespace`), the Hugging Face token secret, an
 * optional retained model-cache volume and ONE DynamoGraphDeployment with a Frontend, prefill workers and decode
 * workers, and waits for it to be Ready. The graph waits for `platform` (the cluster's `DynamoPlatform`), so
 * several graphs share one operator. Per-worker GPUs, EFA devices, hugepages, CPU and memory are derived from
 * `gpuPool` (the plain facts of `EfaCluster.gpuPools`); KV moves over NIXL LIBFABRIC on EFA pools. Every invalid
 * argument is reported at once in one `ComponentInputError` (a `pulumi.InputPropertiesError`) before any child;
 * the same objects come from the pure `renderInference`. The Kubernetes provider comes through the resource
 * options and reaches every child through `parent`.
 *
 * @example
 * const k8sOpts = { providers: { kubernetes: cluster.k8sProvider } };
 * const platform = new DynamoPlatform("dynamo", {}, k8sOpts);
 * const llm = new DisaggInference("llm", {
 *   model: "meta-llama/Llama-3.1-8B-Instruct", gpuPool: cluster.gpuPools.gpu, image: img.ref, platform,
 *   prefill: { replicas: 8, gpusPerWorker: 1 }, decode: { replicas: 8, gpusPerWorker: 1 },
 *   hfToken: new pulumi.Config().requireSecret("hfToken"),
 * }, k8sOpts);
 */
export class DisaggInference extends pulumi.ComponentResource {
  /** The DynamoGraphDeployment's name (also the Dynamo namespace the operator derives). */
  public readonly graphName: pulumi.Output<string>;
  /** In-cluster URL of the OpenAI-compatible Frontend. */
  public readonly frontendUrl: pulumi.Output<string>;
  /**
   * `http://<address>:8000` of the internal load balancer in front of the Frontend (its DNS name, or IP), reachable
   * from `frontend.sourceRanges`; undefined unless `frontend.serviceType` is "InternalLoadBalancer".
   */
  public readonly frontendLoadBalancerUrl: pulumi.Output<string> | undefined;
  /** Name clients put in the request's `model` field. */
  public readonly servedModelName: pulumi.Output<string>;
  /** Rendered worker command lines, by role (for the render and verify tools). */
  public readonly workerCommands: pulumi.Output<Record<ServingRole, string>>;
  /** Per-role plan: replicas, GPUs, EFA, NIXL rails, hugepages, CPU, memory, command; `plan.workers` with the commit. */
  public readonly workers: pulumi.Output<WorkerPlanRow[]>;
  /** The graph custom resource. */
  public readonly graph: k8s.apiextensions.CustomResource;
  /** The first-token check's Job, which `pulumi up` waits for after the graph; undefined when it is off. */
  public readonly firstTokenCheck: k8s.batch.v1.Job | undefined;
  /** The commit every worker serves: `modelRevision` itself when it is a commit, else what it named at `pulumi up`. */
  public readonly modelCommit: pulumi.Output<string>;
  /** The graph's plan: its workers and the facts the offline render computes plan.json from (`./plan.ts`). */
  public readonly plan: InferencePlan;

  constructor(name: string, args: DisaggInferenceArgs, opts?: pulumi.ComponentResourceOptions) {
    super(DISAGG_INFERENCE_TYPE, name, {}, opts);
    const plainImage = typeof args.image === "string" ? args.image : undefined;
    const r = resolveArgs(name, args, plainImage);
    assertValid("DisaggInference", validate(r, args.hfToken !== undefined));
    this.plan = inferencePlan(r);

    const child = { parent: this };
    const nsSpec = renderNamespace(r);
    const ns = nsSpec ? [new k8s.core.v1.Namespace(`${name}-ns`, nsSpec, child)] : [];
    const inNs = { ...child, dependsOn: ns };
    const deps: pulumi.Resource[] = [...ns, ...this.secret(name, r, args, inNs)];
    const pvc = renderModelCachePvc(r);
    if (pvc)
      deps.push(new k8s.core.v1.PersistentVolumeClaim(`${name}-model-cache`, pvc, { ...inNs, retainOnDelete: true }));
    deps.push(...this.workerInputs(name, r, inNs));
    this.modelCommit = graphCommit(name, r, args.hfToken, child); // one commit for every pod (./revision.ts)
    const pinned = this.modelCommit.apply((c) => withCommit(r, c));
    deps.push(...this.prefetch(name, r, pinned, child, [...deps]));
    this.frontendLoadBalancerUrl = this.loadBalancer(name, r, inNs);
    // Before the graph: its pods must never start in a namespace without its fence.
    deps.push(...this.fence(name, r, inNs));
    if (args.platform) deps.push(args.platform);

    const frontendImage = this.frontendImage(name, r, args);
    const graph = pulumi.all([args.image, frontendImage, pinned]).apply(([image, fe, p]) => releaseGraph(p, image, fe));
    this.graph = new k8s.apiextensions.CustomResource(
      `${name}-graph`,
      {
        apiVersion: release(r.release).graph.apiVersion,
        kind: DGD_KIND,
        metadata: graph.apply((g) => g.metadata),
        spec: graph.apply((g) => g.spec),
      },
      { ...child, dependsOn: deps },
    );
    this.firstTokenCheck = this.checkFirstToken(name, r, graph, inNs, [...deps, this.graph]);

    this.graphName = pulumi.output(r.graphName);
    this.frontendUrl = pulumi.output(frontendUrl(r));
    this.servedModelName = pulumi.output(r.servedModelName);
    this.workers = pinned.apply(workerPlan);
    this.workerCommands = this.workers.apply(workerCommands);
    this.registerOutputs({
      graphName: this.graphName,
      frontendUrl: this.frontendUrl,
      frontendLoadBalancerUrl: this.frontendLoadBalancerUrl,
      servedModelName: this.servedModelName,
      workerCommands: this.workerCommands,
      workers: this.workers,
      graph: this.graph,
      modelCommit: this.modelCommit,
    });
  }

  /**
   * The Frontend's image: `frontendImage` as given; else the release's Frontend image (its digest where the release
   * pins one, else its tag resolved once at `pulumi up` and kept in state, `ImageDigest`); else the serving image.
   */
  private frontendImage(name: string, r: ResolvedInference, args: DisaggInferenceArgs): pulumi.Input<string> {
    if (args.frontendImage !== undefined) return args.frontendImage;
    const pin = release(r.release).frontendImage;
    if (!pin) return args.image;
    if (pin.digest) return withDigest(pin.repository, pin.digest);
    return new ImageDigest(`${name}-frontend-image`, { repository: pin.repository, tag: pin.tag }, { parent: this })
      .ref;
  }

  /** The namespace's NetworkPolicies, generated from the release's flows (`./network.ts`). */
  private fence(name: string, r: ResolvedInference, o: pulumi.CustomResourceOptions): pulumi.Resource[] {
    return renderNetworkPolicies(r).map(
      (np) =>
        new k8s.networking.v1.NetworkPolicy(`${name}-netpol-${np.metadata.name.slice(r.graphName.length + 1)}`, np, o),
    );
  }

  /**
   * The first-token check (`./first-token.ts`): its script's ConfigMap, and the Job `pulumi up` waits for after the
   * graph is Ready, for as long as the check's own deadline (plus a minute). Nothing waits for the Job.
   */
  private checkFirstToken(
    name: string,
    r: ResolvedInference,
    graph: pulumi.Output<DgdObject | V1beta1Graph>,
    o: pulumi.CustomResourceOptions,
    after: pulumi.Resource[],
  ): k8s.batch.v1.Job | undefined {
    const cm = renderFirstTokenConfigMap(r);
    if (!cm) return undefined;
    const script = new k8s.core.v1.ConfigMap(`${name}-first-token-script`, cm, o);
    const job = graph.apply((g) => renderFirstTokenJob(r, g)!);
    const wait = `${firstTokenWaitSeconds()}s`;
    return new k8s.batch.v1.Job(
      `${name}-first-token`,
      { metadata: job.apply((j) => j.metadata), spec: job.apply((j) => j.spec as k8s.types.input.batch.v1.JobSpec) },
      { ...o, dependsOn: [...after, script], customTimeouts: { create: wait, update: wait } },
    );
  }

  /**
   * What the worker pods name and so must exist first: the TRT-LLM engine ConfigMaps, and under DRA the templates the
   * workers claim their GPUs and EFA devices from (a pod naming a missing template waits).
   */
  private workerInputs(name: string, r: ResolvedInference, inNs: pulumi.CustomResourceOptions): pulumi.Resource[] {
    const configMaps = renderEngineConfigMaps(r).map(
      ({ role, configMap }) => new k8s.core.v1.ConfigMap(`${name}-engine-${role}`, configMap, inNs),
    );
    const templates = renderClaimTemplates(r).map(
      ({ role, template }) =>
        new k8s.resource.v1.ResourceClaimTemplate(
          `${name}-devices-${role}`,
          // The cast only drops `readonly` from the plain object's arrays.
          template as unknown as k8s.resource.v1.ResourceClaimTemplateArgs,
          inNs,
        ),
    );
    return [...configMaps, ...templates];
  }

  /**
   * The `local-nvme` prefetch: its script's ConfigMap (the graph depends on it) and the per-node DaemonSet, which
   * the graph does not wait for (it waits for no GPU node; the workers' own init containers wait on its lock).
   */
  private prefetch(
    name: string,
    r: ResolvedInference,
    pinned: pulumi.Output<ResolvedInference>,
    child: pulumi.CustomResourceOptions,
    before: pulumi.Resource[],
  ): pulumi.Resource[] {
    const cm = renderPrefetchConfigMap(r);
    if (!cm) return [];
    const script = new k8s.core.v1.ConfigMap(`${name}-model-prefetch`, cm, { ...child, dependsOn: before });
    const ds = renderPrefetchDaemonSet(r);
    // The cast only drops `readonly` from the plain object's arrays (the shared container types are readonly).
    // The pod template carries the commit, so it waits for it; the metadata does not depend on it.
    if (ds)
      new k8s.apps.v1.DaemonSet(
        `${name}-model-prefetch`,
        {
          ...(ds as k8s.apps.v1.DaemonSetArgs),
          spec: pinned.apply((p) => renderPrefetchDaemonSet(p)!.spec as k8s.types.input.apps.v1.DaemonSetSpec),
        },
        { ...child, dependsOn: [...before, script] },
      );
    return [script];
  }

  /** The internal load balancer's Service, when asked for, and its URL (from the address AWS gives it). */
  private loadBalancer(
    name: string,
    r: ResolvedInference,
    o: pulumi.CustomResourceOptions,
  ): pulumi.Output<string> | undefined {
    const lb = renderFrontendLoadBalancer(r);
    if (!lb) return undefined;
    const svc = new k8s.core.v1.Service(`${name}-frontend-lb`, lb, o);
    return svc.status.loadBalancer.ingress.apply((ingress) => {
      const address = ingress?.[0]?.hostname ?? ingress?.[0]?.ip ?? "";
      return `http://${address}:${DynamoPort.FrontendHttp}`;
    });
  }

  /** The HF secret (created only when no existing secret is named); stringData is a Pulumi secret. */
  private secret(
    name: string,
    r: ResolvedInference,
    args: DisaggInferenceArgs,
    o: pulumi.CustomResourceOptions,
  ): pulumi.Resource[] {
    if (!r.createHfSecret || args.hfToken === undefined) return [];
    const shape = renderHfSecret(r, "");
    const stringData = pulumi.secret(pulumi.output(args.hfToken).apply((t) => renderHfSecret(r, t).stringData));
    return [
      new k8s.core.v1.Secret(
        `${name}-hf-token`,
        { metadata: shape.metadata, type: shape.type, stringData },
        { ...o, additionalSecretOutputs: ["stringData", "data"] },
      ),
    ];
  }
}
