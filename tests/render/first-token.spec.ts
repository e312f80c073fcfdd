/**
 * The acceptance of the first-token check on the shipped stacks: p5en-8gpu (vLLM and TensorRT-LLM), p5en-1gpu and the
 * model stacks p5en-llama-8b and p5en-llama-70b render it as a Job that `pulumi up` waits for after the graph
 * (resources.json: it depends on the graph, with the plan's time as its timeout), the rendered NetworkPolicies admit
 * it to the Frontend's port and nowhere else, and the plan lists it among what `pulumi up` waits for, with its time.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import YAML from "yaml";
import { defaultDeps, runCli } from "../../tools/render/cli/cli";
import { isDgdType } from "../../components/inference/dgd-v1beta1";
import { GraphService, OperatorLabel } from "../../components/_shared/names";
import type { NetworkPolicyObject } from "../../components/inference/network";
import { allows, Endpoint } from "../helpers/network-policy-eval";

interface Rendered {
  readonly resources: {
    type: string;
    name: string;
    urn: string;
    dependsOn: string[];
    customTimeouts?: { create?: string; update?: string };
    inputs: Record<string, unknown>;
  }[];
  readonly plan: { pulumiUpWaits: { resource: string; seconds: number }[] };
  readonly planMd: string;
  readonly policies: NetworkPolicyObject[];
}

async function render(stack: string, set: string[]): Promise<Rendered> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "first-token-"));
  try {
    const log: string[] = [];
    const argv = [stack, "--out", tmp, ...set.flatMap((s) => ["--set", s])];
    const code = await runCli(argv, { ...defaultDeps(), stdout: (l) => log.push(l), stderr: (l) => log.push(l) });
    assert.equal(code, 0, log.join("\n"));
    const dir = path.join(tmp, stack);
    const manifests = path.join(dir, "manifests");
    return {
      resources: JSON.parse(fs.readFileSync(path.join(dir, "resources.json"), "utf8")),
      plan: JSON.parse(fs.readFileSync(path.join(dir, "plan.json"), "utf8")),
      planMd: fs.readFileSync(path.join(dir, "plan.md"), "utf8"),
      policies: fs
        .readdirSync(manifests)
        .filter((f) => f.includes("networkpolicy"))
        .map((f) => YAML.parse(fs.readFileSync(path.join(manifests, f), "utf8"))),
    };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const CASES: [string, string[]][] = [
  ["p5en-8gpu", []],
  ["p5en-8gpu", ["inference.backend=trtllm"]],
  ["p5en-1gpu", []],
  // The model stacks bring their own graph onto a shared cluster (its handoff read from the file they name).
  ["p5en-llama-8b", []],
  ["p5en-llama-70b", []],
];

describe("render: the shipped stacks wait for a first token", function () {
  this.timeout(300_000);
  for (const [stack, set] of CASES)
    it(`${stack} ${set.join(" ") || "(vllm)"}: a Job after the graph, with the plan's time; admitted to the Frontend only`, async () => {
      const r = await render(stack, set);
      const graph = r.resources.find((x) => isDgdType(x.type))!;
      const jobs = r.resources.filter((x) => x.type === "kubernetes:batch/v1:Job");
      assert.equal(jobs.length, 1);
      const job = jobs[0];
      assert.ok(job.dependsOn.includes(graph.urn), "the Job waits for the graph");
      assert.deepEqual(
        r.resources.filter((x) => x.dependsOn.includes(job.urn)).map((x) => x.name),
        [],
        "nothing waits for the check",
      );
      const [graphWait, checkWait] = r.plan.pulumiUpWaits;
      assert.match(graphWait.resource, /^DynamoGraphDeployment /);
      assert.match(checkWait.resource, /^Job .*-first-token-/);
      assert.equal(job.customTimeouts?.create, `${checkWait.seconds}s`);
      assert.ok(r.planMd.includes("## What `pulumi up` waits for"), "plan.md lists it");
      assert.ok(r.planMd.includes(`at most ${checkWait.seconds} s`), "with its time");

      const md = job.inputs.metadata as { name: string; namespace: string };
      const labels = (job.inputs.spec as { template: { metadata: { labels: Record<string, string> } } }).template
        .metadata.labels;
      const check: Endpoint = { pod: { namespace: md.namespace, labels }, ip: "10.0.1.34" };
      const graphName = (graph.inputs.metadata as { name: string }).name;
      const at = (service: GraphService, ip: string): Endpoint => ({
        pod: {
          namespace: md.namespace,
          labels: { [OperatorLabel.GraphName]: graphName, [OperatorLabel.Component]: service },
        },
        ip,
      });
      const tcp = (to: Endpoint, port: number) => ({ from: check, to, protocol: "TCP" as const, port });
      assert.ok(allows(r.policies, tcp(at(GraphService.Frontend, "10.0.1.10"), 8000)));
      assert.ok(!allows(r.policies, tcp(at(GraphService.Decode, "10.0.1.20"), 9090)));
      assert.ok(!allows(r.policies, tcp({ ip: "18.154.227.7" }, 443)));
    });
});
