/**
 * Worker-side GPU pool policies: EFA devices per worker from the instance catalog (F8, F12) and the
 * hugepages of the workers that can share a node (F14).
 */
import { strict as assert } from "assert";
import { efaPerWorkerMatchesPool, hugepagesFitNode, worstNodeHugepages } from "../../policy/rules/gpu-cluster";
import {
  decode,
  happyGraph,
  loose,
  prefill,
  serviceLabel,
  TestGraph,
  TestWorker,
} from "../helpers/policy-graph-fixtures";
import { graphIn, happyStack, T } from "../helpers/policy-fixtures";
import {
  messages,
  resourceArgs,
  resourcePolicyTable,
  runResourcePolicy,
  runStackPolicy,
  stackArgs,
  stackPolicyTable,
} from "../helpers/policy-harness";
import { KvTransportChoice } from "../../components/inference/args";
import { renderInference } from "../../components/inference/render";
import { resolved } from "../helpers/inference-fixtures";

/** Both workers select NIXL's `backend` through vLLM's only selector, `--kv-transfer-config` (F3). */
function selectBackend(g: TestGraph, backend: string): void {
  for (const w of [prefill(g), decode(g)]) {
    const a = w.extraPodSpec.mainContainer.args;
    const json = JSON.parse(a[a.indexOf("--kv-transfer-config") + 1]);
    json.kv_connector_extra_config.backends = [backend];
    a[a.indexOf("--kv-transfer-config") + 1] = JSON.stringify(json);
  }
}

const D = serviceLabel("DecodeWorker");
const EFA = 'resources.limits.custom["vpc.amazonaws.com/efa"]';
const graph = graphIn;

