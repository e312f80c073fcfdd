/**
 * The graph's network arguments and who holds the HF token: the internal load balancer's source ranges (the
 * VPC CIDR by default, never the whole address space), the NetworkPolicy namespaces, and the token given only to
 * what downloads from the hub, per model cache mode.
 */
import { strict as assert } from "assert";
import { InferenceSettings } from "../../components/inference/args";
import { validate } from "../../components/inference/validate";
import { renderFrontendLoadBalancer } from "../../components/inference/render";
import { renderGraph } from "../../components/inference/graph";
import { GraphService, OperatorLabel } from "../../components/_shared/names";
import { renderNetworkPolicies } from "../../components/inference/network";
import { allows, Endpoint, Flow } from "../helpers/network-policy-eval";
import { IMAGE, pool, resolved } from "../helpers/inference-fixtures";

const lb = (over: Partial<InferenceSettings>) =>
  resolved("p5en-8x1gpu", "vllm", { ...over, frontend: { serviceType: "InternalLoadBalancer", ...over.frontend } });
const problems = (over: Partial<InferenceSettings>) =>
  validate(lb(over), true)
    .filter((p) => /sourceRanges|vpcCidr|networkPolicy/.test(p.propertyPath))
    .map((p) => `${p.propertyPath}: ${p.reason}`);

describe("inference: the internal load balancer's source ranges", () => {
  it("default to the VPC CIDR; given ranges replace it", () => {
    assert.deepEqual(renderFrontendLoadBalancer(lb({ vpcCidr: "10.0.0.0/16" }))?.spec.loadBalancerSourceRanges, [
      "10.0.0.0/16",
    ]);
    const given = lb({ vpcCidr: "10.0.0.0/16", frontend: { sourceRanges: ["10.0.8.0/24", "192.168.0.0/24"] } });
    assert.deepEqual(renderFrontendLoadBalancer(given)?.spec.loadBalancerSourceRanges, [
      "10.0.8.0/24",
      "192.168.0.0/24",
    ]);
    assert.deepEqual(problems({ vpcCidr: "10.0.0.0/16" }), []);
  });

  const cases: [string, Partial<InferenceSettings>, string[]][] = [
    [
      "no VPC CIDR and no ranges",
      {},
      [
        "frontend.sourceRanges: must list the CIDRs that may reach the internal load balancer; none given and no vpcCidr to default to. Set vpcCidr (the cluster VPC's CIDR, e.g. \"10.0.0.0/16\") or list your callers' CIDRs",
      ],
    ],
    [
      "everything, in two halves",
      { frontend: { sourceRanges: ["0.0.0.0/1", "128.0.0.0/1"] } },
      [
        'frontend.sourceRanges: ["0.0.0.0/1","128.0.0.0/1"] cover every public IPv4 address: anything routed into the VPC (peered VPCs, VPN, Transit Gateway) would reach the unauthenticated API. List only your callers\' CIDRs, or the VPC\'s',
      ],
    ],
    [
      "the public IPv4 space without the reserved 240.0.0.0/4, and IPv6's global unicast in two halves",
      {
        frontend: { sourceRanges: ["0.0.0.0/1", "128.0.0.0/2", "192.0.0.0/3", "224.0.0.0/4", "2000::/4", "3000::/4"] },
      },
      [
        'frontend.sourceRanges: ["0.0.0.0/1","128.0.0.0/2","192.0.0.0/3","224.0.0.0/4","2000::/4","3000::/4"] cover every public IPv4 and IPv6 address: anything routed into the VPC (peered VPCs, VPN, Transit Gateway) would reach the unauthenticated API. List only your callers\' CIDRs, or the VPC\'s',
      ],
    ],
    [
      "61 IPv4 ranges (one security-group rule each; 60 by default)",
      { frontend: { sourceRanges: [...Array.from({ length: 61 }, (_, i) => `10.1.${i}.0/24`), "fd00::/64"] } },
      [
        "frontend.sourceRanges: lists 61 IPv4 ranges; the load balancer's security group takes one inbound rule per range and port, and AWS allows 60 inbound IPv4 rules per security group by default. Merge them into wider blocks",
      ],
    ],
    [
      "a malformed range and a malformed VPC CIDR",
      { vpcCidr: "10.0.0.0", frontend: { sourceRanges: ["10.0.0.0/16", "10.1.0.0/40"] } },
      [
        'frontend.sourceRanges[1]: prefix length must be /0../32 for IPv4; got "10.1.0.0/40"',
        'vpcCidr: must be a CIDR such as "203.0.113.0/24" or "2001:db8::/32"; got "10.0.0.0"',
      ],
    ],
    [
      "a range with a leading-zero octet (the value, then the fix)",
      { vpcCidr: "10.0.0.0/16", frontend: { sourceRanges: ["010.0.0.0/8"] } },
      [
        'frontend.sourceRanges[0]: must be a CIDR such as "203.0.113.0/24" or "2001:db8::/32"; got "010.0.0.0/8"; without leading zeros (some tools read "010" as octal 8): did you mean "10.0.0.0/8"?',
      ],
    ],
    [
      "a bad namespace name",
      { vpcCidr: "10.0.0.0/16", networkPolicy: { clientNamespaces: ["Apps"] } },
      [
        'networkPolicy.clientNamespaces[0]: must be a namespace name (lower-case RFC 1123, <= 63 characters); got "Apps"',
      ],
    ],
  ];
  for (const [title, over, want] of cases) it(`refuses ${title}`, () => assert.deepEqual(problems(over), want));

  it("a ClusterIP Frontend needs no ranges", () =>
    assert.deepEqual(
      validate(resolved("p5en-1gpu"), true).filter((p) => p.propertyPath.includes("sourceRanges")),
      [],
    ));
});

