/**
 * Gate L (`--check-locality`): each worker's EFA devices on its GPUs' PCIe tree, judged on sysfs paths built
 * from AWS's own p5.48xlarge PCIe tree (aws-ofi-nccl's topology file, tests/fixtures/topology/provenance.json):
 * 8 switches, each one H100 and four EFA devices. A worker of the default stacks' shape holds 1 GPU and some of
 * the node's EFA devices; the device plugin decides which.
 */
import { strict as assert } from "assert";
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  bridgesOf,
  busOf,
  gateLocality,
  LOCALITY_FIX,
  LOCALITY_PROBE_SCRIPT,
  parseLocality,
  sharedBridge,
} from "../../tools/verify/locality";
import { GateStatus } from "../../tools/verify/gates";
import { USAGE } from "../../tools/verify/cli";
import { probeOutput, topologyDevices, type TopoDevice } from "../helpers/nccl-topology";
import { flags, useVerifyCli, verify } from "./cli-harness";
import { startFrontend } from "./fake-frontend";
import { GRAPH, startKube } from "./fake-kube";
import { EXEC_OUTPUT_LIMIT_BYTES } from "../../tools/verify/k8s";

const P5 = topologyDevices("p5.48xl-topo.xml");
const gpu = (i: number) => P5.find((d) => d.kind === "gpu" && d.id === String(i))!;
const efa = (name: string) => P5.find((d) => d.kind === "efa" && d.id === name)!;
const worker = (pod: string, ...devices: TopoDevice[]) => ({ pod, text: probeOutput(devices) });

