/**
 * Gate L's judge, as plain data (the probe and the fake cluster are in gate-l.spec.ts, the slow set): every GPU
 * needs an EFA device on its PCIe switch however many EFA devices its worker holds (RELIABILITY-AUDIT-2 L2: a 2-GPU
 * worker with one EFA device passed), and output of any size is judged in one pass (L1: 1 MB took 116 s) with a
 * bounded list of problems. `npm run bench:locality` shows the growth.
 */
import { strict as assert } from "assert";
import { gateLocality, localityProblems, MAX_PROBLEMS_PER_WORKER, parseLocality } from "../../tools/verify/locality";
import { GateStatus } from "../../tools/verify/gates";
import { probeOutput, topologyDevices, type TopoDevice } from "../helpers/nccl-topology";

const P5 = topologyDevices("p5.48xl-topo.xml");
const gpu = (i: number) => P5.find((d) => d.kind === "gpu" && d.id === String(i))!;
const efa = (name: string) => P5.find((d) => d.kind === "efa" && d.id === name)!;
const worker = (pod: string, ...devices: TopoDevice[]) => ({ pod, text: probeOutput(devices) });
/** The first EFA device behind GPU i's switch on the recorded p5.48xlarge. */
const EFA_OF = [
  "rdmap79s0",
  "rdmap96s0",
  "rdmap113s0",
  "rdmap130s0",
  "rdmap147s0",
  "rdmap164s0",
  "rdmap181s0",
  "rdmap198s0",
];

describe("verify gate L: every GPU judged, in one pass", () => {
  it("fails a 2-GPU worker on two switches with one EFA device on GPU0's switch, naming GPU1", () => {
    const r = gateLocality([worker("w", gpu(0), gpu(1), efa(EFA_OF[0]!))]);
    assert.equal(r.status, GateStatus.Fail);
    assert.deepEqual(r.evidence.slice(0, -1), [
      `w: GPU ${gpu(1).bus} has none of the worker's EFA devices on its PCIe switch; its KV crosses the root complex`,
    ]);
  });

  it("fails an 8-GPU worker with one EFA device for each of the 7 GPUs without one; passes it with one per switch", () => {
    const all = [0, 1, 2, 3, 4, 5, 6, 7].map(gpu);
    const one = localityProblems("w", parseLocality(probeOutput([...all, efa(EFA_OF[0]!)])));
    assert.equal(one.length, 7, one.join("\n"));
    assert.ok(one.every((p) => /has none of the worker's EFA devices/.test(p)));
    const perSwitch = gateLocality([worker("w", ...all, ...EFA_OF.map(efa))]);
    assert.equal(perSwitch.status, GateStatus.Pass, perSwitch.evidence.join("\n"));
  });

  it("a worker with more EFA devices than GPUs is still judged device by device (1 GPU, 2 EFA on its switch)", () =>
    assert.equal(gateLocality([worker("w", gpu(3), efa("rdmap130s0"), efa("rdmap131s0"))]).status, GateStatus.Pass));

  it("judges 8,000 GPU and 8,000 EFA lines (about 1 MB, the size the audit measured at 116 s) and lists a bounded number of problems", () => {
    const lines: string[] = [];
    for (let i = 0; i < 8000; i++) {
      const root = `/sys/devices/pci0000:00/0000:${(i % 256).toString(16).padStart(2, "0")}:00.${i % 8}`;
      lines.push(`gpu g${i} ${root}/0000:01:00.0`);
      // Every EFA device behind a root port of its own: none shares a switch with a GPU.
      lines.push(`efa e${i} /sys/devices/pci0001:00/0001:00:00.0/0001:${(i % 256).toString(16).padStart(2, "0")}:00.0`);
    }
    const text = lines.join("\n");
    assert.ok(text.length > 900_000, `${text.length} bytes`);
    const d = parseLocality(text);
    assert.equal(d.gpus.length, 8000);
    assert.equal(d.efas.length, 8000);
    const problems = localityProblems("w", d);
    assert.equal(problems.length, MAX_PROBLEMS_PER_WORKER + 1);
    assert.match(problems.at(-1)!, /^w: and 15960 more devices off their PCIe switch$/);
    assert.ok(
      problems.every((p) => p.length < 2000),
      "each line is bounded",
    );
  });
});
