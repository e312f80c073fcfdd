/**
 * Extracts what the dcgm-exporter chart documents about the exporter's privileges: its default container
 * securityContext, the need it gives for each added capability (the comment on the `add` line), the non-root
 * variant it documents and what that variant gives up, and the host namespaces it leaves off. Usage:
 * npx tsx tests/contracts/extract/dcgm-exporter-security.ts <NVIDIA/dcgm-exporter checkout> --ref <tag> [--commit <sha>]
 */
import YAML from "yaml";
import { checkoutArgs, printFacts, readText, today } from "./_checkout";

export const VALUES = "deployment/values.yaml";

export function extract(root: string): Record<string, unknown> {
  const text = readText(root, VALUES);
  const v = YAML.parse(text);
  const need = /add: \[[^\]]*\]\s*#\s*(.+)$/m.exec(text);
  const nonRoot = /#\s*Note: For non-root (without [^,]+), use:\s*\n\s*#\s*(.+)$/m.exec(text);
  if (!need || !nonRoot) throw new Error(`${VALUES}: the securityContext comments moved`);
  return {
    securityContext: v.securityContext,
    addedCapabilityNeed: need[1].trim(),
    nonRootVariant: { condition: nonRoot[1].trim(), change: nonRoot[2].trim() },
    hostPID: v.hostPID,
    hostNetwork: v.hostNetwork,
  };
}

if (require.main === module) {
  const a = checkoutArgs(process.argv.slice(2), "dcgm-exporter-security.ts");
  printFacts(
    {
      repository: "NVIDIA/dcgm-exporter",
      ref: a.ref,
      commit: a.commit,
      paths: [VALUES],
      extracted: today(),
      extractor: "tests/contracts/extract/dcgm-exporter-security.ts",
      notes: a.notes ?? "",
    },
    extract(a.root),
  );
}
