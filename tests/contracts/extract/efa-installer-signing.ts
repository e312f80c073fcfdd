/**
 * Extracts how AWS signs the EFA installer, from the EC2 user guide's "Get started with EFA and MPI" page
 * (awsdocs/amazon-ec2-user-guide `doc_source/efa-start.md`, Step 3 "Install the EFA software"):
 *   npx tsx tests/contracts/extract/efa-installer-signing.ts <checkout> --ref <branch> [--commit <sha>] \
 *     > tests/contracts/facts/efa-installer-signing.json
 * (a bare mirror works: `git --git-dir=<mirror> archive <commit> doc_source/efa-start.md | tar -x -C <dir>`, then
 * pass `--commit <commit>`). Facts: the documented key fingerprint (the prose and the sample `gpg --verify` output
 * must agree), the key's user id, and the tarball, signature and key URLs with the page's example version replaced
 * by `<version>`.
 */
import { checkoutArgs, printFacts, readText, today, withNotes } from "./_checkout";

export const PAGE = "doc_source/efa-start.md";

export interface EfaSigningFacts {
  /** 40 upper-case hex digits, no spaces (as `gpg --with-colons` prints it in `fpr` field 10). */
  readonly fingerprint: string;
  /** As the page prints it (groups of four). */
  readonly fingerprintDocumented: string;
  readonly keyUid: string;
  readonly keyUrl: string;
  readonly tarballUrl: string;
  readonly signatureUrl: string;
}

const one = (text: string, re: RegExp, what: string): RegExpExecArray => {
  const m = re.exec(text);
  if (!m) throw new Error(`${PAGE}: ${what} not found (${re})`);
  return m;
};

/** The signing facts of the page's markdown; throws naming what is missing or inconsistent. */
export function extract(markdown: string): EfaSigningFacts {
  const documented = one(
    markdown,
    /fingerprint that is identical to `([0-9A-F]{4}(?: [0-9A-F]{4}){9})`/,
    "the documented key fingerprint",
  )[1];
  const sample = one(
    markdown,
    /Primary key fingerprint: ([0-9A-F]{4}(?: +[0-9A-F]{4}){9})/,
    "the sample gpg --verify output",
  )[1];
  const fingerprint = documented.replace(/ /g, "");
  if (sample.replace(/ +/g, "") !== fingerprint)
    throw new Error(`${PAGE}: documented fingerprint ${documented} != sample output ${sample}`);
  const tarball = one(
    markdown,
    /curl -O (https:\/\/efa-installer\.amazonaws\.com\/aws-efa-installer-)(\d+\.\d+\.\d+)(\.tar\.gz)\s/,
    "the tarball download",
  );
  const version = tarball[2];
  const sig = one(
    markdown,
    /wget (https:\/\/efa-installer\.amazonaws\.com\/aws-efa-installer-[\d.]+\.tar\.gz\.sig)\s/,
    "the signature download",
  )[1];
  if (!sig.includes(`-${version}.tar.gz.sig`))
    throw new Error(`${PAGE}: signature URL ${sig} is not for the example version ${version}`);
  return {
    fingerprint,
    fingerprintDocumented: documented,
    keyUid: one(markdown, /Good signature from "([^"]+)"/, "the key's user id")[1],
    keyUrl: one(markdown, /wget (https:\/\/efa-installer\.amazonaws\.com\/[\w.-]+\.key)\s/, "the key download")[1],
    tarballUrl: `${tarball[1]}<version>${tarball[3]}`,
    signatureUrl: sig.replace(`-${version}.tar.gz.sig`, "-<version>.tar.gz.sig"),
  };
}

function main(): void {
  const args = checkoutArgs(process.argv.slice(2), "efa-installer-signing.ts");
  printFacts(
    {
      repository: "awsdocs/amazon-ec2-user-guide",
      ref: args.ref,
      commit: args.commit,
      paths: [PAGE],
      extracted: today(),
      extractor: "tests/contracts/extract/efa-installer-signing.ts",
      notes: withNotes(
        "The repository was archived in 2023 (8a9cb02 deleted doc_source; the guide lives on docs.aws.amazon.com). " +
          "The fingerprint and URLs are unchanged up to d289961 (2023-05-11), the last commit holding this page. AWS publishes a " +
          "GPG signature per installer release, not a digest: the image verifies the signature against this fingerprint.",
        args,
      ),
    },
    extract(readText(args.root, PAGE)),
  );
}

if (require.main === module) main();
