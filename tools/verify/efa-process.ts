/**
 * Gate G: what fails silently inside an EFA worker, read from its engine process the way Dynamo's EFA guide does
 * (ai-dynamo/dynamo@c95962d534804c193ca760c7d7578b1c06408eb9 `docs/kubernetes/cloud-providers/eks/efa.md`,
 * "Verification"): the LIBFABRIC plugin mapped executable in `/proc/<pid>/maps` ("r-xp"; only "r--p" = opened but
 * never run), and the KV bytes NIXL reports moving (`vllm:nixl_bytes_transferred` on vLLM's metrics, published on
 * the worker's system port; `nixl_num_failed_transfers` stays 0). Plus the process's RLIMIT_MEMLOCK and CapEff:
 * the workers run non-root, so `IPC_LOCK` is not effective and libfabric's memory registration needs the limit the
 * EFA nodes' NodeConfig raises (components/cluster/user-data.ts). Pure: `cli`/`run` exec the probe, this judges.
 * The guide's names are held by tests/contracts/efa-guide.spec.ts (facts/dynamo-efa-guide.json); vLLM's
 * NixlPromMetrics (histogram `vllm:nixl_bytes_transferred`, counter `vllm:nixl_num_failed_transfers`) was read in a
 * stored source whose commit the index did not name.
 */
import { KvTransport } from "../../components/inference/args";
import { EFA_MEMLOCK_BYTES } from "../../components/cluster/user-data";
import { Backend } from "./kvlog";
import { execFailureHint, GateResult, GateStatus, result } from "./gates";

/** The NIXL plugin library whose mapping proves the LIBFABRIC backend runs (the guide's `/proc/<pid>/maps` grep). */
export const LIBFABRIC_PLUGIN = "libplugin_LIBFABRIC";
/** vLLM's NIXL metrics (NixlPromMetrics): bytes per transfer (a histogram) and failed transfers (a counter). */
export const NIXL_METRIC = {
  bytes: "vllm:nixl_bytes_transferred",
  failedTransfers: "vllm:nixl_num_failed_transfers",
} as const;

/**
 * The probe, run by `sh` in the worker's main container: finds the engine process (not this shell), prints its
 * memlock limit, CapEff and LIBFABRIC plugin mappings, then vLLM's NIXL counters from the system port.
 */
export const WORKER_PROBE_SCRIPT = [
  'pid=""',
  'for d in /proc/[0-9]*; do n=${d#/proc/}; [ "$n" = "$$" ] && continue',
  "  case \"$(tr '\\0' ' ' < \"$d/cmdline\" 2>/dev/null)\" in *dynamo.vllm*|*dynamo.trtllm*|*dynamo.sglang*) pid=$n; break;; esac",
  "done",
  '[ -n "$pid" ] || { echo "engine=none"; exit 0; }',
  'echo "engine=$pid"',
  "grep '^Max locked memory' /proc/$pid/limits",
  "grep '^CapEff' /proc/$pid/status",
  `grep '${LIBFABRIC_PLUGIN}' /proc/$pid/maps`,
  `python3 -c 'import os,urllib.request as u;print(u.urlopen("http://127.0.0.1:"+os.environ.get("DYN_SYSTEM_PORT","9090")+"/metrics",timeout=5).read().decode())' 2>/dev/null | grep -E '^(${NIXL_METRIC.bytes}_sum|${NIXL_METRIC.failedTransfers})'`,
].join("\n");

/** The probe's output of one worker pod. `error` when the exec failed. */
export interface WorkerProbe {
  readonly pod: string;
  readonly text: string;
  readonly error?: string;
}

/** What the probe read. */
export interface ProbeFacts {
  /** The engine's pid; undefined when no engine process was found. */
  readonly pid?: number;
  /** Soft RLIMIT_MEMLOCK in bytes (Infinity = unlimited); undefined when unread. */
  readonly memlockBytes?: number;
  /** CAP_IPC_LOCK is in the effective set. */
  readonly ipcLockEffective?: boolean;
  readonly capEff?: string;
  /** How the LIBFABRIC plugin is mapped: executable, read-only (opened, never run) or not at all. */
  readonly libfabricPlugin: "executable" | "read-only" | "absent";
  /** Sum of `vllm:nixl_bytes_transferred_sum` samples; undefined when the metric is not exported. */
  readonly kvBytes?: number;
  /** Sum of `vllm:nixl_num_failed_transfers*` samples. */
  readonly failedTransfers?: number;
}

const CAP_IPC_LOCK = 14;

/** Exposition lines of one metric (`name{labels} value`); `name` is a regex source. */
const sample = (name: string) => new RegExp(`^${name}(?:\\{[^}]*\\})?\\s+(\\S+)`, "gm");

const sumOf = (text: string, re: RegExp): number | undefined => {
  const v = [...text.matchAll(re)].map((m) => Number(m[1]));
  return v.length ? v.reduce((a, b) => a + b, 0) : undefined;
};

