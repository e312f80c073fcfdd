/**
 * The graph namespace's NetworkPolicies against Dynamo's own ports (tests/contracts/facts/dynamo-network.json,
 * vllm-nixl-side-channel.json) and the rendered env: a small evaluator (tests/helpers/network-policy-eval.ts)
 * walks every flow Dynamo needs (allowed) and the flows nothing needs (denied), for both shipped shapes, both
 * backends and both KV transports, with and without the internal load balancer.
 */
import { strict as assert } from "assert";
import { loadFacts } from "./facts";
import { GraphService, OperatorLabel } from "../../components/_shared/names";
import { Backend, InferenceSettings, ResolvedInference, ServingRole } from "../../components/inference/args";
import { renderGraph } from "../../components/inference/graph";
import { NetworkPolicyObject, renderNetworkPolicies, REQUEST_PLANE_PORT } from "../../components/inference/network";
import { renderFrontendLoadBalancer } from "../../components/inference/render";
import { renderPrefetchDaemonSet } from "../../components/inference/cache";
import { release, ReleaseId } from "../../components/releases";
import { allows, Endpoint, Flow } from "../helpers/network-policy-eval";
import { IMAGE, pool, resolved, Variant } from "../helpers/inference-fixtures";

interface NetworkFacts {
  readonly frontendHttpPort: number;
  readonly workerSystemPort: number;
  readonly workerNixlTelemetryPort: number;
  readonly workerNixlTelemetryEnable: string;
  readonly requestPlaneDefault: string;
  readonly eventPlaneDefault: string;
  readonly tcpRpcPortVariable: string;
  readonly responseStreamServerDefaultPort: number;
  readonly natsPort: number;
  readonly natsEnabled: boolean;
  readonly etcdAddressTemplate: string;
  readonly etcdInstalled: boolean;
  readonly discoveryBackend: string;
  readonly operatorCallsWorkerSystemPort: boolean;
}
const F = loadFacts<NetworkFacts>("dynamo-network").facts;
const SIDE = loadFacts<{ portVariable: string }>("vllm-nixl-side-channel").facts;
const ETCD_PORT = Number(/:(\d+)$/.exec(F.etcdAddressTemplate)![1]);

const NS = "dynamo";
const pod = (namespace: string, labels: Record<string, string>, ip: string): Endpoint => ({
  pod: { namespace, labels },
  ip,
});
const graphPod = (r: ResolvedInference, service: GraphService, ip: string) =>
  pod(r.namespace, { [OperatorLabel.GraphName]: r.graphName, [OperatorLabel.Component]: service }, ip);

function endpoints(r: ResolvedInference) {
  return {
    frontend: graphPod(r, GraphService.Frontend, "10.0.1.10"),
    prefill: graphPod(r, GraphService.Prefill, "10.0.1.20"),
    decode: graphPod(r, GraphService.Decode, "10.0.2.30"),
    prometheus: pod("monitoring", { app: "prometheus" }, "10.0.1.40"),
    client: pod("apps", { app: "chat" }, "10.0.1.50"),
    stranger: pod("default", { app: "anything" }, "10.0.1.60"),
    operator: pod(r.platformNamespace, { "control-plane": "controller-manager" }, "10.0.1.70"),
    nats: pod(r.platformNamespace, { "app.kubernetes.io/name": "nats" }, "10.0.1.80"),
    dns: pod("kube-system", { "k8s-app": "kube-dns" }, "10.0.1.90"),
    hfHub: { ip: "18.154.227.7" } as Endpoint,
    vpcHost: { ip: "10.0.9.9" } as Endpoint,
    peeredVpc: { ip: "172.31.4.4" } as Endpoint,
  };
}

const tcp = (from: Endpoint, to: Endpoint, port: number): Flow => ({ from, to, protocol: "TCP", port });

/** The worker env value of a role, as rendered. */
function workerEnv(r: ResolvedInference, role: ServingRole, name: string): string | undefined {
  const svc = renderGraph(r, IMAGE).spec.services[
    role === ServingRole.Prefill ? GraphService.Prefill : GraphService.Decode
  ];
  return svc.envs?.find((e) => e.name === name)?.value;
}

