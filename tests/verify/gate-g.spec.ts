/**
 * Gate G (`--probe-workers`): the worker's engine process read the way Dynamo's EFA guide does. Each silent
 * failure is named with its cause and fix: a low memlock without an effective IPC_LOCK (the non-root worker), the
 * LIBFABRIC plugin opened but never executed or absent, no KV bytes moved, failed transfers.
 */
import { strict as assert } from "assert";
import { spawn, spawnSync } from "node:child_process";
import { EFA_MEMLOCK_BYTES } from "../../components/cluster/user-data";
import { KvTransport } from "../../components/inference/args";
import {
  gateEfaProcess,
  givenDevices,
  kernelAtLeast,
  parseProbe,
  privilegeProblems,
  WORKER_PROBE_SCRIPT,
  WorkerProbe,
} from "../../tools/verify/efa-process";
import { GateStatus } from "../../tools/verify/gates";
import { Backend } from "../../tools/verify/kvlog";
import { flags, useVerifyCli, verify } from "./cli-harness";
import { startFrontend } from "./fake-frontend";
import { GRAPH, startKube } from "./fake-kube";

/** The probe's output of a worker, as `sh` prints it (the /proc line formats of Linux). */
function probeText(o: { memlock?: string; capEff?: string; maps?: string[]; bytes?: number; failed?: number } = {}) {
  return [
    "engine=1",
    `Max locked memory         ${o.memlock ?? String(EFA_MEMLOCK_BYTES)}     ${o.memlock ?? String(EFA_MEMLOCK_BYTES)}     bytes`,
    `CapEff:\t${o.capEff ?? "0000000000000000"}`,
    ...(o.maps ?? [
      "7f1c2a000000-7f1c2a050000 r--p 00000000 00:2f 123 /opt/nvidia/nvda_nixl/lib/x86_64-linux-gnu/plugins/libplugin_LIBFABRIC.so",
      "7f1c2a050000-7f1c2a0f0000 r-xp 00050000 00:2f 123 /opt/nvidia/nvda_nixl/lib/x86_64-linux-gnu/plugins/libplugin_LIBFABRIC.so",
    ]),
    `vllm:nixl_bytes_transferred_sum{engine="0",model_name="m"} ${o.bytes ?? 4.194304e7}`,
    `vllm:nixl_num_failed_transfers_total{engine="0",model_name="m"} ${o.failed ?? 0}`,
  ].join("\n");
}
const probes = (...texts: string[]): WorkerProbe[] => texts.map((text, i) => ({ pod: `llm-worker-${i}`, text }));
const gate = (ps: WorkerProbe[], backend: Backend = Backend.Vllm, t: KvTransport = KvTransport.Libfabric) =>
  gateEfaProcess(backend, ps, t);

