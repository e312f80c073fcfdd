/**
 * Placement policies: prefill and decode never share a node while KV moves over EFA (EAGAIN), and no GPU node
 * group larger than the workers fill.
 */
import { noIdleGpuNodes, prefillDecodeApartOverEfa } from "../../policy/rules/placement";
import { decode, happyGraph, loose, prefill, serviceLabel } from "../helpers/policy-graph-fixtures";
import { graphIn, happyStack, named, T } from "../helpers/policy-fixtures";
import { resourcePolicyTable, stackPolicyTable } from "../helpers/policy-harness";

const P = serviceLabel("PrefillWorker");
const sameNode = (other: string) =>
  `${P} and service "${other}" can land on one node while KV moves over EFA, where NIXL's transfers fail with "fi_read still retrying EAGAIN" (Dynamo disaggregation communication guide); add a required podAntiAffinity with topologyKey kubernetes.io/hostname selecting nvidia.com/dynamo-component=${other} (placement "separate-nodes" renders it) on at least 2 GPU nodes, or move KV over UCX`;

describe("policies: placement (prefill and decode apart over EFA, idle GPU nodes)", () => {
  resourcePolicyTable(
    prefillDecodeApartOverEfa,
    T.Dgd,
    happyGraph,
    [
      {
        title: "no affinity at all over EFA (the old 1-GPU stack: both roles on one node)",
        mutate: (g) => {
          delete loose(prefill(g).extraPodSpec).affinity;
          delete loose(decode(g).extraPodSpec).affinity;
        },
        expect: [sameNode("DecodeWorker")],
      },
      {
        title: "anti-affinity on one side only is enough (the scheduler enforces it symmetrically)",
        mutate: (g) => {
          delete loose(prefill(g).extraPodSpec).affinity;
        },
        expect: [],
      },
      {
        title: "upstream's form: matchExpressions In on the component label",
        mutate: (g) => {
          delete loose(prefill(g).extraPodSpec).affinity;
          decode(
            g,
          ).extraPodSpec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector =
            loose({
              matchExpressions: [{ key: "nvidia.com/dynamo-component", operator: "In", values: ["PrefillWorker"] }],
            }) as never;
        },
        expect: [],
      },
      {
        title: "anti-affinity on the zone, not the node, does not keep them apart",
        mutate: (g) => {
          for (const w of [prefill(g), decode(g)])
            w.extraPodSpec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey =
              "topology.kubernetes.io/zone";
        },
        expect: [sameNode("DecodeWorker")],
      },
      {
        title: "KV over UCX (no EFA requested) may share a node",
        mutate: (g) => {
          for (const w of [prefill(g), decode(g)]) {
            delete loose(w.extraPodSpec).affinity;
            delete loose(w.resources.limits.custom)["vpc.amazonaws.com/efa"];
          }
        },
        expect: [],
      },
    ],
    { name: "inf-graph" },
  );

  const ng = 'node group "c-gpu-ng"';
  stackPolicyTable(noIdleGpuNodes, happyStack, [
    {
      title: "4 nodes for 8 + 8 one-GPU workers kept apart: 2 idle",
      mutate: (plan) => {
        loose(named(plan, "c-gpu-ng").props).scalingConfig = { desiredSize: 4, minSize: 4, maxSize: 4 };
      },
      expect: [
        `${ng} runs 4 x p5en.48xlarge, but the graph's workers fill 2 (each role on nodes of its own: DecodeWorker 1, PrefillWorker 1), so 2 GPU node(s) are billed and idle; lower the node count to 2 or add replicas`,
      ],
    },
    {
      title: "16 + 16 workers on 4 nodes fill them all",
      mutate: (plan) => {
        loose(named(plan, "c-gpu-ng").props).scalingConfig = { desiredSize: 4, minSize: 4, maxSize: 4 };
        const g = graphIn(plan);
        prefill(g).replicas = 16;
        decode(g).replicas = 16;
      },
      expect: [],
    },
    {
      title: "a worker whose GPUs are not in Dynamo form (another policy's error) is not taken for idle nodes",
      mutate: (plan) => {
        delete loose(decode(graphIn(plan)).resources.limits).gpu;
      },
      expect: [],
    },
    {
      title: "roles that may share nodes pack by GPUs: 4 + 4 fill 1 of 2 nodes",
      mutate: (plan) => {
        const g = graphIn(plan);
        for (const w of [prefill(g), decode(g)]) {
          delete loose(w.extraPodSpec).affinity;
          w.replicas = 4;
        }
      },
      expect: [
        `${ng} runs 2 x p5en.48xlarge, but the graph's workers fill 1 (8 GPUs at 8 per node), so 1 GPU node(s) are billed and idle; lower the node count to 1 or add replicas`,
      ],
    },
  ]);
});
