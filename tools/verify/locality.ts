/**
 * Gate L (`--check-locality`): the KV path as the plan draws it, each worker's EFA devices on its GPUs' PCIe
 * tree (one root port, or one root complex where there is no bridge). NIXL's LIBFABRIC backend sends a GPU's KV over the EFA rails next to that GPU; a worker given EFA
 * devices behind another switch crosses the CPU's root complex (the throughput the plan expects is lost) and,
 * per Dynamo 1.3.1's known issues, KV transfer can fail outright ("Lost connection with prefill instance", empty
 * 200s) when a worker holds fewer than all of a node's EFA devices, the shape of every multi-worker EFA stack here
 * (docs/MEASURE.md#the-efa-locality-gate). The EFA device plugin chooses which devices a pod gets, or under
 * `cluster.deviceAllocation: dra` the scheduler within each claim's pcieRoot constraint; this gate reads what was
 * chosen: the PCI paths either way, and under DRA each worker's claim as allocated (./claims.ts).
 *
 * The probe runs in the worker's main container: the GPUs the NVIDIA runtime exposes (`nvidia-smi` bus ids) and
 * the EFA devices the EFA device plugin mounted (`/dev/infiniband/uverbs*`), each resolved to its sysfs device
 * path (`readlink -f`), which spells the PCIe ancestry: `/sys/devices/pci<domain>:<bus>/<root port>/<switch
 * ports>.../<device>`. Two devices share a PCIe tree when they are on one root complex (`pci<domain>:<bus>`, the
 * `resource.kubernetes.io/pcieRoot` DRA matches on) and, where both sit below a root port, behind the same one (what
 * `nvidia-smi topo -m` calls PIX/PXB, as opposed to PHB/NODE/SYS). AWS's instances put each GPU group on a root
 * complex of its own, on p4d with no bridge at all (tests/verify/gate-l-dra.spec.ts). Pure but the probe text.
 */
import { execFailureHint, GateResult, GateStatus, result } from "./gates";
import { pcieRootOf } from "../../components/_shared/dra";
import { ClaimSource, claimEvidence, claimPod, claimProblems, pcieRoots, SliceSource } from "./claims";

/**
 * The probe. `nvidia-smi` prints 8-hex-digit domains (`00000000:4F:00.0`); sysfs names use 4 (`0000:4f:00.0`).
 * Without `nvidia-smi`, the GPUs the runtime exposes are the directories of `/proc/driver/nvidia/gpus`.
 */
export const LOCALITY_PROBE_SCRIPT = [
  "gpus=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader 2>/dev/null | tr 'A-F' 'a-f' | sed -E 's/^0*([0-9a-f]{4}:)/\\1/')",
  '[ -n "$gpus" ] || gpus=$(ls /proc/driver/nvidia/gpus 2>/dev/null)',
  'for b in $gpus; do echo "gpu $b $(readlink -f /sys/bus/pci/devices/$b)"; done',
  "for d in /dev/infiniband/uverbs*; do",
  '  [ -e "$d" ] || continue; n=${d##*/}',
  '  echo "efa $(cat /sys/class/infiniband_verbs/$n/ibdev 2>/dev/null || echo $n) $(readlink -f /sys/class/infiniband_verbs/$n/device)"',
  "done",
].join("\n");

/** One device as the probe printed it. */
export interface PciDevice {
  /** GPU bus id or EFA device name (`rdmap79s0`). */
  readonly id: string;
  /** Its sysfs device path. */
  readonly path: string;
}

/** What the probe of one worker found. */
export interface WorkerDevices {
  readonly gpus: readonly PciDevice[];
  readonly efas: readonly PciDevice[];
}

/** The probe's output, read in one pass (linear in its length). Lines it does not know are ignored. */
export function parseLocality(text: string): WorkerDevices {
  const gpus: PciDevice[] = [];
  const efas: PciDevice[] = [];
  for (const line of text.split("\n")) {
    const m = /^(gpu|efa) (\S+) (\/sys\/devices\/\S+)$/.exec(line.trim());
    if (m) (m[1] === "gpu" ? gpus : efas).push({ id: m[2]!, path: m[3]! });
  }
  return { gpus, efas };
}

const PCI_ADDR = /^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/;

/** The bridges above a device, root port first: the PCI addresses of its path but the root bus and itself. */
export function bridgesOf(path: string): string[] {
  const parts = path.split("/").filter((p) => PCI_ADDR.test(p));
  return parts.slice(0, -1);
}

/** The PCI address of the device itself (the last PCI component of its path). */
export const busOf = (path: string): string =>
  path
    .split("/")
    .filter((p) => PCI_ADDR.test(p))
    .at(-1) ?? path;

/** The deepest bridge two devices share; undefined when they meet only at the root complex (another switch). */
export function sharedBridge(a: string, b: string): string | undefined {
  const x = bridgesOf(a);
  const y = bridgesOf(b);
  let shared: string | undefined;
  for (let i = 0; i < Math.min(x.length, y.length) && x[i] === y[i]; i++) shared = x[i];
  return shared;
}

/**
 * The first bridge below the root bus: two devices share a bridge (`sharedBridge`) exactly when they share this
 * one, so it keys a device's PCIe tree in one lookup; undefined for a device on the root bus itself.
 */
export const rootPortOf = (path: string): string | undefined => bridgesOf(path)[0];

/** The fix, once, with the worker's numbers. */
export const LOCALITY_FIX =
  "fix: give each worker the EFA devices of its own GPUs: set cluster.deviceAllocation: dra (Kubernetes >= 1.34: each GPU claimed with its EFA devices on one PCIe root), or give each worker all the EFA devices of a node; deleting the pod gives a new allocation but no guarantee";

