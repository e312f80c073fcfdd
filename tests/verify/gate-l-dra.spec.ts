/**
 * Gate L on AWS's real PCIe layout and under DRA. DRANET's EKS example records a live p4d.24xlarge (kubernetes-sigs/
 * dranet@f258477 examples/aws_eks_examples/gpu-efa: its ResourceSlices): each GPU and its EFA device sit directly on
 * their own PCIe root complex (`pci0000:10` holds gpu-0 at 0000:10:1c.0 and the EFA at 0000:10:1b.0), with no bridge
 * between, so "shares a switch" must mean "same root complex" there, which is also what a DRA claim's
 * `resource.kubernetes.io/pcieRoot` match means. Under DRA the gate also reads each worker's claim as allocated and
 * the devices' roots from the drivers' ResourceSlices.
 */
import { strict as assert } from "assert";
import { gateLocality } from "../../tools/verify/locality";
import { GateStatus } from "../../tools/verify/gates";
import { ClaimSource, claimProblems, pcieRoots, SliceSource } from "../../tools/verify/claims";
import { PCIE_ROOT_ATTRIBUTE } from "../../components/_shared/dra";

/** The probe's lines for devices on the root bus of their root complex (p4d: `/sys/devices/pci0000:10/0000:10:1c.0`). */
const onRoot = (kind: "gpu" | "efa", id: string, bdf: string) =>
  `${kind} ${id} /sys/devices/pci${bdf.slice(0, 7)}/${bdf}`;
const P4D = {
  gpu0: onRoot("gpu", "0000:10:1c.0", "0000:10:1c.0"),
  gpu6: onRoot("gpu", "0000:a0:1c.0", "0000:a0:1c.0"),
  efa10: onRoot("efa", "rdmap16s27", "0000:10:1b.0"),
  efaA0: onRoot("efa", "rdmap160s27", "0000:a0:1b.0"),
};

describe("verify gate L on AWS's layout and under DRA", () => {
  it("a GPU and its EFA device on one root complex, with no bridge between (p4d), are paired", () => {
    const r = gateLocality([{ pod: "w0", text: [P4D.gpu0, P4D.efa10].join("\n") }]);
    assert.equal(r.status, GateStatus.Pass, r.evidence.join("\n"));
  });

  it("an EFA device on another root complex is not (the ~1.9x slower cross-root path DRANET measured)", () => {
    const r = gateLocality([{ pod: "w0", text: [P4D.gpu0, P4D.efaA0].join("\n") }]);
    assert.equal(r.status, GateStatus.Fail);
    assert.match(r.evidence.join("\n"), /w0: EFA rdmap160s27 .* is on no PCIe switch of its GPUs/);
    assert.match(r.evidence.join("\n"), /w0: GPU 0000:10:1c\.0 has none of the worker's EFA devices/);
  });

  describe("under DRA: the claim as allocated", () => {
    const slices: SliceSource[] = [
      {
        spec: {
          driver: "gpu.nvidia.com",
          pool: { name: "node-a" },
          devices: [
            { name: "gpu-0", attributes: { [PCIE_ROOT_ATTRIBUTE]: { string: "pci0000:10" } } },
            { name: "gpu-6", attributes: { [PCIE_ROOT_ATTRIBUTE]: { string: "pci0000:a0" } } },
          ],
        },
      },
      {
        spec: {
          driver: "dra.net",
          pool: { name: "node-a" },
          devices: [
            { name: "pci-0000-10-1b-0", attributes: { [PCIE_ROOT_ATTRIBUTE]: { string: "pci0000:10" } } },
            { name: "pci-0000-a0-1b-0", attributes: { [PCIE_ROOT_ATTRIBUTE]: { string: "pci0000:a0" } } },
          ],
        },
      },
    ];
    const claim = (pod: string, gpu: string, efa: string): ClaimSource => ({
      metadata: { name: `${pod}-devices-x1`, ownerReferences: [{ kind: "Pod", name: pod }] },
      status: {
        allocation: {
          devices: {
            results: [
              { request: "gpu-0", driver: "gpu.nvidia.com", pool: "node-a", device: gpu },
              { request: "efa-0", driver: "dra.net", pool: "node-a", device: efa },
            ],
          },
        },
      },
    });
    const roots = pcieRoots(slices);

    it("reads each device's root from the slices", () => {
      assert.equal(roots.get("gpu.nvidia.com/node-a/gpu-6"), "pci0000:a0");
      assert.equal(roots.get("dra.net/node-a/pci-0000-10-1b-0"), "pci0000:10");
    });

    it("passes a claim whose GPU and EFA landed on one root, with the paths agreeing", () => {
      const r = gateLocality([{ pod: "w0", text: [P4D.gpu0, P4D.efa10].join("\n") }], undefined, {
        claims: [claim("w0", "gpu-0", "pci-0000-10-1b-0")],
        slices,
      });
      assert.equal(r.status, GateStatus.Pass, r.evidence.join("\n"));
      assert.match(r.evidence.join("\n"), /w0: claim w0-devices-x1: gpu-0\+pci-0000-10-1b-0 on pci0000:10/);
    });

    it("fails a claim allocated across roots, a pod without a claim, an unallocated claim, an unpublished device", () => {
      assert.match(
        claimProblems("w0", claim("w0", "gpu-6", "pci-0000-10-1b-0"), roots).join("\n"),
        /w0: claim w0-devices-x1 put GPU gpu-6 \(pci0000:a0\) and EFA pci-0000-10-1b-0 \(pci0000:10\) on different PCIe roots/,
      );
      const r = gateLocality([{ pod: "w1", text: [P4D.gpu0, P4D.efa10].join("\n") }], undefined, {
        claims: [claim("w0", "gpu-0", "pci-0000-10-1b-0")],
        slices,
      });
      assert.equal(r.status, GateStatus.Fail);
      assert.match(r.evidence[0], /w1: no ResourceClaim owned by the pod/);
      assert.match(claimProblems("w0", { metadata: { name: "c" } }, roots)[0], /claim c is not allocated/);
      assert.match(
        claimProblems("w0", claim("w0", "gpu-9", "pci-0000-10-1b-0"), roots)[0],
        /no resource\.kubernetes\.io\/pcieRoot published for gpu-9/,
      );
    });
  });
});
