/**
 * Wrong-typed values for every key of the stack config, generated from the components' key tables (the same tables
 * program/keys.ts checks against), so a key added to a table is sent every wrong type without a line here: a string
 * for a boolean or a number, a list for a string, an object for a list, a number outside its bounds, a wrong item in
 * a list or map, and the prototype names (`__proto__`, `constructor`, `prototype`) as keys of every table and map.
 * Each case is one `--set path=value` (the value written as JSON, which YAML reads as written) and the key path the
 * refusal must name; a number or a boolean for a string key, which `--set` takes as text (program/keys.ts
 * `typedByKind`), is written in a stack file instead (`file`), where YAML's type stands.
 */
import { AnyKeyShape, AnyValueKind, isValueKind } from "../../components/_shared/keys";
import { CLUSTER_KEYS } from "../../components/cluster/args";
import { IMAGE_KEYS } from "../../components/image/args";
import { INFERENCE_KEYS } from "../../components/inference/args";
import { OBSERVABILITY_KEYS } from "../../components/observability/args";
import { PLATFORM_KEYS } from "../../components/platform/args";
import { typedByKind } from "../../program/keys";

/** Text no message may hold: what `String()` makes of an object or a function. */
export const GARBAGE = /\[object Object\]|\[native code\]|function\s*\w*\s*\(/;

/** One refusal to expect: `--set <set>`, a problem at (or under) `key`. */
export interface KeyCase {
  readonly set: string;
  readonly key: string;
  /** What is wrong, for the test's title. */
  readonly what: string;
  /** Set in a stack file, not by `--set`: the key path and the value (a `--set` would take its text). */
  readonly file?: { readonly path: string; readonly value: unknown };
}

const SECTIONS: Readonly<Record<string, AnyKeyShape>> = {
  cluster: CLUSTER_KEYS,
  image: IMAGE_KEYS,
  platform: PLATFORM_KEYS,
  inference: INFERENCE_KEYS,
  observability: OBSERVABILITY_KEYS,
};
/** The one pool of the example stacks: a pool's keys are sent at `cluster.gpuPools.gpu.<key>`. */
const POOL = "gpu";
export const PROTOTYPE_NAMES = ["__proto__", "constructor", "prototype"] as const;

/** A value of `k` (used inside a wrong container, or as a list item of the right kind). */
function sample(k: AnyValueKind): unknown {
  switch (k.kind) {
    case "boolean":
      return true;
    case "string":
      return "x";
    case "integer":
      return k.range.min;
    case "number":
      return k.range.max;
    case "list":
      return [sample(k.of)];
    case "map":
      return { a: sample(k.of) };
    case "either":
      return sample(k.of[0]);
  }
}

/** A value of the wrong type for `k` (never one of its alternatives): what a confused stack file writes. */
export function wrongFor(k: AnyValueKind): readonly [string, unknown][] {
  switch (k.kind) {
    case "boolean":
      return [
        ["a quoted 'false'", "false"],
        ["a number", 1],
        ["a list", [true]],
        ["an object", {}],
      ];
    case "string":
      return [
        ["a number", 1],
        ["a list", ["x"]],
        ["an object", { a: "x" }],
        ["a boolean", true],
      ];
    case "integer": {
      const out: [string, unknown][] = [
        ["a quoted number", String(k.range.min)],
        ["a boolean", true],
        ["a list", [k.range.min]],
        ["an object", {}],
        ["a fraction", k.range.min + 0.5],
      ];
      out.push(["below its bounds", k.range.min - 1]);
      if (k.range.max < Number.MAX_SAFE_INTEGER) out.push(["above its bounds", k.range.max + 1]);
      return out;
    }
    case "number":
      return [
        ["a quoted number", String(k.range.max)],
        ["a boolean", true],
        ["a list", [k.range.max]],
        ["an object", {}],
        ["at its open bound", k.range.minExclusive],
        ["above its bounds", k.range.max * 2],
      ];
    case "list":
      return [
        ["an object", { a: sample(k.of) }],
        ["a bare item", 7],
        ["a wrong item", [wrongItem(k.of)]],
        ["a null item", [null]],
      ];
    case "map":
      return [
        ["a list", [sample(k.of)]],
        ["a string", "x"],
        ["a wrong value", { a: wrongItem(k.of) }],
        ...PROTOTYPE_NAMES.map((p): [string, unknown] => [`${p} as a name`, { [p]: sample(k.of) }]),
      ];
    case "either":
      return [
        ["a number", 1],
        ["an object", { a: 1 }],
        ["a list of a wrong item", [{}]],
      ];
  }
}

/** An item of the wrong type for `k`. */
function wrongItem(k: AnyValueKind): unknown {
  return k.kind === "string" ? { a: 1 } : "x";
}

/** Every case of `table` at `path`. */
function tableCases(path: string, table: AnyKeyShape): KeyCase[] {
  const out: KeyCase[] = PROTOTYPE_NAMES.map((p) => ({
    set: `${path}.${p}=1`,
    key: `${path}.${p}`,
    what: `${p} as a key`,
  }));
  for (const [key, entry] of Object.entries(table)) {
    const at = `${path}.${key}`;
    if ("wired" in entry) out.push({ set: `${at}=1`, key: at, what: "a key the program sets" });
    else if (isValueKind(entry))
      out.push(
        ...wrongFor(entry).map(([what, v]) => {
          const set = `${at}=${JSON.stringify(v)}`;
          const asText = typedByKind(entry, v, JSON.stringify(v)) !== v;
          return { set, key: at, what, ...(asText ? { file: { path: at, value: v } } : {}) };
        }),
      );
    else if ("each" in entry) {
      out.push({ set: `${at}="x"`, key: at, what: "a string for a map of objects" });
      out.push(...PROTOTYPE_NAMES.map((p) => ({ set: `${at}.${p}.x=1`, key: `${at}.${p}`, what: `${p} as a name` })));
      out.push(...tableCases(`${at}.${POOL}`, entry.each as AnyKeyShape));
    } else {
      out.push({ set: `${at}=[1]`, key: at, what: "a list for an object" });
      out.push(...tableCases(at, entry as AnyKeyShape));
    }
  }
  return out;
}

/** Every value-kind key of every section (a pool's at `cluster.gpuPools.gpu.<key>`), with its kind. */
export function valueKeys(): { key: string; kind: AnyValueKind }[] {
  const walk = (path: string, table: AnyKeyShape): { key: string; kind: AnyValueKind }[] =>
    Object.entries(table).flatMap(([key, entry]) => {
      const at = `${path}.${key}`;
      if ("wired" in entry) return [];
      if (isValueKind(entry)) return [{ key: at, kind: entry }];
      if ("each" in entry) return walk(`${at}.${POOL}`, entry.each as AnyKeyShape);
      return walk(at, entry as AnyKeyShape);
    });
  return Object.entries(SECTIONS).flatMap(([section, table]) => walk(section, table));
}

/** A value of kind `k` drawn from `pick` (a choice among the arguments): in range, at its edges, or typical. */
export function rightValue(k: AnyValueKind, pick: <T>(xs: readonly T[]) => T): unknown {
  switch (k.kind) {
    case "boolean":
      return pick([true, false]);
    case "string":
      return pick(STRINGS);
    case "integer": {
      const { min, max } = k.range;
      const top = Math.min(max, min + 4096);
      return pick([min, min + 1, Math.round((min + top) / 2), top, max]);
    }
    case "number":
      return pick([k.range.max, k.range.max / 2, k.range.max / 10]);
    case "list":
      return pick([[], [rightValue(k.of, pick)], [rightValue(k.of, pick), rightValue(k.of, pick)]]);
    case "map":
      return pick([{}, { a: rightValue(k.of, pick) }]);
    case "either":
      return rightValue(pick(k.of), pick);
  }
}

/** Strings a stack file writes: real choices of this project's keys, empty, padded, hostile. */
export const STRINGS: readonly string[] = [
  "vllm",
  "trtllm",
  "auto",
  "fat",
  "ucx",
  "libfabric",
  "none",
  "efs",
  "local-nvme",
  "any",
  "separate-nodes",
  "ClusterIP",
  "InternalLoadBalancer",
  "on-demand",
  "capacity-block",
  "current",
  "legacy",
  "p5en.48xlarge",
  "p5.48xlarge",
  "g6e.12xlarge",
  "us-east-2a",
  "us-east-2b",
  "10.0.0.0/16",
  "203.0.113.0/24",
  "0.0.0.0/0",
  "1.35",
  "13.0",
  "12.9",
  "main",
  "meta-llama/Llama-3.1-8B-Instruct",
  "Qwen/Qwen3-0.6B",
  "dynamo",
  "monitoring",
  "install",
  "existing",
  "sm_90",
  "",
  " x ",
  "x\u202Ey",
  "ｐ５ｅｎ",
  "__proto__",
  "$(id)",
  "../../etc",
  "a".repeat(300),
];

/** Every wrong-typed case of every key of every section. */
export function keyCases(): KeyCase[] {
  return Object.entries(SECTIONS).flatMap(([section, table]) => tableCases(section, table));
}
