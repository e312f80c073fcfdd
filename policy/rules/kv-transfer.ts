/**
 * Policies on how workers move the KV cache: NIXL's LIBFABRIC backend selected through the engine's
 * real selector (F3), no env var that nothing reads (F3, F13), and the TRT-LLM + LIBFABRIC caveat.
 * Split from `inference.ts` (graph shape, probes, placement) because these read commands and env.
 */
import type { ReportViolation } from "@pulumi/policy";
import { dgdPolicy } from "./_policy";
import { engineOf, kvTransferConfig } from "./_command";
import { envOf, envValue, GraphService, graphServices, requestsEfa, workers } from "./_predicates";
import { show } from "../../components/_shared/problems";
import { envVerdict } from "./_env-facts";
import type { PlanDgd } from "./_dgd";
import { namedKvTransport, KvTransport } from "../../components/inference/args";

const VLLM_LIBFABRIC = `--kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both","kv_connector_extra_config":{"backends":["LIBFABRIC"]}}'`;

/** Env selectors of the NIXL backend per engine (vLLM has none: its selector is the JSON flag). */
const ENV_SELECTOR: Record<string, string> = {
  trtllm: "TRTLLM_NIXL_KVCACHE_BACKEND",
  sglang: "SGLANG_DISAGGREGATION_NIXL_BACKEND",
};

/** Field `key` of a parsed JSON value when it is an object, else undefined (what `?.` reads at runtime). */
function field(json: unknown, key: string): unknown {
  return json !== null && typeof json === "object" ? (json as Record<string, unknown>)[key] : undefined;
}

/**
 * The NIXL backend a worker's engine selector names (vLLM's `--kv-transfer-config` backends, the TRT-LLM/SGLang env),
 * or undefined when the worker states none the component would write: the graph's own record of its KV transport.
 */
export function statedKvBackend(props: PlanDgd | undefined, w: GraphService): KvTransport | undefined {
  const engine = engineOf(props, w.svc);
  if (engine === "vllm") {
    const kv = kvTransferConfig(w.svc);
    const backends = kv.kind === "ok" ? field(field(kv.json, "kv_connector_extra_config"), "backends") : undefined;
    return Array.isArray(backends) && backends.length === 1 ? namedKvTransport(backends[0]) : undefined;
  }
  const name = engine === undefined ? undefined : ENV_SELECTOR[engine];
  return name === undefined ? undefined : namedKvTransport(envValue(envOf(props, w), name));
}

function checkVllmBackend(w: GraphService, backend: string, report: ReportViolation): void {
  const kv = kvTransferConfig(w.svc);
  if (kv.kind === "absent") {
    report(
      `${w.label} requests EFA but its vLLM command has no --kv-transfer-config, so NixlConnector uses UCX and the KV handshake fails across nodes (F3); add ${VLLM_LIBFABRIC}`,
    );
  } else if (kv.kind === "invalid") {
    report(`${w.label}: --kv-transfer-config ${show(kv.raw)} is not valid JSON (${kv.error}); pass ${VLLM_LIBFABRIC}`);
  } else if (field(kv.json, "kv_connector") !== "NixlConnector") {
    report(
      `${w.label} requests EFA but --kv-transfer-config selects kv_connector ${show(field(kv.json, "kv_connector"))}; use "kv_connector":"NixlConnector" with "kv_connector_extra_config":{"backends":["${backend}"]} (F3)`,
    );
  } else {
    const backends = field(field(kv.json, "kv_connector_extra_config"), "backends");
    if (!Array.isArray(backends) || !backends.includes(backend)) {
      report(
        `${w.label} requests EFA but --kv-transfer-config selects NIXL backends ${backends === undefined ? "(none: UCX by default)" : show(backends)}; set "kv_connector_extra_config":{"backends":["${backend}"]}, the only selector vLLM's NixlConnector reads (NIXL_BACKEND and VLLM_NIXL_KVCACHE_BACKEND are ignored: F3)`,
      );
    }
  }
}

/** 1. Workers given EFA select NIXL's LIBFABRIC backend through their engine's real selector. */
export const nixlLibfabricOnEfa = dgdPolicy({
  name: "nixl-libfabric-on-efa",
  description:
    "Workers that request EFA select NIXL's LIBFABRIC backend through their engine's real selector (vLLM --kv-transfer-config backends, TRT-LLM/SGLang env).",
  defaults: { backend: "LIBFABRIC" },
  check: (props, args, report, cfg) => {
    for (const w of workers(props, args.name)) {
      if (!requestsEfa(w.svc)) continue;
      const engine = engineOf(props, w.svc);
      if (engine === "vllm") {
        checkVllmBackend(w, cfg.backend, report);
      } else if (engine !== undefined && ENV_SELECTOR[engine]) {
        const name = ENV_SELECTOR[engine];
        const v = envValue(envOf(props, w), name);
        if (v !== cfg.backend)
          report(
            `${w.label} requests EFA but ${name} is ${show(v)}; set env ${name}=${cfg.backend}, the only NIXL backend selector ${engine} reads (F3)`,
          );
      } else {
        report(
          `${w.label} requests EFA but its engine is unknown (spec.backendFramework ${show(props?.spec?.backendFramework)}, no python3 -m dynamo.vllm|trtllm|sglang in its command); set spec.backendFramework to vllm, trtllm or sglang`,
        );
      }
    }
  },
});

