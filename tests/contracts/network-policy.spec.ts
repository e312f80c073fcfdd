/**
 * The graph namespace's NetworkPolicies against the release's flows (components/releases/flows.ts and each release's
 * own) and Dynamo's own ports (tests/contracts/facts/dynamo-network.json, vllm-nixl-side-channel.json,
 * dynamo-runtime-settings.json): a small evaluator (tests/helpers/network-policy-eval.ts) walks every flow of the
 * release (admitted) and what is not a flow (another pod of the namespace, another namespace, the VPC: refused), for
 * both releases, both backends, both KV transports and both shipped shapes, with and without the internal load
 * balancer. The flows follow from the settings each release states: the self-hosted model cards and the ZMQ event
 * plane where its workers say so, NATS where they say nats.
 */
import { strict as assert } from "assert";
import { loadFacts } from "./facts";
import { GraphService, OperatorLabel, REQUEST_PLANE_PORT } from "../../components/_shared/names";
import { Backend, InferenceSettings, ResolvedInference } from "../../components/inference/args";
import { graphFlows, NetworkPolicyObject, renderNetworkPolicies } from "../../components/inference/network";
import { renderFrontendLoadBalancer } from "../../components/inference/render";
import { renderPrefetchDaemonSet } from "../../components/inference/cache";
import { firstTokenCheckLabels, renderFirstTokenJob } from "../../components/inference/first-token";
import { Flow, FlowPeer, ModelCards, release, ReleaseId, RELEASES } from "../../components/releases";
import { allows, Endpoint, Flow as Attempt } from "../helpers/network-policy-eval";
import { pool, resolved, Variant } from "../helpers/inference-fixtures";

interface NetworkFacts {
  readonly frontendHttpPort: number;
  readonly workerSystemPort: number;
  readonly workerNixlTelemetryPort: number;
  readonly workerNixlTelemetryEnable: string;
  readonly requestPlaneDefault: string;
  readonly tcpRpcPortVariable: string;
  readonly responseStreamServerDefaultPort: number;
  readonly natsPort: number;
  readonly etcdAddressTemplate: string;
  readonly etcdInstalled: boolean;
  readonly discoveryBackend: string;
  readonly operatorCallsWorkerSystemPort: boolean;
}
const F = loadFacts<NetworkFacts>("dynamo-network").facts;
const SIDE = loadFacts<{ portVariable: string }>("vllm-nixl-side-channel").facts;
const ETCD_PORT = Number(/:(\d+)$/.exec(F.etcdAddressTemplate)![1]);
/** Ports a kernel might hand out: an "any" flow is walked at each. */
const EPHEMERAL = [5600, 5607, 20080, 45123, 61000];

const NVME = { localNvme: { mountPath: "/mnt/k8s-disks/0", sizeGB: 30400 } };
const pod = (namespace: string, labels: Record<string, string>, ip: string): Endpoint => ({
  pod: { namespace, labels },
  ip,
});
const graphPod = (r: ResolvedInference, service: GraphService, ip: string) =>
  pod(r.namespace, { [OperatorLabel.GraphName]: r.graphName, [OperatorLabel.Component]: service }, ip);

function endpoints(r: ResolvedInference) {
  const ds = renderPrefetchDaemonSet(r);
  return {
    frontend: graphPod(r, GraphService.Frontend, "10.0.1.10"),
    prefill: graphPod(r, GraphService.Prefill, "10.0.1.20"),
    decode: graphPod(r, GraphService.Decode, "10.0.2.30"),
    prefetch: ds ? pod(r.namespace, ds.spec.template.metadata.labels, "10.0.1.33") : undefined,
    check: renderFirstTokenJob(r, {}) ? pod(r.namespace, firstTokenCheckLabels(r), "10.0.1.34") : undefined,
    prometheus: pod("monitoring", { app: "prometheus" }, "10.0.1.40"),
    client: pod("apps", { app: "chat" }, "10.0.1.50"),
    stranger: pod("default", { app: "anything" }, "10.0.1.60"),
    neighbour: pod(r.namespace, { app: "debug" }, "10.0.1.61"),
    operator: pod(r.platformNamespace, { "control-plane": "controller-manager" }, "10.0.1.70"),
    nats: pod(r.platformNamespace, { "app.kubernetes.io/name": "nats" }, "10.0.1.80"),
    dns: pod("kube-system", { "k8s-app": "kube-dns" }, "10.0.1.90"),
    hfHub: { ip: "18.154.227.7" } as Endpoint,
    vpcHost: { ip: "10.0.9.9" } as Endpoint,
    peeredVpc: { ip: "172.31.4.4" } as Endpoint,
  };
}
type Ends = ReturnType<typeof endpoints>;

