/**
 * `npm run render -- <stack> [--out DIR] [--set key=value ...] [--file stack.yaml] [--policy-config F]`
 *
 * Runs the real program under Pulumi mocks (no cloud, no credentials, no Pulumi CLI) and writes
 * `DIR/<stack>/` atomically. Arguments are parsed before anything heavy is loaded: `--help` and usage
 * errors answer at once; the program and the policy pack load only for a real render (`./command.ts`).
 * Exit codes: `ExitCode` of the CLI family (README "render" lists them).
 */
import { parseArgs as parseNodeArgs } from "node:util";
import type { Args, CliDeps } from "./command";
export type { Args, CliDeps } from "./command";
import { parseOverride, UsageError } from "../../_shared/stackfile";
import { ExitCode } from "../../_shared/exit-codes";
import { packageRoot } from "../../../components/_shared/package-root";
import { deferSdkClosureModules, skipProviderSerialization } from "./defer-sdk";

export const USAGE = `usage: npm run render -- <stack> [--out DIR] [--set key=value ...] [--file path/to/Pulumi.<stack>.yaml]

  <stack>          a stack with a file stacks/Pulumi.<stack>.yaml (e.g. p5en-8gpu); letters, digits, - _ .
  --out DIR        output directory; files go to DIR/<stack>/, replaced atomically (default: out)
  --set key=value  override one config key; the path is inside the dynamo-efa namespace
                   (inference.prefill.replicas=4) or fully qualified (aws:region=us-west-2);
                   the value is read as YAML (4 is a number, [sm_90] a list), then typed by the
                   key: a string key takes the text (kubernetesVersion=1.30 is "1.30"). Repeatable.
  --file PATH      read the stack config from PATH instead of stacks/Pulumi.<stack>.yaml; the stack
                   name is the file's (Pulumi.<stack>.yaml); a <stack> given too must match it
  --policy-config PATH
                   policy pack config JSON, as for pulumi preview --policy-pack-config
                   (e.g. {"no-noop-nixl-env": "mandatory"}); checked against the pack
  Relative paths are relative to the directory npm was run from.

exit codes: 0 ok, 1 mandatory policy violation, 2 invalid config or usage (or the output directory is
locked by another render), 70 internal error (a bug), 73 cannot create the output, 74 I/O error
writing it; Ctrl-C ends it at once and keeps the previous output`;

/** The flags; node:util parses them (as `verify`'s), this table is the one list of them. */
const OPTIONS = {
  out: { type: "string" },
  set: { type: "string", multiple: true },
  file: { type: "string" },
  "policy-config": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

type OptionToken = Extract<NonNullable<ReturnType<typeof parseNodeArgs>["tokens"]>[number], { kind: "option" }>;

/** What is wrong with one option as written, in this CLI's words; undefined when it is fine. */
function optionProblem(t: OptionToken): string | undefined {
  const spec = (OPTIONS as Readonly<Record<string, { type: "string" | "boolean" }>>)[t.name];
  if (!spec) return `unknown option ${t.rawName.slice(0, 80)}`;
  if (spec.type === "boolean") return t.value === undefined ? undefined : `${t.rawName} takes no value`;
  if (t.value === undefined) return `${t.rawName} needs a value`;
  // A value that looks like a flag (`--out --set ...`) is a forgotten value, as in node's strict mode.
  if (!t.inlineValue && t.value.startsWith("-"))
    return `${t.rawName} needs a value; got the flag ${JSON.stringify(t.value.slice(0, 80))} (if that is the value, write ${t.rawName}=${t.value.slice(0, 80)})`;
  if (t.value === "") return `${t.rawName} needs a non-empty value`;
  return undefined;
}

/** node's strict parse: the authority on anything the token pass above does not name. */
function strictParse(argv: readonly string[]) {
  try {
    return parseNodeArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message.split("\n")[0]);
  }
}

