import { strict as assert } from "assert";
import {
  antiAffinityOnOperatorLabels,
  noHostNetworkWorkers,
  nixlLibfabricOnEfa,
  noNoopNixlEnv,
  oneGraphPerModel,
  trtllmLibfabricCaveat,
  workerProbeBudget,
} from "../../policy/rules/inference";
import { happyGraph, happyStack, KV_LIBFABRIC, T } from "../helpers/policy-fixtures";
import {
  planResource,
  resourcePolicyTable,
  runStackPolicy,
  stackArgs,
  stackPolicyTable,
} from "../helpers/policy-harness";

const svc = (key: string) => `DynamoGraphDeployment "llama" service "${key}"`;
const D = svc("DecodeWorker");
const P = svc("PrefillWorker");
const F = svc("Frontend");
const decode = (g: any) => g.spec.services.DecodeWorker;
const prefill = (g: any) => g.spec.services.PrefillWorker;
const setKv = (g: any, json: string) => {
  decode(g).extraPodSpec.mainContainer.args.splice(-1, 1, json);
};
const FIX_VLLM = `--kv-transfer-config '${KV_LIBFABRIC}'`;
const badJson = '{kv_connector:"NixlConnector"}';
const jsonError = (() => {
  try {
    JSON.parse(badJson);
  } catch (e) {
    return (e as Error).message;
  }
  return "";
})();

