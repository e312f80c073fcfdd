/**
 * The cluster calls `measure` makes, through `@kubernetes/client-node` (the client `verify` uses): create and
 * delete the benchmark Job and its NetworkPolicies, wait for the Job, read its pod's log, read and patch the
 * DynamoGraphDeployment, create and delete the aggregated twin. Failures become `UnreachableError` with what was
 * being done (exit 3); every object created is registered with `Cleanup` before the call that creates it returns.
 */
import type * as k8s from "@kubernetes/client-node";
import { kubeModule } from "../_shared/kube-client";
import { DGD_API_VERSION } from "../../components/inference/dgd";
import type { DynamoGraphDeployment } from "../../components/inference/dgd";
import type { NetworkPolicyObject } from "../../components/inference/network";
import { clusterError, withTimeout } from "../verify/k8s";
import { UnreachableError } from "../verify/http";
import { pinnedImageOf } from "./image";
import { RUN_LABEL } from "./job";

const [GROUP, VERSION] = DGD_API_VERSION.split("/") as [string, string];
const PLURAL = "dynamographdeployments";
/** One API call's own time limit, ms. */
const CALL_MS = 30_000;

/**
 * Undo actions, run last-registered first, once, also on SIGINT/SIGTERM. A step may wait (a restored graph turning
 * Ready); `hurry` (a second Ctrl-C) ends every such wait at once while the undo actions themselves still run.
 */
export class Cleanup {
  private readonly steps: { what: string; run: () => Promise<unknown> }[] = [];
  private running: string | undefined;
  private hurried = false;
  private closed = false;
  private wake: () => void = () => undefined;
  /** Resolves when `hurry` is called: what a waiting step races against. */
  readonly hurriedSignal: Promise<void> = new Promise((resolve) => (this.wake = resolve));
  add(what: string, run: () => Promise<unknown>): void {
    this.steps.push({ what, run });
  }
  /** No more creating: the run was interrupted, and what it creates from now on would outlive its cleanup. */
  close(): void {
    this.closed = true;
  }
  /** Throws once `close` was called (before a create: nothing new after a Ctrl-C). */
  assertOpen(): void {
    if (this.closed) throw new UnreachableError("interrupted: creating nothing more");
  }
  /** Stop waiting: steps still undo what they undo, but none waits for the cluster to settle. */
  hurry(): void {
    this.hurried = true;
    this.wake();
  }
  /** Whether `hurry` was called. */
  get isHurried(): boolean {
    return this.hurried;
  }
  /** What is not undone yet: the step in progress and those after it. */
  pending(): string[] {
    return [...(this.running ? [this.running] : []), ...this.steps.map((s) => s.what).reverse()];
  }
  /** Runs every step; a failing step is reported and the rest still run. Returns what could not be undone. */
  async runAll(log: (s: string) => void): Promise<string[]> {
    const failed: string[] = [];
    while (this.steps.length > 0) {
      const s = this.steps.pop()!;
      this.running = s.what;
      try {
        await s.run();
      } catch (e) {
        failed.push(`${s.what}: ${(e as Error).message.split("\n")[0]}`);
      } finally {
        this.running = undefined;
      }
    }
    for (const f of failed) log(`measure: could not clean up ${f}; delete it by hand (label ${RUN_LABEL})\n`);
    return failed;
  }
}

/** The calls. */
export class MeasureCluster {
  private readonly batch: k8s.BatchV1Api;
  private readonly core: k8s.CoreV1Api;
  private readonly net: k8s.NetworkingV1Api;
  private readonly custom: k8s.CustomObjectsApi;
  constructor(
    private readonly kc: k8s.KubeConfig,
    private readonly namespace: string,
  ) {
    const k = kubeModule();
    this.batch = kc.makeApiClient(k.BatchV1Api);
    this.core = kc.makeApiClient(k.CoreV1Api);
    this.net = kc.makeApiClient(k.NetworkingV1Api);
    this.custom = kc.makeApiClient(k.CustomObjectsApi);
  }

  private async call<T>(what: string, p: () => Promise<T>): Promise<T> {
    try {
      return await withTimeout(p(), CALL_MS, what);
    } catch (e) {
      throw clusterError(this.kc, e, what);
    }
  }

