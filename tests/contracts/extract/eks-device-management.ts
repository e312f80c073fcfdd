/**
 * Extracts what AWS's EKS user guide says about GPU and EFA device management, which settles this project's
 * `cluster.deviceAllocation` (docs/ARCHITECTURE.md#gpu-and-efa-pairing): "Manage EFA devices on Amazon EKS"
 * (`latest/ug/ml/device-management-efa.adoc`) and "Use the NVIDIA DRA driver or device plugin on Amazon EKS"
 * (`latest/ug/ml/device-management-nvidia-dra-device-plugin.adoc`): the minimum Kubernetes version of the DRA drivers,
 * the recommendation, the EFA DRA driver's driver and DeviceClass names and chart, the pairing constraint, what the
 * EFA device plugin's topology awareness needs (the AMI), that neither DRA driver shares a node with its device
 * plugin, and how NVIDIA's GPU DRA driver is installed.
 * Usage: npx tsx tests/contracts/extract/eks-device-management.ts <amazon-eks-user-guide checkout> --ref main --commit <sha> > tests/contracts/facts/eks-device-management.json
 */
import { checkoutArgs, matcher, printFacts, readText, today, withNotes } from "./_checkout";

export const PATHS = {
  efa: "latest/ug/ml/device-management-efa.adoc",
  nvidia: "latest/ug/ml/device-management-nvidia-dra-device-plugin.adoc",
} as const;

const must = matcher("eks-device-management");
const flat = (s: string) => s.replace(/\s+/g, " ").trim();

/** The facts, from the two pages' text. */
export function extract(read: (p: string) => string) {
  const efa = read(PATHS.efa);
  const nv = read(PATHS.nvidia);
  const rec = must(
    /We recommend using DRA drivers for new deployments with Kubernetes versions ([\d.]+) and later/,
    efa,
    "rec",
  );
  const example = must(
    /kind: ResourceClaimTemplate\nmetadata:\n {2}name: aligned-efa-nvidia[\s\S]*?----/,
    efa,
    "example",
  )[0];
  const install = must(/helm install dra-driver-nvidia-gpu[\s\S]*?\n\n/, nv, "NVIDIA DRA install")[0];
  return {
    draRecommendedFromKubernetes: rec[1],
    draMinimumKubernetes: must(/\| Minimum Kubernetes version\n\| ([\d.]+)\n/, efa, "minimum version")[1],
    efaDraDriver: {
      driver: must(/with the driver name `([^`]+)` and the `DeviceClass` name `([^`]+)`/, efa, "driver")[1],
      deviceClass: must(/with the driver name `[^`]+` and the `DeviceClass` name `([^`]+)`/, efa, "class")[1],
      helmInstall: flat(must(/helm install aws-dranet (\S+) --namespace (\S+)/, efa, "install")[0]),
      notWithDevicePlugin: /The two mechanisms cannot coexist on the same node/.test(efa),
    },
    pairing: {
      matchAttribute: must(/matchAttribute: "([^"]+)"/, example, "matchAttribute")[1],
      gpuDeviceClass: must(/deviceClassName: (gpu\.[\w.]+)/, example, "GPU class")[1],
      p5EfaPerGpuRoot: Number(
        { four: 4, two: 2, one: 1 }[
          must(
            /on `p5\.48xlarge` instances there are (\w+) EFA devices that share the same PCIe root with one GPU/,
            efa,
            "p5",
          )[1]
        ],
      ),
    },
    devicePlugin: {
      gpuEfaAffinity: must(/\| GPU-EFA affinity\n\| [^\n]+\n\| ([^\n]+)\n/, efa, "affinity row")[1],
      alignment: flat(must(/Topology-aligned allocation of NVIDIA GPUs[^\n]*?custom AMIs\./, efa, "alignment")[0]),
    },
    gpuDraDriver: {
      chart: must(/(oci:\/\/\S+)/, install, "OCI chart")[1],
      version: must(/--version \[\.replaceable\]`([^`]+)`/, install, "version")[1],
      set: [...install.matchAll(/--set (\S+)/g)].map((m) => m[1]),
      deviceClass: must(/^(gpu\.nvidia\.com)\s/m, nv, "GPU DeviceClass")[1],
      notWithDevicePlugin: /do not deploy it alongside the NVIDIA device plugin on the same node/.test(nv),
    },
  };
}

if (require.main === module) {
  const usage = "npx tsx tests/contracts/extract/eks-device-management.ts";
  const args = checkoutArgs(process.argv.slice(2), usage);
  printFacts(
    {
      repository: "awsdocs/amazon-eks-user-guide",
      ref: args.ref,
      commit: args.commit,
      paths: Object.values(PATHS),
      extracted: today(),
      extractor: "tests/contracts/extract/eks-device-management.ts",
      notes: withNotes("AWS's EKS user guide pages on EFA and NVIDIA GPU device management.", args),
    },
    extract((p) => readText(args.root, p)),
  );
}
