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
import { EFA_RESOURCE } from "../../components/inference/dgd";
import { GPU_RESOURCE } from "../../components/inference/dgd-v1beta1";
import { Annotation } from "../../components/_shared/annotations";
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
 * GPUDirect RDMA's registration of GPU memory for EFA: DMA-BUF from this kernel on (no module, no privilege beyond the
 * devices the pod is given), else a peer-memory module on the node (Dynamo's EFA guide, ai-dynamo/dynamo@0c21bf2
 * docs/kubernetes/cloud-providers/eks/efa.md: tests/contracts/facts/dynamo-efa-gpudirect.json). The EKS AL2023 NVIDIA
 * AMI runs 6.x kernels and keeps the EFA installer's `efa-nv-peermem` (facts/eks-ami-gpu-nodes.json).
 */
export const DMABUF_FROM_KERNEL = "5.12";
export const PEERMEM_MODULES = ["efa_nv_peermem", "nvidia_peermem"] as const;

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
  // The GPU memory registration path (the node's kernel: DMA-BUF from 5.12, else a peer-memory module) and the
  // devices the container can open: least privilege holds while it sees only the GPUs and EFA devices it was given.
  'echo "kernel=$(uname -r) arch=$(uname -m)"',
  `for m in ${PEERMEM_MODULES.join(" ")}; do [ -d /sys/module/$m ] && echo "module=$m"; done`,
  'echo "visible gpus=$(ls /dev/nvidia[0-9]* 2>/dev/null | wc -l) efa=$(ls /dev/infiniband/uverbs* 2>/dev/null | wc -l)"',
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
  /** The node's kernel release and machine (`uname -r`, `uname -m`); undefined when the probe did not print them. */
  readonly kernel?: string;
  readonly arch?: string;
  /** Peer-memory modules loaded on the node. */
  readonly peermem?: readonly string[];
  /** Device nodes the container can open: GPUs (`/dev/nvidia<N>`) and EFA devices (`/dev/infiniband/uverbs*`). */
  readonly visible?: { readonly gpus: number; readonly efa: number };
}

/** The GPUs and EFA devices a worker pod was given (its limits, or its DRA claim's counts). */
export interface GivenDevices {
  readonly gpus: number;
  readonly efa: number;
}

/** The fields of a pod `givenDevices` reads. */
export interface PodDevicesSource {
  readonly metadata?: { readonly annotations?: Readonly<Record<string, string>> };
  readonly spec?: {
    readonly containers?: readonly {
      readonly name: string;
      readonly resources?: { readonly limits?: Readonly<Record<string, unknown>> };
    }[];
  };
}

/**
 * What a worker pod was given: its main container's `nvidia.com/gpu` and `vpc.amazonaws.com/efa` limits, or under DRA
 * the counts its pod carries for its claim (components/inference/device-claims.ts); undefined when neither is there.
 */
export function givenDevices(pod: PodDevicesSource): GivenDevices | undefined {
  const containers = pod.spec?.containers ?? [];
  const limits = (containers.find((c) => c.name === "main") ?? containers[0])?.resources?.limits ?? {};
  const count = (v: unknown) => (v === undefined ? undefined : Number(String(v)));
  const gpus = count(limits[GPU_RESOURCE]);
  if (gpus !== undefined) return { gpus, efa: count(limits[EFA_RESOURCE]) ?? 0 };
  const a = pod.metadata?.annotations ?? {};
  const claimed = count(a[Annotation.ClaimGpus]);
  if (claimed === undefined) return undefined;
  return { gpus: claimed, efa: claimed * (count(a[Annotation.ClaimEfaPerGpu]) ?? 0) };
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
    ...hostFacts(text),
  };
}

