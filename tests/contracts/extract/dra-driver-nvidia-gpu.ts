/**
 * Extracts what NVIDIA's GPU DRA driver publishes and needs, from kubernetes-sigs/dra-driver-nvidia-gpu at the chart
 * version this project pins: the GPU DeviceClass and its selector, that the chart refuses GPU allocation unless
 * `gpuResourcesEnabledOverride` says the NVIDIA device plugin is not on the same nodes, the node labels the kubelet
 * plugin's default affinity requires, the device name, and that each GPU carries the standard PCIe-root attribute
 * (k8s.io/dynamic-resource-allocation `deviceattribute`, as the EFA DRA driver does).
 * Usage: npx tsx tests/contracts/extract/dra-driver-nvidia-gpu.ts <checkout> --ref v0.4.1 [--commit <sha>] > tests/contracts/facts/dra-driver-nvidia-gpu.json
 */
import YAML from "yaml";
import { checkoutArgs, matcher, printFacts, readText, today, withNotes } from "./_checkout";
import { at } from "../json";

const CHART = "deployments/helm/dra-driver-nvidia-gpu";
export const PATHS = {
  deviceClass: `${CHART}/templates/deviceclass-gpu.yaml`,
  validation: `${CHART}/templates/validation.yaml`,
  values: `${CHART}/values.yaml`,
  nvlib: "cmd/gpu-kubelet-plugin/nvlib.go",
  deviceinfo: "cmd/gpu-kubelet-plugin/deviceinfo.go",
} as const;

const must = matcher("dra-driver-nvidia-gpu");

/** The facts, from the chart and the kubelet plugin's source. */
export function extract(read: (p: string) => string) {
  const dc = read(PATHS.deviceClass);
  const values = YAML.parse(read(PATHS.values)) as unknown;
  const terms = at(
    values,
    "kubeletPlugin",
    "affinity",
    "nodeAffinity",
    "requiredDuringSchedulingIgnoredDuringExecution",
    "nodeSelectorTerms",
  ) as {
    matchExpressions: { key: string }[];
  }[];
  return {
    deviceClass: must(/kind: DeviceClass\nmetadata:\n {2}name: (\S+)/, dc, "DeviceClass name")[1],
    deviceClassSelector: must(/expression: "([^"]+)"/, dc, "selector")[1],
    extendedResourceName: must(/extendedResourceName: (\S+)/, dc, "extendedResourceName")[1],
    gpuAllocationNeedsOverride:
      /if and \.Values\.resources\.gpus\.enabled \(not \.Values\.gpuResourcesEnabledOverride\)/.test(
        read(PATHS.validation),
      ),
    kubeletPluginDefaultNodeLabels: terms.flatMap((t) => t.matchExpressions.map((e) => e.key)),
    deviceName: must(/return fmt\.Sprintf\("(gpu-%d)", d\.minor\)/, read(PATHS.deviceinfo), "device name")[1],
    pcieRootFrom: must(
      /deviceattribute\.(GetPCIeRootAttributeByPCIBusID)\(pciBusID\)/,
      read(PATHS.nvlib),
      "pcieRoot",
    )[1],
  };
}

if (require.main === module) {
  const usage = "npx tsx tests/contracts/extract/dra-driver-nvidia-gpu.ts";
  const args = checkoutArgs(process.argv.slice(2), usage);
  printFacts(
    {
      repository: "kubernetes-sigs/dra-driver-nvidia-gpu",
      ref: args.ref,
      commit: args.commit,
      paths: Object.values(PATHS),
      extracted: today(),
      extractor: "tests/contracts/extract/dra-driver-nvidia-gpu.ts",
      notes: withNotes("NVIDIA's GPU DRA driver (moved from NVIDIA/k8s-dra-driver-gpu to kubernetes-sigs).", args),
    },
    extract((p) => readText(args.root, p)),
  );
}
