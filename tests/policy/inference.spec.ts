/**
 * Graph-shape and placement policies: worker probes sized to the model-load budget (F2), one graph
 * per model (F1), no host network (F6), affinity on operator labels (F7).
 */
import { strict as assert } from "assert";
import {
  antiAffinityOnOperatorLabels,
  noHostNetworkWorkers,
  oneGraphPerModel,
  workerProbeBudget,
} from "../../policy/rules/inference";
import { decode, happyGraph, loose, prefill, serviceLabel, TestGraph } from "../helpers/policy-graph-fixtures";
import { graphIn, happyStack, T } from "../helpers/policy-fixtures";
import {
  planResource,
  PlanResource,
  resourcePolicyTable,
  runStackPolicy,
  stackArgs,
  stackPolicyTable,
} from "../helpers/policy-harness";

const D = serviceLabel("DecodeWorker");
const P = serviceLabel("PrefillWorker");
const F = serviceLabel("Frontend");

describe("policies: graph shape and placement (F1, F2, F6, F7)", () => {
  const budgetFix = (s: string, budget: number, how: string, load: number, src: string, need: number) =>
    `${s}: startup budget is ${budget} s (${how}), less than the model-load budget ${load} s (${src}), so the worker is killed or never listed before the model loads (F2); set extraPodSpec.mainContainer.startupProbe failureThreshold >= ${need} at periodSeconds 10`;
  const ANN = "annotation dynamo-efa/model-load-budget-seconds";
  resourcePolicyTable(
    workerProbeBudget,
    T.Dgd,
    happyGraph,
    [
      {
        title: "no readiness probe (the operator's 30 s default)",
        mutate: (g) => {
          delete loose(decode(g)).readinessProbe;
        },
        expect: [
          `${D} has no readinessProbe, so the operator's 30 s default applies and the Frontend lists 0 instances while the model loads (F2); add readinessProbe httpGet /health on port 9090`,
        ],
      },
      {
        title: "readiness on a TCP socket",
        mutate: (g) => {
          loose(decode(g)).readinessProbe = { tcpSocket: { port: 9090 }, periodSeconds: 10 };
        },
        expect: [
          `${D}: readinessProbe is tcpSocket; use readinessProbe httpGet /health on port 9090 (the operator's handler type and port, or Kubernetes rejects two handler types)`,
        ],
      },
      {
        title: "readiness on the wrong path and port",
        mutate: (g) => {
          loose(decode(g).readinessProbe).httpGet = { path: "/live", port: 8000 };
        },
        expect: [
          `${D}: readinessProbe is httpGet /live on port 8000; use readinessProbe httpGet /health on port 9090 (the operator's handler type and port, or Kubernetes rejects two handler types)`,
        ],
      },
      {
        title: "readiness on port 9090 by number is fine",
        mutate: (g) => {
          loose(decode(g).readinessProbe.httpGet).port = 9090;
        },
        expect: [],
      },
      {
        title: "no startup probe: the readiness probe's 30 s is the budget",
        mutate: (g) => {
          delete loose(decode(g).extraPodSpec.mainContainer).startupProbe;
        },
        expect: [budgetFix(D, 30, "readinessProbe: 0 s + 10 s x 3", 1800, ANN, 180)],
      },
      {
        title: "no probes at all",
        mutate: (g) => {
          delete loose(decode(g).extraPodSpec.mainContainer).startupProbe;
          delete loose(decode(g)).readinessProbe;
        },
        expect: [
          `${D} has no readinessProbe, so the operator's 30 s default applies and the Frontend lists 0 instances while the model loads (F2); add readinessProbe httpGet /health on port 9090`,
          budgetFix(D, 30, "the operator's default readiness probe: 0 s + 10 s x 3", 1800, ANN, 180),
        ],
      },
      {
        title: "startup probe shorter than the recorded budget",
        mutate: (g) => {
          prefill(g).extraPodSpec.mainContainer.startupProbe.failureThreshold = 30;
        },
        expect: [budgetFix(P, 300, "extraPodSpec.mainContainer.startupProbe: 0 s + 10 s x 30", 1800, ANN, 180)],
      },
      {
        title: "no recorded budget: the policy default (600 s) applies",
        mutate: (g) => {
          delete g.metadata.annotations["dynamo-efa/model-load-budget-seconds"];
          prefill(g).extraPodSpec.mainContainer.startupProbe.failureThreshold = 30;
        },
        expect: [
          budgetFix(
            P,
            300,
            "extraPodSpec.mainContainer.startupProbe: 0 s + 10 s x 30",
            600,
            "the policy default; record it as annotation dynamo-efa/model-load-budget-seconds",
            60,
          ),
        ],
      },
      {
        title: "a malformed recorded budget",
        mutate: (g) => {
          g.metadata.annotations["dynamo-efa/model-load-budget-seconds"] = "soon";
        },
        expect: [
          `DynamoGraphDeployment "llama": annotation dynamo-efa/model-load-budget-seconds must be a positive number of seconds; got "soon"`,
        ],
      },
    ],
    { name: "inf-graph" },
  );

  const FIX_F1 =
    "separate graphs get separate Dynamo namespaces and the Frontend sees 0 workers (F1); put Frontend, PrefillWorker and DecodeWorker in one DynamoGraphDeployment";
  const split = (plan: PlanResource[]) => {
    const base = happyGraph();
    const part = (name: string, key: keyof TestGraph["spec"]["services"]) =>
      planResource(
        T.Dgd,
        {
          ...base,
          metadata: { ...base.metadata, name },
          spec: { ...base.spec, services: { [key]: base.spec.services[key] } },
        },
        { name },
      );
    return [
      ...plan.filter((r) => r.type !== T.Dgd),
      part("llama-frontend", "Frontend"),
      part("llama-prefill", "PrefillWorker"),
      part("llama-decode", "DecodeWorker"),
    ];
  };
  stackPolicyTable(oneGraphPerModel, happyStack, [
    {
      title: "the field's three graphs (F1)",
      mutate: split,
      expect: [
        `DynamoGraphDeployment "llama-frontend" in namespace "dynamo" has a Frontend but no workers (found in "llama-prefill", "llama-decode"); ${FIX_F1}`,
        `DynamoGraphDeployment "llama-prefill" in namespace "dynamo" has workers PrefillWorker but no Frontend (found in "llama-frontend"); ${FIX_F1}`,
        `DynamoGraphDeployment "llama-prefill" in namespace "dynamo" has prefill workers but no decode worker (found in "llama-decode"); ${FIX_F1}`,
        `DynamoGraphDeployment "llama-decode" in namespace "dynamo" has workers DecodeWorker but no Frontend (found in "llama-frontend"); ${FIX_F1}`,
        `DynamoGraphDeployment "llama-decode" in namespace "dynamo" has decode workers but no prefill worker (found in "llama-prefill"); ${FIX_F1}`,
      ],
    },
    {
      title: "a graph without its decode workers",
      mutate: (plan) => {
        delete loose(graphIn(plan).spec.services).DecodeWorker;
      },
      expect: [
        `DynamoGraphDeployment "llama" in namespace "dynamo" has prefill workers but no decode worker; ${FIX_F1}`,
      ],
    },
    {
      title: "aggregated serving allowed by config",
      config: { requireDisaggregated: false },
      mutate: (plan) => {
        delete loose(graphIn(plan).spec.services).DecodeWorker;
      },
      expect: [],
    },
  ]);

  it("one-graph-per-model: not applicable without a graph", async () => {
    const run = await runStackPolicy(oneGraphPerModel, stackArgs(happyStack().filter((r) => r.type !== T.Dgd)));
    assert.equal(run.notApplicable, "no DynamoGraphDeployment in the stack");
  });

  resourcePolicyTable(
    noHostNetworkWorkers,
    T.Dgd,
    happyGraph,
    [
      {
        title: "hostNetwork workers (F6)",
        mutate: (g) => {
          loose(decode(g).extraPodSpec).hostNetwork = true;
        },
        expect: [
          `${D} sets extraPodSpec.hostNetwork: true; remove it (hostNetwork pods on one node clash on ports 9090 and 5600/5700: F6)`,
        ],
      },
      {
        title: "hostNetwork Frontend",
        mutate: (g) => {
          loose(g.spec.services.Frontend.extraPodSpec).hostNetwork = true;
        },
        expect: [
          `${F} sets extraPodSpec.hostNetwork: true; remove it (hostNetwork pods on one node clash on ports 9090 and 5600/5700: F6)`,
        ],
      },
      {
        title: "hostNetwork Frontend allowed by config",
        config: { includeFrontend: false },
        mutate: (g) => {
          loose(g.spec.services.Frontend.extraPodSpec).hostNetwork = true;
        },
        expect: [],
      },
    ],
    { name: "inf-graph" },
  );

  const F7 = (s: string, path: string, key: string) =>
    `${s}: ${path} selects pods by "${key}", a label the Dynamo operator does not keep on its pods, so the rule matches nothing (F7); select on nvidia.com/dynamo-graph-deployment-name and nvidia.com/dynamo-component`;
  resourcePolicyTable(
    antiAffinityOnOperatorLabels,
    T.Dgd,
    happyGraph,
    [
      {
        title: "anti-affinity on app.kubernetes.io/part-of (F7)",
        mutate: (g) => {
          decode(
            g,
          ).extraPodSpec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector = {
            matchLabels: { "app.kubernetes.io/part-of": "llama" },
          };
        },
        expect: [F7(D, "extraPodSpec.affinity.podAntiAffinity (required)", "app.kubernetes.io/part-of")],
      },
      {
        title: "a preferred term with an expression on a label nobody sets",
        mutate: (g) => {
          loose(prefill(g).extraPodSpec.affinity.podAffinity).preferredDuringSchedulingIgnoredDuringExecution = [
            {
              weight: 10,
              podAffinityTerm: {
                labelSelector: { matchExpressions: [{ key: "app", operator: "In", values: ["llama"] }] },
                topologyKey: "kubernetes.io/hostname",
              },
            },
          ];
        },
        expect: [F7(P, "extraPodSpec.affinity.podAffinity (preferred)", "app")],
      },
      {
        title: "a label the graph itself puts on its pods is fine",
        mutate: (g) => {
          loose(prefill(g)).extraPodMetadata = { labels: { team: "llm" } };
          decode(
            g,
          ).extraPodSpec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector = {
            matchLabels: { team: "llm" },
          };
        },
        expect: [],
      },
      {
        title: "part-of stays forbidden even when set as pod metadata",
        mutate: (g) => {
          loose(prefill(g)).extraPodMetadata = { labels: { "app.kubernetes.io/part-of": "llama" } };
          decode(
            g,
          ).extraPodSpec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector = {
            matchLabels: { "app.kubernetes.io/part-of": "llama" },
          };
        },
        expect: [F7(D, "extraPodSpec.affinity.podAntiAffinity (required)", "app.kubernetes.io/part-of")],
      },
    ],
    { name: "inf-graph" },
  );
});
