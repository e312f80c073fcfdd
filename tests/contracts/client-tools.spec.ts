/**
 * The tools the user's machine runs to reach the cluster, held to tests/contracts/facts/client-tools.json: the
 * kubeconfig pulumi-eks writes (and the render's mock of it) runs `aws eks get-token` asking for the v1beta1 client
 * API, so the README's AWS CLI minimum is the first release that answers in it; kubectl's range is the cluster's
 * Kubernetes version plus and minus the skew Kubernetes supports.
 */
import { strict as assert } from "assert";
import { placeholderKubeconfig } from "../../tools/render/capture/mocks";
import { CLIENT_TOOLS, VALUES } from "../../tools/doc-facts/values";
import { kubernetes } from "../../components/versions";
import { loadFacts } from "./facts";

interface ClientTools {
  kubeconfig: { command: string; args: string[]; execApiVersion: string; kubernetesExecInfo: { apiVersion: string } };
  awsCli: { minimum: { v2: string; v1: string }; check: string };
  kubectl: { skewMinors: number; check: string };
}
const { facts } = loadFacts<ClientTools>("client-tools");

type Tools = {
  awsCli: { v2: string; v1: string; check: string };
  kubectl: { skewMinors: number; check: string };
};

/** What differs between the tool table and the facts; empty when they agree. */
function toolProblems(tools: Tools): string[] {
  const out: string[] = [];
  if (tools.awsCli.v2 !== facts.awsCli.minimum.v2 || tools.awsCli.v1 !== facts.awsCli.minimum.v1)
    out.push(`AWS CLI minimum ${tools.awsCli.v2}/${tools.awsCli.v1}, facts ${JSON.stringify(facts.awsCli.minimum)}`);
  if (tools.awsCli.check !== facts.awsCli.check) out.push(`AWS CLI check ${tools.awsCli.check}`);
  if (tools.kubectl.skewMinors !== facts.kubectl.skewMinors) out.push(`kubectl skew ${tools.kubectl.skewMinors}`);
  if (tools.kubectl.check !== facts.kubectl.check) out.push(`kubectl check ${tools.kubectl.check}`);
  return out;
}

type Exec = { apiVersion: string; command: string; args: string[]; env: { name: string; value: string }[] };
const execOf = (kubeconfig: Record<string, unknown>): Exec =>
  (kubeconfig.users as { user: { exec: Exec } }[])[0]!.user.exec;

describe("client tools: the AWS CLI and kubectl the README asks for", () => {
  it("the tool table equals the facts, and a skewed minimum is caught", () => {
    assert.deepEqual(toolProblems(CLIENT_TOOLS), []);
    const skewed: Tools = { ...CLIENT_TOOLS, awsCli: { ...CLIENT_TOOLS.awsCli, v2: "2.6.0" } };
    assert.equal(toolProblems(skewed).length, 1);
  });

  it("the render's kubeconfig is pulumi-eks's: aws eks get-token, the v1beta1 client API, said in KUBERNETES_EXEC_INFO", () => {
    const exec = execOf(placeholderKubeconfig("c", "https://x", "us-east-2"));
    assert.equal(exec.command, facts.kubeconfig.command);
    assert.equal(exec.apiVersion, facts.kubeconfig.execApiVersion);
    const placeholders: Record<string, string> = { "<region>": "us-east-2", "<clusterName>": "c" };
    assert.deepEqual(
      exec.args,
      facts.kubeconfig.args.map((a) => placeholders[a] ?? a),
    );
    assert.deepEqual(
      exec.env.map((e) => [e.name, JSON.parse(e.value)]),
      [["KUBERNETES_EXEC_INFO", facts.kubeconfig.kubernetesExecInfo]],
    );
  });

  it("kubectl's range is the cluster's Kubernetes minor plus and minus the skew", async () => {
    const minor = Number(kubernetes.defaultVersion.split(".")[1]);
    const s = facts.kubectl.skewMinors;
    const none = { plan: () => Promise.reject(new Error("no render")) };
    assert.equal(await VALUES.kubectl!(none), `1.${minor - s} to 1.${minor + s}`);
    assert.match(
      await VALUES["aws-cli"]!(none),
      new RegExp(`^${facts.awsCli.minimum.v2.replace(/\./g, "\\.")} or later`),
    );
  });
});
