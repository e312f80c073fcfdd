/**
 * Extracts the image-reference grammar from distribution/reference (the parser Docker, containerd and the registries
 * use): the separator, domain-component and path-component patterns of `regexp.go` and `NameTotalLengthMax` of
 * `reference.go`. Usage: npx tsx tests/contracts/extract/image-reference.ts <distribution/reference checkout>
 * (prints the `facts` block).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.argv[2];
const regexp = readFileSync(join(dir, "regexp.go"), "utf8");
const reference = readFileSync(join(dir, "reference.go"), "utf8");
const constant = (name: string) => {
  const m = new RegExp(`\\b${name}\\s*=\\s*\`([^\`]*)\``).exec(regexp);
  if (!m) throw new Error(`regexp.go: no ${name}`);
  return m[1];
};
const max = /NameTotalLengthMax\s*=\s*(\d+)/.exec(reference);
if (!max) throw new Error("reference.go: no NameTotalLengthMax");
process.stdout.write(
  `${JSON.stringify(
    {
      alphanumeric: constant("alphanumeric"),
      separator: constant("separator"),
      domainNameComponent: constant("domainNameComponent"),
      optionalPort: constant("optionalPort"),
      ipv6address: constant("ipv6address"),
      tag: constant("tag"),
      nameTotalLengthMax: Number(max[1]),
    },
    null,
    2,
  )}\n`,
);