/** The endpoints a flow's peer stands for in this graph (both worker roles for "workers"). */
function at(e: Ends, p: FlowPeer): Endpoint[] {
  const m: Record<FlowPeer, (Endpoint | undefined)[]> = {
    [FlowPeer.Clients]: [e.client],
    [FlowPeer.Metrics]: [e.prometheus],
    [FlowPeer.Operator]: [e.operator],
    [FlowPeer.Nats]: [e.nats],
    [FlowPeer.Frontend]: [e.frontend],
    [FlowPeer.Workers]: [e.prefill, e.decode],
    [FlowPeer.Prefetch]: [e.prefetch],
    [FlowPeer.FirstTokenCheck]: [e.check],
    [FlowPeer.Dns]: [e.dns],
    [FlowPeer.Https]: [e.hfHub],
  };
  return m[p].filter((x) => x !== undefined);
}

/** Every connection attempt a flow stands for: each end pair, at its port or at each ephemeral port. */
function attempts(e: Ends, f: Flow): Attempt[] {
  const ports = f.port === "any" ? EPHEMERAL : [f.port];
  return at(e, f.from).flatMap((from) =>
    at(e, f.to).flatMap((to) => ports.map((port) => ({ from, to, protocol: f.protocol, port }))),
  );
}

const tcp = (from: Endpoint, to: Endpoint, port: number): Attempt => ({ from, to, protocol: "TCP", port });

/** What is not a flow of any release: each must be refused. */
function strangers(r: ResolvedInference, e: Ends): [string, Attempt][] {
  const out: [string, Attempt][] = [
    ["another namespace -> Frontend HTTP", tcp(e.stranger, e.frontend, F.frontendHttpPort)],
    ["another pod of the namespace -> Frontend HTTP", tcp(e.neighbour, e.frontend, F.frontendHttpPort)],
    ["another namespace -> worker system port", tcp(e.stranger, e.prefill, F.workerSystemPort)],
    ["another pod of the namespace -> worker system port", tcp(e.neighbour, e.decode, F.workerSystemPort)],
    ["another namespace -> worker request plane", tcp(e.stranger, e.decode, REQUEST_PLANE_PORT)],
    ["another pod of the namespace -> an event publisher's port", tcp(e.neighbour, e.prefill, 45123)],
    ["another namespace -> NIXL side channel", tcp(e.stranger, e.prefill, 5600)],
    ["the VPC -> worker system port", tcp(e.vpcHost, e.prefill, F.workerSystemPort)],
    ["Prometheus -> NIXL telemetry (off)", tcp(e.prometheus, e.prefill, F.workerNixlTelemetryPort)],
    ["Prometheus -> worker request plane", tcp(e.prometheus, e.prefill, REQUEST_PLANE_PORT)],
    ["worker -> etcd (not installed)", tcp(e.decode, e.nats, ETCD_PORT)],
    ["worker -> the internet over plain HTTP", tcp(e.decode, e.hfHub, 80)],
    ["worker -> another namespace", tcp(e.decode, e.stranger, 8080)],
    ["Frontend -> another pod of the namespace", tcp(e.frontend, e.neighbour, 8080)],
    ["the operator -> Frontend", tcp(e.operator, e.frontend, F.frontendHttpPort)],
  ];
  if (r.frontend.serviceType === "ClusterIP")
    out.push(["the VPC -> Frontend (ClusterIP: no load balancer)", tcp(e.vpcHost, e.frontend, F.frontendHttpPort)]);
  if (!release(r.release).flows.some((f) => f.to === FlowPeer.Nats))
    out.push(
      ["Frontend -> NATS (the release's platform runs none)", tcp(e.frontend, e.nats, F.natsPort)],
      ["worker -> NATS (the release's platform runs none)", tcp(e.decode, e.nats, F.natsPort)],
    );
  if (e.check)
    out.push(
      ["the first-token check -> a worker's system port", tcp(e.check, e.prefill, F.workerSystemPort)],
      ["the first-token check -> a worker's request plane", tcp(e.check, e.decode, REQUEST_PLANE_PORT)],
      ["the first-token check -> the hub (it needs no token, no download)", tcp(e.check, e.hfHub, 443)],
      ["the first-token check -> the Kubernetes API", tcp(e.check, e.vpcHost, 443)],
      ["anything -> the first-token check", tcp(e.frontend, e.check, 8080)],
    );
  if (e.prefetch)
    out.push(
      ["prefetch -> the hub over plain HTTP", tcp(e.prefetch, e.hfHub, 80)],
      ["prefetch -> worker request plane", tcp(e.prefetch, e.decode, REQUEST_PLANE_PORT)],
      ["Frontend -> prefetch", tcp(e.frontend, e.prefetch, 8080)],
    );
  return out;
}

