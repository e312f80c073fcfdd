/**
 * One range per number: every numeric field of the stack config schema is bounded exactly as the
 * component validator it maps to bounds it. The fields are walked from the schema (no list here);
 * each is pushed just outside its schema range through the program's own config-to-args mapping,
 * and the component must reject it, at the same config path, stating the same range.
 */
import { strict as assert } from "assert";
import { CLUSTER_FIELDS } from "../../program/config-fields";
import { checkStackConfig, clusterArgsOf, inferenceSettingsOf } from "../../program/config-schema";
import { INFERENCE_FIELDS } from "../../program/config-inference-fields";
import { toConfigPath } from "../../program/config-paths";
import { OBSERVABILITY_FIELDS } from "../../program/config-observability";
import { Field, Spec } from "../../program/schema";
import { validateClusterArgs } from "../../components/cluster/validate";
import { resolveArgs as resolveInference } from "../../components/inference/args";
import { validate as validateInference } from "../../components/inference/validate";
import { resolveArgs as resolveObservability } from "../../components/observability/args";
import { validate as validateObservability } from "../../components/observability/validate";
import { Problem } from "../../components/_shared/problems";
import { STATED_MODEL } from "../helpers/inference-fixtures";

type NumericSpec = Extract<Spec, { kind: "integer" | "number" }>;

/** Every numeric leaf under `fields`, with its path below the section (`gpuNodes.count`). */
function numericLeaves(
  fields: Readonly<Record<string, Field>>,
  prefix: string[] = [],
): { keys: string[]; spec: NumericSpec }[] {
  return Object.entries(fields).flatMap(([k, f]) => {
    const keys = [...prefix, k];
    if (f.spec.kind === "object") return numericLeaves(f.spec.fields, keys);
    return f.spec.kind === "integer" || f.spec.kind === "number" ? [{ keys, spec: f.spec }] : [];
  });
}

/** `obj` with the value at `keys` replaced (objects on the way are copied, created when absent). */
function withValue(obj: Record<string, unknown>, keys: readonly string[], v: unknown): Record<string, unknown> {
  const [head, ...rest] = keys;
  const inner = (obj[head] ?? {}) as Record<string, unknown>;
  return { ...obj, [head]: rest.length === 0 ? v : withValue(inner, rest, v) };
}

const CLUSTER = {
  availabilityZone: "us-east-2b",
  deployFromInsideVpc: true,
  gpuNodes: { instanceType: "p5en.48xlarge", count: 2 },
};
/** A model the catalog does not know, with a stated shape (MLA too, so its fields are reachable). */
const SHAPE = { ...STATED_MODEL.modelShape, mla: { kvLoraRank: 512, qkRopeHeadDim: 64 } };
const INFERENCE = { model: STATED_MODEL.model, modelShape: SHAPE, modelCacheGiB: 100 };
const IMAGE = `registry.invalid/dynamo@sha256:${"0".repeat(64)}`;

const pool = checkStackConfig({ region: "us-east-2", hfTokenSet: true, cluster: CLUSTER, inference: INFERENCE }).config
  ?.gpuPool;

/** The component validators, fed through the program's mapping, at config paths; by section. */
const SECTIONS: Record<
  string,
  { fields: Readonly<Record<string, Field>>; problems: (keys: string[], v: unknown) => Problem[] }
> = {
  cluster: {
    fields: CLUSTER_FIELDS,
    problems: (keys, v) =>
      validateClusterArgs(clusterArgsOf(withValue(CLUSTER, keys, v), false, "us-east-2")).map((p) =>
        toConfigPath(p, true),
      ),
  },
  inference: {
    fields: INFERENCE_FIELDS,
    problems: (keys, v) => {
      const settings = inferenceSettingsOf(
        withValue(INFERENCE, keys, v) as unknown as Parameters<typeof inferenceSettingsOf>[0],
      );
      return validateInference(resolveInference("llm", { ...settings, gpuPool: pool! }, IMAGE), true, "inference").map(
        (p) => toConfigPath(p),
      );
    },
  },
  observability: {
    fields: OBSERVABILITY_FIELDS,
    problems: (keys, v) =>
      validateObservability(
        resolveObservability({ ...withValue({}, keys, v), graphName: "llm", graphNamespace: "dynamo" }),
      ).map((p) => ({ ...p, propertyPath: `observability.${p.propertyPath}` })),
  },
};

/** The range as both the schema's reference and the component's message write it. */
const rangeText = (s: NumericSpec) => (s.kind === "integer" ? `${s.min}..${s.max}` : `(${s.minExclusive}, ${s.max}]`);
const outside = (s: NumericSpec) => (s.kind === "integer" ? [s.min - 1, s.max + 1] : [s.minExclusive, s.max + 1]);
const inside = (s: NumericSpec) => (s.kind === "integer" ? [s.min, s.max] : [s.max]);
const RANGE_REASON = /must be a whole number|must be .* in \(/;

describe("limits: the stack schema and the component validators state one range per number", () => {
  it("the base config is valid, so every problem below comes from the value under test", () => {
    assert.ok(pool, "base config must check");
    for (const [name, s] of Object.entries(SECTIONS))
      assert.deepEqual(
        s.problems([], undefined).filter((p) => p.propertyPath.startsWith(name)),
        [],
        name,
      );
  });

  for (const [section, s] of Object.entries(SECTIONS)) {
    const leaves = numericLeaves(s.fields);
    it(`${section}: has numeric fields to compare`, () => assert.ok(leaves.length > 0));
    for (const { keys, spec } of leaves) {
      const at = [section, ...keys].join(".");
      it(`${at}: the component rejects exactly outside the schema's ${rangeText(spec)}`, () => {
        for (const v of outside(spec)) {
          const here = s.problems(keys, v).filter((p) => p.propertyPath === at);
          assert.ok(
            here.some((p) => p.reason.includes(rangeText(spec))),
            `${at} = ${v}: want a problem stating ${rangeText(spec)}; got ${JSON.stringify(here)}`,
          );
        }
        for (const v of inside(spec)) {
          const here = s.problems(keys, v).filter((p) => p.propertyPath === at && RANGE_REASON.test(p.reason));
          assert.deepEqual(here, [], `${at} = ${v} is inside the schema's range`);
        }
      });
    }
  }
});
