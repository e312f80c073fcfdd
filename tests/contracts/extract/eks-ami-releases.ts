/**
 * Extracts the EKS AL2023 AMI release versions from amazon-eks-ami's CHANGELOG.md: for each Kubernetes minor, every
 * release version (`<minor>.<patch>-<yyyymmdd>`, what a managed node group's `releaseVersion` takes), the newest one,
 * and the first whose x86_64 NVIDIA AMI carries the R580 driver (`kmod-nvidia-latest-dkms` 580.x), with the release
 * tag it came in.
 * Usage: npx tsx tests/contracts/extract/eks-ami-releases.ts <awslabs/amazon-eks-ami checkout> --ref main [--commit <sha>]
 */
import { checkoutArgs, printFacts, readText, sortedRecord, today, withNotes } from "./_checkout";

export const PATHS = { changelog: "CHANGELOG.md" } as const;

/** One Kubernetes minor's releases, oldest first. */
interface MinorReleases {
  readonly releaseVersions: string[];
  readonly newest: string;
  readonly firstNvidiaR580?: { readonly releaseVersion: string; readonly driver: string };
}

/** Each `# AMI Release vYYYYMMDD` section's per-minor tables: the release version and the NVIDIA x86_64 driver. */
function rows(changelog: string): { minor: string; releaseVersion: string; driver?: string }[] {
  const sections = changelog.split(/\n# AMI Release v\d{8}\n/).slice(1);
  return sections.flatMap((body) =>
    body
      .split("<summary><b>Kubernetes ")
      .slice(1)
      .flatMap((s) => {
        const minor = s.slice(0, s.indexOf("<")).trim();
        const rv = /rowspan="\d+">(\d+\.\d+\.\d+-\d{8})</.exec(s);
        const drv = /<td>kmod-nvidia-latest-dkms<\/td>\s*<td[^>]*>([^<]*)<\/td>/.exec(s);
        if (!rv) return [];
        return [{ minor, releaseVersion: rv[1]!, ...(drv ? { driver: drv[1]!.trim() } : {}) }];
      }),
  );
}

/** Release versions in release order: by build date, then by Kubernetes patch (numbers, not text). */
function releaseOrder(a: string, b: string): number {
  const key = (v: string) => {
    const [version, date] = v.split("-") as [string, string];
    return [Number(date), ...version.split(".").map(Number)];
  };
  const [ka, kb] = [key(a), key(b)];
  const i = ka.findIndex((x, j) => x !== kb[j]);
  return i < 0 ? 0 : ka[i]! - kb[i]!;
}

/** The facts, read from a checkout. */
export function extract(root: string): Record<string, unknown> {
  const byMinor = new Map<string, MinorReleases>();
  const all = rows(readText(root, PATHS.changelog)).sort((a, b) => releaseOrder(a.releaseVersion, b.releaseVersion));
  for (const r of all) {
    const m = byMinor.get(r.minor) ?? { releaseVersions: [], newest: r.releaseVersion };
    const first =
      m.firstNvidiaR580 ??
      (r.driver?.startsWith("580.") ? { releaseVersion: r.releaseVersion, driver: r.driver } : undefined);
    byMinor.set(r.minor, {
      releaseVersions: [...m.releaseVersions, r.releaseVersion],
      newest: r.releaseVersion,
      ...(first ? { firstNvidiaR580: first } : {}),
    });
  }
  return { releaseVersionPattern: "^<minor>\\.\\d+-\\d{8}$", minors: sortedRecord(byMinor) };
}

if (require.main === module) {
  const a = checkoutArgs(process.argv.slice(2), "eks-ami-releases.ts");
  printFacts(
    {
      repository: "awslabs/amazon-eks-ami",
      ref: a.ref,
      commit: a.commit,
      paths: Object.values(PATHS),
      extracted: today(),
      extractor: "tests/contracts/extract/eks-ami-releases.ts",
      notes: withNotes(
        "The same commit as eks-hugepages.json (main, 2026-07-23). A managed node group's releaseVersion is one of these for the cluster's Kubernetes minor (EKS CreateNodegroup: 'The AMI version of the Amazon EKS optimized AMI to use with your node group'; a node group is created at the cluster's Kubernetes version). The R580 switch per minor: amazon-eks-ami 3cb8b058 (1.34+), 35bb8a8c (1.33), 18569d58 (1.32), 0f5c129a (1.31), 00da59fb (1.29, 1.30); 1.28 stays on R570 (templates/al2023/variables-1.28.json).",
        a,
      ),
    },
    extract(a.root),
  );
}