/** Why each no-op variable does nothing (F3, F13). */
const NOOP_REASONS: Record<string, string> = {
  NIXL_BACKEND:
    "vLLM's NixlConnector selects its backend only from --kv-transfer-config kv_connector_extra_config.backends (F3)",
  VLLM_NIXL_KVCACHE_BACKEND:
    "vLLM's NixlConnector selects its backend only from --kv-transfer-config kv_connector_extra_config.backends (F3)",
  NIXL_LIBFABRIC_MAX_RAILS:
    'NIXL\'s libfabric plugin uses every EFA device the pod is given; rails follow resources.limits.custom["vpc.amazonaws.com/efa"] (F13)',
  NIXL_SKIP_TOPOLOGY_CHECK:
    "NIXL's libfabric plugin maps each GPU to nearby EFA devices by topology and has no such switch (F13)",
};

/** Why `name` does nothing (and the name that was likely meant), or undefined when something reads it. */
function noopReason(name: string, alwaysFlag: readonly string[]): { why: string; meant?: string } | undefined {
  const v = envVerdict(name);
  // `in`, not the boolean tags: Pulumi's ts-node does not compile strictly, so tagged unions do not narrow there.
  const upstream = "reason" in v ? v : undefined;
  if (upstream === undefined && !alwaysFlag.includes(name)) return undefined;
  return {
    why: NOOP_REASONS[name] ?? upstream?.reason ?? "neither NIXL nor the engines read it",
    meant: upstream?.suggestion,
  };
}

/**
 * 2. (advisory) Env vars believed to steer NIXL, libfabric or the engines that nothing reads: the names of
 * `names`, and every FI_/NIXL_/VLLM_/TRTLLM_/UCX_ name the pinned upstream does not read, from the fact files
 * tests/contracts/facts/env-*.json (extracted from libfabric, NIXL, UCX, vLLM and TRT-LLM; see each file's provenance).
 */
export const noNoopNixlEnv = dgdPolicy({
  name: "no-noop-nixl-env",
  description:
    "Services set no env var that nothing reads: NIXL_BACKEND, VLLM_NIXL_KVCACHE_BACKEND, NIXL_LIBFABRIC_MAX_RAILS, NIXL_SKIP_TOPOLOGY_CHECK, and any FI_/NIXL_/VLLM_/TRTLLM_/UCX_ name the pinned upstream does not read.",
  enforcementLevel: "advisory",
  defaults: { names: Object.keys(NOOP_REASONS) },
  check: (props, args, report, cfg) => {
    for (const s of graphServices(props, args.name)) {
      for (const e of envOf(props, s)) {
        const r = noopReason(e.name, cfg.names);
        if (r)
          report(
            `${s.label} sets ${e.name} in ${e.where}, which does nothing: ${r.why}; remove it${r.meant ? ` (did you mean ${r.meant}?)` : ""}`,
          );
      }
    }
  },
});

/**
 * 22. (advisory) TRT-LLM workers that select NIXL's LIBFABRIC backend run a combination upstream does
 * not support yet: Dynamo's TRT-LLM backend docs list only UCX for NIXL, LIBFABRIC "work in progress"
 * (NVIDIA/TensorRT-LLM#10024 open). Advisory: the selector exists and may work; the
 * deployment's `verify` gate D is what proves it.
 */
export const trtllmLibfabricCaveat = dgdPolicy({
  name: "trtllm-libfabric-caveat",
  description:
    "Warns when TRT-LLM workers select NIXL's LIBFABRIC backend, which upstream Dynamo does not support for TRT-LLM yet (UCX only; LIBFABRIC work in progress, TensorRT-LLM #10024).",
  enforcementLevel: "advisory",
  defaults: {},
  check: (props, args, report) => {
    for (const w of workers(props, args.name)) {
      if (engineOf(props, w.svc) !== "trtllm") continue;
      const v = envValue(envOf(props, w), ENV_SELECTOR.trtllm);
      if (v !== "LIBFABRIC") continue;
      report(
        `${w.label} runs TRT-LLM with ${ENV_SELECTOR.trtllm}=LIBFABRIC; Dynamo's TRT-LLM backend supports only UCX for NIXL today (LIBFABRIC is work in progress, NVIDIA/TensorRT-LLM#10024), so KV transfer may fail or fall back: check the worker logs (verify gate D), or set inference.kvTransport to "ucx" (KV then moves over TCP, much slower across nodes)`,
      );
    }
  },
});

/** Policies of this module, in pack order. */
export const kvTransferPolicies = [nixlLibfabricOnEfa, noNoopNixlEnv, trtllmLibfabricCaveat];
