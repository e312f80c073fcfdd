/**
 * A bounded fast-check fuzz of stack files through the render CLI's own entry.
 *
 * In-process (FUZZ_RUNS mutated stack files, default 300): `loadStack`, the exact loading and
 * validation the CLI runs before the program, must either accept the file or reject it as a usage /
 * config error (exit 2) with bounded messages; any other exception would be exit 70. When it accepts
 * a file, the checked config must hold every value the file set ("never silently a different plan":
 * `.inf` must not turn into the default). A handful of the same kind of files then go through the real
 * CLI as child processes: never exit 70, never a stack trace.
 *
 * Bounded by run count, not time. FUZZ_SEED replays a failure fast-check reports.
 */
import { strict as assert } from "assert";
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import fc from "fast-check";
import YAML from "yaml";
import { checkStackConfigMap } from "../../tools/_shared/stack-check";
import { ConfigProblems, loadStack } from "../../tools/render/cli/command";
import { parseArgs } from "../../tools/render/cli/cli";
import { UsageError } from "../../tools/_shared/stackfile";
import { RENDER_CLI, ROOT, STACK_1_TEXT, STACK_TRACE } from "./render-harness";

const BASE = YAML.parse(STACK_1_TEXT) as {
  config: Record<string, unknown>;
};
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = Number(process.env.FUZZ_SEED ?? 13);
const CHILD_RUNS = 3;

/** `1e309` as a stack file may spell it: past the double range, so it parses to Infinity (kept as text, not a literal). */
const PAST_DOUBLE = Number("1e309");

/** Every path (list of keys) to a value in the base config, objects included. */
function paths(v: unknown, at: string[] = []): string[][] {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return [at];
  return [at, ...Object.entries(v).flatMap(([k, x]) => paths(x, [...at, k]))];
}
const PATHS = paths(BASE.config).filter((p) => p.length > 0);

/** Wrong and ordinary values: non-finite numbers, range edges, padded strings, wrong types. */
const VALUE: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    Infinity,
    -Infinity,
    NaN,
    PAST_DOUBLE,
    -0,
    0,
    1,
    2,
    8,
    64,
    65,
    1 << 21,
    Number.MAX_SAFE_INTEGER,
    0.5,
    1.5,
    -1,
  ),
  fc.integer({ min: -10, max: 100 }),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(
    "",
    " x ",
    ".inf",
    "vllm",
    "sglang",
    "p5en.48xlarge",
    "auto",
    "sm_90",
    "us-east-2b",
    "on-demand",
    "[a]",
    "{a: 1}",
  ),
  fc.string({ maxLength: 20 }),
  fc.array(fc.oneof(fc.string({ maxLength: 8 }), fc.integer()), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.integer(), { maxKeys: 2 }),
);

/** Paths whose base value is a number, and values JSON cannot carry or that sit at a range's edge. */
/** The value at `keys` in `v`, undefined where the path leaves the objects. */
const at = (v: unknown, keys: readonly string[]): unknown =>
  keys.reduce<unknown>((o, k) => (o && typeof o === "object" ? (o as Record<string, unknown>)[k] : undefined), v);
const NUMERIC_PATHS = PATHS.filter((p) => typeof at(BASE.config, p) === "number");
const NUMBER: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(Infinity, -Infinity, NaN, PAST_DOUBLE, 0, 1, 2, 4, 8, 16, 64, 65),
  fc.integer({ min: 1, max: 4096 }),
);
const NEW_KEYS: readonly string[] = ["modelRevision", "gpuMemoryUtilization", "maxModelLen", "modelLoadBudgetSeconds"];

/** One change to the config: set a value (numbers on numeric keys most often), delete a key, or add / misspell a key. */
const MUTATION = fc.oneof(
  {
    arbitrary: fc.record({ kind: fc.constant("set" as const), path: fc.constantFrom(...NUMERIC_PATHS), value: NUMBER }),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("set" as const),
      path: fc.constantFrom(...NEW_KEYS.map((k) => ["dynamo-efa:inference", k])),
      value: NUMBER,
    }),
    weight: 2,
  },
  {
    arbitrary: fc.record({ kind: fc.constant("set" as const), path: fc.constantFrom(...PATHS), value: VALUE }),
    weight: 3,
  },
  fc.record({ kind: fc.constant("delete" as const), path: fc.constantFrom(...PATHS) }),
  fc.record({
    kind: fc.constant("rename" as const),
    path: fc.constantFrom(...PATHS),
    key: fc.oneof(
      fc.string({ minLength: 1, maxLength: 12 }),
      fc.constantFrom(
        "inferense",
        "dynamo-efa:inferense",
        "aws:regoin",
        "graphname",
        "dynamo-efa:inference.model",
        "dynamo_efa:graphName",
        "Model",
        "replica",
      ),
    ),
  }),
);

/** One generated change to the config. */
type Mutation = typeof MUTATION extends fc.Arbitrary<infer M> ? M : never;

function mutate(config: Record<string, unknown>, m: Mutation): void {
  const parent = at(config, m.path.slice(0, -1));
  if (!parent || typeof parent !== "object" || Array.isArray(parent)) return;
  const o = parent as Record<string, unknown>;
  const last = m.path[m.path.length - 1];
  if (m.kind === "set") o[last] = m.value;
  else if (m.kind === "delete") delete o[last];
  else if (m.key !== last) {
    o[m.key] = o[last];
    delete o[last];
  }
}

