/**
 * Extracts the instance-store NVMe size of every catalog instance type from Karpenter's generated instance-type
 * reference (`website/content/en/docs/reference/instance-types.md`, generated from EC2 DescribeInstanceTypes:
 * label `karpenter.k8s.aws/instance-local-nvme` = `InstanceStorageInfo.TotalSizeInGB`, in GB).
 * Usage: npx tsx tests/contracts/extract/instance-local-nvme.ts <aws/karpenter-provider-aws checkout> <commit> > tests/contracts/facts/instance-local-nvme.json
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { instanceNames } from "../../../components/catalog/instances";

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
  const [checkout, commit] = process.argv.slice(2);
  if (!checkout || !commit) throw new Error("usage: instance-local-nvme.ts <checkout> <commit>");
  const facts = extract(fs.readFileSync(path.join(checkout, FILE), "utf8"), instanceNames());
  const provenance = {
    repository: "aws/karpenter-provider-aws",
    ref: "main",
    commit,
    paths: [FILE],
    extracted: new Date().toISOString().slice(0, 10),
    extractor: "tests/contracts/extract/instance-local-nvme.ts",
    notes:
      "instance-local-nvme = EC2 DescribeInstanceTypes InstanceStorageInfo.TotalSizeInGB (GB, decimal), as Karpenter's generator records it; types the document does not list are absent (size unknown).",
  };
  process.stdout.write(`${JSON.stringify({ provenance, facts: { localNvmeGB: facts } }, null, 2)}\n`);
}