describe("inference: the HF token reaches only what downloads", () => {
  const NVME = { localNvme: { mountPath: "/mnt/k8s-disks/0", sizeGB: 30400 } };
  // [mode, overrides, the engine gets the token, a Frontend with its own copy gets it in its main container]
  const modes: [string, Partial<InferenceSettings>, boolean, boolean][] = [
    ["none (the engine downloads)", { modelCacheMode: "none" }, true, true],
    [
      "efs (the first worker downloads into the volume)",
      { modelCache: { storageClassName: "efs", sizeGiB: 100 } },
      true,
      false,
    ],
    [
      "local-nvme (only the prefetch init container downloads)",
      { modelCacheMode: "local-nvme", gpuPool: pool("p5en.48xlarge", 2, true, NVME) },
      false,
      false,
    ],
  ];
  for (const [mode, over, engineGetsToken, copyGetsToken] of modes)
    for (const rel of ["seed", "dynamo-1.6"] as const)
      it(`${rel}: ${mode}`, () => {
        const g = renderGraph(resolved("p5en-8x1gpu", "vllm", { ...over, release: rel }), IMAGE);
        // With a copy of its own (seed) the Frontend downloads the model's config and tokenizer itself only in `none`
        // mode; with self-hosted cards (dynamo-1.6) it fetches them from the workers and never holds the token.
        const frontendGetsToken = rel === "seed" && copyGetsToken;
        const frontend = g.spec.services[GraphService.Frontend];
        assert.equal(frontend.envFromSecret, frontendGetsToken ? "llama-hf-token" : undefined);
        const frontendInit = (frontend.extraPodSpec?.initContainers ?? []).filter((c) =>
          (c.env ?? []).some((e) => e.name === "HF_TOKEN"),
        );
        assert.deepEqual(
          frontendInit.map((c) => c.name),
          engineGetsToken || rel === "dynamo-1.6" ? [] : ["model-config"],
        );
        for (const key of [GraphService.Prefill, GraphService.Decode]) {
          const w = g.spec.services[key];
          assert.equal(w.envFromSecret, engineGetsToken ? "llama-hf-token" : undefined, key);
          const init = w.extraPodSpec?.initContainers ?? [];
          const holders = init.filter((c) => (c.env ?? []).some((e) => e.name === "HF_TOKEN")).map((c) => c.name);
          assert.deepEqual(holders, engineGetsToken ? [] : ["model-prefetch"], key);
        }
      });
});

