/**
 * Prefill and decode never share a node while KV moves over EFA, as the field's working 1-GPU graph runs them
 * and as Dynamo's disaggregation communication guide requires (EAGAIN otherwise): facts/prefill-decode-apart.json.
 * The shipped p5en-1gpu stack is that layout (one GPU per role, two nodes, a required hostname anti-affinity on
 * the operator's component label), and the policy refuses a graph without it, naming the guide's symptom.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import YAML from "yaml";
import { OperatorLabel } from "../../components/_shared/names";
import { graphModel } from "../../components/inference/dgd-v1beta1";
import { HOSTNAME_TOPOLOGY_KEY } from "../../components/inference/graph";
import { prefillDecodeApartOverEfa } from "../../policy/rules/placement";
import { loadProject, stackConfig, stackFile } from "../../tools/_shared/stackfile";
import { happyGraph, loose, prefill, decode } from "../helpers/policy-graph-fixtures";
import { T } from "../helpers/policy-fixtures";
import { messages, resourceArgs, runResourcePolicy } from "../helpers/policy-harness";
import { FactFile, loadFacts, provenanceProblems, Provenance } from "./facts";
import { at } from "./json";

interface AntiAffinity {
  readonly mode: string;
  readonly topologyKey: string;
  readonly labelKey?: string;
}
interface Facts {
  readonly field: {
    readonly instanceType: string;
    readonly nodes: number;
    readonly gpusPerWorker: Readonly<Record<"prefill" | "decode", number>>;
    readonly antiAffinity: AntiAffinity;
  };
  readonly dynamoGuide: {
    readonly provenance: Provenance;
    readonly symptom: string;
    readonly antiAffinity: AntiAffinity;
  };
}

const { facts }: FactFile<Facts> = loadFacts<Facts>("prefill-decode-apart");
const ROOT = path.join(__dirname, "..", "..");
/** The graph's manifest in the stack's golden render, found by kind: its apply-order number moves as objects are added. */
const MANIFESTS = path.join(ROOT, "tests", "golden", "render", "p5en-1gpu", "manifests");
const DGD = path.join(
  MANIFESTS,
  fs.readdirSync(MANIFESTS).find((f) => /^\d+-dynamographdeployment-dynamo-llm\.yaml$/.test(f)) ?? "no-graph-manifest",
);

/** The golden graph in the model's (v1alpha1 services) shape, whatever API version it renders (v1beta1 for dynamo-1.6). */
const readGraph = () => graphModel(YAML.parse(fs.readFileSync(DGD, "utf8")));

describe("contract: prefill and decode on different nodes over EFA (field 1-GPU graph, Dynamo disagg guide)", () => {
  it("the second source carries its own complete provenance", () => {
    assert.deepEqual(provenanceProblems(facts.dynamoGuide.provenance), []);
  });

  it("the p5en-1gpu stack is the field's layout: its instance type, its node count, one GPU per role", () => {
    const project = loadProject(ROOT);
    const { values } = stackConfig(project, stackFile(ROOT, project, "p5en-1gpu"));
    const cluster = values[`${project.name}:cluster`] as { gpuPools: { gpu: { instanceType: string; nodes: number } } };
    const nodes = cluster.gpuPools.gpu;
    assert.deepEqual([nodes.instanceType, nodes.nodes], [facts.field.instanceType, facts.field.nodes]);
    const g = readGraph();
    for (const [key, role] of [
      ["PrefillWorker", "prefill"],
      ["DecodeWorker", "decode"],
    ] as const) {
      const s = g.spec.services[key];
      assert.deepEqual(
        [s.subComponentType, Number(s.replicas), Number(s.resources.limits.gpu)],
        [role, 1, facts.field.gpusPerWorker[role]],
      );
    }
  });

  it("the rendered graph has the required hostname anti-affinity on the label the guide names, between the roles", () => {
    const g = readGraph();
    const want = facts.dynamoGuide.antiAffinity;
    assert.deepEqual([OperatorLabel.Component, HOSTNAME_TOPOLOGY_KEY], [want.labelKey, want.topologyKey]);
    assert.equal(facts.field.antiAffinity.topologyKey, want.topologyKey);
    for (const [key, other] of [
      ["PrefillWorker", "DecodeWorker"],
      ["DecodeWorker", "PrefillWorker"],
    ]) {
      const terms = at(g, "spec", "services", key, "extraPodSpec", "affinity", "podAntiAffinity", want.mode);
      assert.ok(Array.isArray(terms), `${key}: no ${want.mode} podAntiAffinity`);
      assert.ok(
        terms.some(
          (t) =>
            at(t, "topologyKey") === want.topologyKey &&
            at(t, "labelSelector", "matchLabels", want.labelKey!) === other,
        ),
        `${key}: no term keeping it off ${other}'s nodes`,
      );
    }
  });

  it("the policy refuses both roles on one node over EFA and names the guide's symptom", async () => {
    const g = happyGraph();
    delete loose(prefill(g).extraPodSpec).affinity;
    delete loose(decode(g).extraPodSpec).affinity;
    const run = await runResourcePolicy(prefillDecodeApartOverEfa, resourceArgs(T.Dgd, g, { name: "inf-graph" }));
    const symptom = facts.dynamoGuide.symptom.replace(/ on rail \d+$/, "");
    assert.ok(messages(run).length === 1 && messages(run)[0].includes(symptom), messages(run).join(" | "));
  });
});