/** The registration-path and device lines of the probe (absent from an older probe's output). */
function hostFacts(text: string): Pick<ProbeFacts, "kernel" | "arch" | "peermem" | "visible"> {
  const k = /^kernel=(\S+) arch=(\S+)$/m.exec(text);
  const v = /^visible gpus=\s*(\d+) efa=\s*(\d+)$/m.exec(text);
  return {
    ...(k ? { kernel: k[1], arch: k[2], peermem: [...text.matchAll(/^module=(\w+)$/gm)].map((m) => m[1]) } : {}),
    ...(v ? { visible: { gpus: Number(v[1]), efa: Number(v[2]) } } : {}),
  };
}

/** Whether a kernel release (`6.12.58-82.121.amzn2023.x86_64`) is at least `min` (`5.12`). */
export function kernelAtLeast(release: string, min: string): boolean {
  const [a, b] = (/^(\d+)\.(\d+)/.exec(release) ?? []).slice(1).map(Number);
  const [x, y] = min.split(".").map(Number);
  return a !== undefined && b !== undefined && (a > x || (a === x && b >= y));
}

/**
 * What the worker's privileges rest on, read on its node: a registration path for GPU memory (DMA-BUF or a
 * peer-memory module), an x86_64 node (on arm64 64K-page kernels the EFA provider of libfabric < 2.5 fails fi_mr_reg
 * on CUDA memory, per Dynamo's EFA guide), and only the devices it was given (a privileged container sees
 * every GPU and EFA device of the node, and NIXL would open them all).
 */
export function privilegeProblems(f: ProbeFacts, given?: GivenDevices): string[] {
  const out: string[] = [];
  if (f.kernel !== undefined && !kernelAtLeast(f.kernel, DMABUF_FROM_KERNEL) && (f.peermem ?? []).length === 0)
    out.push(
      `GPU memory has no registration path for EFA: kernel ${f.kernel} predates DMA-BUF (${DMABUF_FROM_KERNEL}) and no peer-memory module (${PEERMEM_MODULES.join(", ")}) is loaded; run the EKS AL2023 NVIDIA AMI (6.x kernels, efa-nv-peermem kept)`,
    );
  if (f.arch !== undefined && f.arch !== "x86_64")
    out.push(
      `the node is ${f.arch}: on arm64 64K-page kernels the EFA provider of libfabric < 2.5 fails fi_mr_reg on CUDA memory (ofiwg/libfabric#12019); this project builds and tests x86_64 only`,
    );
  if (given && f.visible && (f.visible.gpus > given.gpus || f.visible.efa > given.efa))
    out.push(
      `the container sees ${f.visible.gpus} GPU(s) and ${f.visible.efa} EFA device(s) but was given ${given.gpus} and ${given.efa}: it is privileged or its runtime exposes every device, so NIXL opens other workers' EFA devices and CUDA may take another worker's GPU; remove privileged and hostPath device mounts`,
    );
  return out;
}

/** The registration path and the devices seen, for the evidence of a worker that passed. */
function registration(f: ProbeFacts): string {
  if (f.kernel === undefined) return "";
  const path = kernelAtLeast(f.kernel, DMABUF_FROM_KERNEL)
    ? "DMA-BUF"
    : `peer memory (${(f.peermem ?? []).join(", ")})`;
  const seen = f.visible ? `; sees ${f.visible.gpus} GPU(s), ${f.visible.efa} EFA` : "";
  return `, GPU registration ${path} (kernel ${f.kernel})${seen}`;
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
  given: ReadonlyMap<string, GivenDevices> = new Map(),
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
    if (transport === KvTransport.Libfabric && f.pid !== undefined)
      for (const why of privilegeProblems(f, given.get(p.pod))) bad.push(`${p.pod}: ${why}`);
    if (f.kvBytes !== undefined) kvBytes = (kvBytes ?? 0) + f.kvBytes;
    failed += f.failedTransfers ?? 0;
    if (f.pid !== undefined)
      ok.push(
        `${p.pod}: memlock ${MiB(f.memlockBytes ?? 0)}, CapEff ${f.capEff}, LIBFABRIC ${f.libfabricPlugin}${registration(f)}`,
      );
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
