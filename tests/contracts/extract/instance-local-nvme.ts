/**
 * Extracts the instance-store NVMe size of every catalog instance type from Karpenter's generated instance-type
 * reference (`website/content/en/docs/reference/instance-types.md`, generated from EC2 DescribeInstanceTypes:
 * label `karpenter.k8s.aws/instance-local-nvme` = `InstanceStorageInfo.TotalSizeInGB`, in GB).
 * Usage: npx tsx tests/contracts/extract/instance-local-nvme.ts <aws/karpenter-provider-aws checkout> --ref main [--commit <sha>] > tests/contracts/facts/instance-local-nvme.json
 */
import { instanceNames } from "../../../components/catalog/instances";
import { checkoutArgs, printFacts, readText, today, withNotes } from "./_checkout";

const FILE = "website/content/en/docs/reference/instance-types.md";

/** `{ type: GB }` for every type of `names` the document lists; a type without the label has no instance store (0). */
export function extract(markdown: string, names: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  let current: string | undefined;
  const seen = new Set<string>();
  for (const line of markdown.split("\n")) {
    const heading = /^### `([^`]+)`/.exec(line);
    if (heading) {
      current = heading[1];
      seen.add(current);
      continue;
    }
    const label = /\|karpenter\.k8s\.aws\/instance-local-nvme\|(\d+)\|/.exec(line);
    if (label && current && names.includes(current)) out[current] = Number(label[1]);
  }
  for (const n of names) if (seen.has(n) && out[n] === undefined) out[n] = 0;
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

if (require.main === module) {
  const args = checkoutArgs(process.argv.slice(2), "instance-local-nvme.ts");
  printFacts(
    {
      repository: "aws/karpenter-provider-aws",
      ref: args.ref,
      commit: args.commit,
      paths: [FILE],
      extracted: today(),
      extractor: "tests/contracts/extract/instance-local-nvme.ts",
      notes: withNotes(
        "instance-local-nvme = EC2 DescribeInstanceTypes InstanceStorageInfo.TotalSizeInGB (GB, decimal), as Karpenter's generator records it; types the document does not list are absent (size unknown).",
        args,
      ),
    },
    { localNvmeGB: extract(readText(args.root, FILE), instanceNames()) },
  );
}