describe("verify gate L: the KV path as drawn (EFA on the worker's GPU PCIe tree)", () => {
  it("reads the recorded p5.48xlarge tree: 8 GPUs and 32 EFA devices, 4 EFA behind each GPU's switch", () => {
    const provenance = JSON.parse(
      readFileSync(join(__dirname, "..", "fixtures", "topology", "provenance.json"), "utf8"),
    ) as Record<string, { sha256: string }>;
    const xml = readFileSync(join(__dirname, "..", "fixtures", "topology", "p5.48xl-topo.xml"));
    assert.equal(createHash("sha256").update(xml).digest("hex"), provenance["p5.48xl-topo.xml"]!.sha256);
    const gpus = P5.filter((d) => d.kind === "gpu");
    const efas = P5.filter((d) => d.kind === "efa");
    assert.equal(gpus.length, 8);
    assert.equal(efas.length, 32);
    for (const g of gpus)
      assert.equal(efas.filter((e) => sharedBridge(g.path, e.path) !== undefined).length, 4, `GPU ${g.id}`);
    assert.equal(gpu(0).path, "/sys/devices/pci0000:00/0000:00:00.0/0000:4f:00.0");
    assert.deepEqual(bridgesOf(efa("rdmap79s0").path), ["0000:00:00.0"]);
    assert.equal(busOf(efa("rdmap96s0").path), "0000:61:00.0");
  });

  it("two devices behind different root ports share no bridge; behind one switch they do (lspci -tv shape)", () => {
    const sw = "/sys/devices/pci0000:bb/0000:bb:00.0/0000:bc:00.0";
    assert.equal(sharedBridge(`${sw}/0000:bd:01.0/0000:c6:00.0`, `${sw}/0000:bd:01.4/0000:ca:00.0`), "0000:bc:00.0");
    assert.equal(
      sharedBridge(`${sw}/0000:bd:01.0/0000:c6:00.0`, "/sys/devices/pci0000:aa/0000:aa:00.0/0000:ab:00.0/0000:b5:00.0"),
      undefined,
    );
    assert.equal(
      sharedBridge(
        "/sys/devices/pci0000:00/0000:00:01.0/0000:4f:00.0",
        "/sys/devices/pci0000:00/0000:00:02.0/0000:50:00.0",
      ),
      undefined,
    );
  });

  it("passes 8 workers of 1 GPU + 2 EFA each, every pair on its GPU's switch", () => {
    const names = [
      "rdmap79s0",
      "rdmap96s0",
      "rdmap113s0",
      "rdmap130s0",
      "rdmap147s0",
      "rdmap164s0",
      "rdmap181s0",
      "rdmap198s0",
    ];
    const probes = names.map((n, i) => {
      const next = `rdmap${Number(/\d+/.exec(n)![0]) + 1}s0`;
      return worker(`${GRAPH}-decodeworker-${i}`, gpu(i), efa(n), efa(next));
    });
    const r = gateLocality(probes);
    assert.equal(r.status, GateStatus.Pass, r.evidence.join("\n"));
    assert.match(r.evidence[0]!, /8 workers: every EFA device on its GPUs' PCIe tree/);
  });

  it("fails a worker whose EFA sits on another switch, naming the worker, the device, both switches and the fix", () => {
    const r = gateLocality([
      worker("llama-decodeworker-0", gpu(0), efa("rdmap79s0"), efa("rdmap80s0")),
      worker("llama-decodeworker-1", gpu(1), efa("rdmap97s0"), efa("rdmap81s0")),
    ]);
    assert.equal(r.status, GateStatus.Fail);
    assert.deepEqual(r.evidence, [
      "llama-decodeworker-1: EFA rdmap81s0 (0000:52:00.0, behind 0000:00:00.0) is on no PCIe switch of its GPUs 0000:60:00.0 (switch 0000:01:00.0)",
      LOCALITY_FIX,
    ]);
  });

  it("fails a GPU none of whose worker's EFA devices is on its switch, an empty probe, and a failed exec", () => {
    const twoGpus = gateLocality([worker("w", gpu(2), gpu(3), efa("rdmap113s0"), efa("rdmap114s0"))]);
    assert.equal(twoGpus.status, GateStatus.Fail);
    assert.match(twoGpus.evidence[0]!, /^w: GPU 0000:80:00.0 has none of the worker's EFA devices on its PCIe switch/);
    assert.match(gateLocality([worker("w", gpu(0))]).evidence[0]!, /no EFA device mounted/);
    assert.match(gateLocality([{ pod: "w", text: "" }]).evidence[0]!, /no GPU visible/);
    assert.match(
      gateLocality([{ pod: "w", text: "", error: "forbidden" }]).evidence[0]!,
      /probe failed: forbidden \(verify needs pods\/exec/,
    );
    assert.equal(gateLocality([]).status, GateStatus.Fail);
  });

  it("the probe prints the lines the parser reads (sh over a fake sysfs, /dev and nvidia-smi)", function () {
    const root = mkdtempSync(join(tmpdir(), "locality-"));
    try {
      const dev = (p: string) => mkdirSync(join(root, p), { recursive: true });
      const link = (target: string, at: string) => {
        dev(dirname(at));
        symlinkSync(join(root, target), join(root, at));
      };
      dev(gpu(0).path);
      dev(efa("rdmap79s0").path);
      link(gpu(0).path, "sys/bus/pci/devices/0000:4f:00.0");
      link(efa("rdmap79s0").path, "sys/class/infiniband_verbs/uverbs3/device");
      writeFileSync(join(root, "sys/class/infiniband_verbs/uverbs3/ibdev"), "rdmap79s0\n");
      dev("dev/infiniband");
      writeFileSync(join(root, "dev/infiniband/uverbs3"), "");
      dev("bin");
      writeFileSync(join(root, "bin/nvidia-smi"), "#!/bin/sh\necho 00000000:4F:00.0\n", { mode: 0o755 });
      const script = LOCALITY_PROBE_SCRIPT.replace(/\/(sys|dev|proc)\//g, `${root}/$1/`);
      const r = spawnSync("sh", ["-c", script], {
        encoding: "utf8",
        env: { PATH: `${join(root, "bin")}:/usr/bin:/bin` },
      });
      assert.equal(r.status, 0, r.stderr);
      const d = parseLocality(r.stdout.split(root).join(""));
      assert.deepEqual(d, {
        gpus: [{ id: "0000:4f:00.0", path: gpu(0).path }],
        efas: [{ id: "rdmap79s0", path: efa("rdmap79s0").path }],
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("verify --help lists gate L", () => {
    assert.match(USAGE, /--check-locality\s+gate L: .*EFA devices on its GPUs' PCIe tree/);
  });
});

describe("verify --check-locality: gate L against the fake cluster (pods/exec)", function () {
  this.timeout(60000);
  useVerifyCli();

  it("execs the probe in every worker and fails the one whose EFA is on another switch; no L without the flag", async () => {
    const fe = await startFrontend("pass");
    const kube = await startKube("libfabric", undefined, undefined, {
      [`${GRAPH}-prefillworker-0`]: probeOutput([gpu(4), efa("rdmap147s0"), efa("rdmap148s0")]),
      [`${GRAPH}-decodeworker-0`]: probeOutput([gpu(5), efa("rdmap164s0"), efa("rdmap181s0")]),
    });
    try {
      const r = await verify([...flags(kube, fe.url), "--check-locality"]);
      const l = r.json?.gates.find((x) => x.id === "L");
      assert.equal(l?.status, GateStatus.Fail, r.out);
      assert.equal(r.code, 1);
      assert.match(l!.evidence[0]!, new RegExp(`^${GRAPH}-decodeworker-0: EFA rdmap181s0 \\(0000:b1:00.0`));
      assert.equal(l!.evidence.length, 2);
      assert.match(r.out, /L\s+EFA devices on each worker's GPU PCIe tree\s+FAIL/);
      const plain = await verify(flags(kube, fe.url));
      assert.equal(
        plain.json?.gates.find((x) => x.id === "L"),
        undefined,
        "no L without --check-locality",
      );
    } finally {
      await fe.close();
      await kube.close();
    }
  });

  it("a worker whose probe prints past the exec bound (1 MiB) fails gate L unread, naming the bound", async () => {
    const fe = await startFrontend("pass");
    const flood = `${probeOutput([gpu(4), efa("rdmap147s0")])}\n${"x".repeat(1024 * 1024)}`;
    const kube = await startKube("libfabric", undefined, undefined, {
      [`${GRAPH}-prefillworker-0`]: probeOutput([gpu(4), efa("rdmap147s0"), efa("rdmap148s0")]),
      [`${GRAPH}-decodeworker-0`]: flood,
    });
    try {
      const r = await verify([...flags(kube, fe.url), "--check-locality"]);
      const l = r.json?.gates.find((x) => x.id === "L");
      assert.equal(l?.status, GateStatus.Fail, r.out);
      assert.deepEqual(l!.evidence.slice(0, -1), [
        `${GRAPH}-decodeworker-0: probe failed: the probe printed more than ${EXEC_OUTPUT_LIMIT_BYTES} bytes; not read further (a probe prints a few kB)`,
      ]);
    } finally {
      await fe.close();
      await kube.close();
    }
  });
});