/**
 * Where a device sits: its PCIe root complex (`pci<domain>:<bus>`, the `resource.kubernetes.io/pcieRoot` a DRA claim
 * matches on) and the root port below it (undefined for a device on the root bus itself, as AWS's p4d places a GPU
 * and its EFA device: `/sys/devices/pci0000:10/0000:10:1c.0`).
 */
function placeOf(path: string): { root: string; port: string | undefined } {
  return { root: pcieRootOf(path) ?? path.split("/")[3] ?? path, port: rootPortOf(path) };
}

/**
 * The devices that share no PCIe tree with any of `others`: two devices share one when they are on the same root
 * complex and, where both sit below a root port, behind the same one (each path parsed once: linear).
 */
function strays(of: readonly PciDevice[], others: readonly PciDevice[]): { device: PciDevice; bridges: string[] }[] {
  const roots = new Set<string>();
  const onRootBus = new Set<string>();
  const ports = new Set<string>();
  for (const o of others) {
    const { root, port } = placeOf(o.path);
    roots.add(root);
    if (port === undefined) onRootBus.add(root);
    else ports.add(`${root} ${port}`);
  }
  return of
    .map((device) => ({ device, bridges: bridgesOf(device.path), place: placeOf(device.path) }))
    .filter(({ place: { root, port } }) =>
      port === undefined ? !roots.has(root) : !ports.has(`${root} ${port}`) && !onRootBus.has(root),
    )
    .map(({ device, bridges }) => ({ device, bridges }));
}

/**
 * Each problem of one worker, naming its devices: every EFA device on a switch of none of its GPUs, and every GPU
 * with none of its EFA devices on its switch, however many EFA devices the worker holds (a 2-GPU worker with one EFA
 * device has one GPU whose KV crosses the root complex). Linear in the number of devices.
 */
export function localityProblems(pod: string, d: WorkerDevices): string[] {
  if (d.gpus.length === 0)
    return [`${pod}: no GPU visible to the probe (nvidia-smi and /proc/driver/nvidia/gpus empty)`];
  if (d.efas.length === 0) return [`${pod}: no EFA device mounted (/dev/infiniband/uverbs*); KV cannot use EFA`];
  const switches = (devices: readonly PciDevice[]) =>
    brief(devices.map((g) => `${g.id} (switch ${bridgesOf(g.path).join(">") || "none"})`));
  const out: string[] = [];
  const efaStrays = strays(d.efas, d.gpus);
  if (efaStrays.length > 0) {
    const gpuList = switches(d.gpus);
    for (const { device: e, bridges } of efaStrays)
      out.push(
        `${pod}: EFA ${e.id} (${busOf(e.path)}, behind ${bridges.join(">") || "the root bus"}) is on no PCIe switch of its GPUs ${gpuList}`,
      );
  }
  for (const { device: g } of strays(d.gpus, d.efas))
    out.push(
      `${pod}: GPU ${g.id} has none of the worker's EFA devices on its PCIe switch; its KV crosses the root complex`,
    );
  return out.length <= MAX_PROBLEMS_PER_WORKER
    ? out
    : [
        ...out.slice(0, MAX_PROBLEMS_PER_WORKER),
        `${pod}: and ${out.length - MAX_PROBLEMS_PER_WORKER} more devices off their PCIe switch`,
      ];
}

/** Problems listed per worker: a node has at most 8 GPUs and 32 EFA devices; past that the rest are counted. */
export const MAX_PROBLEMS_PER_WORKER = 40;

/** A device list for a message: the first few, then how many more (a worker never needs thousands listed). */
function brief(items: readonly string[], max = 8): string {
  return items.length <= max ? items.join(", ") : `${items.slice(0, max).join(", ")} and ${items.length - max} more`;
}

/** One worker's probe output; `error` when the exec failed. */
export interface LocalityProbe {
  readonly pod: string;
  readonly text: string;
  readonly error?: string;
}

/** Under DRA: the namespace's ResourceClaims and the cluster's ResourceSlices, as listed. */
export interface DraAllocation {
  readonly claims: readonly ClaimSource[];
  readonly slices: readonly SliceSource[];
}

/**
 * Gate L over every worker of a graph whose KV moves over EFA: the PCI paths each worker's probe printed, and under
 * DRA also each worker's claim as allocated (./claims.ts).
 */
export function gateLocality(probes: readonly LocalityProbe[], latencyMs?: number, dra?: DraAllocation): GateResult {
  if (probes.length === 0) return result("L", GateStatus.Fail, ["no worker pods to probe"], latencyMs);
  const bad: string[] = [];
  const ok: string[] = [];
  if (dra) {
    const roots = pcieRoots(dra.slices);
    for (const p of probes) {
      const claim = dra.claims.find((c) => claimPod(c) === p.pod);
      const problems = claimProblems(p.pod, claim, roots);
      bad.push(...problems);
      if (problems.length === 0 && claim) ok.push(claimEvidence(p.pod, claim, roots));
    }
  }
  for (const p of probes) {
    if (p.error) {
      bad.push(`${p.pod}: probe failed: ${p.error}${execFailureHint(p.error)}`);
      continue;
    }
    const d = parseLocality(p.text);
    const problems = localityProblems(p.pod, d);
    bad.push(...problems);
    if (problems.length === 0)
      ok.push(
        `${p.pod}: GPU ${d.gpus.map((g) => g.id).join(",")} with EFA ${d.efas.map((e) => e.id).join(",")} on one PCIe switch`,
      );
  }
  if (bad.length > 0) return result("L", GateStatus.Fail, [...bad, LOCALITY_FIX], latencyMs);
  return result(
    "L",
    GateStatus.Pass,
    [`${probes.length} workers: every EFA device on its GPUs' PCIe tree`, ...ok],
    latencyMs,
  );
}
