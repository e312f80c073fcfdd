/**
 * A fake Kubernetes API holding what the cluster stack `p5en-cluster` installs, as the API lists it: two system
 * nodes, the Dynamo platform's pods (and a finished hook Job's pod), the device plugins' DaemonSets in kube-system
 * (on no node yet: no GPU pool), the Prometheus pod and the DCGM exporter's DaemonSet in `monitoring`. The labels are
 * written as the charts write them (`helm.sh/chart: <chart>-<version>`,
 * tests/contracts/facts/chart-daemonset-labels.json), never computed by the code under test.
 */
import * as http from "node:http";
import { Fake, json } from "./fake-http";
import { serveWithKubeconfig } from "./fake-kube";

/** What is wrong with the fake cluster: nothing, a system node not Ready, or the EFA device plugin missing. */
export type ClusterScenario = "healthy" | "nodeNotReady" | "noEfaPlugin";

const list = (items: unknown[]) => ({ apiVersion: "v1", kind: "List", metadata: {}, items });
const ready = (ok: boolean) => [{ type: "Ready", status: ok ? "True" : "False" }];

function node(name: string, ok: boolean): unknown {
  return { metadata: { name, labels: { "dynamo-efa/role": "system" } }, status: { conditions: ready(ok) } };
}

function pod(name: string, namespace: string, phase: string, ok: boolean, labels: Record<string, string> = {}) {
  return { metadata: { name, namespace, labels }, spec: { containers: [] }, status: { phase, conditions: ready(ok) } };
}

function daemonSet(name: string, chart: string, desired: number, readyPods: number): unknown {
  return {
    metadata: { name, labels: { "helm.sh/chart": chart, "app.kubernetes.io/managed-by": "Helm" } },
    status: { desiredNumberScheduled: desired, numberReady: readyPods },
  };
}

/** The items each list the API answers holds in `scenario`, by path (the label selector given). */
function routes(scenario: ClusterScenario): Record<string, (selector: string | null) => unknown[]> {
  const plugin = (name: string, chart: string) => daemonSet(name, chart, 0, 0);
  return {
    "/api/v1/nodes": (selector) =>
      selector === "dynamo-efa/role=system"
        ? [node("ip-10-0-1-10", true), node("ip-10-0-2-11", scenario !== "nodeNotReady")]
        : [],
    "/api/v1/namespaces/dynamo-system/pods": () => [
      pod("dynamo-platform-dynamo-operator-controller-manager-7c9f", "dynamo-system", "Running", true),
      pod("dynamo-platform-upgrade-crd-x2k4p", "dynamo-system", "Succeeded", false),
    ],
    "/apis/apps/v1/namespaces/kube-system/daemonsets": () => [
      daemonSet("aws-node", "aws-vpc-cni-1.20.0", 2, 2),
      plugin("dynamo-efa-nvidia-device-plugin-3f2a1b9c", "nvidia-device-plugin-0.20.0"),
      ...(scenario === "noEfaPlugin"
        ? []
        : [plugin("dynamo-efa-efa-device-plugin-8d1e-aws-efa-k8s-device-plugin", "aws-efa-k8s-device-plugin-v0.5.30")]),
    ],
    "/api/v1/namespaces/monitoring/pods": (selector) =>
      selector === "dynamo-efa/component=prometheus"
        ? [pod("prometheus-kps-prometheus-0", "monitoring", "Running", true, { "dynamo-efa/component": "prometheus" })]
        : [],
    "/apis/apps/v1/namespaces/monitoring/daemonsets": () => [plugin("dcgm-exporter-5b1c", "dcgm-exporter-4.8.2")],
  };
}

/** The API's answers for `scenario`; anything else is an empty list. */
function api(scenario: ClusterScenario, requests: Fake["requests"]): http.RequestListener {
  const answers = routes(scenario);
  return (req, res) => {
    const u = new URL(req.url ?? "/", "http://x");
    requests.push({ path: u.pathname + u.search, body: undefined });
    json(res, 200, list(answers[u.pathname]?.(u.searchParams.get("labelSelector")) ?? []));
  };
}

export interface FakeClusterStack extends Fake {
  readonly kubeconfig: string;
}

/** Starts the fake cluster stack's API with a kubeconfig pointing at it (removed by `close`). */
export async function startClusterStack(scenario: ClusterScenario): Promise<FakeClusterStack> {
  const requests: Fake["requests"] = [];
  const server = http.createServer(api(scenario, requests));
  return serveWithKubeconfig(server, requests, "verify-cluster-");
}
