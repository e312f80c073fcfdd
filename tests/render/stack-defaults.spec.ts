/**
 * Stack files hold only what differs from the defaults: removing any `dynamo-efa:` key of
 * `stacks/Pulumi.<stack>.yaml` must change what the components resolve (their args with every default filled), so
 * no line of a stack file restates a default. (`aws:region` is the provider's key and a documented placeholder.)
 */
import { strict as assert } from "assert";
import * as path from "path";
import { checkStackConfig, CONFIG_NAMESPACE, rawStackConfig } from "../../program/config";
import { resolveArgs as resolveCluster } from "../../components/cluster/args";
import { resolveArgs as resolveImage } from "../../components/image/args";
import { resolveArgs as resolveInference } from "../../components/inference/args";
import { resolveArgs as resolvePlatform } from "../../components/platform/args";
import { loadProject, stackConfig } from "../../tools/_shared/stackfile";

const ROOT = path.join(__dirname, "..", "..");
type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Every leaf path of `v` (arrays are leaves). */
function leaves(v: unknown, at: string[] = []): string[][] {
  return isObj(v) ? Object.entries(v).flatMap(([k, x]) => leaves(x, [...at, k])) : [at];
}

/** `v` without the leaf at `p`, dropping parents left empty. */
function without(v: Obj, p: readonly string[]): Obj | undefined {
  const [head, ...rest] = p;
  const copy = { ...v };
  if (rest.length === 0) delete copy[head];
  else {
    const inner = without(copy[head] as Obj, rest);
    if (inner === undefined) delete copy[head];
    else copy[head] = inner;
  }
  return Object.keys(copy).length === 0 ? undefined : copy;
}

function checked(values: Obj) {
  const get = (k: string) =>
    values[k] === undefined
      ? undefined
      : typeof values[k] === "string"
        ? (values[k] as string)
        : JSON.stringify(values[k]);
  const r = checkStackConfig(rawStackConfig(get, Object.keys(values), true, true));
  if (!r.config) return r.problems;
  // What the components make of it, every default filled: a key whose removal leaves this unchanged restates one.
  const c = r.config;
  const { source: _source, ...cluster } = resolveCluster(c.clusterArgs);
  return {
    cluster,
    image: resolveImage(c.imageArgs),
    platform: resolvePlatform(c.platform),
    inference: resolveInference(c.graphName, { ...c.inference, gpuPool: c.gpuPool }, undefined),
    observability: c.observability,
  };
}

/** Keys of `values` (full config keys) that restate a default; `fromProject` keys come from Pulumi.yaml, not the file. */
export function restatedDefaults(values: Obj, fromProject: Obj = {}): string[] {
  const base = checked(values);
  const out: string[] = [];
  const mine = ([k, v]: [string, unknown]) =>
    k.startsWith(`${CONFIG_NAMESPACE}:`) && JSON.stringify(v) !== JSON.stringify(fromProject[k]);
  for (const [key, v] of Object.entries(values).filter(mine)) {
    for (const leaf of leaves(v)) {
      const rest = leaf.length === 0 ? undefined : without(v as Obj, leaf);
      const next = { ...values };
      if (rest === undefined) delete next[key];
      else next[key] = rest;
      try {
        assert.notDeepEqual(checked(next), base);
      } catch {
        out.push([key, ...leaf].join("."));
      }
    }
  }
  return out;
}

describe("stack files hold only what differs from the defaults", () => {
  const project = loadProject(ROOT);
  for (const stack of ["p5en-1gpu", "p5en-8gpu"]) {
    it(stack, () => {
      const { values } = stackConfig(project, path.join(ROOT, "stacks", `Pulumi.${stack}.yaml`));
      assert.deepEqual(restatedDefaults(values as Obj, project.defaults as Obj), []);
    });
  }

  it("the check catches a restated default", () => {
    const { values } = stackConfig(project, path.join(ROOT, "stacks", "Pulumi.p5en-1gpu.yaml"));
    const inf = values[`${CONFIG_NAMESPACE}:inference`] as Obj;
    const restated = { ...values, [`${CONFIG_NAMESPACE}:inference`]: { ...inf, maxModelLen: 4096 } } as Obj;
    assert.ok(
      restatedDefaults(restated, project.defaults as Obj).includes(`${CONFIG_NAMESPACE}:inference.maxModelLen`),
    );
  });
});