describe("policies: inference (F1, F2, F3, F6, F7, F13)", () => {
  resourcePolicyTable(
    nixlLibfabricOnEfa,
    T.Dgd,
    happyGraph,
    [
      {
        title: "vLLM worker with no --kv-transfer-config (NixlConnector falls back to UCX)",
        mutate: (g) => {
          decode(g).extraPodSpec.mainContainer.args.splice(-2, 2);
        },
        expect: [
          `${D} requests EFA but its vLLM command has no --kv-transfer-config, so NixlConnector uses UCX and the KV handshake fails across nodes (F3); add ${FIX_VLLM}`,
        ],
      },
      {
        title: 'backends ["UCX"]',
        mutate: (g) =>
          setKv(
            g,
            '{"kv_connector":"NixlConnector","kv_role":"kv_both","kv_connector_extra_config":{"backends":["UCX"]}}',
          ),
        expect: [
          `${D} requests EFA but --kv-transfer-config selects NIXL backends ["UCX"]; set "kv_connector_extra_config":{"backends":["LIBFABRIC"]}, the only selector vLLM's NixlConnector reads (NIXL_BACKEND and VLLM_NIXL_KVCACHE_BACKEND are ignored: F3)`,
        ],
      },
      {
        title: "the field's rev6 config: no extra config, NIXL_BACKEND=LIBFABRIC believed to select it",
        mutate: (g) => {
          setKv(g, '{"kv_connector":"NixlConnector","kv_role":"kv_both"}');
          decode(g).envs.push({ name: "NIXL_BACKEND", value: "LIBFABRIC" });
        },
        expect: [
          `${D} requests EFA but --kv-transfer-config selects NIXL backends (none: UCX by default); set "kv_connector_extra_config":{"backends":["LIBFABRIC"]}, the only selector vLLM's NixlConnector reads (NIXL_BACKEND and VLLM_NIXL_KVCACHE_BACKEND are ignored: F3)`,
        ],
      },
      {
        title: "--kv-transfer-config that is not JSON",
        mutate: (g) => setKv(g, badJson),
        expect: [
          `${D}: --kv-transfer-config "{kv_connector:\\"NixlConnector\\"}" is not valid JSON (${jsonError}); pass ${FIX_VLLM}`,
        ],
      },
      {
        title: "another KV connector",
        mutate: (g) => setKv(g, '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'),
        expect: [
          `${D} requests EFA but --kv-transfer-config selects kv_connector "LMCacheConnectorV1"; use "kv_connector":"NixlConnector" with "kv_connector_extra_config":{"backends":["LIBFABRIC"]} (F3)`,
        ],
      },
      {
        title: "--kv-transfer-config=<json> form is read too",
        mutate: (g) => {
          const a = decode(g).extraPodSpec.mainContainer.args;
          a.splice(-2, 2, `--kv-transfer-config=${KV_LIBFABRIC}`);
        },
        expect: [],
      },
      {
        title: "a bash -c script carrying the flag is parsed (LIBFABRIC: passes)",
        mutate: (g) => {
          const c = decode(g).extraPodSpec.mainContainer;
          c.command = ["bash", "-c"];
          c.args = [`unset HPCX_DIR; exec python3 -m dynamo.vllm --model m --kv-transfer-config '${KV_LIBFABRIC}'`];
        },
        expect: [],
      },
      {
        title: "a bash -c script selecting UCX",
        mutate: (g) => {
          const c = decode(g).extraPodSpec.mainContainer;
          c.command = [
            "bash",
            "-c",
            `python3 -m dynamo.vllm --kv-transfer-config '{"kv_connector":"NixlConnector","kv_connector_extra_config":{"backends":["UCX"]}}'`,
          ];
          c.args = [];
        },
        expect: [
          `${D} requests EFA but --kv-transfer-config selects NIXL backends ["UCX"]; set "kv_connector_extra_config":{"backends":["LIBFABRIC"]}, the only selector vLLM's NixlConnector reads (NIXL_BACKEND and VLLM_NIXL_KVCACHE_BACKEND are ignored: F3)`,
        ],
      },
      {
        title: "TRT-LLM worker without TRTLLM_NIXL_KVCACHE_BACKEND",
        mutate: (g) => {
          g.spec.backendFramework = "trtllm";
          decode(g).extraPodSpec.mainContainer.command = ["python3", "-m", "dynamo.trtllm"];
          prefill(g).extraPodSpec.mainContainer.command = ["python3", "-m", "dynamo.trtllm"];
          prefill(g).envs.push({ name: "TRTLLM_NIXL_KVCACHE_BACKEND", value: "LIBFABRIC" });
        },
        expect: [
          `${D} requests EFA but TRTLLM_NIXL_KVCACHE_BACKEND is undefined; set env TRTLLM_NIXL_KVCACHE_BACKEND=LIBFABRIC, the only NIXL backend selector trtllm reads (F3)`,
        ],
      },
      {
        title: "SGLang worker selecting UCX",
        mutate: (g) => {
          decode(g).extraPodSpec.mainContainer.command = ["python3", "-m", "dynamo.sglang"];
          g.spec.envs = [{ name: "SGLANG_DISAGGREGATION_NIXL_BACKEND", value: "UCX" }];
        },
        expect: [
          `${D} requests EFA but SGLANG_DISAGGREGATION_NIXL_BACKEND is "UCX"; set env SGLANG_DISAGGREGATION_NIXL_BACKEND=LIBFABRIC, the only NIXL backend selector sglang reads (F3)`,
        ],
      },
      {
        title: "unknown engine",
        mutate: (g) => {
          delete g.spec.backendFramework;
          decode(g).extraPodSpec.mainContainer.command = ["python3", "-m", "my.engine"];
        },
        expect: [
          `${D} requests EFA but its engine is unknown (spec.backendFramework undefined, no python3 -m dynamo.vllm|trtllm|sglang in its command); set spec.backendFramework to vllm, trtllm or sglang`,
        ],
      },
      {
        title: "a worker without EFA is not checked",
        mutate: (g) => {
          delete decode(g).resources.limits.custom["vpc.amazonaws.com/efa"];
          decode(g).extraPodSpec.mainContainer.args.splice(-2, 2);
        },
        expect: [],
      },
    ],
    { name: "inf-graph" },
  );

  resourcePolicyTable(
    noNoopNixlEnv,
    T.Dgd,
    happyGraph,
    [
      {
        title: "NIXL_BACKEND on a worker (F3)",
        mutate: (g) => {
          decode(g).envs.push({ name: "NIXL_BACKEND", value: "LIBFABRIC" });
        },
        expect: [
          `${D} sets NIXL_BACKEND in spec.services.DecodeWorker.envs, which does nothing: vLLM's NixlConnector selects its backend only from --kv-transfer-config kv_connector_extra_config.backends (F3); remove it`,
        ],
      },
      {
        title: "VLLM_NIXL_KVCACHE_BACKEND on the main container (F3)",
        mutate: (g) => {
          prefill(g).extraPodSpec.mainContainer.env = [{ name: "VLLM_NIXL_KVCACHE_BACKEND", value: "LIBFABRIC" }];
        },
        expect: [
          `${P} sets VLLM_NIXL_KVCACHE_BACKEND in spec.services.PrefillWorker.extraPodSpec.mainContainer.env, which does nothing: vLLM's NixlConnector selects its backend only from --kv-transfer-config kv_connector_extra_config.backends (F3); remove it`,
        ],
      },
      {
        title: "NIXL_LIBFABRIC_MAX_RAILS graph-wide reaches every service (F13)",
        mutate: (g) => {
          g.spec.envs = [{ name: "NIXL_LIBFABRIC_MAX_RAILS", value: "1" }];
        },
        expect: [D, F, P].map(
          (s) =>
            `${s} sets NIXL_LIBFABRIC_MAX_RAILS in spec.envs, which does nothing: NIXL's libfabric plugin uses every EFA device the pod is given; rails follow resources.limits.custom["vpc.amazonaws.com/efa"] (F13); remove it`,
        ),
      },
      {
        title: "NIXL_SKIP_TOPOLOGY_CHECK (F13)",
        mutate: (g) => {
          decode(g).envs.push({ name: "NIXL_SKIP_TOPOLOGY_CHECK", value: "1" });
        },
        expect: [
          `${D} sets NIXL_SKIP_TOPOLOGY_CHECK in spec.services.DecodeWorker.envs, which does nothing: NIXL's libfabric plugin maps each GPU to nearby EFA devices by topology and has no such switch (F13); remove it`,
        ],
      },
      {
        title: "a configured extra name; a listed name stays flagged by the facts when dropped from config",
        config: { names: ["UCX_TLS"] },
        mutate: (g) => {
          decode(g).envs.push({ name: "UCX_TLS", value: "all" }, { name: "NIXL_BACKEND", value: "x" });
        },
        expect: [
          `${D} sets UCX_TLS in spec.services.DecodeWorker.envs, which does nothing: neither NIXL nor the engines read it; remove it`,
          `${D} sets NIXL_BACKEND in spec.services.DecodeWorker.envs, which does nothing: vLLM's NixlConnector selects its backend only from --kv-transfer-config kv_connector_extra_config.backends (F3); remove it`,
        ],
      },
      {
        title: "FI_EFA_ENABLE_SHM, which no libfabric release reads (upstream facts)",
        mutate: (g) => {
          decode(g).envs.push({ name: "FI_EFA_ENABLE_SHM", value: "0" });
        },
        expect: [
          `${D} sets FI_EFA_ENABLE_SHM in spec.services.DecodeWorker.envs, which does nothing: ofiwg/libfabric v2.3.0 (ea52cb54c) does not read FI_EFA_ENABLE_SHM; remove it (did you mean FI_EFA_ENABLE_SHM_TRANSFER?)`,
        ],
      },
      {
        title: "a misspelled TRT-LLM selector and a dead UCX field (upstream facts)",
        mutate: (g) => {
          g.spec.envs = [{ name: "TRTLLM_NIXL_KVCACHE_BACKNED", value: "LIBFABRIC" }];
          decode(g).envs.push({ name: "UCX_NOT_A_FIELD", value: "1" });
        },
        expect: [
          ...[D, F, P].map(
            (s) =>
              `${s} sets TRTLLM_NIXL_KVCACHE_BACKNED in spec.envs, which does nothing: NVIDIA/TensorRT-LLM stored version served by read_file (not the v1.3.0rc7 tag) (02734d9e1) does not read TRTLLM_NIXL_KVCACHE_BACKNED; remove it (did you mean TRTLLM_NIXL_KVCACHE_BACKEND?)`,
          ),
          `${D} sets UCX_NOT_A_FIELD in spec.services.DecodeWorker.envs, which does nothing: openucx/ucx v1.20.x (d8e50df66) does not read UCX_NOT_A_FIELD; remove it`,
        ],
      },
      {
        title: "names the pinned upstream reads pass (libfabric, UCX, vLLM, TRT-LLM, NIXL)",
        mutate: (g) => {
          decode(g).envs.push(
            ...[
              "FI_EFA_ENABLE_SHM_TRANSFER",
              "UCX_TLS",
              "UCX_IB_GPU_DIRECT_RDMA",
              "VLLM_NIXL_SIDE_CHANNEL_PORT",
              "TRTLLM_NIXL_KVCACHE_BACKEND",
              "NIXL_PLUGIN_DIR",
              "HF_HOME",
            ].map((name) => ({ name, value: "1" })),
          );
        },
        expect: [],
      },
    ],
    { name: "inf-graph" },
  );

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
          delete decode(g).readinessProbe;
        },
        expect: [
          `${D} has no readinessProbe, so the operator's 30 s default applies and the Frontend lists 0 instances while the model loads (F2); add readinessProbe httpGet /health on port 9090`,
        ],
      },
      {
        title: "readiness on a TCP socket",
        mutate: (g) => {
          decode(g).readinessProbe = { tcpSocket: { port: 9090 }, periodSeconds: 10 };
        },
        expect: [
          `${D}: readinessProbe is tcpSocket; use readinessProbe httpGet /health on port 9090 (the operator's handler type and port, or Kubernetes rejects two handler types)`,
        ],
      },
      {
        title: "readiness on the wrong path and port",
        mutate: (g) => {
          decode(g).readinessProbe.httpGet = { path: "/live", port: 8000 };
        },
        expect: [
          `${D}: readinessProbe is httpGet /live on port 8000; use readinessProbe httpGet /health on port 9090 (the operator's handler type and port, or Kubernetes rejects two handler types)`,
        ],
      },
      {
        title: "readiness on port 9090 by number is fine",
        mutate: (g) => {
          decode(g).readinessProbe.httpGet.port = 9090;
        },
        expect: [],
      },
      {
        title: "no startup probe: the readiness probe's 30 s is the budget",
        mutate: (g) => {
          delete decode(g).extraPodSpec.mainContainer.startupProbe;
        },
        expect: [budgetFix(D, 30, "readinessProbe: 0 s + 10 s x 3", 1800, ANN, 180)],
      },
      {
        title: "no probes at all",
        mutate: (g) => {
          delete decode(g).extraPodSpec.mainContainer.startupProbe;
          delete decode(g).readinessProbe;
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
  const split = (plan: any[]) => {
    const base = happyGraph();
    const part = (name: string, key: string) =>
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
  const graphOf = (plan: any[]) => plan.find((r) => r.type === T.Dgd).props;
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
        delete graphOf(plan).spec.services.DecodeWorker;
      },
      expect: [
        `DynamoGraphDeployment "llama" in namespace "dynamo" has prefill workers but no decode worker; ${FIX_F1}`,
      ],
    },
    {
      title: "aggregated serving allowed by config",
      config: { requireDisaggregated: false },
      mutate: (plan) => {
        delete graphOf(plan).spec.services.DecodeWorker;
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
          decode(g).extraPodSpec.hostNetwork = true;
        },
        expect: [
          `${D} sets extraPodSpec.hostNetwork: true; remove it (hostNetwork pods on one node clash on ports 9090 and 5600/5700: F6)`,
        ],
      },
      {
        title: "hostNetwork Frontend",
        mutate: (g) => {
          g.spec.services.Frontend.extraPodSpec.hostNetwork = true;
        },
        expect: [
          `${F} sets extraPodSpec.hostNetwork: true; remove it (hostNetwork pods on one node clash on ports 9090 and 5600/5700: F6)`,
        ],
      },
      {
        title: "hostNetwork Frontend allowed by config",
        config: { includeFrontend: false },
        mutate: (g) => {
          g.spec.services.Frontend.extraPodSpec.hostNetwork = true;
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
          prefill(g).extraPodSpec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution = [
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
          prefill(g).extraPodMetadata = { labels: { team: "llm" } };
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
          prefill(g).extraPodMetadata = { labels: { "app.kubernetes.io/part-of": "llama" } };
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

  const trtllm = (g: any, backend: string) => {
    g.spec.backendFramework = "trtllm";
    for (const w of [prefill(g), decode(g)]) {
      w.extraPodSpec.mainContainer.command = ["python3", "-m", "dynamo.trtllm"];
      w.envs.push({ name: "TRTLLM_NIXL_KVCACHE_BACKEND", value: backend });
    }
  };
  const caveat = (s: string) =>
    `${s} runs TRT-LLM with TRTLLM_NIXL_KVCACHE_BACKEND=LIBFABRIC; Dynamo's TRT-LLM backend supports only UCX for NIXL today (LIBFABRIC is work in progress, NVIDIA/TensorRT-LLM#10024), so KV transfer may fail or fall back: check the worker logs (verify gate D), or set inference.kvTransport to "ucx" (KV then moves over TCP, much slower across nodes)`;
  resourcePolicyTable(
    trtllmLibfabricCaveat,
    T.Dgd,
    happyGraph,
    [
      {
        title: "TRT-LLM workers on LIBFABRIC",
        mutate: (g) => {
          trtllm(g, "LIBFABRIC");
        },
        expect: [caveat(D), caveat(P)],
      },
      {
        title: "TRT-LLM workers on UCX are upstream's supported path",
        mutate: (g) => {
          trtllm(g, "UCX");
        },
        expect: [],
      },
    ],
    { name: "inf-graph" },
  );
});
