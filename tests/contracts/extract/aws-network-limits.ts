/**
 * Extracts what EKS accepts in a cluster's `publicAccessCidrs` from the EKS user guide's source
 * (awsdocs/amazon-eks-user-guide): the endpoint page's rule on reserved addresses and the service-quota row for
 * public endpoint access CIDR ranges. Usage: npx tsx tests/contracts/extract/aws-network-limits.ts <guide checkout>
 * (prints the `eks` part of the facts; the security-group facts are read by hand from the VPC quotas page, see the
 * fact file's notes).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    return statSync(p).isDirectory() ? files(p) : p.endsWith(".adoc") ? [p] : [];
  });
}
const all = files(process.argv[2]).map((f) => readFileSync(f, "utf8"));
const reserved = all.flatMap((t) => /The block cannot include \S*reserved addresses/.exec(t) ?? []);
const quota = all.flatMap(
  (t) => /Public endpoint access CIDR ranges per cluster[^\n]*?(\d+)[^\n]*?\b(Yes|No)\b/.exec(t) ?? [],
);
if (reserved.length === 0 || quota.length === 0) throw new Error("guide: rule or quota not found");
const row = /(\d+)[^\n]*?\b(Yes|No)\b/.exec(quota[0])!;
process.stdout.write(
  `${JSON.stringify({ eks: { publicAccessCidrsMax: Number(row[1]), adjustable: row[2] === "Yes", reservedAddressesRefused: true } }, null, 2)}\n`,
);
