/**
 * KV-transfer policies: NIXL's LIBFABRIC backend through each engine's real selector (F3), env vars
 * nothing reads (F3, F13), and the TRT-LLM + LIBFABRIC caveat.
 */
import { nixlLibfabricOnEfa, noNoopNixlEnv, trtllmLibfabricCaveat } from "../../policy/rules/kv-transfer";
import {
  decode,
  happyGraph,
  KV_LIBFABRIC,
  loose,
  prefill,
  serviceLabel,
  TestGraph,
} from "../helpers/policy-graph-fixtures";
import { T } from "../helpers/policy-fixtures";
import { resourcePolicyTable } from "../helpers/policy-harness";

const D = serviceLabel("DecodeWorker");
const P = serviceLabel("PrefillWorker");
const F = serviceLabel("Frontend");
const setKv = (g: TestGraph, json: string) => {
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

describe("policies: KV transfer (F3, F13)", () => {
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
          loose(g.spec).envs = [{ name: "SGLANG_DISAGGREGATION_NIXL_BACKEND", value: "UCX" }];
        },
        expect: [
          `${D} requests EFA but SGLANG_DISAGGREGATION_NIXL_BACKEND is "UCX"; set env SGLANG_DISAGGREGATION_NIXL_BACKEND=LIBFABRIC, the only NIXL backend selector sglang reads (F3)`,
        ],
      },
      {
        title: "unknown engine",
        mutate: (g) => {
          delete loose(g.spec).backendFramework;
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
          loose(prefill(g).extraPodSpec.mainContainer).env = [
            { name: "VLLM_NIXL_KVCACHE_BACKEND", value: "LIBFABRIC" },
          ];
        },
        expect: [
          `${P} sets VLLM_NIXL_KVCACHE_BACKEND in spec.services.PrefillWorker.extraPodSpec.mainContainer.env, which does nothing: vLLM's NixlConnector selects its backend only from --kv-transfer-config kv_connector_extra_config.backends (F3); remove it`,
        ],
      },
      {
        title: "NIXL_LIBFABRIC_MAX_RAILS graph-wide reaches every service (F13)",
        mutate: (g) => {
          loose(g.spec).envs = [{ name: "NIXL_LIBFABRIC_MAX_RAILS", value: "1" }];
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
          loose(g.spec).envs = [{ name: "TRTLLM_NIXL_KVCACHE_BACKNED", value: "LIBFABRIC" }];
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

  const trtllm = (g: TestGraph, backend: string) => {
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
