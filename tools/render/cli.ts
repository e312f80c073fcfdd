/**
 * `npm run render -- <stack> [--out DIR] [--set key=value ...] [--file stack.yaml]`
 *
 * Runs the real program under Pulumi mocks (no cloud, no credentials, no Pulumi CLI) and writes
 * `DIR/<stack>/`. Exit codes: 0 ok; 1 a mandatory policy violation; 2 invalid config or usage (the
 * message names the key, no stack trace); 70 internal error (a bug: details in a log file).
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { formatProblems, Problem } from "../../components/_shared/problems";
import { problemsOf } from "../../components/_shared/pulumi-errors";
import { toConfigPath } from "../../program/config-schema";
import type { PolicyPackConfigJson } from "../../policy/run";
import { PolicyRunner, render, RenderProgram, RenderResult, writeRender } from "./render";
import { loadProject, Override, parseOverride, stackConfig, stackFile, StackConfigMap, UsageError } from "./stackfile";
import { SECRET } from "./redact";

/** Exit codes. */
export const ExitCode = { Ok: 0, PolicyViolation: 1, InvalidConfig: 2, Internal: 70 } as const;

export const USAGE = `usage: npm run render -- <stack> [--out DIR] [--set key=value ...] [--file path/to/Pulumi.<stack>.yaml]

  <stack>          a stack with a file stacks/Pulumi.<stack>.yaml (e.g. p5en-8gpu)
  --out DIR        output directory; files go to DIR/<stack>/ (default: out)
  --set key=value  override one config key; the path is inside the dynamo-efa namespace
                   (inference.prefill.replicas=4) or fully qualified (aws:region=us-west-2);
                   the value is YAML-typed (4 is a number, [sm_90] a list). Repeatable.
  --file PATH      read the stack config from PATH instead of stacks/Pulumi.<stack>.yaml
  --policy-config PATH
                   policy pack config JSON, as for pulumi preview --policy-pack-config
                   (e.g. {"no-noop-nixl-env": "mandatory"})

exit codes: 0 ok, 1 mandatory policy violation, 2 invalid config or usage, 70 internal error`;

/** What the command runs against; tests pass their own. */
export interface CliDeps {
  /** Repository root (holds Pulumi.yaml). */
  readonly root: string;
  readonly program: RenderProgram;
  readonly policies: PolicyRunner;
  readonly stdout: (line: string) => void;
  readonly stderr: (line: string) => void;
}

interface Args {
  readonly stack?: string;
  readonly out: string;
  readonly overrides: Override[];
  readonly file?: string;
  readonly policyConfig?: string;
  readonly help: boolean;
}

/** Parses the command line; throws `UsageError`. */
export function parseArgs(argv: readonly string[]): Args {
  let stack: string | undefined;
  let out = "out";
  let file: string | undefined;
  let policyConfig: string | undefined;
  let help = false;
  const overrides: Override[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [flag, inline] = a.startsWith("--") && a.includes("=") ? [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)] : [a, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined || (inline === undefined && v.startsWith("--"))) throw new UsageError(`${flag} needs a value`);
      return v;
    };
    if (flag === "--help" || flag === "-h") help = true;
    else if (flag === "--out") out = value();
    else if (flag === "--set") overrides.push(parseOverride(value()));
    else if (flag === "--file") file = value();
    else if (flag === "--policy-config") policyConfig = value();
    else if (a.startsWith("-")) throw new UsageError(`unknown option ${a}`);
    else if (stack === undefined) stack = a;
    else throw new UsageError(`one stack at a time; got ${JSON.stringify(stack)} and ${JSON.stringify(a)}`);
  }
  if (!help && stack === undefined && file === undefined) throw new UsageError("name a stack (e.g. p5en-8gpu) or pass --file");
  return { ...(stack !== undefined ? { stack } : {}), out, overrides, ...(file !== undefined ? { file } : {}), ...(policyConfig !== undefined ? { policyConfig } : {}), help };
}

/** Component paths (`prefill.replicas`) to config paths (`inference.prefill.replicas`), by the erring component. */
function configProblems(e: unknown, problems: readonly Problem[]): Problem[] {
  const msg = e instanceof Error ? e.message : "";
  if (msg.startsWith("EfaCluster")) return problems.map((p) => toConfigPath(p, true));
  const prefix = msg.startsWith("DisaggInference") ? "inference." : msg.startsWith("DynamoImage") ? "image." : "";
  return problems.map((p) => toConfigPath(prefix && !p.propertyPath.startsWith(prefix) ? { ...p, propertyPath: prefix + p.propertyPath } : p));
}

/** Without a token the render still runs: it never needs the value, only that one would be set. */
function withTokenPlaceholder(cfg: StackConfigMap, project: string): { cfg: StackConfigMap; note?: string } {
  const key = `${project}:hfToken`;
  const inference = cfg.values[`${project}:inference`] as { hfTokenSecretName?: unknown } | undefined;
  if (key in cfg.config || (inference && typeof inference === "object" && inference.hfTokenSecretName !== undefined)) return { cfg };
  return {
    cfg: { config: { ...cfg.config, [key]: SECRET }, secretKeys: [...cfg.secretKeys, key].sort(), values: { ...cfg.values, [key]: SECRET } },
    note: `note: ${key} is not set; rendered with a placeholder. Before \`pulumi up\`: pulumi config set --secret ${key} <token>`,
  };
}