function neededFlows(r: ResolvedInference, e: ReturnType<typeof endpoints>): [string, Flow][] {
  const side = Number(workerEnv(r, ServingRole.Prefill, SIDE.portVariable) ?? 5600);
  const rpc = Number(workerEnv(r, ServingRole.Decode, F.tcpRpcPortVariable));
  const ephemeral = 45123; // a caller's response-stream server: OS-assigned (port 0), any port
  const out: [string, Flow][] = [
    ["client namespace -> Frontend HTTP", tcp(e.client, e.frontend, F.frontendHttpPort)],
    ["Frontend -> prefill request plane", tcp(e.frontend, e.prefill, rpc)],
    ["Frontend -> decode request plane", tcp(e.frontend, e.decode, rpc)],
    ["prefill -> Frontend response stream", tcp(e.prefill, e.frontend, ephemeral)],
    ["decode -> Frontend response stream", tcp(e.decode, e.frontend, ephemeral)],
    ["decode -> prefill NIXL side channel", tcp(e.decode, e.prefill, side)],
    ["prefill -> decode NIXL side channel (+ rank offset)", tcp(e.prefill, e.decode, side + 7)],
    ["prefill -> decode request plane", tcp(e.prefill, e.decode, rpc)],
    ["decode -> prefill response stream", tcp(e.decode, e.prefill, ephemeral)],
    ["Prometheus -> Frontend metrics", tcp(e.prometheus, e.frontend, F.frontendHttpPort)],
    ["Prometheus -> worker system metrics", tcp(e.prometheus, e.decode, F.workerSystemPort)],
    ["operator -> worker system port", tcp(e.operator, e.prefill, F.workerSystemPort)],
  ];
  for (const [name, src] of [
    ["Frontend", e.frontend],
    ["worker", e.decode],
  ] as const) {
    out.push([`${name} -> DNS (UDP)`, { from: src, to: e.dns, protocol: "UDP", port: 53 }]);
    out.push([`${name} -> DNS (TCP)`, tcp(src, e.dns, 53)]);
    // NATS only where the release's platform runs it (seed); dynamo-1.6's chart installs none (deniedFlows).
    if (release(r.release).platform.nats) out.push([`${name} -> NATS`, tcp(src, e.nats, F.natsPort)]);
    out.push([`${name} -> HF hub / Kubernetes API (HTTPS)`, tcp(src, e.hfHub, 443)]);
  }
  return out;
}

function deniedFlows(r: ResolvedInference, e: ReturnType<typeof endpoints>): [string, Flow][] {
  const noNats: [string, Flow][] = release(r.release).platform.nats
    ? []
    : [
        ["Frontend -> NATS (the release's platform runs none)", tcp(e.frontend, e.nats, F.natsPort)],
        ["worker -> NATS (the release's platform runs none)", tcp(e.decode, e.nats, F.natsPort)],
      ];
  return [
    ...noNats,
    ["another namespace -> Frontend HTTP", tcp(e.stranger, e.frontend, F.frontendHttpPort)],
    ["another namespace -> worker system port", tcp(e.stranger, e.prefill, F.workerSystemPort)],
    ["another namespace -> worker request plane", tcp(e.stranger, e.decode, REQUEST_PLANE_PORT)],
    ["another namespace -> NIXL side channel", tcp(e.stranger, e.prefill, 5600)],
    ["Prometheus -> NIXL telemetry (off)", tcp(e.prometheus, e.prefill, F.workerNixlTelemetryPort)],
    ["Frontend -> worker on a port it does not serve", tcp(e.frontend, e.prefill, 22)],
    ["worker -> etcd (not installed)", tcp(e.decode, e.nats, ETCD_PORT)],
    ["worker -> the internet over plain HTTP", tcp(e.decode, e.hfHub, 80)],
    ["worker -> another namespace", tcp(e.decode, e.stranger, 8080)],
    ["the VPC -> Frontend (ClusterIP: no load balancer)", tcp(e.vpcHost, e.frontend, F.frontendHttpPort)],
  ];
}

const settings = (backend: Backend, over: Partial<InferenceSettings>) => ({
  ...over,
  networkPolicy: { clientNamespaces: ["apps"], metricsNamespaces: ["monitoring"] },
  backend,
});