/** Parses the probe's output. */
export function parseProbe(text: string): ProbeFacts {
  const pid = /^engine=(\d+)$/m.exec(text)?.[1];
  const lim = /^Max locked memory\s+(\S+)/m.exec(text)?.[1];
  const cap = /^CapEff:\s*([0-9a-fA-F]+)/m.exec(text)?.[1];
  const maps = text.split("\n").filter((l) => l.includes(LIBFABRIC_PLUGIN));
  return {
    ...(pid ? { pid: Number(pid) } : {}),
    ...(lim !== undefined ? { memlockBytes: lim === "unlimited" ? Infinity : Number(lim) } : {}),
    ...(cap ? { capEff: cap, ipcLockEffective: ((BigInt(`0x${cap}`) >> BigInt(CAP_IPC_LOCK)) & 1n) === 1n } : {}),
    libfabricPlugin: maps.some((l) => /\sr-xp\s/.test(l)) ? "executable" : maps.length ? "read-only" : "absent",
    ...optional("kvBytes", sumOf(text, sample(`${NIXL_METRIC.bytes}_sum`))),
    ...optional("failedTransfers", sumOf(text, sample(`${NIXL_METRIC.failedTransfers}(?:_total)?`))),
  };
}

const optional = <K extends string>(k: K, v: number | undefined) => (v === undefined ? {} : { [k]: v });

const MiB = (n: number) => (Number.isFinite(n) ? `${Math.round(n / 2 ** 20)} MiB` : "unlimited");

/** Each silent failure of one worker process, as "cause; fix". */
export function processProblems(f: ProbeFacts, transport: KvTransport): string[] {
  if (f.pid === undefined)
    return ["no engine process (python3 -m dynamo.<backend>) found in the main container; is the worker running?"];
  const out: string[] = [];
  if (transport !== KvTransport.Libfabric) return out;
  if (f.memlockBytes === undefined) out.push("RLIMIT_MEMLOCK unread (/proc/<pid>/limits)");
  else if (f.memlockBytes < EFA_MEMLOCK_BYTES && !f.ipcLockEffective)
    out.push(
      `RLIMIT_MEMLOCK is ${MiB(f.memlockBytes)} and IPC_LOCK is not effective (CapEff ${f.capEff ?? "unread"}: a non-root process gets no added capability), so libfabric's memory registration fails with ENOMEM or falls back; the node did not start the container with the EFA NodeConfig's containerd baseRuntimeSpec (RLIMIT_MEMLOCK ${EFA_MEMLOCK_BYTES}): replace the GPU nodes so they boot from the current launch template (a node keeps the spec it booted with)`,
    );
  if (f.libfabricPlugin === "read-only")
    out.push(
      'libplugin_LIBFABRIC is mapped read-only, never executable: the library was opened but NIXL chose another backend; check kv_connector_extra_config.backends ["LIBFABRIC"] (vLLM) or TRTLLM_NIXL_KVCACHE_BACKEND=LIBFABRIC',
    );
  if (f.libfabricPlugin === "absent")
    out.push(
      "libplugin_LIBFABRIC is not mapped into the engine: NIXL loaded no LIBFABRIC backend (KV falls back to TCP); check the backend selection above and that the image ships the plugin (NIXL_PLUGIN_DIR)",
    );
  return out;
}

/** Gate G over the probes of every worker of a graph running `backend` with KV transport `transport`. */
export function gateEfaProcess(
  backend: Backend,
  probes: readonly WorkerProbe[],
  transport: KvTransport,
  latencyMs?: number,
): GateResult {
  if (probes.length === 0) return result("G", GateStatus.Fail, ["no worker pods to probe"], latencyMs);
  const bad: string[] = [];
  const ok: string[] = [];
  let kvBytes: number | undefined;
  let failed = 0;
  for (const p of probes) {
    if (p.error) {
      bad.push(`${p.pod}: probe failed: ${p.error}${execFailureHint(p.error)}`);
      continue;
    }
    const f = parseProbe(p.text);
    for (const why of processProblems(f, transport)) bad.push(`${p.pod}: ${why}`);
    if (f.kvBytes !== undefined) kvBytes = (kvBytes ?? 0) + f.kvBytes;
    failed += f.failedTransfers ?? 0;
    if (f.pid !== undefined)
      ok.push(`${p.pod}: memlock ${MiB(f.memlockBytes ?? 0)}, CapEff ${f.capEff}, LIBFABRIC ${f.libfabricPlugin}`);
  }
  if (failed > 0)
    bad.push(`NIXL reports ${failed} failed KV transfer(s) (vllm:nixl_num_failed_transfers); see gate D's log lines`);
  if (backend === Backend.Vllm && kvBytes === 0)
    bad.push(
      "NIXL reports 0 KV bytes moved after gate C's requests (vllm:nixl_bytes_transferred_sum): decode recomputed the prompt instead of reading prefill's KV; check gate D and the side channel (VLLM_NIXL_SIDE_CHANNEL_HOST/PORT)",
    );
  if (bad.length > 0) return result("G", GateStatus.Fail, bad, latencyMs);
  if (kvBytes === undefined)
    return result(
      "G",
      GateStatus.Inconclusive,
      [...ok, "no vllm:nixl_bytes_transferred on the workers' system port: KV bytes moved unproven"],
      latencyMs,
    );
  return result("G", GateStatus.Pass, [...ok, `NIXL moved ${kvBytes} KV bytes`], latencyMs);
}
