/**
 * Extracts what the EFA DRA driver publishes, from kubernetes-sigs/dranet at the release AWS builds its `eks/dranet`
 * image from (aws-dranet chart 1.0.0: `v1.2.0-eksbuild.2`): the driver name, the attribute the DeviceClass selects EFA
 * devices by, and that every PCI network device carries the standard PCIe-root attribute, computed by
 * k8s.io/dynamic-resource-allocation's `deviceattribute` (the same function NVIDIA's GPU DRA driver calls), so a
 * claim can match a GPU and EFA devices on one root.
 * Usage: npx tsx tests/contracts/extract/dranet.ts <dranet checkout> --ref v1.2.0 [--commit <sha>] > tests/contracts/facts/dranet.json
 */
import { checkoutArgs, matcher, printFacts, readText, today, withNotes } from "./_checkout";

export const PATHS = {
  app: "cmd/dranet/app.go",
  attributes: "pkg/apis/attributes.go",
  inventory: "pkg/inventory/db.go",
} as const;

const must = matcher("dranet");

/** The facts, from the three files. */
export function extract(read: (p: string) => string) {
  const attrs = read(PATHS.attributes);
  const prefix = must(/AttrPrefix = "([^"]+)"/, attrs, "AttrPrefix")[1];
  const attr = (name: string) =>
    `${prefix}/${must(new RegExp(`${name}\\s*=\\s*AttrPrefix \\+ "/" \\+ "(\\w+)"`), attrs, name)[1]}`;
  const inv = read(PATHS.inventory);
  return {
    driver: must(/driverName\s*=\s*"([^"]+)"/, read(PATHS.app), "driverName")[1],
    pciDeviceAttribute: attr("AttrPCIDevice"),
    rdmaDeviceAttribute: attr("AttrRDMADevice"),
    pciAddressAttribute: attr("AttrPCIAddress"),
    pcieRootFrom: must(/deviceattribute\.(GetPCIeRootAttributeByPCIBusID)\(pciDev\.Address\)/, inv, "pcieRoot")[1],
  };
}

if (require.main === module) {
  const usage = "npx tsx tests/contracts/extract/dranet.ts";
  const args = checkoutArgs(process.argv.slice(2), usage);
  printFacts(
    {
      repository: "kubernetes-sigs/dranet",
      ref: args.ref,
      commit: args.commit,
      paths: Object.values(PATHS),
      extracted: today(),
      extractor: "tests/contracts/extract/dranet.ts",
      notes: withNotes(
        "The release AWS's eks/dranet:v1.2.0-eksbuild.2 image (aws-dranet chart 1.0.0) is built from.",
        args,
      ),
    },
    extract((p) => readText(args.root, p)),
  );
}
