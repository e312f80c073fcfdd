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
 * Then FUZZ_CONFIGS (default 2,000) configs generated from the components' key tables (every key the program
 * reads; a value of its kind, of another kind, the default, or a prototype key; tests/helpers/key-cases.ts) go
 * through the render CLI in-process, the real program rendering every accepted one: each exits 0, 1 or 2 (never
 * 70 or Node's 1 from a crash), leaves no unhandled rejection, prints no stack trace and no object text, and every
 * refusal names a key. The same FUZZ_SEED gives the same configs (a seeded generator), so a failure replays.
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
import { defaultDeps, runCli } from "../../tools/render/cli/cli";
import { ExitCode } from "../../tools/_shared/exit-codes";
import { GARBAGE, keyCases, rightValue, valueKeys, wrongFor } from "../helpers/key-cases";

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

/** Configs the CLI run renders (FUZZ_CONFIGS); the acceptance asks for at least 2,000. */
const CONFIGS = Number(process.env.FUZZ_CONFIGS ?? 2000);

/** A seeded generator (mulberry32): the same FUZZ_SEED gives the same configs, in the same order. */
function seeded(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]! };
}

/**
 * One generated config: a stack and one to three `--set`s drawn from the key tables (every key the program reads),
 * each a value of the key's kind (half the time), of another kind, the default (null), or a prototype-key case.
 */
function generatedConfig(g: ReturnType<typeof seeded>): { stack: string; sets: string[] } {
  const keys = valueKeys();
  const protos = keyCases().filter((c) => /__proto__|constructor|prototype/.test(c.key));
  const sets = Array.from({ length: 1 + Math.floor(g.next() * 3) }, () => {
    const roll = g.next();
    if (roll < 0.05) return g.pick(protos).set;
    const { key, kind } = g.pick(keys);
    const value = roll < 0.55 ? rightValue(kind, g.pick) : roll < 0.9 ? g.pick(wrongFor(kind))[1] : null;
    return `${key}=${JSON.stringify(value)}`;
  });
  return { stack: g.pick(["p5en-1gpu", "p5en-8gpu"]), sets };
}

describe("render fuzz: generated configs through the render CLI, the real program for every accepted one", function () {
  this.timeout(0); // bounded by count; each accepted config is a whole render (a second or two)
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "render-fuzz-cli-"));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it(`${CONFIGS} generated configs (seed ${SEED}): exit 0, 1 or 2 only, no crash, every refusal at a key without object text`, async () => {
    const g = seeded(SEED);
    const codes: Record<number, number> = {};
    const failures: string[] = [];
    for (let i = 0; i < CONFIGS; i++) {
      const { stack, sets } = generatedConfig(g);
      const lines: string[] = [];
      const stray: unknown[] = [];
      const onStray = (e: unknown) => stray.push(e);
      process.on("unhandledRejection", onStray);
      let code: number;
      try {
        code = await runCli([stack, "--out", tmp, ...sets.flatMap((s) => ["--set", s])], {
          ...defaultDeps(),
          cwd: ROOT,
          stdout: (l) => lines.push(l),
          stderr: (l) => lines.push(l),
        });
      } finally {
        process.off("unhandledRejection", onStray);
      }
      codes[code] = (codes[code] ?? 0) + 1;
      const text = lines.join("\n");
      const problems = text.split("\n").filter((l) => l.startsWith("  - "));
      const why = ![ExitCode.Ok, ExitCode.PolicyViolation, ExitCode.InvalidConfig].includes(code as 0 | 1 | 2)
        ? `exit ${code}`
        : stray.length > 0
          ? `an unhandled rejection: ${String(stray[0]).slice(0, 200)}`
          : STACK_TRACE.test(text)
            ? "a stack trace"
            : GARBAGE.test(text)
              ? "object or function text"
              : code === ExitCode.InvalidConfig && !/^render: /m.test(text)
                ? "exit 2 without a message"
                : problems.some((l) => !/^ {2}- [^\s:][^:]*: \S/.test(l))
                  ? "a problem without a key path"
                  : undefined;
      if (why)
        failures.push(`#${i} ${stack} ${sets.map((s) => `--set '${s}'`).join(" ")}: ${why}\n${text.slice(0, 800)}`);
    }
    console.log(`      exit codes over ${CONFIGS} configs: ${JSON.stringify(codes)}`);
    assert.deepEqual(failures, [], failures.slice(0, 5).join("\n\n"));
    // Every documented outcome is reached, or the generator proves nothing.
    assert.ok((codes[0] ?? 0) > 0 && (codes[2] ?? 0) > 0, JSON.stringify(codes));
  });
});