/** Reads a policy pack config file (a JSON object). */
function readPolicyConfig(file: string): PolicyPackConfigJson {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    throw new UsageError(`--policy-config ${file}: cannot read the file`);
  }
  try {
    const v = JSON.parse(text);
    if (v && typeof v === "object" && !Array.isArray(v)) return v as PolicyPackConfigJson;
  } catch {
    // reported below
  }
  throw new UsageError(`--policy-config ${file}: must be a JSON object of policy name to enforcement level or settings`);
}

function summary(stack: string, dir: string, r: RenderResult): string[] {
  const p = r.plan;
  const manifests = r.files.filter((f) => f.path.startsWith("manifests/")).length;
  const helm = r.files.filter((f) => f.path.startsWith("helm/")).length;
  const failed = r.policy.results.filter((x) => !x.passed);
  return [
    `rendered ${stack} -> ${dir} (${p.resources.total} resources, ${manifests} manifests, ${helm} Helm releases)`,
    `  GPUs ${p.gpus.requested}/${p.gpus.provisioned}, EFA rails ${p.efaRails.used}/${p.efaRails.provisioned}; image ${p.image.cudaArchs.join(" ")} (CUDA ${p.image.cudaToolkit})`,
    `  workers: ${p.workers.map((w) => `${w.role} ${w.replicas}x${w.gpusPerWorker} GPU/${w.efaPerWorker} EFA`).join(", ")}`,
    `  critical path ~${p.criticalPathDetail.minutes} min: ${p.criticalPath.join(" -> ")}`,
    `  ~$${p.costPerHourUsd.toFixed(2)}/hour on demand (prices reviewed ${p.cost.reviewed})`,
    `  policies: ${r.policy.results.length - failed.length} passed, ${failed.length} failed` +
      ` (${r.policy.mandatoryViolations} mandatory, ${r.policy.advisoryViolations} advisory violations)`,
    ...failed.flatMap((f) => f.violations.map((v) => `    [${f.enforcementLevel}] ${f.name}: ${v.message}`)),
  ];
}

function internalError(e: unknown, dir: string | undefined, deps: CliDeps): number {
  const text = `${new Date().toISOString()} dynamo-efa render internal error\n${e instanceof Error ? e.stack ?? e.message : String(e)}\n`;
  let log = path.join(os.tmpdir(), `dynamo-efa-render-${process.pid}.log`);
  try {
    if (dir) {
      fs.mkdirSync(dir, { recursive: true });
      log = path.join(dir, "render-error.log");
    }
    fs.writeFileSync(log, text);
  } catch {
    fs.writeFileSync((log = path.join(os.tmpdir(), `dynamo-efa-render-${process.pid}.log`)), text);
  }
  deps.stderr(`render: internal error: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`);
  deps.stderr(`This is a bug in dynamo-efa, not in your config. Details: ${log} (please attach it to a bug report).`);
  return ExitCode.Internal;
}

/** Runs the command; returns the exit code. Never throws. */
export async function runCli(argv: readonly string[], deps: CliDeps): Promise<number> {
  let dir: string | undefined;
  try {
    const args = parseArgs(argv);
    if (args.help) {
      deps.stdout(USAGE);
      return ExitCode.Ok;
    }
    const project = loadProject(deps.root);
    const file = args.file ? path.resolve(args.file) : stackFile(deps.root, project, args.stack!);
    if (args.file && !fs.existsSync(file)) throw new UsageError(`--file ${args.file}: no such file`);
    const stack = args.stack ?? /^Pulumi\.(.+)\.ya?ml$/.exec(path.basename(file))?.[1] ?? path.basename(file).replace(/\.ya?ml$/, "");
    const { cfg, note } = withTokenPlaceholder(stackConfig(project, file, args.overrides), project.name);
    if (note) deps.stderr(note);
    dir = path.resolve(args.out, stack);
    const policyConfig = args.policyConfig ? readPolicyConfig(args.policyConfig) : undefined;
    const result = await render({ project: project.name, stack, config: cfg, program: deps.program, policies: deps.policies, ...(policyConfig ? { policyConfig } : {}) });
    writeRender(dir, result.files);
    const rel = path.relative(process.cwd(), dir);
    for (const line of summary(stack, rel === "" ? "." : rel.startsWith("..") ? dir : rel, result)) deps.stdout(line);
    return result.policy.mandatoryViolations > 0 ? ExitCode.PolicyViolation : ExitCode.Ok;
  } catch (e) {
    if (e instanceof UsageError) {
      deps.stderr(`render: ${e.message}`);
      deps.stderr("run `npm run render -- --help` for usage");
      return ExitCode.InvalidConfig;
    }
    const problems = problemsOf(e);
    if (problems) {
      deps.stderr(formatProblems("render: invalid stack config", configProblems(e, problems)));
      return ExitCode.InvalidConfig;
    }
    return internalError(e, dir, deps);
  }
}

/** The real program and policy pack. */
export function defaultDeps(): CliDeps {
  // Loaded here, not at the top: `--help` and usage errors need neither.
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const { runProgram } = require("../../program/program") as typeof import("../../program/program");
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const { runPolicies } = require("../../policy/run") as typeof import("../../policy/run");
  return {
    root: path.resolve(__dirname, "..", ".."),
    program: runProgram,
    policies: (plan, config) => runPolicies(plan, config),
    stdout: (l) => process.stdout.write(`${l}\n`),
    stderr: (l) => process.stderr.write(`${l}\n`),
  };
}

/** `npm run render -- ...`: the exit code of one render. */
export function main(argv: readonly string[]): Promise<number> {
  return runCli(argv, defaultDeps());
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => {
      process.stderr.write(`render: internal error: ${String(e)}\n`);
      process.exit(ExitCode.Internal);
    },
  );
}