describe("policies: GPU pool, workers (F8, F12, F14)", () => {
  it("the component and the policy agree on EFA for every KV transport and backend", async () => {
    for (const kvTransport of Object.values(KvTransportChoice))
      for (const backend of ["vllm", "trtllm"] as const) {
        const { graph } = renderInference(resolved("p5en-8x1gpu", backend, { kvTransport }));
        const run = await runResourcePolicy(efaPerWorkerMatchesPool, resourceArgs(T.Dgd, graph));
        assert.deepEqual(messages(run), [], `${kvTransport} ${backend}`);
      }
  });

  const count = (efa: number, gpus: number, type: string, per: number, expected: number) =>
    `${D} requests ${efa} EFA device(s) for ${gpus} GPU(s); on ${type} a worker gets ${gpus} GPU(s) x ${per} EFA per GPU = ${expected} (EFA counts come from the instance catalog: F12); set ${EFA} to "${expected}"`;
  resourcePolicyTable(
    efaPerWorkerMatchesPool,
    T.Dgd,
    happyGraph,
    [
      {
        title: "resources on the main container in Kubernetes form (F8)",
        mutate: (g) => {
          delete decode(g).resources.limits.gpu;
          delete decode(g).resources.limits.custom["vpc.amazonaws.com/efa"];
          loose(decode(g).extraPodSpec.mainContainer).resources = {
            limits: { "nvidia.com/gpu": 1, "vpc.amazonaws.com/efa": 1 },
          };
        },
        expect: [
          `${D} sets nvidia.com/gpu on extraPodSpec.mainContainer.resources (Kubernetes form), which the operator ignores, so it schedules 0 GPUs (F8); move it to resources.limits.gpu`,
          `${D} sets vpc.amazonaws.com/efa on extraPodSpec.mainContainer.resources (Kubernetes form), which the operator ignores, so it schedules 0 EFA devices (F8); move it to ${EFA}`,
          `${D} requests no GPU in Dynamo form; set resources.limits.gpu (F8)`,
        ],
      },
      {
        title: "the field's hand-typed 16 EFA for one p5en GPU (F12)",
        mutate: (g) => {
          decode(g).resources.limits.custom["vpc.amazonaws.com/efa"] = "16";
        },
        expect: [count(16, 1, "p5en.48xlarge", 2, 2)],
      },
      {
        title: "p5 has 4 EFA per GPU, so a p5en count is wrong there",
        mutate: (g) => {
          decode(g).extraPodSpec.nodeSelector["node.kubernetes.io/instance-type"] = "p5.48xlarge";
        },
        expect: [count(2, 1, "p5.48xlarge", 4, 4)],
      },
      {
        title: "2-GPU workers need 4 EFA on p5en",
        mutate: (g) => {
          decode(g).resources.limits.gpu = "2";
        },
        expect: [count(2, 2, "p5en.48xlarge", 2, 4)],
      },
      {
        title: "a fractional EFA share (p4d: 0.5 per GPU)",
        mutate: (g) => {
          decode(g).extraPodSpec.nodeSelector["node.kubernetes.io/instance-type"] = "p4d.24xlarge";
        },
        expect: [
          `${D}: 1 GPU(s) x 0.5 EFA per GPU of a p4d.24xlarge = 0.5, not a whole number of EFA devices (F12); use a GPU count per worker that is a multiple of 2`,
        ],
      },
      {
        title: "a worker on an EFA pool without EFA",
        mutate: (g) => {
          delete decode(g).resources.limits.custom["vpc.amazonaws.com/efa"];
        },
        expect: [count(0, 1, "p5en.48xlarge", 2, 2)],
      },
      {
        title: "... allowed by config",
        config: { allowWithoutEfa: true },
        mutate: (g) => {
          delete decode(g).resources.limits.custom["vpc.amazonaws.com/efa"];
        },
        expect: [],
      },
      {
        title: "a UCX graph (its workers' NIXL selector) on an EFA pool holds no EFA, as the component requests it",
        mutate: (g) => {
          selectBackend(g, "UCX");
          delete decode(g).resources.limits.custom["vpc.amazonaws.com/efa"];
          delete prefill(g).resources.limits.custom["vpc.amazonaws.com/efa"];
        },
        expect: [],
      },
      {
        title: "a UCX graph that still requests EFA devices it would never use",
        mutate: (g) => {
          selectBackend(g, "UCX");
          delete prefill(g).resources.limits.custom["vpc.amazonaws.com/efa"];
        },
        expect: [
          `${D} requests 2 EFA device(s) but its engine selects NIXL's UCX backend, which uses none; remove ${EFA}, or select LIBFABRIC`,
        ],
      },
      {
        title: "a LIBFABRIC graph without EFA is refused as before",
        mutate: (g) => {
          selectBackend(g, "LIBFABRIC");
          delete decode(g).resources.limits.custom["vpc.amazonaws.com/efa"];
        },
        expect: [count(0, 1, "p5en.48xlarge", 2, 2)],
      },
      {
        title: "no EFA on a g6e (no GPUDirect RDMA: NIXL cannot use EFA there) is fine",
        mutate: (g) => {
          decode(g).extraPodSpec.nodeSelector["node.kubernetes.io/instance-type"] = "g6e.48xlarge";
          delete decode(g).resources.limits.custom["vpc.amazonaws.com/efa"];
        },
        expect: [],
      },
      {
        title: "a fractional EFA share requested on a g6e",
        mutate: (g) => {
          decode(g).extraPodSpec.nodeSelector["node.kubernetes.io/instance-type"] = "g6e.48xlarge";
          decode(g).resources.limits.custom["vpc.amazonaws.com/efa"] = "1";
        },
        expect: [
          `${D}: 1 GPU(s) x 0.5 EFA per GPU of a g6e.48xlarge = 0.5, not a whole number of EFA devices (F12); use a GPU count per worker that is a multiple of 2`,
        ],
      },
      {
        title: "EFA on an instance without EFA",
        mutate: (g) => {
          decode(g).extraPodSpec.nodeSelector["node.kubernetes.io/instance-type"] = "g5.xlarge";
        },
        expect: [`${D} requests 2 EFA device(s) but g5.xlarge has no EFA; remove ${EFA}`],
      },
      {
        title: "a typo in the pinned instance type",
        mutate: (g) => {
          decode(g).extraPodSpec.nodeSelector["node.kubernetes.io/instance-type"] = "p5en.48xlarg";
        },
        expect: [`${D} is pinned to an unknown GPU instance type "p5en.48xlarg"; did you mean "p5en.48xlarge"?`],
      },
      {
        title: "an EFA worker not pinned to an instance type",
        mutate: (g) => {
          delete decode(g).extraPodSpec.nodeSelector["node.kubernetes.io/instance-type"];
        },
        expect: [
          `${D} requests EFA but is not pinned to an instance type; add extraPodSpec.nodeSelector["node.kubernetes.io/instance-type"] so its EFA count matches the node's`,
        ],
      },
      {
        title: "pinned through required node affinity instead of a selector",
        mutate: (g) => {
          delete decode(g).extraPodSpec.nodeSelector["node.kubernetes.io/instance-type"];
          loose(decode(g).extraPodSpec.affinity).nodeAffinity = {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                {
                  matchExpressions: [
                    { key: "node.kubernetes.io/instance-type", operator: "In", values: ["p5en.48xlarge"] },
                  ],
                },
              ],
            },
          };
        },
        expect: [],
      },
    ],
    { name: "inf-graph" },
  );

  const F14 = (pages: number, who: string, total: number, source: string, perGpu: number) =>
    `p5en.48xlarge nodes of pool "gpu": worker replicas that can share one node request up to ${pages} hugepages-2Mi pages (${who}), but a node pre-allocates ${total} (${source}), so only some of them ever schedule (F14); request at most ${perGpu} pages (${perGpu * 2}Mi) per GPU of a worker, or none with FI_EFA_USE_HUGE_PAGE=0`;
  const setHugepages = (s: TestWorker, q: string) => {
    s.resources.limits.custom["hugepages-2Mi"] = q;
    s.resources.requests.custom["hugepages-2Mi"] = q;
  };
  stackPolicyTable(hugepagesFitNode, happyStack, [
    {
      title: "the field's 5120Mi per worker (F14)",
      mutate: (plan) => {
        setHugepages(decode(graph(plan)), "5120Mi");
        setHugepages(prefill(graph(plan)), "5120Mi");
      },
      expect: [F14(20480, '8 x DecodeWorker of "llama" at 2560 pages', 5128, "the p5en.48xlarge catalog value", 641)],
    },
    {
      title: "one role over its share is enough to overflow a node",
      mutate: (plan) => {
        setHugepages(prefill(graph(plan)), "1290Mi");
      },
      expect: [F14(5160, '8 x PrefillWorker of "llama" at 645 pages', 5128, "the p5en.48xlarge catalog value", 641)],
    },
    {
      title: "a measured per-node total recorded on the graph",
      mutate: (plan) => {
        graph(plan).metadata.annotations["dynamo-efa/hugepages-2mi-per-node"] = "4096";
      },
      expect: [
        F14(
          5128,
          '8 x DecodeWorker of "llama" at 641 pages',
          4096,
          'annotation dynamo-efa/hugepages-2mi-per-node on "llama"',
          512,
        ),
      ],
    },
    {
      title: "hugepages in Kubernetes form on the main container count too",
      mutate: (plan) => {
        const p = prefill(graph(plan));
        delete p.resources.limits.custom["hugepages-2Mi"];
        delete p.resources.requests.custom["hugepages-2Mi"];
        loose(p.extraPodSpec.mainContainer).resources = { limits: { "hugepages-2Mi": "10Gi" } };
      },
      expect: [F14(40960, '8 x PrefillWorker of "llama" at 5120 pages', 5128, "the p5en.48xlarge catalog value", 641)],
    },
    {
      title: "fewer replicas than a node holds fit even at a bigger share",
      mutate: (plan) => {
        for (const s of [decode(graph(plan)), prefill(graph(plan))]) {
          s.replicas = 2;
          setHugepages(s, "2564Mi");
        }
      },
      expect: [],
    },
  ]);

  it("hugepages-fit-node: not applicable when no worker asks for hugepages", async () => {
    const plan = happyStack();
    for (const s of [decode(graph(plan)), prefill(graph(plan))]) {
      delete s.resources.limits.custom["hugepages-2Mi"];
      delete s.resources.requests.custom["hugepages-2Mi"];
    }
    assert.equal(
      (await runStackPolicy(hugepagesFitNode, stackArgs(plan))).notApplicable,
      "no worker requests hugepages-2Mi on a known instance type",
    );
  });

  it("worstNodeHugepages packs the heaviest replica set that fits the node's GPUs", () => {
    const items = [...Array(4)]
      .map(() => ({ who: "two", pages: 1000, gpus: 2 }))
      .concat([...Array(8)].map(() => ({ who: "one", pages: 900, gpus: 1 })));
    assert.deepEqual(worstNodeHugepages(items, 8).pages, 7200);
    assert.deepEqual(
      worstNodeHugepages(
        [
          { who: "cpu", pages: 10, gpus: 0 },
          { who: "g", pages: 5, gpus: 9 },
        ],
        8,
      ),
      { pages: 10, who: ["cpu"] },
    );
  });
});