/** A stack file text: the mutated config as YAML, sometimes with a byte-level change on top. */
const STACK = fc.record({
  mutations: fc.array(MUTATION, { minLength: 1, maxLength: 3 }),
  // One file in five also gets a byte-level change (then only "no crash, bounded message" is checked).
  text: fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 4 },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.constant((t: string) => t.replace("config:", "config: &c")),
        fc.integer({ min: 0, max: 2000 }).map((i) => (t: string) => t.slice(0, i % (t.length + 1))),
        fc
          .tuple(
            fc.integer({ min: 0, max: 2000 }),
            fc.constantFrom("\t", ":", "- ", "*a", "&a ", "<<: ", "{", "]", "'", '"'),
          )
          .map(
            ([i, c]) =>
              (t: string) =>
                t.slice(0, i % (t.length + 1)) + c + t.slice(i % (t.length + 1)),
          ),
      ),
    },
  ),
});

function build(s: { mutations: readonly Mutation[]; text?: (t: string) => string }): {
  text: string;
  config: Record<string, unknown>;
} {
  const config = structuredClone(BASE.config);
  for (const m of s.mutations) mutate(config, m);
  const text = YAML.stringify({ config }, { lineWidth: 0 });
  return { text: s.text ? s.text(text) : text, config };
}

/** `user` set nothing the checked value lacks: objects compared key by key, YAML numbers may become version strings. */
function holds(user: unknown, checked: unknown): boolean {
  if (user === undefined || user === null) return true;
  if (typeof user === "number" && typeof checked === "string") return Number(checked) === user;
  if (Array.isArray(user))
    return Array.isArray(checked) && user.length === checked.length && user.every((u, i) => holds(u, checked[i]));
  if (typeof user === "object")
    return (
      !!checked &&
      typeof checked === "object" &&
      Object.entries(user).every(([k, v]) => holds(v, (checked as Record<string, unknown>)[k]))
    );
  return Object.is(user, checked);
}

describe("render fuzz: mutated stack files through the CLI's loading and validation", function () {
  this.timeout(0); // bounded by run count; a slow machine only makes it slower
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "render-fuzz-"));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const file = path.join(tmp, "Pulumi.fuzz.yaml");
  const outcomes = { accepted: 0, usage: 0, config: 0 };

  it(`${RUNS} mutated stack files: accepted with every value kept, or exit 2 with bounded messages; never a crash`, () => {
    fc.assert(
      fc.property(STACK, (s) => {
        const { text, config } = build(s);
        fs.writeFileSync(file, text);
        const args = parseArgs(["--file", file, "--out", tmp]);
        try {
          const loaded = loadStack(args, { root: ROOT, cwd: tmp });
          outcomes.accepted++;
          if (s.text) return; // a byte-level change: the structured intent is no longer known
          const checked = checkStackConfigMap(loaded.project.name, loaded.cfg).config!;
          // The stack config is the component arguments: what was written arrives unchanged (wiring only adds).
          assert.ok(holds(config["dynamo-efa:cluster"], checked.clusterArgs), "cluster config changed");
          assert.ok(holds(config["dynamo-efa:image"], checked.imageArgs), "image config changed");
          assert.ok(holds(config["dynamo-efa:inference"], checked.inference), "inference config changed");
          assert.ok(holds(config["aws:region"], checked.region), "region changed");
        } catch (e) {
          if (e instanceof assert.AssertionError) throw e;
          if (e instanceof UsageError) outcomes.usage++;
          else if (e instanceof ConfigProblems) outcomes.config++;
          else
            throw new Error(
              `would exit 70: ${(e as Error).stack}\n--- file ---\n${JSON.stringify(text).slice(0, 2000)}`,
              { cause: e },
            );
          const message =
            e instanceof ConfigProblems
              ? e.problems.map((p) => `${p.propertyPath}: ${p.reason}`).join("\n")
              : (e as Error).message;
          for (const line of message.split("\n"))
            assert.ok(
              line.length <= 1000,
              `an unbounded message line (${line.length} characters): ${line.slice(0, 200)}`,
            );
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
    assert.equal(outcomes.accepted + outcomes.usage + outcomes.config, RUNS);
    // Both sides of the property must be exercised, or the fuzz proves nothing.
    assert.ok(outcomes.accepted > 0 && outcomes.usage > 0 && outcomes.config > 0, JSON.stringify(outcomes));
  });

  it(`${CHILD_RUNS} of them through the real CLI as a child process: exit 0/1/2, no stack trace`, () => {
    const samples = fc.sample(STACK, { numRuns: CHILD_RUNS, seed: SEED });
    samples.forEach((s, i) => {
      const f = path.join(tmp, `Pulumi.child${i}.yaml`);
      fs.writeFileSync(f, build(s).text);
      const p = spawnSync(
        process.execPath,
        ["--import", "tsx", RENDER_CLI, "--file", f, "--out", path.join(tmp, "out")],
        { cwd: ROOT, encoding: "utf8" },
      );
      assert.ok([0, 1, 2].includes(p.status ?? -1), `exit ${p.status}\n${p.stderr}`);
      assert.doesNotMatch(p.stderr, STACK_TRACE);
    });
  });
});