  /** The live graph, or undefined when there is none of that name. */
  async graph(name: string): Promise<DynamoGraphDeployment | undefined> {
    try {
      return (await withTimeout(
        this.custom.getNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          namespace: this.namespace,
          plural: PLURAL,
          name,
        }),
        CALL_MS,
        `read DynamoGraphDeployment ${name}`,
      )) as DynamoGraphDeployment;
    } catch (e) {
      if ((e as { code?: number }).code === 404) return undefined;
      throw clusterError(this.kc, e, `read DynamoGraphDeployment ${name}`);
    }
  }

  /** Whether the graph's `Ready` condition is True. */
  async graphReady(name: string): Promise<boolean> {
    const g = (await this.graph(name)) as
      { status?: { conditions?: { type?: string; status?: string }[] } } | undefined;
    return (g?.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");
  }

  /** Sets `spec.services.<service>.replicas` of a graph (JSON patch). */
  async scale(graph: string, replicas: Readonly<Record<string, number>>): Promise<void> {
    const body = Object.entries(replicas).map(([s, n]) => ({
      op: "replace",
      path: `/spec/services/${s}/replicas`,
      value: n,
    }));
    await this.call(`scale ${graph}`, () =>
      this.custom.patchNamespacedCustomObject(
        { group: GROUP, version: VERSION, namespace: this.namespace, plural: PLURAL, name: graph, body },
        kubeModule().setHeaderOptions("Content-Type", kubeModule().PatchStrategy.JsonPatch),
      ),
    );
  }

  async createGraph(g: DynamoGraphDeployment, cleanup: Cleanup): Promise<void> {
    const name = g.metadata.name;
    cleanup.add(`DynamoGraphDeployment ${name}`, () =>
      this.custom.deleteNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: this.namespace,
        plural: PLURAL,
        name,
      }),
    );
    await this.call(`create DynamoGraphDeployment ${name}`, () =>
      this.custom.createNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: this.namespace,
        plural: PLURAL,
        body: g,
      }),
    );
  }

  /** Creates a NetworkPolicy (the project's shape: `from` is the client's `_from`). */
  async createPolicy(p: NetworkPolicyObject, labels: Record<string, string>, cleanup: Cleanup): Promise<void> {
    const name = p.metadata.name;
    const body: k8s.V1NetworkPolicy = {
      ...p,
      metadata: { ...p.metadata, labels },
      spec: {
        ...p.spec,
        ingress: p.spec.ingress?.map(({ from, ports }) => ({ _from: from, ports })),
      } as k8s.V1NetworkPolicySpec,
    };
    cleanup.add(`NetworkPolicy ${name}`, () =>
      this.net.deleteNamespacedNetworkPolicy({ name, namespace: this.namespace }),
    );
    await this.call(`create NetworkPolicy ${name}`, () =>
      this.net.createNamespacedNetworkPolicy({ namespace: this.namespace, body }),
    );
  }

  async createConfigMap(cm: k8s.V1ConfigMap, labels: Record<string, string>, cleanup: Cleanup): Promise<void> {
    const name = cm.metadata!.name!;
    cleanup.add(`ConfigMap ${name}`, () => this.core.deleteNamespacedConfigMap({ name, namespace: this.namespace }));
    await this.call(`create ConfigMap ${name}`, () =>
      this.core.createNamespacedConfigMap({
        namespace: this.namespace,
        body: { ...cm, metadata: { ...cm.metadata, labels: { ...cm.metadata?.labels, ...labels } } },
      }),
    );
  }

  async createJob(job: k8s.V1Job, cleanup: Cleanup): Promise<void> {
    const name = job.metadata!.name!;
    cleanup.add(`Job ${name}`, () =>
      this.batch.deleteNamespacedJob({ name, namespace: this.namespace, propagationPolicy: "Background" }),
    );
    await this.call(`create Job ${name}`, () =>
      this.batch.createNamespacedJob({ namespace: this.namespace, body: job }),
    );
  }

  /** Waits until the Job succeeded or failed (or `ms` passed); returns which. */
  async waitJob(name: string, ms: number): Promise<"succeeded" | "failed" | "timeout"> {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      const j = await this.call(`read Job ${name}`, () =>
        this.batch.readNamespacedJobStatus({ name, namespace: this.namespace }),
      );
      if ((j.status?.succeeded ?? 0) > 0) return "succeeded";
      if ((j.status?.failed ?? 0) > 0) return "failed";
      await new Promise((r) => setTimeout(r, 5000));
    }
    return "timeout";
  }

  /** The digest-pinned images the pods matching `labelSelector` run (spec image or the kubelet's image ID). */
  async runningImages(labelSelector: string): Promise<string[]> {
    const pods = await this.call(`list pods ${labelSelector}`, () =>
      this.core.listNamespacedPod({ namespace: this.namespace, labelSelector }),
    );
    return pods.items.flatMap((p) =>
      (p.spec?.containers ?? []).flatMap((c) => {
        const id = p.status?.containerStatuses?.find((s) => s.name === c.name)?.imageID;
        const ref = pinnedImageOf(c.image, id);
        return ref ? [ref] : [];
      }),
    );
  }

  /** The log of one container of the Job's pod (`aiperf`, or the tokenizer's init container). */
  async jobLog(name: string, container = "aiperf"): Promise<string> {
    const pods = await this.call(`list pods of Job ${name}`, () =>
      this.core.listNamespacedPod({ namespace: this.namespace, labelSelector: `job-name=${name}` }),
    );
    const pod = pods.items[0]?.metadata?.name;
    if (!pod) throw new UnreachableError(`Job ${name} has no pod (was it deleted, or never scheduled?)`);
    return String(
      await this.call(`read log of ${pod}`, () =>
        this.core.readNamespacedPodLog({ name: pod, namespace: this.namespace, container }),
      ),
    );
  }
}
