/**
 * `verify`'s target from the stack file, read with render's loader and checked with the program's
 * schema: namespace, graph, served model, backend and KV transport default exactly as the program's,
 * flags override the file, and a missing or invalid stack is a usage error.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { parse as parseYaml } from "yaml";
import { resolveTarget, UsageError } from "../../tools/verify/target";
import { projectWith, stackText } from "./stacks";

describe("verify stack resolution", () => {
  let root: string;
  before(() => {
    root = projectWith({
      p5en: stackText("    backend: vllm\n    model: meta-llama/Llama-3.1-8B-Instruct\n    namespace: serving\n"),
      empty: "config:\n  aws:region: us-east-2\n",
      named: stackText("    model: acme/m\n    servedModelName: served\n", "  dynamo-efa:graphName: chat\n"),
      bare: stackText("    model: acme/m\n", "", ""),
    });
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  it("reads the stack file, with the program's defaults for servedModelName and graphName", () => {
    const { estimate, ...target } = resolveTarget("p5en", {}, root);
    // The plan's serving estimate at the default workload (tests/verify/prometheus.spec.ts reads its use).
    assert.equal(estimate?.declared, false);
    assert.deepEqual(target, {
      namespace: "serving",
      graph: "llm",
      servedModel: "meta-llama/Llama-3.1-8B-Instruct",
      backend: "vllm",
      kvTransport: "LIBFABRIC",
      // Gate A judges this pool's nodes only (its `dynamo-efa/pool` label).
      pool: "gpu",
      source: path.join("stacks", "Pulumi.p5en.yaml"),
    });
  });
  it("resolves the stack's kvTransport like the program: auto follows the pool's EFA, explicit choices win", () => {
    const cases: [string, string, string][] = [
      ["", "p5en.48xlarge", "LIBFABRIC"],
      ["    kvTransport: auto\n", "g6e.12xlarge", "UCX"],
      ["    kvTransport: ucx\n", "p5en.48xlarge", "UCX"],
    ];
    const dir = projectWith(
      Object.fromEntries(
        cases.map(([kv, type], i) => [
          `kv${i}`,
          stackText(`    model: acme/m\n${kv}`).replace("instanceType: p5en.48xlarge", `instanceType: ${type}`),
        ]),
      ),
    );
    try {
      for (const [i, [kv, type, want]] of cases.entries())
        assert.equal(resolveTarget(`kv${i}`, {}, dir).kvTransport, want, `${kv.trim() || "default"} on ${type}`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  it("reads the top-level graphName the program reads, and defaults backend and namespace like the program", () => {
    const t = resolveTarget("named", {}, root);
    assert.deepEqual([t.namespace, t.graph, t.servedModel, t.backend], ["dynamo", "chat", "served", "vllm"]);
  });
  it("names the same graph and namespace as the rendered p5en-8gpu stack", () => {
    const repo = path.resolve(__dirname, "..", "..");
    const t = resolveTarget("p5en-8gpu", {}, repo);
    const dir = path.join(repo, "tests", "golden", "render", "p5en-8gpu", "manifests");
    const file = path.join(
      dir,
      fs.readdirSync(dir).find((f) => f.includes("-dynamographdeployment-"))!,
    );
    const dgd = parseYaml(fs.readFileSync(file, "utf8")) as { metadata: { name: string; namespace: string } };
    assert.deepEqual([t.graph, t.namespace], [dgd.metadata.name, dgd.metadata.namespace]);
  });
  it("lets flags override the stack file", () => {
    const t = resolveTarget("p5en", { namespace: "x", graph: "g", model: "m", backend: "trtllm" }, root);
    assert.deepEqual([t.namespace, t.graph, t.servedModel, t.backend], ["x", "g", "m", "trtllm"]);
  });
  it("works from flags alone when there is no stack file", () => {
    assert.equal(resolveTarget("nope", { model: "m", backend: "trtllm" }, root).namespace, "dynamo");
  });
  it("reads keys without the namespace as render does (one loader)", () => {
    assert.deepEqual(resolveTarget("bare", {}, root).servedModel, "acme/m");
  });
  it("rejects a missing stack file without flags, an invalid stack config, and a backend the program cannot run (one schema)", () => {
    assert.throws(
      () => resolveTarget("nope", {}, root),
      (e: Error) =>
        e instanceof UsageError && /no stack file .*Pulumi\.nope\.yaml; pass --model and --backend/.test(e.message),
    );
    assert.throws(
      () => resolveTarget("empty", {}, root),
      // No graph and no pool is a cluster stack: checked as one, and the message says it was read as one.
      /stacks\/Pulumi\.empty\.yaml is not a valid stack config \(read as a cluster stack: no inference and no cluster\.gpuPools, so no graph\): \d+ problems\n {2}- cluster\.gpuPools: a cluster needs GPU pools of its own/,
    );
    assert.throws(
      () => resolveTarget("nope", { model: "m", backend: "tgi" }, root),
      /- --backend: must be one of "vllm", "trtllm"; got "tgi"/,
    );
    assert.throws(
      () => resolveTarget("nope", { model: "m", backend: "sglang" }, root),
      /- --backend: must be one of "vllm", "trtllm"; got "sglang"/,
    );
    assert.throws(
      () => resolveTarget("../x", { model: "m", backend: "vllm" }, root),
      /"\.\.\/x" is not a valid stack name/,
    );
  });
});
