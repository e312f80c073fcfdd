/**
 * Gate D: worker logs prove which NIXL backend carries the KV cache (field failure F3). Pure.
 *
 * Log lines, as seen in the field report (docs/FIELD-FAILURES.md#the-field-report) and in public issue threads:
 * - NIXL's Python API logs `NIXL INFO _api.py:NNN Backend <NAME> was instantiated` when an agent
 *   creates a backend (vLLM NixlConnector and SGLang create their agent through it).
 * - vLLM's NixlConnector logs `NIXL transfer failure: handshake_failed` (also `handshake_setup_failed`,
 *   older `Handshake failed for request ...`) when the side-channel handshake fails.
 * - `nixl._bindings.nixlBackendError: NIXL_ERR_BACKEND` when a backend call fails (memory registration,
 *   loadRemoteMD).
 * - The field report's plugin checks (gate D, docs/FIELD-FAILURES.md#gate-matrix) grepped `plugin load failed`,
 *   `create_backend error` and `LIBFABRIC.*fail`.
 *
 * TRT-LLM: its NIXL cache transceiver is C++ (`NixlTransferAgent`), which creates the backend named by
 * `TRTLLM_NIXL_KVCACHE_BACKEND` without going through NIXL's Python API, so the `was instantiated`
 * line is not guaranteed, and no other documented line names the chosen backend. For TRT-LLM the gate
 * therefore FAILs on the failure signatures above, PASSes only if every worker does log
 * `Backend LIBFABRIC was instantiated`, and is otherwise INCONCLUSIVE (counted as not passing), with
 * that explanation in its evidence.
 */
import { KvTransport } from "../../components/inference/args";
import { GateResult, GateStatus, result } from "./gates";

/** Engines the inference component can run (mirrors `spec.backendFramework`). */
export const Backend = { Vllm: "vllm", Trtllm: "trtllm", Sglang: "sglang" } as const;
export type Backend = (typeof Backend)[keyof typeof Backend];

/** The line that proves `backend` (the stack's chosen `inference.kvTransport`) was created. */
export function backendLine(backend: KvTransport): RegExp {
  return new RegExp(`Backend ${backend} was instantiated`);
}

/** The other backend's line: the wrong plugin was selected. */
function wrongBackendLine(expected: KvTransport): { readonly name: string; readonly re: RegExp } {
  const other = expected === KvTransport.Libfabric ? KvTransport.Ucx : KvTransport.Libfabric;
  return { name: `${other} backend instantiated (${expected} not selected)`, re: backendLine(other) };
}

/** Lines that prove the KV path is broken (whichever backend was chosen), with a short name for the evidence. */
export const KV_FAILURE_LINES: readonly { readonly name: string; readonly re: RegExp }[] = [
  { name: "NIXL handshake failed", re: /handshake(_setup)?_failed|Handshake failed/ },
  { name: "NIXL_ERR_BACKEND", re: /NIXL_ERR_BACKEND/ },
  {
    name: "NIXL plugin load failure",
    re: /plugin load failed|[Ff]ailed to load plugin|create_backend error|LIBFABRIC.*fail/,
  },
];

/** Log text of one worker pod. `error` when the log could not be read. */
export interface WorkerLog {
  readonly pod: string;
  readonly text: string;
  readonly error?: string;
}

function firstLine(text: string, re: RegExp): string | undefined {
  for (const line of text.split("\n")) if (re.test(line)) return line.trim().slice(0, 200);
  return undefined;
}

/** Why TRT-LLM cannot be proven from logs alone (shown as evidence). */
export const TRTLLM_NOTE =
  "TRT-LLM's C++ NIXL transceiver logs no documented line naming its backend; check TRTLLM_NIXL_KVCACHE_BACKEND=LIBFABRIC in the worker spec and rely on gate E";

/**
 * Gate D over the worker logs of a graph running `backend`, whose stack chose the NIXL backend
 * `expected` (`inference.kvTransport`, resolved like the program does; LIBFABRIC on EFA pools).
 */
export function gateKvLogs(
  backend: Backend,
  logs: readonly WorkerLog[],
  latencyMs?: number,
  expected: KvTransport = KvTransport.Libfabric,
): GateResult {
  const wanted = backendLine(expected);
  const failures = [wrongBackendLine(expected), ...KV_FAILURE_LINES];
  if (logs.length === 0) return result("D", GateStatus.Fail, ["no worker pods to read logs from"], latencyMs);
  const bad: string[] = [];
  const proven: string[] = [];
  const unproven: string[] = [];
  for (const log of logs) {
    if (log.error) {
      bad.push(`${log.pod}: log unreadable: ${log.error}`);
      continue;
    }
    for (const f of failures) {
      const hit = firstLine(log.text, f.re);
      if (hit) bad.push(`${log.pod}: ${f.name}: ${hit}`);
    }
    const ok = firstLine(log.text, wanted);
    if (ok) proven.push(`${log.pod}: ${ok}`);
    else unproven.push(log.pod);
  }
  if (bad.length > 0) return result("D", GateStatus.Fail, bad, latencyMs);
  if (unproven.length === 0) return result("D", GateStatus.Pass, proven, latencyMs);
  if (backend === Backend.Trtllm) {
    return result(
      "D",
      GateStatus.Inconclusive,
      [`no failure lines; no backend line in ${unproven.join(", ")}`, TRTLLM_NOTE],
      latencyMs,
    );
  }
  return result(
    "D",
    GateStatus.Fail,
    [
      `"Backend ${expected} was instantiated" missing in ${unproven.join(", ")} (is kv_connector_extra_config.backends ["${expected}"] set?)`,
    ],
    latencyMs,
  );
}