describe("verify gate G: the EFA worker's engine process", () => {
  it("parses memlock, CapEff (IPC_LOCK bit), the plugin mapping and the NIXL counters", () => {
    const f = parseProbe(probeText({ capEff: "00000000a80465fb" }));
    assert.deepEqual(f, {
      pid: 1,
      memlockBytes: EFA_MEMLOCK_BYTES,
      capEff: "00000000a80465fb",
      ipcLockEffective: true,
      libfabricPlugin: "executable",
      kvBytes: 41943040,
      failedTransfers: 0,
    });
    assert.equal(parseProbe(probeText({ memlock: "unlimited" })).memlockBytes, Infinity);
    assert.equal(parseProbe(probeText()).ipcLockEffective, false);
  });

  it("passes with the raised memlock, LIBFABRIC executable and KV bytes moved", () => {
    const r = gate(probes(probeText(), probeText()));
    assert.equal(r.status, GateStatus.Pass, r.evidence.join("\n"));
    assert.match(r.evidence.at(-1)!, /NIXL moved 83886080 KV bytes/);
  });

  it("the non-root worker at containerd's 8 MiB default: cause (no effective IPC_LOCK) and fix (replace the nodes)", () => {
    const r = gate(probes(probeText({ memlock: "8388608" })));
    assert.equal(r.status, GateStatus.Fail);
    assert.match(r.evidence[0], /RLIMIT_MEMLOCK is 8 MiB and IPC_LOCK is not effective \(CapEff 0000000000000000/);
    assert.match(r.evidence[0], /replace the GPU nodes so they boot from the current launch template/);
    const root = gate(probes(probeText({ memlock: "8388608", capEff: "0000000000004000" })));
    assert.equal(root.status, GateStatus.Pass, "an effective IPC_LOCK needs no limit");
  });

  it("the LIBFABRIC plugin opened but never run, or not loaded at all", () => {
    const ro = gate(probes(probeText({ maps: [probeText().split("\n")[3]] })));
    assert.equal(ro.status, GateStatus.Fail);
    assert.match(ro.evidence[0], /mapped read-only, never executable: .*kv_connector_extra_config\.backends/);
    const none = gate(probes(probeText({ maps: [] })));
    assert.match(none.evidence[0], /libplugin_LIBFABRIC is not mapped into the engine/);
    assert.equal(gate(probes(probeText({ maps: [] })), Backend.Vllm, KvTransport.Ucx).status, GateStatus.Pass);
  });

  it("no KV bytes moved, failed transfers, no metric at all, no engine, a failed exec", () => {
    assert.match(gate(probes(probeText({ bytes: 0 }))).evidence.join("\n"), /0 KV bytes moved after gate C's requests/);
    assert.match(gate(probes(probeText({ failed: 2 }))).evidence.join("\n"), /2 failed KV transfer\(s\)/);
    const noMetric = gate(probes(probeText().split("\n").slice(0, 5).join("\n")));
    assert.equal(noMetric.status, GateStatus.Inconclusive);
    assert.match(gate(probes("engine=none")).evidence[0], /no engine process/);
    const err = gate([{ pod: "p", text: "", error: 'pods "p" is forbidden' }]);
    assert.match(err.evidence[0], /probe failed: .*needs pods\/exec/);
    assert.equal(gate([]).status, GateStatus.Fail);
  });

  describe("privileges, read on the node: GPU memory registration path and the devices the container sees", () => {
    const host = (kernel: string, arch = "x86_64", modules: string[] = [], gpus = 1, efa = 2) =>
      [
        probeText(),
        `kernel=${kernel} arch=${arch}`,
        ...modules.map((m) => `module=${m}`),
        `visible gpus=${gpus} efa=${efa}`,
      ].join("\n");
    const one = { gpus: 1, efa: 2 };

    it("parses the kernel, the machine, the peer-memory modules and the device counts", () => {
      const f = parseProbe(host("6.12.58-82.121.amzn2023.x86_64", "x86_64", ["efa_nv_peermem"], 1, 2));
      assert.equal(f.kernel, "6.12.58-82.121.amzn2023.x86_64");
      assert.equal(f.arch, "x86_64");
      assert.deepEqual(f.peermem, ["efa_nv_peermem"]);
      assert.deepEqual(f.visible, { gpus: 1, efa: 2 });
      assert.equal(parseProbe(probeText()).kernel, undefined, "an older probe's output judges nothing new");
      assert.equal(kernelAtLeast("5.12.0", "5.12"), true);
      assert.equal(kernelAtLeast("5.11.22", "5.12"), false);
      assert.equal(kernelAtLeast("6.1.0", "5.12"), true);
      assert.equal(kernelAtLeast("garbage", "5.12"), false);
    });

    it("passes the unprivileged worker on an AL2023 kernel (DMA-BUF) that sees only its own 1 GPU + 2 EFA", () => {
      const r = gateEfaProcess(
        Backend.Vllm,
        probes(host("6.12.58")),
        KvTransport.Libfabric,
        undefined,
        new Map([["llm-worker-0", one]]),
      );
      assert.equal(r.status, GateStatus.Pass, r.evidence.join("\n"));
      assert.match(r.evidence[0], /GPU registration DMA-BUF \(kernel 6\.12\.58\); sees 1 GPU\(s\), 2 EFA/);
    });

    it("fails a container that sees the node's devices (privileged), naming what it was given and the fix", () => {
      const [why] = privilegeProblems(parseProbe(host("6.12.58", "x86_64", [], 8, 16)), one);
      assert.match(why, /sees 8 GPU\(s\) and 16 EFA device\(s\) but was given 1 and 2: it is privileged/);
      // A TP8 worker given the whole node legitimately sees all of it.
      assert.deepEqual(privilegeProblems(parseProbe(host("6.12.58", "x86_64", [], 8, 16)), { gpus: 8, efa: 16 }), []);
    });

    it("fails a kernel before DMA-BUF without a peer-memory module; passes it with one", () => {
      assert.match(privilegeProblems(parseProbe(host("5.10.240")))[0], /kernel 5\.10\.240 predates DMA-BUF \(5\.12\)/);
      assert.deepEqual(privilegeProblems(parseProbe(host("5.10.240", "x86_64", ["nvidia_peermem"]))), []);
    });

    it("fails an arm64 node (fi_mr_reg EFAULT on CUDA memory with libfabric < 2.5)", () => {
      assert.match(privilegeProblems(parseProbe(host("6.12.58", "aarch64")))[0], /the node is aarch64: .*#12019/);
    });

    it("reads what a pod was given: its limits, or its DRA claim's counts", () => {
      const limits = {
        spec: {
          containers: [
            { name: "main", resources: { limits: { "nvidia.com/gpu": "2", "vpc.amazonaws.com/efa": "4" } } },
          ],
        },
      };
      assert.deepEqual(givenDevices(limits), { gpus: 2, efa: 4 });
      const claimed = {
        metadata: { annotations: { "dynamo-efa/claim-gpus": "2", "dynamo-efa/claim-efa-per-gpu": "2" } },
        spec: { containers: [{ name: "main", resources: { limits: { memory: "229Gi" } } }] },
      };
      assert.deepEqual(givenDevices(claimed), { gpus: 2, efa: 4 });
      assert.equal(givenDevices({ spec: { containers: [{ name: "main" }] } }), undefined);
    });
  });

  it("the probe script finds the engine, not itself, and prints the lines the parser reads", async function () {
    if (process.platform !== "linux") this.skip();
    // A stand-in engine: a process whose command line names dynamo.vllm (its maps hold no NIXL plugin).
    const engine = spawn("sleep", ["5"], { argv0: "python3 -m dynamo.vllm", stdio: "ignore" });
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const out = spawnSync("sh", ["-c", WORKER_PROBE_SCRIPT], { encoding: "utf8" }).stdout;
      const f = parseProbe(out);
      assert.ok(f.pid !== undefined, out); // ours, or another run's stand-in on a shared machine
      assert.ok(f.memlockBytes !== undefined && f.capEff !== undefined, out);
      assert.equal(f.libfabricPlugin, "absent");
      assert.ok(f.kernel !== undefined && f.arch !== undefined && f.visible !== undefined, out);
    } finally {
      engine.kill();
    }
  });
});

describe("verify --probe-workers: gate G against the fake cluster (pods/exec)", function () {
  this.timeout(60000);
  useVerifyCli();

  it("execs the probe in every worker; a worker at the 8 MiB default fails G with cause and fix, the other passes", async () => {
    const fe = await startFrontend("pass");
    const kube = await startKube("libfabric", undefined, undefined, {
      [`${GRAPH}-prefillworker-0`]: probeText(),
      [`${GRAPH}-decodeworker-0`]: probeText({ memlock: "8388608" }),
    });
    try {
      const r = await verify([...flags(kube, fe.url), "--probe-workers"]);
      const g = r.json?.gates.find((x) => x.id === "G");
      assert.equal(g?.status, GateStatus.Fail, r.out);
      assert.deepEqual(
        g?.evidence.map((e) => e.split(":")[0]),
        [`${GRAPH}-decodeworker-0`],
      );
      assert.match(g!.evidence[0], /RLIMIT_MEMLOCK is 8 MiB and IPC_LOCK is not effective/);
      const execs = kube.requests.filter((q) => q.path.includes("/exec?"));
      assert.equal(execs.length, 2);
      assert.ok(execs.every((q) => q.path.includes("command=sh") && q.path.includes("container=main")));
      const plain = await verify(flags(kube, fe.url));
      assert.equal(
        plain.json?.gates.find((x) => x.id === "G"),
        undefined,
        "no G without --probe-workers",
      );
    } finally {
      await fe.close();
      await kube.close();
    }
  });
});