describe("inference: an internal load balancer admits exactly frontend.sourceRanges (NetworkPolicy evaluator)", () => {
  const r = resolved("p5en-1gpu", "vllm", {
    frontend: { serviceType: "InternalLoadBalancer", sourceRanges: ["10.20.0.0/16"] },
    vpcCidr: "10.0.0.0/16",
  });
  const policies = renderNetworkPolicies(r);
  const frontend: Endpoint = {
    pod: {
      namespace: r.namespace,
      labels: { [OperatorLabel.GraphName]: r.graphName, [OperatorLabel.Component]: GraphService.Frontend },
    },
    ip: "10.0.1.10",
  };
  const to8000 = (from: Endpoint): Flow => ({ from, to: frontend, protocol: "TCP", port: 8000 });
  const cases: [string, Endpoint, boolean][] = [
    ["a caller in sourceRanges (its address kept by the NLB)", { ip: "10.20.3.4" }, true],
    ["an address elsewhere in the VPC", { ip: "10.0.200.7" }, false],
    [
      "a pod of another namespace (a VPC address under the VPC CNI)",
      { pod: { namespace: "other", labels: {} }, ip: "10.0.9.9" },
      false,
    ],
  ];
  for (const [who, from, allowed] of cases)
    it(`${allowed ? "admits" : "refuses"} ${who}`, () => assert.equal(allows(policies, to8000(from)), allowed));

  it("the Service keeps the caller's address: NLB instance targets, externalTrafficPolicy Local", () => {
    const svc = renderFrontendLoadBalancer(r)!;
    assert.equal(svc.spec.externalTrafficPolicy, "Local");
    assert.equal(svc.metadata.annotations["service.beta.kubernetes.io/aws-load-balancer-type"], "nlb");
    assert.equal(
      svc.metadata.annotations["service.beta.kubernetes.io/aws-load-balancer-target-group-attributes"],
      "preserve_client_ip.enabled=true",
    );
  });
});

describe("inference: the graph's namespace is its own", () => {
  const problems = (over: Partial<InferenceSettings>) =>
    validate(resolved("p5en-1gpu", "vllm", over), true)
      .filter((p) => p.propertyPath === "namespace")
      .map((p) => p.reason);
  const taken: [string, Partial<InferenceSettings>, RegExp][] = [
    ["default", { namespace: "default" }, /^"default" is a namespace Kubernetes itself runs/],
    ["kube-system", { namespace: "kube-system" }, /^"kube-system" is a namespace Kubernetes itself runs/],
    ["kube-public", { namespace: "kube-public" }, /itself runs/],
    ["kube-node-lease", { namespace: "kube-node-lease" }, /itself runs/],
    ["the platform's", { namespace: "dynamo-system" }, /^"dynamo-system" is the Dynamo platform's namespace/],
    ["a custom platform namespace", { namespace: "ops", platformNamespace: "ops" }, /platform's namespace/],
    [
      "the scrapers'",
      { namespace: "monitoring", networkPolicy: { metricsNamespaces: ["monitoring"] } },
      /^"monitoring" is a metrics namespace/,
    ],
    ["default, even unmanaged", { namespace: "default", createNamespace: false }, /Choose another, e.g. "dynamo"$/],
  ];
  for (const [why, over, want] of taken)
    it(`refuses ${why}`, () => {
      const got = problems(over);
      assert.equal(got.length, 1, got.join("\n"));
      assert.match(got[0], want);
    });
  it("accepts a namespace of its own", () => assert.deepEqual(problems({ namespace: "llm-serving" }), []));
});
