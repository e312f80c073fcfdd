/**
 * `npm run measure` on each stack kind: a model stack's graph (namespace, name, pool, workers, release) is read from
 * its own config wired to its cluster stack's outputs, as the program wires it (the recorded file it names, or
 * --cluster-outputs); a model stack that does not fit those outputs is exit 2 with the fix; a cluster stack serves
 * no graph, so measure says which model stacks to measure instead.
 */
import { strict as assert } from "assert";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "../../tools/measure/args";
import { main } from "../../tools/measure/cli";
import { ExitCode } from "../../tools/_shared/exit-codes";
import { stackInference } from "../../tools/verify/target";
import { closedPort } from "../verify/cli-harness";
import { kubeconfigText } from "../verify/fake-kube";

const ROOT = join(__dirname, "..", "..");
const IMAGE = `123456789012.dkr.ecr.us-east-2.amazonaws.com/aiperf@sha256:${"c".repeat(64)}`;
const file = (stack: string) => join(ROOT, "stacks", `Pulumi.${stack}.yaml`);

async function run(argv: string[], cwd = ROOT) {
  let err = "";
  const code = await main(argv, { stdout: () => undefined, stderr: (s) => (err += s), root: ROOT, cwd });
  return { code, err };
}

describe("measure on a model stack and a cluster stack", () => {
  it("parses --cluster-outputs (resolved against where npm ran, like --kubeconfig)", () => {
    const a = parse(["p5en-llama-8b", "--cluster-outputs", "live.json"], undefined);
    assert.equal(a.help, false);
    if (a.help) return;
    assert.equal(a.clusterOutputs, "live.json");
    const b = parse(["p5en-llama-8b"], undefined);
    assert.equal(!b.help && b.clusterOutputs, undefined);
  });

  it("reads each model stack's graph as the program wires it on p5en-cluster", () => {
    const r8 = stackInference(ROOT, file("p5en-llama-8b")).resolved;
    assert.deepEqual(
      [r8.graphName, r8.namespace, r8.model, r8.release, r8.platformNamespace],
      ["llama-8b", "llama-8b", "meta-llama/Llama-3.1-8B-Instruct", "dynamo-1.6", "dynamo-system"],
    );
    assert.deepEqual([r8.pool.name, r8.pool.nodes, r8.pool.gpusPerNode], ["llama-8b", 2, 8]);
    assert.deepEqual([r8.prefill.replicas, r8.decode.replicas, r8.prefill.gpusPerWorker], [8, 8, 1]);
    // The pool's own node selector (the benchmark Job and the twin land on the model's nodes, not another's).
    assert.deepEqual(r8.pool.nodeSelector, {
      "dynamo-efa/pool": "llama-8b",
      "node.kubernetes.io/instance-type": "p5en.48xlarge",
    });
    const r70 = stackInference(ROOT, file("p5en-llama-70b")).resolved;
    assert.deepEqual([r70.graphName, r70.namespace, r70.pool.name], ["llama-70b", "llama-70b", "llama-70b"]);
    assert.deepEqual([r70.prefill.replicas, r70.decode.replicas, r70.prefill.gpusPerWorker], [1, 1, 8]);
  });

  it("a cluster stack is exit 2 naming the model stacks to measure; a misfit is exit 2 with the fix", async function () {
    this.timeout(60000);
    const cluster = await run(["p5en-cluster"]);
    assert.equal(cluster.code, ExitCode.InvalidConfig);
    assert.match(
      cluster.err,
      /p5en-cluster is a cluster stack: it serves no graph to measure\. Run it on each model stack on it \(p5en-llama-70b, p5en-llama-8b\): npm run measure -- <model stack>/,
    );
    const dir = mkdtempSync(join(tmpdir(), "measure-kinds-"));
    try {
      const outputs = JSON.parse(readFileSync(join(ROOT, "stacks", "outputs", "p5en-cluster.json"), "utf8"));
      outputs.cluster.poolInstanceTypes = ["p5.48xlarge"];
      writeFileSync(join(dir, "live.json"), JSON.stringify(outputs));
      const misfit = await run(["p5en-llama-8b", "--cluster-outputs", "live.json"], dir);
      assert.equal(misfit.code, ExitCode.InvalidConfig);
      assert.match(misfit.err, /gpuPool\.instanceType: "p5en\.48xlarge" is not one of the types the cluster stack/);
      // The stack that fits reads through to the cluster: here one that does not answer (exit 3), nothing written.
      const kubeconfig = join(dir, "kubeconfig");
      writeFileSync(kubeconfig, kubeconfigText(`http://127.0.0.1:${await closedPort()}`));
      const fits = await run([
        "p5en-llama-8b",
        "--kubeconfig",
        kubeconfig,
        "--out",
        join(dir, "out"),
        "--aiperf-image",
        IMAGE,
      ]);
      assert.equal(fits.code, ExitCode.Unreachable, fits.err);
      assert.equal(existsSync(join(dir, "out")), false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
