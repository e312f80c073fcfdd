/**
 * Contract: the workers' privileges, settled against what Dynamo's EFA guide (dynamo-efa-gpudirect.json) and the EKS
 * AL2023 AMI (eks-ami-gpu-nodes.json) say about GPU memory registration for EFA. The guide runs workers privileged and
 * says IPC_LOCK alone is insufficient, without a mechanism; what it does say is that GPUDirect RDMA registers GPU
 * memory through DMA-BUF from kernel 5.12 on (no peer-memory module), that the AL2023 AMIs use DMA-BUF, and that on
 * x86_64 the EFA provider's legacy path also handles CUDA memory (the fi_mr_reg EFAULT is arm64 64K-page only).
 * Host memory registration counts against RLIMIT_MEMLOCK, which the EFA nodes raise (nodeadm-user-data.spec.ts). So
 * the workers keep least privilege: no privileged, IPC_LOCK added; and verify's gate G checks on the node that the
 * facts hold there (registration path, machine, only the devices the pod was given).
 */
import { strict as assert } from "assert";
import { loadFacts } from "./facts";
import { DMABUF_FROM_KERNEL, PEERMEM_MODULES, WORKER_PROBE_SCRIPT } from "../../tools/verify/efa-process";
import { renderInference } from "../../components/inference";
import { resolved } from "../helpers/inference-fixtures";

interface GpuDirect {
  dmabufFromKernel: string;
  peermemModules: string[];
  dmabufOnAl2023: boolean;
  x86LegacyRegistrationHandlesCuda: boolean;
  efaultOnlyArm64: boolean;
  privilegedClaim: string;
}

describe("contract: EFA workers' privileges vs GPU memory registration (Dynamo's EFA guide, the AL2023 AMI)", () => {
  const f = loadFacts<GpuDirect>("dynamo-efa-gpudirect").facts;
  const ami = loadFacts<{ efaNvPeermemRemovedOnlyWithoutNvidia: boolean }>("eks-ami-gpu-nodes").facts;

  it("gate G knows the DMA-BUF kernel and the peer-memory modules the guide names, and probes them", () => {
    assert.equal(DMABUF_FROM_KERNEL, f.dmabufFromKernel);
    assert.deepEqual([...PEERMEM_MODULES].sort(), [...f.peermemModules].sort());
    for (const m of PEERMEM_MODULES) assert.match(WORKER_PROBE_SCRIPT, new RegExp(`\\b${m}\\b`));
    assert.match(WORKER_PROBE_SCRIPT, /uname -r/);
  });

  it("the facts that let the workers stay unprivileged on x86_64 AL2023 nodes", () => {
    assert.equal(f.dmabufOnAl2023, true);
    assert.equal(f.x86LegacyRegistrationHandlesCuda, true);
    assert.equal(f.efaultOnlyArm64, true);
    assert.equal(ami.efaNvPeermemRemovedOnlyWithoutNvidia, true, "the NVIDIA AMI keeps the peer-memory module too");
    assert.match(f.privilegedClaim, /IPC_LOCK` alone is insufficient/, "the guide's claim, which states no mechanism");
  });

  it("so the rendered EFA workers are not privileged and add only IPC_LOCK", () => {
    const g = renderInference(resolved("p5en-8x1gpu")).graph;
    for (const key of ["PrefillWorker", "DecodeWorker"] as const) {
      const sc = g.spec.services[key].extraPodSpec!.mainContainer!.securityContext!;
      assert.equal((sc as { privileged?: boolean }).privileged, undefined);
      assert.deepEqual(sc.capabilities, { drop: ["ALL"], add: ["IPC_LOCK"] });
    }
  });
});
