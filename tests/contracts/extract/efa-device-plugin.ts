/**
 * Extracts what the EFA device plugin's chart says about how it runs, at the chart version installed: the image
 * (appVersion), that it runs privileged as root on the host network, and every host path it mounts. The plugin's own
 * source is not public (only its image is published), so its GPU-EFA topology logic cannot be read; what it can
 * reach can: the kubelet's device-plugin directory (with the kubelet's allocation checkpoint), `/dev/infiniband` and
 * `/opt/aws/neuron`, and nothing of the NVIDIA driver. eks-charts#1245 made it privileged for that logic ("EFA
 * device plugin needs to access neuron devices info which required privilege access"; its test log on p5:
 * "EfaDeviceTopology initialized successfully with 8 GPUs and 32 EFAs").
 * Usage: npx tsx tests/contracts/extract/efa-device-plugin.ts <eks-charts checkout> --ref master --commit <sha> > tests/contracts/facts/efa-device-plugin.json
 */
import YAML from "yaml";
import { checkoutArgs, matcher, printFacts, readText, today, withNotes } from "./_checkout";
import { at } from "../json";

const CHART = "stable/aws-efa-k8s-device-plugin";
export const PATHS = {
  chart: `${CHART}/Chart.yaml`,
  values: `${CHART}/values.yaml`,
  daemonset: `${CHART}/templates/daemonset.yaml`,
} as const;

const must = matcher("efa-device-plugin");

/** The facts, from the chart. */
export function extract(read: (p: string) => string) {
  const chart = YAML.parse(read(PATHS.chart)) as unknown;
  const values = YAML.parse(read(PATHS.values)) as unknown;
  const ds = read(PATHS.daemonset);
  const volumes = ds.slice(must(/^ {6}volumes:$/m, ds, "volumes").index);
  return {
    chartVersion: String(at(chart, "version")),
    pluginVersion: String(at(chart, "appVersion")),
    privileged: at(values, "securityContext", "privileged") === true,
    runAsUser: at(values, "securityContext", "runAsUser"),
    hostNetwork: /^\s+hostNetwork: true$/m.test(ds),
    hostPaths: [...volumes.matchAll(/hostPath:\n\s+path: (\S+)/g)].map((m) => m[1]),
  };
}

if (require.main === module) {
  const usage = "npx tsx tests/contracts/extract/efa-device-plugin.ts";
  const args = checkoutArgs(process.argv.slice(2), usage);
  printFacts(
    {
      repository: "aws/eks-charts",
      ref: args.ref,
      commit: args.commit,
      paths: Object.values(PATHS),
      extracted: today(),
      extractor: "tests/contracts/extract/efa-device-plugin.ts",
      notes: withNotes(
        "The plugin's source is not public: the image 602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/aws-efa-k8s-device-plugin is published without it (aws-samples/aws-efa-eks holds manifests only), so its topology logic could not be read. The chart has been privileged since v0.5.16 (#1245, c64d880, 2025-09-03).",
        args,
      ),
    },
    extract((p) => readText(args.root, p)),
  );
}
