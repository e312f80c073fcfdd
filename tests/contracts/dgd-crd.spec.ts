/**
 * Every DynamoGraphDeployment we render (both stacks, and the golden inference graphs) is stored by the API
 * server unchanged under the CRD the pinned operator installs (facts/dgd-crd.json): no field it would prune,
 * no wrong type, no value outside an enum, no missing required field.
 */
import { strict as assert } from "assert";
import { charts } from "../../components/versions";
import { fakeCheckout } from "../helpers/fake-checkout";
import { crdProblems, structuralProblems } from "./crd-validate";
import { CHART_CRD, countFields, extractCrd, FieldNode, OPERATOR_CRD } from "./extract/dgd-crd";
import { loadFacts } from "./facts";
import { recordAt } from "./json";
import { renderedDgds, Sourced } from "./rendered";
import { admissionProblems, V1beta1Graph } from "../../components/inference/dgd-v1beta1";

type CrdFacts = { group: string; kind: string; version: string; schema: FieldNode };
const crd = loadFacts<CrdFacts>("dgd-crd");
/** The newest readable CRD (v1beta1, release dynamo-1.6): the default stacks render against it. */
const beta1 = loadFacts<CrdFacts>("dgd-crd-v1beta1");

describe("contract: rendered DynamoGraphDeployments against the operator's CRD", function () {
  this.timeout(120000);
  let graphs: Sourced<unknown>[] = [];
  before(async () => {
    graphs = await renderedDgds();
  });

  it("the facts are the v1alpha1 DGD of the operator release we install", () => {
    assert.deepEqual(
      [crd.facts.group, crd.facts.kind, crd.facts.version],
      ["nvidia.com", "DynamoGraphDeployment", "v1alpha1"],
    );
    assert.match(
      crd.provenance.ref,
      new RegExp(`^v${charts.dynamoPlatform.version.replace(/\./g, "\\.")}\\b`),
      "the CRD ref names the dynamo-platform chart version versions.ts pins",
    );
    assert.ok(countFields(crd.facts.schema) > 1000, `${countFields(crd.facts.schema)} field paths`);
  });

  it("every rendered and golden graph validates structurally against the CRD of its API version", () => {
    assert.ok(graphs.length >= 2 + 4, `${graphs.length} graphs: ${graphs.map((g) => g.source).join(", ")}`);
    const alpha = graphs.filter((g) => recordAt(g.obj).apiVersion === "nvidia.com/v1alpha1");
    const beta = graphs.filter((g) => recordAt(g.obj).apiVersion === "nvidia.com/v1beta1");
    assert.equal(alpha.length + beta.length, graphs.length, "every graph is v1alpha1 or v1beta1");
    for (const g of alpha) assert.deepEqual(crdProblems(crd.facts, g.obj), [], g.source);
    for (const g of beta) {
      assert.deepEqual(crdProblems(beta1.facts, g.obj), [], g.source);
      assert.deepEqual(admissionProblems(g.obj as V1beta1Graph), [], g.source);
    }
  });

  describe("mutations the API server would not store unchanged", () => {
    const mutate = (edit: (g: unknown) => void) => {
      const g = structuredClone(graphs.find((x) => recordAt(x.obj).apiVersion === "nvidia.com/v1alpha1")!.obj);
      edit(g);
      return crdProblems(crd.facts, g);
    };
    const svc = (g: unknown) => {
      const services = recordAt(g, "spec", "services");
      return recordAt(services, Object.keys(services)[0]);
    };
    it("a field the schema does not name is pruned (a typo in a service field, and one in the main container)", () => {
      const problems = mutate((g) => {
        svc(g).replica = 2;
        recordAt(svc(g), "extraPodSpec", "mainContainer").startupProbee = {};
      });
      assert.equal(problems.length, 2, problems.join("\n"));
      assert.ok(
        problems.some((p) => /^spec\.services\.\w+\.replica: unknown field; the API server prunes it/.test(p)),
        problems.join("\n"),
      );
      assert.ok(
        problems.some((p) => /\.extraPodSpec\.mainContainer\.startupProbee: unknown field/.test(p)),
        problems.join("\n"),
      );
    });
    it("a wrong type", () => {
      assert.deepEqual(
        mutate((g) => {
          svc(g).replicas = "2";
        }).map((p) => p.replace(/^spec\.services\.\w+\./, "")),
        ['replicas: expected integer, got string "2"'],
      );
    });
    it("a value outside an enum", () => {
      assert.deepEqual(
        mutate((g) => {
          recordAt(g, "spec").backendFramework = "tensorrt";
        }),
        ['spec.backendFramework: "tensorrt" is not one of ["sglang","vllm","trtllm"]'],
      );
    });
    it("a missing required field (an env var without a name)", () => {
      assert.match(
        mutate((g) => {
          recordAt(g, "spec").envs = [{ value: "x" }];
        }).join("\n"),
        /^spec\.envs\[0\]: required field name is missing$/,
      );
    });
    it("but a map value and a preserve-unknown subtree keep any key", () => {
      assert.deepEqual(
        mutate((g) => {
          svc(g).resources = { limits: { custom: { "example.com/anything": "1" } } };
        }),
        [],
      );
      assert.deepEqual(
        structuralProblems({ t: "object", u: true, p: { a: { t: "string" } } }, { a: "x", b: { c: 1 } }, "x"),
        [],
      );
      assert.deepEqual(structuralProblems({ t: "object", u: true, p: { a: { t: "string" } } }, { a: 1 }, "x"), [
        "x.a: expected string, got number 1",
      ]);
    });
  });

  it("the extractor reads the chart's CRD copy and refuses a checkout whose operator copy differs", () => {
    const { root, put, remove } = fakeCheckout("crd-extract-");
    const doc = (t: string) =>
      `spec:\n  group: nvidia.com\n  names: {kind: DynamoGraphDeployment}\n  versions:\n  - name: v1alpha1\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            required: [services]\n            properties:\n              services: {type: object, additionalProperties: {type: ${t}}}\n              mode: {type: string, enum: [a, b]}\n              raw: {type: object, x-kubernetes-preserve-unknown-fields: true}\n`;
    try {
      put(CHART_CRD, doc("object"));
      put(OPERATOR_CRD, doc("object"));
      assert.deepEqual(extractCrd(root, "v1alpha1").schema, {
        t: "object",
        p: {
          spec: {
            t: "object",
            q: ["services"],
            p: {
              mode: { t: "string", e: ["a", "b"] },
              raw: { t: "object", u: true },
              services: { t: "object", a: { t: "object" } },
            },
          },
        },
      });
      assert.throws(() => extractCrd(root, "v1beta1"), /has no version v1beta1 \(has v1alpha1\)/);
      put(OPERATOR_CRD, doc("string"));
      assert.throws(() => extractCrd(root, "v1alpha1"), /differs from/);
    } finally {
      remove();
    }
  });
});
