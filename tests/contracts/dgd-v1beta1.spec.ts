/**
 * The v1beta1 graph `dynamo-1.6` deploys, against the newest readable upstream CRD and its admission rule
 * (facts/dgd-crd-v1beta1.json: storage v1beta1, `runtimeVersionOverride` required where the main image carries no
 * semantic-version tag, a bare MAJOR.MINOR.PATCH): every golden inference graph converted as the release converts
 * it is stored unchanged and admitted; read back it is the same model; and the rule's own mutations are refused.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import YAML from "yaml";
import type { DynamoGraphDeployment } from "../../components/inference/dgd";
import {
  admissionProblems,
  graphModel,
  needsRuntimeVersionOverride,
  RUNTIME_VERSION_OVERRIDE,
  SEMVER_TAG,
  toV1beta1,
} from "../../components/inference/dgd-v1beta1";
import { release } from "../../components/releases";
import { crdProblems } from "./crd-validate";
import type { FieldNode, RuntimeVersionRule } from "./extract/dgd-crd";
import { loadFacts } from "./facts";

type CrdFacts = {
  group: string;
  kind: string;
  version: string;
  storage: string;
  schema: FieldNode;
  runtimeVersionOverride: RuntimeVersionRule;
};
const crd = loadFacts<CrdFacts>("dgd-crd-v1beta1");
const GOLDEN = path.join(__dirname, "..", "golden", "inference");
const goldens = fs
  .readdirSync(GOLDEN)
  .filter((f) => f.endsWith(".yaml"))
  .flatMap((f) =>
    YAML.parseAllDocuments(fs.readFileSync(path.join(GOLDEN, f), "utf8"))
      .map((d) => d.toJS() as DynamoGraphDeployment)
      .filter((o) => o?.kind === "DynamoGraphDeployment")
      .map((g) => ({ source: f, g })),
  );
const override = release("dynamo-1.6").graph.runtimeVersionOverride!.version;

describe("contract: the v1beta1 graph against the operator's CRD and admission rule", () => {
  it("the facts are DynamoGraphDeployment v1beta1, the storage version, with the runtimeVersionOverride rule", () => {
    assert.deepEqual(
      [crd.facts.group, crd.facts.kind, crd.facts.version],
      ["nvidia.com", "DynamoGraphDeployment", "v1beta1"],
    );
    assert.equal(crd.facts.storage, "v1beta1");
    assert.equal(release("dynamo-1.6").graph.crdFact, "dgd-crd-v1beta1");
    assert.equal(SEMVER_TAG.source, crd.facts.runtimeVersionOverride.imageTagPattern);
    assert.equal(RUNTIME_VERSION_OVERRIDE.source, crd.facts.runtimeVersionOverride.overridePattern);
    assert.match(override, RUNTIME_VERSION_OVERRIDE);
  });

  it("every golden graph, converted for dynamo-1.6, is stored unchanged and admitted", () => {
    assert.ok(goldens.length >= 4, `${goldens.length} golden graphs`);
    for (const { source, g } of goldens) {
      const v = toV1beta1(g, override);
      assert.deepEqual(crdProblems(crd.facts, v), [], source);
      assert.deepEqual(admissionProblems(v), [], source);
      for (const c of v.spec.components) assert.equal(c.runtimeVersionOverride, "1.6.2", `${source} ${c.name}`);
    }
  });

  it("read back, a converted graph is the same model (policies and the plan read either API version alike)", () => {
    for (const { source, g } of goldens.filter((x) => !x.g.spec.pvcs)) {
      const back = graphModel(toV1beta1(g, override));
      assert.deepEqual(back.spec, g.spec, source);
    }
  });

  describe("what the operator's admission refuses", () => {
    const v = toV1beta1(goldens[0].g, override);
    const first = v.spec.components[0];
    const withComponent = (c: object) => ({ ...v, spec: { ...v.spec, components: [c] } }) as typeof v;
    // Ledger row 1.5.0:dgd-dcd-and-dgdr-admission-requires-a-main-container (#10494).
    it("a digest-only image without runtimeVersionOverride", () => {
      const { runtimeVersionOverride: _o, ...bare } = first;
      assert.match(
        admissionProblems(withComponent(bare)).join("\n"),
        /runtimeVersionOverride: is required when the specified main container image has no parseable semantic-version tag/,
      );
    });
    it("an override that is not a bare version", () => {
      assert.match(
        admissionProblems(withComponent({ ...first, runtimeVersionOverride: "v1.6.2" })).join("\n"),
        /not a bare MAJOR\.MINOR\.PATCH/,
      );
    });
    it("but a semver tag before the digest needs none, and a moving or custom tag does", () => {
      assert.equal(
        needsRuntimeVersionOverride(`nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6.2-efa@sha256:${"a".repeat(64)}`),
        false,
      );
      assert.equal(needsRuntimeVersionOverride("nvcr.io/nvidia/ai-dynamo/vllm-runtime:latest"), true);
      assert.equal(needsRuntimeVersionOverride(`registry:5000/dynamo@sha256:${"a".repeat(64)}`), true);
      assert.equal(needsRuntimeVersionOverride("registry:5000/dynamo:v1.6.2"), false);
    });
    it("a field v1beta1 no longer has (v1alpha1's services map) is pruned", () => {
      assert.match(
        crdProblems(crd.facts, { ...v, spec: { ...v.spec, services: {} } }).join("\n"),
        /spec\.services: unknown field/,
      );
    });
  });
});