/** Parses the command line; throws `UsageError`. */
export function parseArgs(argv: readonly string[]): Args {
  // Token by token first, so a usage error names the flag the way the user wrote it.
  const { tokens } = parseNodeArgs({
    args: [...argv],
    options: OPTIONS,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  for (const t of tokens) {
    const problem = t.kind === "option" ? optionProblem(t) : undefined;
    if (problem) throw new UsageError(problem);
  }
  const { values, positionals } = strictParse(argv);
  const [stack, second] = positionals;
  if (second !== undefined)
    throw new UsageError(
      `one stack at a time; got ${JSON.stringify(stack.slice(0, 80))} and ${JSON.stringify(second.slice(0, 80))}`,
    );
  const help = values.help === true;
  if (!help && stack === undefined && values.file === undefined)
    throw new UsageError("name a stack (e.g. p5en-8gpu) or pass --file");
  return {
    ...(stack !== undefined ? { stack } : {}),
    out: values.out ?? "out",
    overrides: (values.set ?? []).map((text) => parseOverride(text)),
    ...(values.file !== undefined ? { file: values.file } : {}),
    ...(values["policy-config"] !== undefined ? { policyConfig: values["policy-config"] } : {}),
    help,
  };
}

/** Parses; prints usage or the usage error. Returns the exit code when there is nothing more to do. */
function parseOrExit(argv: readonly string[], stdout: (l: string) => void, stderr: (l: string) => void): Args | number {
  try {
    const args = parseArgs(argv);
    if (!args.help) return args;
    stdout(USAGE);
    return ExitCode.Ok;
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    stderr(`render: ${e.message}`);
    stderr("run `npm run render -- --help` for usage");
    return ExitCode.InvalidConfig;
  }
}

/** Runs the command; returns the exit code. Never throws. */
export async function runCli(argv: readonly string[], deps: CliDeps): Promise<number> {
  const args = parseOrExit(argv, deps.stdout, deps.stderr);
  if (typeof args === "number") return args;
  const { execute } = await import("./command");
  return execute(args, deps);
}

/** The real program and policy pack, each loaded on first use: a usage or config error loads neither. */
export function defaultDeps(): CliDeps {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use, typed as the module: both
     dependencies are synchronous by CliDeps' contract (the capture calls `program()` inside its stack callback,
     `policyList` is a getter), so a lazy load here cannot be `await import()`; the policy runner is async and
     uses it, below. Loading up front instead would cost a usage or config error the load of Pulumi. */
  const program = () => require("../../../program/program") as typeof import("../../../program/program");
  const pack = () => require("../../../policy/policies") as typeof import("../../../policy/policies");
  /* eslint-enable @typescript-eslint/no-require-imports -- the lazy loads end here */
  return {
    // Found by its files, not by this module's depth: `npm run render` runs a bundle of the render (package.json).
    root: packageRoot(__dirname),
    cwd: process.env.INIT_CWD || process.cwd(),
    program: () => program().runProgram({ offline: true }),
    policies: async (plan, config) => (await import("../../../policy/run")).runPolicies(plan, config),
    get policyList() {
      return pack().allPolicies;
    },
    stdout: (l) => process.stdout.write(`${l}\n`),
    stderr: (l) => process.stderr.write(`${l}\n`),
  };
}

/** `npm run render -- ...`: the exit code of one render. */
export async function main(argv: readonly string[]): Promise<number> {
  const args = parseOrExit(
    argv,
    (l) => process.stdout.write(`${l}\n`),
    (l) => process.stderr.write(`${l}\n`),
  );
  if (typeof args === "number") return args;
  deferSdkClosureModules();
  skipProviderSerialization();
  const { execute } = await import("./command");
  return execute(args, defaultDeps());
}

/** The process: runs `main` and exits with its code (the entry of `npm run render`, through tools/render/run.cjs). */
export function runProcess(argv: readonly string[]): void {
  // No signal handlers: Ctrl-C ends the process at once (the shell's status 130), at any point. The output
  // is written beside the previous one and swapped in by renames, so the previous output stays whole; the
  // next render removes what was left and takes over the lock (its pid is gone).
  main(argv).then(
    (code) => process.exit(code),
    (e) => {
      process.stderr.write(`render: internal error: ${String(e).slice(0, 200)}\n`);
      process.exit(ExitCode.Internal);
    },
  );
}

if (require.main === module) runProcess(process.argv.slice(2));
