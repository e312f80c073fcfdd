/**
 * verify on each stack kind (program/config.ts `stackKindOf`): a model stack's graph is found from its own config
 * wired to its cluster stack's outputs (the recorded file it names, or --cluster-outputs), as the program wires it;
 * and runs its gates against the fake cluster with no graph flag at all. A model stack that does not fit the cluster
 * stack's outputs, or whose outputs cannot be read, is a usage error (exit 2) with the fix.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { resolveTarget, resolveVerifyTarget, UsageError } from "../../tools/verify/target";
import { projectWith } from "./stacks";
import { MODEL, startFrontend } from "./fake-frontend";
import { GRAPH, NAMESPACE, startKube } from "./fake-kube";

type Main = typeof import("../../tools/verify/cli").main;

const REPO = path.resolve(__dirname, "..", "..");
const OUTPUTS = path.join(REPO, "stacks", "outputs", "p5en-cluster.json");

/** A model stack on p5en-cluster naming the fake cluster's graph, with `extra` config lines. */
function modelStack(extra: readonly string[] = [`  dynamo-efa:clusterOutputs: ${OUTPUTS}`]): string {
  return [
    "config:",
    "  aws:region: us-east-2",
    "  dynamo-efa:clusterStack: p5en-cluster",
    `  dynamo-efa:graphName: ${GRAPH}`,
    "  dynamo-efa:observability: false",
    "  dynamo-efa:gpuPool: { instanceType: p5en.48xlarge, nodes: 1, availabilityZone: us-east-2b }",
    "  dynamo-efa:inference:",
    `    model: ${MODEL}`,
    `    namespace: ${NAMESPACE}`,
    "    prefill: { replicas: 1 }",
    "    decode: { replicas: 1 }",
    ...extra,
  ].join("\n");
}

/** The recorded cluster outputs with `edit` applied to the handoff, in a scratch file. */
function outputsWith(dir: string, edit: (h: Record<string, unknown>) => void): string {
  const o = JSON.parse(fs.readFileSync(OUTPUTS, "utf8")) as { cluster: Record<string, unknown> };
  edit(o.cluster);
  const file = path.join(dir, "cluster-outputs.json");
  fs.writeFileSync(file, JSON.stringify(o));
  return file;
}

describe("verify on a model stack: its graph from its config and its cluster stack's outputs", function () {
  this.timeout(120000); // imports the Kubernetes client under tsx: slow on two loaded cores

  it("reads the repository's model stacks as the program wires them: names, model, transport, estimate, Prometheus", () => {
    for (const [stack, graph, model] of [
      ["p5en-llama-8b", "llama-8b", "meta-llama/Llama-3.1-8B-Instruct"],
      ["p5en-llama-70b", "llama-70b", "meta-llama/Llama-3.1-70B-Instruct"],
    ] as const) {
      const t = resolveVerifyTarget(stack, {}, REPO);
      assert.equal(t.kind, "graph");
      if (t.kind !== "graph") return;
      const { estimate, ...target } = t.target;
      assert.deepEqual(target, {
        namespace: graph,
        graph,
        servedModel: model,
        backend: "vllm",
        kvTransport: "LIBFABRIC",
        source: `stacks/Pulumi.${stack}.yaml on p5en-cluster (outputs: stacks/outputs/p5en-cluster.json)`,
      });
      assert.ok(estimate && (estimate.ttftMs ?? 0) > 0 && (estimate.itlMs ?? 0) > 0, stack);
      // The graph's metrics are in the cluster stack's Prometheus, in the namespace its handoff names.
      assert.deepEqual(t.prometheus, {
        namespace: "monitoring",
        selector: "dynamo-efa/component=prometheus",
        port: 9090,
      });
    }
  });

  it("refuses a model stack that does not fit its cluster's outputs, with the fix, and unreadable outputs", () => {
    const root = projectWith({ m: modelStack() });
    try {
      const seed = outputsWith(root, (h) => ((h.platform as Record<string, unknown>).release = "seed"));
      assert.throws(
        () => resolveTarget("m", {}, root, seed),
        (e: Error) =>
          e instanceof UsageError &&
          /does not fit its cluster stack p5en-cluster/.test(e.message) &&
          /release: is "dynamo-1\.6", but the cluster stack .* runs the Dynamo platform of release "seed".*Set dynamo-efa:release: seed here/.test(
            e.message,
          ),
      );
      const noAz = outputsWith(root, (h) => (h.privateSubnetIds = { "us-east-2a": "subnet-1" }));
      assert.throws(
        () => resolveTarget("m", {}, root, noAz),
        /gpuPool\.availabilityZone: "us-east-2b" has no private subnet/,
      );
      assert.throws(
        () => resolveTarget("m", {}, root, path.join(root, "absent.json")),
        /clusterOutputs: cannot read .*absent\.json \(ENOENT\)/,
      );
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
    const bare = projectWith({ m: modelStack([]) });
    try {
      assert.throws(
        () => resolveTarget("m", {}, bare),
        /is a model stack on the cluster stack p5en-cluster: .*Pass --cluster-outputs FILE \(pulumi stack output --json -s p5en-cluster > FILE\)/,
      );
    } finally {
      fs.rmSync(bare, { recursive: true, force: true });
    }
  });

  it("runs the graph gates on the model stack's namespace and graph with no graph flag (the fake cluster)", async () => {
    const main: Main = (await import("../../tools/verify/cli")).main;
    const root = projectWith({ m: modelStack() });
    const fe = await startFrontend("pass");
    const kube = await startKube("libfabric", fe.url);
    try {
      const json = path.join(root, "r.json");
      let out = "";
      const code = await main(["m", "--kubeconfig", kube.kubeconfig, "--timeout", "10", "--json", json], {
        stdout: (s) => (out += s),
        stderr: (s) => (out += s),
        root,
      });
      assert.equal(code, 0, out);
      const report = JSON.parse(fs.readFileSync(json, "utf8")) as {
        target: { namespace: string; graph: string; source: string };
        gates: { id: string; status: string }[];
      };
      assert.deepEqual(
        report.gates.map((g) => `${g.id}:${g.status}`),
        ["A:PASS", "B:PASS", "C:PASS", "D:PASS", "E:PASS"],
      );
      assert.equal(report.target.namespace, NAMESPACE);
      assert.equal(report.target.graph, GRAPH);
      assert.match(report.target.source, /on p5en-cluster/);
    } finally {
      await fe.close();
      await kube.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