describe("contracts: the graph's NetworkPolicies allow exactly Dynamo's flows", () => {
  it("the facts the policies rely on hold upstream", () => {
    assert.deepEqual(
      [F.requestPlaneDefault, F.eventPlaneDefault, F.discoveryBackend, F.natsEnabled, F.etcdInstalled],
      ["tcp", "nats", "kubernetes", true, false],
    );
    assert.equal(F.responseStreamServerDefaultPort, 0, "response streams arrive on an OS-assigned port");
    assert.equal(F.workerNixlTelemetryEnable, "n", "the operator turns NIXL telemetry off: 19090 stays closed");
    assert.ok(F.operatorCallsWorkerSystemPort);
  });

  it("NATS egress is exactly where the release's platform runs NATS: seed yes, dynamo-1.6 no", () => {
    assert.deepEqual(
      (["seed", "dynamo-1.6"] as ReleaseId[]).map((id) => release(id).platform.nats),
      [true, false],
    );
  });

  for (const rel of ["seed", "dynamo-1.6"] as ReleaseId[])
    for (const variant of ["p5en-1gpu", "p5en-8x1gpu"] as Variant[])
      for (const backend of ["vllm", "trtllm"] as Backend[])
        for (const kvTransport of ["libfabric", "ucx"] as const) {
          const r = resolved(variant, backend, settings(backend, { kvTransport, release: rel }));
          const policies = renderNetworkPolicies(r);
          const e = endpoints(r);
          describe(`${rel} ${variant} ${backend} ${kvTransport}`, () => {
            it("the workers pin the request plane to the port the policy names", () => {
              for (const role of [ServingRole.Prefill, ServingRole.Decode])
                assert.equal(workerEnv(r, role, F.tcpRpcPortVariable), String(REQUEST_PLANE_PORT));
            });
            for (const [name, flow] of neededFlows(r, e))
              it(`allows ${name}`, () => assert.ok(allows(policies, flow), JSON.stringify(flow)));
            for (const [name, flow] of deniedFlows(r, e))
              it(`denies ${name}`, () => assert.ok(!allows(policies, flow), JSON.stringify(flow)));
          });
        }

  describe("internal load balancer", () => {
    const r = resolved("p5en-8x1gpu", "vllm", {
      ...settings("vllm", {}),
      vpcCidr: "10.0.0.0/16",
      frontend: { serviceType: "InternalLoadBalancer" },
    });
    const policies: NetworkPolicyObject[] = renderNetworkPolicies(r);
    const e = endpoints(r);
    it("admits the load balancer's source ranges (the VPC CIDR by default) and nothing else routed in", () => {
      assert.deepEqual(renderFrontendLoadBalancer(r)?.spec.loadBalancerSourceRanges, ["10.0.0.0/16"]);
      assert.ok(allows(policies, tcp(e.vpcHost, e.frontend, F.frontendHttpPort)));
      assert.ok(!allows(policies, tcp(e.peeredVpc, e.frontend, F.frontendHttpPort)));
      assert.ok(!allows(policies, tcp(e.vpcHost, e.prefill, F.workerSystemPort)));
    });
  });

  describe("internal load balancer with callers outside the VPC", () => {
    const r = resolved("p5en-8x1gpu", "vllm", {
      ...settings("vllm", {}),
      vpcCidr: "10.0.0.0/16",
      frontend: { serviceType: "InternalLoadBalancer", sourceRanges: ["172.31.0.0/16"] },
    });
    const policies: NetworkPolicyObject[] = renderNetworkPolicies(r);
    const e = endpoints(r);
    it("the load balancer keeps the caller's address, so the policy admits the callers and not the VPC", () => {
      assert.deepEqual(renderFrontendLoadBalancer(r)?.spec.loadBalancerSourceRanges, ["172.31.0.0/16"]);
      assert.equal(renderFrontendLoadBalancer(r)?.spec.externalTrafficPolicy, "Local");
      assert.ok(!allows(policies, tcp(e.vpcHost, e.frontend, F.frontendHttpPort)), "a VPC address is not a caller");
      assert.ok(allows(policies, tcp(e.peeredVpc, e.frontend, F.frontendHttpPort)), "a caller in sourceRanges");
      assert.ok(!allows(policies, tcp(e.vpcHost, e.prefill, F.workerSystemPort)));
    });
  });

  it("networkPolicy.enabled: false renders none, and then nothing is fenced", () => {
    const r = resolved("p5en-1gpu", "vllm", { networkPolicy: { enabled: false } });
    assert.deepEqual(renderNetworkPolicies(r), []);
    const e = endpoints(r);
    assert.ok(allows([], tcp(e.stranger, e.frontend, F.frontendHttpPort)));
  });

  it("the local-nvme prefetch DaemonSet's pods reach DNS and the HF hub over HTTPS, and nothing else", () => {
    const r = resolved("p5en-8x1gpu", "vllm", {
      ...settings("vllm", {}),
      gpuPool: pool("p5en.48xlarge", 2, true, { localNvme: { mountPath: "/mnt/k8s-disks/0", sizeGB: 30400 } }),
      modelCacheMode: "local-nvme",
    });
    const ds = renderPrefetchDaemonSet(r);
    assert.ok(ds, "the fixture renders the DaemonSet");
    const policies = renderNetworkPolicies(r);
    const e = endpoints(r);
    const prefetch = pod(r.namespace, ds.spec.template.metadata.labels, "10.0.1.33");
    assert.ok(allows(policies, tcp(prefetch, e.hfHub, 443)));
    assert.ok(allows(policies, { from: prefetch, to: e.dns, protocol: "UDP", port: 53 }));
    assert.ok(!allows(policies, tcp(prefetch, e.hfHub, 80)));
    assert.ok(!allows(policies, tcp(prefetch, e.decode, REQUEST_PLANE_PORT)));
    assert.ok(!allows(policies, tcp(e.frontend, prefetch, 8080)));
    assert.equal(renderNetworkPolicies(resolved("p5en-8x1gpu", "vllm", settings("vllm", {}))).length, 3);
  });

  it("the default deny covers every pod of the namespace, a pod the graph does not name included", () => {
    const r = resolved("p5en-1gpu", "vllm", {});
    const other = pod(NS, { app: "debug" }, "10.0.1.99");
    assert.ok(!allows(renderNetworkPolicies(r), tcp(other, endpoints(r).hfHub, 443)));
  });
});
