/**
 * Extracts what Dynamo's EFA guide says about GPU memory registration, which the workers' privileges rest on
 * (components/inference/graph.ts `workerSecurity`, verify gate G): the kernel from which GPUDirect RDMA uses DMA-BUF
 * (no peer-memory module), the peer-memory modules of older kernels, that on x86_64 the EFA provider's legacy
 * `ibv_reg_mr` path also registers CUDA memory (the `fi_mr_reg` EFAULT is an arm64 64K-page kernel defect, GB200), and
 * the guide's own claim that workers must run privileged, which states no mechanism.
 * Usage: npx tsx tests/contracts/extract/dynamo-efa-gpudirect.ts <ai-dynamo/dynamo checkout> --ref main --commit <sha> > tests/contracts/facts/dynamo-efa-gpudirect.json
 */
import { checkoutArgs, matcher, printFacts, readText, today, withNotes } from "./_checkout";

export const FILE = "docs/kubernetes/cloud-providers/eks/efa.md";

const must = matcher("dynamo-efa-gpudirect");

/** The facts, from the guide's text. */
export function extract(text: string) {
  const prereq = must(
    /GPU-Direct RDMA enabled on the host\*\* — either kernel ≥ ([\d.]+) \(DMA-BUF path[^\n]*/,
    text,
    "prerequisite",
  );
  return {
    dmabufFromKernel: prereq[1],
    peermemModules: [...prereq[0].matchAll(/`((?:nvidia-peermem|efa_nv_peermem))`/g)].map((m) =>
      m[1].replace(/-/g, "_"),
    ),
    dmabufOnAl2023: /Modern AWS GPU AMIs \(Amazon Linux 2023[^)]*\) use \*\*DMA-BUF\*\*/.test(text),
    x86LegacyRegistrationHandlesCuda:
      /On x86_64 hosts the legacy `ibv_reg_mr` path handles CUDA pointers natively/.test(text),
    efaultOnlyArm64: /On arm64 64K-page kernels \(GB200\), the legacy path returns EFAULT for CUDA VRAM/.test(text),
    privilegedClaim: must(
      /`privileged: true` is required for NIXL to register CUDA VRAM[^\n]*/,
      text,
      "privileged claim",
    )[0],
    hostIpcClaim: must(/hostIPC: true\s+# ([^\n]+)/, text, "hostIPC")[1],
  };
}

if (require.main === module) {
  const usage = "npx tsx tests/contracts/extract/dynamo-efa-gpudirect.ts";
  const args = checkoutArgs(process.argv.slice(2), usage);
  printFacts(
    {
      repository: "ai-dynamo/dynamo",
      ref: args.ref,
      commit: args.commit,
      paths: [FILE],
      extracted: today(),
      extractor: "tests/contracts/extract/dynamo-efa-gpudirect.ts",
      notes: withNotes("Dynamo's EFA guide (PR #9521 and later edits).", args),
    },
    extract(readText(args.root, FILE)),
  );
}