const settings = (backend: Backend, over: Partial<InferenceSettings>): Partial<InferenceSettings> => ({
  ...over,
  networkPolicy: { clientNamespaces: ["apps"], metricsNamespaces: ["monitoring"] },
  backend,
});

/** Whether the release offers the KV-aware router (`frontend.routerMode: "kv"`). */
const offersKvRouter = (rel: ReleaseId) => release(rel).runtime.routerModes.modes.includes("kv");
const env = (rel: ReleaseId, name: string) => release(rel).runtime.workerEnv.find((s) => s.name === name)?.value;
const RELEASE_IDS = Object.keys(RELEASES) as ReleaseId[];

describe("contracts: the graph's NetworkPolicies admit exactly the release's flows", () => {
  it("the facts the flows rely on hold upstream", () => {
    assert.deepEqual([F.requestPlaneDefault, F.discoveryBackend, F.etcdInstalled], ["tcp", "kubernetes", false]);
    assert.equal(F.responseStreamServerDefaultPort, 0, "response streams arrive on an OS-assigned port");
    assert.equal(F.workerNixlTelemetryEnable, "n", "the operator turns NIXL telemetry off: 19090 stays closed");
    assert.ok(F.operatorCallsWorkerSystemPort);
    assert.equal(SIDE.portVariable, "VLLM_NIXL_SIDE_CHANNEL_PORT");
  });

  for (const rel of RELEASE_IDS)
    it(`${rel}: every flow names its why and source, its ids are unique, and a port chosen at run time says which`, () => {
      const flows = release(rel).flows;
      assert.equal(new Set(flows.map((f) => f.id)).size, flows.length, "unique ids");
      for (const f of flows) {
        assert.ok(f.why.length > 10 && f.source.length > 10, f.id);
        assert.equal(f.port === "any", (f.portWhy ?? "").length > 10, `${f.id}: portWhy exactly for "any"`);
      }
    });

  for (const rel of RELEASE_IDS)
    // Ledger row 1.4.0:bundled-nats-subchart-disabled-by-default (#11951).
    // Ledger row 1.4.0:dyn-self-host-metadata-now-defaults-to-on (#11417).
    it(`${rel}: the flows follow the settings the workers state (model cards, event plane)`, () => {
      const ids = release(rel).flows.map((f) => f.id);
      const selfHosted = release(rel).runtime.modelCards.mode === ModelCards.SelfHosted;
      assert.equal(env(rel, "DYN_SELF_HOST_METADATA"), selfHosted ? "1" : "0");
      assert.equal(
        ids.includes("frontend-workers-model-cards"),
        selfHosted,
        "the card flow where cards are self-hosted",
      );
      assert.equal(env(rel, "DYN_SYSTEM_PORT"), String(F.workerSystemPort));
      const plane = env(rel, "DYN_EVENT_PLANE");
      assert.ok(plane === "zmq" || plane === "nats", String(plane));
      assert.equal(ids.includes("frontend-workers-event-plane"), plane === "zmq", "ZMQ subscriptions where zmq");
      assert.equal(ids.includes("workers-nats"), plane === "nats", "NATS where nats");
      assert.equal(release(rel).platform.nats, plane === "nats", "NATS only where the platform runs it");
      assert.equal(env(rel, "DYN_REQUEST_PLANE"), F.requestPlaneDefault);
      assert.equal(env(rel, "DYN_DISCOVERY_BACKEND"), F.discoveryBackend);
    });

  for (const rel of RELEASE_IDS)
    it(`${rel}: the KV router is offered only where the flows carry what it reads (the workers' KV events to the Frontend)`, () => {
      const ids = release(rel).flows.map((f) => f.id);
      if (offersKvRouter(rel)) {
        assert.ok(ids.includes("frontend-workers-event-plane"), "the Frontend subscribes to each worker's publisher");
        assert.ok(ids.includes("frontend-workers-request-plane") && ids.includes("workers-frontend-response-streams"));
      }
      assert.ok(RELEASE_IDS.some(offersKvRouter), "offered where a release's flows admit it");
      assert.ok(release(rel).runtime.routerModes.source.length > 20, "each release says where its modes were read");
    });

  for (const rel of RELEASE_IDS)
    for (const variant of ["p5en-1gpu", "p5en-8x1gpu"] as Variant[])
      for (const backend of ["vllm", "trtllm"] as Backend[])
        for (const [label, over] of [
          ["libfabric", { kvTransport: "libfabric" }],
          ["ucx", { kvTransport: "ucx" }],
          ["local-nvme", { modelCacheMode: "local-nvme", gpuPool: pool("p5en.48xlarge", 2, true, NVME) }],
          ...(offersKvRouter(rel) ? [["router-mode kv", { frontend: { routerMode: "kv" } }]] : []),
        ] as [string, Partial<InferenceSettings>][]) {
          const r = resolved(variant, backend, settings(backend, { ...over, release: rel }));
          const policies = renderNetworkPolicies(r);
          const e = endpoints(r);
          describe(`${rel} ${variant} ${backend} ${label}`, () => {
            it("the graph has every flow of the release whose ends it renders", () => {
              const have = new Set(graphFlows(r).map((f) => f.id));
              for (const f of release(rel).flows)
                assert.equal(have.has(f.id), at(e, f.from).length > 0 && at(e, f.to).length > 0, f.id);
            });
            for (const f of graphFlows(r))
              it(`admits ${f.id} (${f.from} -> ${f.to} ${f.protocol} ${f.port})`, () => {
                for (const a of attempts(e, f)) assert.ok(allows(policies, a), JSON.stringify(a));
              });
            for (const [name, a] of strangers(r, e))
              it(`refuses ${name}`, () => assert.ok(!allows(policies, a), JSON.stringify(a)));
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

  it("no client or metrics namespace: nothing but the graph's own flows reach the Frontend", () => {
    const r = resolved("p5en-1gpu", "vllm", {});
    const e = endpoints(r);
    const policies = renderNetworkPolicies(r);
    assert.ok(!allows(policies, tcp(e.client, e.frontend, F.frontendHttpPort)));
    assert.ok(!allows(policies, tcp(e.prometheus, e.frontend, F.frontendHttpPort)));
    assert.ok(allows(policies, tcp(e.prefill, e.frontend, 45123)));
  });

  it("firstTokenCheck.enabled false: no check pod, no flow of it, the Frontend admits no check", () => {
    const r = resolved("p5en-1gpu", "vllm", { firstTokenCheck: { enabled: false } });
    assert.ok(!graphFlows(r).some((f) => f.from === FlowPeer.FirstTokenCheck));
    assert.ok(!renderNetworkPolicies(r).some((p) => p.metadata.name.endsWith("-first-token")));
    const check = pod(r.namespace, firstTokenCheckLabels(r), "10.0.1.34");
    assert.ok(!allows(renderNetworkPolicies(r), tcp(check, endpoints(r).frontend, F.frontendHttpPort)));
  });

  it("the default deny covers every pod of the namespace, a pod the graph does not name included", () => {
    const r = resolved("p5en-1gpu", "vllm", {});
    const e = endpoints(r);
    assert.ok(!allows(renderNetworkPolicies(r), tcp(e.neighbour, e.hfHub, 443)));
  });
});
