/**
 * verify on each stack kind (program/config.ts `stackKindOf`): a model stack's graph is found from its own config
 * wired to its cluster stack's outputs (the recorded file it names, or --cluster-outputs), as the program wires it;
 * and runs its gates against the fake cluster with no graph flag at all. A model stack that does not fit the cluster
 * stack's outputs, or whose outputs cannot be read, is a usage error (exit 2) with the fix. A cluster stack is
 * verified for what it owns (system nodes, platform, device plugins, monitoring) against a fake of that cluster, its
 * graph gates SKIPPED as not applying, which never fails the run.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { resolveTarget, resolveVerifyTarget, UsageError } from "../../tools/verify/target";
import { projectWith } from "./stacks";
import { MODEL, startFrontend } from "./fake-frontend";
import { GRAPH, NAMESPACE, startKube } from "./fake-kube";
import { ClusterScenario, startClusterStack } from "./fake-cluster-stack";

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
        pool: graph,
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
      // Gate A reads the nodes of this model's pool only: another model's nodes on the cluster are not its own.
      assert.ok(
        kube.requests.some((r) => r.path === "/api/v1/nodes?labelSelector=dynamo-efa%2Fpool%3Dllama"),
        JSON.stringify(kube.requests.map((r) => r.path)),
      );
    } finally {
      await fe.close();
      await kube.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

/** One verify of the repository's p5en-cluster against the fake cluster stack: exit code, output, the report. */
async function verifyCluster(main: Main, scenario: ClusterScenario, extra: string[] = []) {
  const kube = await startClusterStack(scenario);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verify-cluster-json-"));
  try {
    const json = path.join(dir, "r.json");
    let out = "";
    const code = await main(
      ["p5en-cluster", "--kubeconfig", kube.kubeconfig, "--timeout", "10", "--json", json, ...extra],
      { stdout: (s) => (out += s), stderr: (s) => (out += s), root: REPO },
    );
    const report = fs.existsSync(json)
      ? (JSON.parse(fs.readFileSync(json, "utf8")) as {
          exitCode: number;
          target: { kind: string; stack: string; modelStacks: string[] };
          gates: { id: string; status: string; evidence: string[]; notApplicable?: boolean }[];
        })
      : undefined;
    return { code, out, report, requests: kube.requests.map((r) => r.path) };
  } finally {
    await kube.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe("verify on a cluster stack: what it owns, and no graph gate", function () {
  this.timeout(120000);
  let main: Main;
  before(async () => {
    main = (await import("../../tools/verify/cli")).main;
  });

  it("passes on a healthy cluster: system nodes, platform, device plugins, monitoring; graph gates SKIPPED as not applying", async () => {
    const r = await verifyCluster(main, "healthy");
    assert.equal(r.code, 0, r.out);
    assert.deepEqual(
      r.report!.gates.map((g) => `${g.id}:${g.status}`),
      ["N:PASS", "P:PASS", "V:PASS", "M:PASS", "A:SKIPPED", "B:SKIPPED", "C:SKIPPED", "D:SKIPPED", "E:SKIPPED"],
    );
    const gate = (id: string) => r.report!.gates.find((g) => g.id === id)!;
    assert.equal(gate("N").evidence[0], "2 system nodes Ready (dynamo-efa/role=system)");
    assert.equal(gate("P").evidence[0], "1 pods Running+Ready in dynamo-system (1 finished hook pods)");
    // The device plugins the cluster stack installs for p5en.48xlarge pools, at the pinned chart versions.
    assert.deepEqual(gate("V").evidence, [
      "DaemonSet dynamo-efa-nvidia-device-plugin-3f2a1b9c (nvidia-device-plugin-0.20.0): on no node yet: it runs on GPU nodes, which the model stacks' pools bring",
      "DaemonSet dynamo-efa-efa-device-plugin-8d1e-aws-efa-k8s-device-plugin (aws-efa-k8s-device-plugin-v0.5.30): on no node yet: it runs on GPU nodes, which the model stacks' pools bring",
    ]);
    assert.match(
      gate("M").evidence.join("\n"),
      /Prometheus prometheus-kps-prometheus-0 Running\+Ready in monitoring\n.*dcgm-exporter-4\.8\.2/,
    );
    for (const id of ["A", "B", "C", "D", "E"]) {
      assert.equal(gate(id).notApplicable, true);
      assert.equal(
        gate(id).evidence[0],
        "does not apply: p5en-cluster is a cluster stack and serves no graph; verify the graphs on it with npm run verify -- p5en-llama-70b, npm run verify -- p5en-llama-8b",
      );
    }
    assert.deepEqual(r.report!.target, {
      kind: "cluster",
      stack: "p5en-cluster",
      source: "stacks/Pulumi.p5en-cluster.yaml",
      modelStacks: ["p5en-llama-70b", "p5en-llama-8b"],
    });
    assert.match(r.out, /^verify cluster stack p5en-cluster: system nodes, platform, device plugins, monitoring/);
  });

  it("fails naming the node that is not Ready, and the device plugin that is missing", async () => {
    const notReady = await verifyCluster(main, "nodeNotReady");
    assert.equal(notReady.code, 1);
    assert.deepEqual(notReady.report!.gates.find((g) => g.id === "N")!.evidence, ["node ip-10-0-2-11: not Ready"]);
    const noEfa = await verifyCluster(main, "noEfaPlugin");
    assert.equal(noEfa.code, 1);
    assert.deepEqual(noEfa.report!.gates.find((g) => g.id === "V")!.evidence, [
      "no DaemonSet of chart aws-efa-k8s-device-plugin v0.5.30 in kube-system (helm.sh/chart=aws-efa-k8s-device-plugin-v0.5.30)",
    ]);
  });

  it("refuses graph flags on a cluster stack (exit 2), saying which model stacks to verify", async () => {
    const r = await verifyCluster(main, "healthy", ["--graph", "llama"]);
    assert.equal(r.code, 2);
    assert.match(
      r.out,
      /p5en-cluster is a cluster stack: it serves no graph, so --graph cannot apply\. Verify a graph on it with npm run verify -- <model stack> \(p5en-llama-70b, p5en-llama-8b\)/,
    );
    const url = await verifyCluster(main, "healthy", ["--url", "http://127.0.0.1:8000"]);
    assert.equal(url.code, 2);
    assert.match(url.out, /--url checks a graph; p5en-cluster is a cluster stack and serves none/);
    assert.deepEqual(url.requests, []);
  });
});
