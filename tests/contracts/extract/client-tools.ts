/**
 * Extracts what the user's machine runs to reach the cluster from pulumi-eks's kubeconfig generator
 * (nodejs/eks/cluster/cluster.ts `generateKubeconfig`): the exec command and its arguments, the client
 * authentication API version the kubeconfig asks for, and the KUBERNETES_EXEC_INFO it sets. The kubeconfig is what
 * the program's Kubernetes provider, `verify`, `measure` and kubectl all use, so the AWS CLI runs on every call.
 * Usage: npx tsx tests/contracts/extract/client-tools.ts <pulumi-eks checkout> --ref v4.3.0
 * The AWS CLI's first versions that answer in that API version and kubectl's version skew are read by hand (the fact
 * file's notes name the files).
 */
import { checkoutArgs, matcher, printFacts, readText, today, withNotes } from "./_checkout";

const PATH = "nodejs/eks/cluster/cluster.ts";
const args = checkoutArgs(process.argv.slice(2), "npx tsx tests/contracts/extract/client-tools.ts");
const text = readText(args.root, PATH);
const find = matcher("client-tools");
const fn = find(/export function generateKubeconfig\([\s\S]*?\n}\n/, text, "generateKubeconfig")[0];
const tokenArgs = find(/let args = \[([\s\S]*?)\];/, fn, "the token arguments")[1]!
  .split(",")
  .map((s) => s.trim())
  .filter((s) => s !== "")
  .map((s) => (s.startsWith('"') ? JSON.parse(s) : `<${s}>`));
const exec = find(/exec: \{\s*apiVersion: "([^"]+)",\s*command: "([^"]+)"/, fn, "the exec block");
const execInfo = find(/name: "KUBERNETES_EXEC_INFO",\s*value: `([^`]+)`/, fn, "KUBERNETES_EXEC_INFO");

/** Read by hand from aws/aws-cli's release change files (the CLI's changelog is built from them). */
const AWS_CLI = {
  minimum: { v2: "2.7.0", v1: "1.24.0" },
  why: "the first releases whose `eks get-token` answers in client.authentication.k8s.io/v1beta1",
  source:
    "aws/aws-cli@1298edf51ea34538e2ffa59d49b921056ae0f1a6 .changes/2.7.0.json and " +
    "aws/aws-cli@1c4dc23210c2f15cbdb79ac2ee0151914335e65d .changes/1.24.0.json, each: " +
    "'``eks get-token``: All eks get-token commands default to api version v1beta1.' and " +
    "'Correctly fallback to client.authentication.k8s.io/v1beta1 API if KUBERNETES_EXEC_INFO is undefined'; " +
    "aws/aws-cli@05c1ed9f awscli/customizations/eks/get_token.py: v1 and v1beta1 fully supported, v1alpha1 deprecated",
  check: "aws --version",
};
/** Read by hand from Kubernetes' version skew policy. */
const KUBECTL = {
  skewMinors: 1,
  source:
    "kubernetes/website@01bc09751ea95187842d07b12453df0eba104622 content/en/releases/version-skew-policy.md: " +
    "'kubectl is supported within one minor version (older or newer) of kube-apiserver.'",
  check: "kubectl version --client",
};

printFacts(
  {
    repository: "pulumi/pulumi-eks",
    ref: args.ref,
    commit: args.commit,
    paths: [PATH],
    extracted: today(),
    extractor: `tests/contracts/extract/client-tools.ts <pulumi-eks checkout> --ref ${args.ref}`,
    notes: withNotes(
      "kubeconfig is extracted; awsCli and kubectl are read by hand and written in the extractor, each with its source.",
      args,
    ),
  },
  {
    kubeconfig: {
      command: exec[2],
      args: tokenArgs,
      execApiVersion: exec[1],
      kubernetesExecInfo: JSON.parse(execInfo[1]!) as unknown,
    },
    awsCli: AWS_CLI,
    kubectl: KUBECTL,
  },
);
