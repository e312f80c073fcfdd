/**
 * The render command after its arguments parsed (`cli.ts` loads this lazily, so `--help` and usage
 * errors never load the program): resolve the stack and its file, check the config with the schema
 * the program uses, run the program under mocks, write the output atomically under a lock.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { formatProblems, Problem } from "../../../components/_shared/problems";
import { componentProblemsAtConfig, typedOverride } from "../../../program/config";
import { checkAnyStackConfigMap } from "../../_shared/stack-check";
import { recordedClusterOutputs } from "./cluster-outputs";
import { siblingClaimProblems } from "./siblings";
import { documentationNote } from "../../../components/cluster/reach";
import { MODELS, modelRow } from "../../../components/catalog/models";
import { editDistance } from "../../../components/_shared/suggest";
import type { AnyStackConfig } from "../../../program/kinds";
import type { PolicyPackConfigJson } from "../../../policy/policies";
import { policyTally } from "../../../policy/run";
import type { Policies } from "@pulumi/policy";
import { ExitCode } from "../../_shared/exit-codes";
import { lockDir, OutputError, ensureDir, sweepLeftovers } from "../output/output";
import { readPolicyConfig } from "./policy-config";
import type { PolicyRunner, RenderProgram, RenderResult } from "../render";
import {
  checkStackName,
  loadProject,
  Override,
  Project,
  SECRET,
  stackConfig,
  stackFile,
  StackConfigMap,
  UsageError,
} from "../../_shared/stackfile";
import { idleNodesLine } from "../plan/placement";
import { prepaidLines } from "../plan/md";

/** What the command runs against; tests pass their own. */
export interface CliDeps {
  /** Repository root (holds Pulumi.yaml). */
  readonly root: string;
  /** Directory relative user paths resolve against. @default - INIT_CWD (where npm was run), else the process cwd */
  readonly cwd?: string;
  readonly program: RenderProgram;
  readonly policies: PolicyRunner;
  /** The policies `--policy-config` is checked against (the pack's, unless a test runs its own). */
  readonly policyList: Policies;
  readonly stdout: (line: string) => void;
  readonly stderr: (line: string) => void;
}

/** The parsed command line. */
export interface Args {
  readonly stack?: string;
  readonly out: string;
  readonly overrides: Override[];
  readonly file?: string;
  readonly policyConfig?: string;
  readonly help: boolean;
}

/** Config problems found before the program runs; thrown so the caller reports them all at once. */
export class ConfigProblems extends Error {
  constructor(readonly problems: readonly Problem[]) {
    super("invalid stack config");
  }
}

/** Without a token the render still runs: it never needs the value, only that one would be set. */
function withTokenPlaceholder(cfg: StackConfigMap, project: string): { cfg: StackConfigMap; note?: string } {
  const key = `${project}:hfToken`;
  // A cluster stack serves no graph: no token to stand in for.
  if (cfg.values[`${project}:inference`] === undefined && cfg.values[`${project}:clusterStack`] === undefined)
    return { cfg };
  const inference = cfg.values[`${project}:inference`] as { hfTokenSecretName?: unknown } | undefined;
  if (key in cfg.config || (inference && typeof inference === "object" && inference.hfTokenSecretName !== undefined))
    return { cfg };
  return {
    cfg: {
      config: { ...cfg.config, [key]: SECRET },
      secretKeys: [...cfg.secretKeys, key].sort(),
      values: { ...cfg.values, [key]: SECRET },
    },
    note: `note: ${key} is not set; rendered with a placeholder. Before \`pulumi up\`: pulumi config set --secret ${key} <token>`,
  };
}

/**
 * A model the catalog does not know still renders (any Hugging Face model id may be served), but its fit, download
 * time and serving estimate are unknown, and a typo in the id would only fail when the workers download it: the
 * console says so, with the nearest catalog id. Nothing for a stated `inference.modelShape` or a cluster stack.
 */
function modelNote(config: AnyStackConfig, project: string): string | undefined {
  if (config.kind === "cluster") return undefined;
  const { model, modelShape } = config.inference;
  if (modelShape !== undefined || modelRow(model) !== undefined) return undefined;
  // Ids are long, so the usual one edit per four characters would offer another model; two edits is a typo.
  const near = [...MODELS.keys()].filter((id) => editDistance(id.toLowerCase(), model.toLowerCase()) <= 2);
  const hint = near.length > 0 ? ` (did you mean ${near.map((n) => JSON.stringify(n)).join(" or ")}?)` : "";
  return `note: ${project}:inference.model ${JSON.stringify(model)} is not in the model catalog${hint}. Rendered as given: its fit on the GPUs, its download time and the serving estimate are unknown (plan.md), and an id the Hugging Face Hub does not have fails only when the workers download it. To have them estimated, state the model's shape in inference.modelShape (docs/CONFIG.md)`;
}

/** The stack name and its config file, checked: a name never escapes `--out`, and name and file agree. */
function stackAndFile(
  args: Args,
  deps: Pick<CliDeps, "cwd">,
  root: string,
  project: Project,
): { stack: string; file: string } {
  if (args.stack !== undefined) checkStackName(args.stack, "stack");
  if (!args.file) return { stack: args.stack!, file: stackFile(root, project, args.stack!) };
  const file = path.resolve(deps.cwd ?? root, args.file);
  const named = /^Pulumi\.(.+)\.ya?ml$/.exec(path.basename(file))?.[1];
  if (args.stack !== undefined && named !== undefined && named !== args.stack) {
    throw new UsageError(
      `stack ${JSON.stringify(args.stack)} does not match --file ${args.file} (the file of stack ${JSON.stringify(named)}); name the stack ${JSON.stringify(named)}, or drop the name to use the file's`,
    );
  }
  const stack = args.stack ?? named ?? path.basename(file).replace(/\.ya?ml$/, "");
  return { stack: checkStackName(stack, `stack name taken from --file ${args.file}:`), file };
}

function summary(stack: string, dir: string, r: RenderResult): string[] {
  const p = r.plan;
  const manifests = r.files.filter((f) => f.path.startsWith("manifests/")).length;
  const helm = r.files.filter((f) => f.path.startsWith("helm/")).length;
  const violated = r.policy.results.filter((x) => !x.passed);
  return [
    `rendered ${stack} -> ${dir} (${p.resources.total} resources, ${manifests} manifests, ${helm} Helm releases)`,
    `  GPUs ${p.gpus.requested}/${p.gpus.provisioned}, EFA rails ${p.efaRails.used}/${p.efaRails.provisioned}; ${p.image ? `image ${p.image.cudaArchs.join(" ")} (CUDA ${p.image.cudaToolkit})` : "no image (no graph)"}`,
    `  workers: ${p.workers.map((w) => `${w.role} ${w.replicas}x${w.gpusPerWorker} GPU/${w.efaPerWorker} EFA`).join(", ")}`,
    ...[idleNodesLine(p.placement)].filter((l): l is string => l !== undefined).map((l) => `  ${l}`),
    `  critical path ~${p.criticalPathDetail.minutes} min: ${p.criticalPath.join(" -> ")}`,
    `  ~$${p.costPerHourUsd.toFixed(2)}/hour on demand${p.sharedCluster ? ` for this stack, plus ~$${p.sharedCluster.usdPerHour.toFixed(2)}/hour of the shared cluster ${p.sharedCluster.stack} (paid once)` : ""} (prices reviewed ${p.cost.reviewed})` +
      (prepaidLines(p).length > 0
        ? `; plus Capacity Block ${prepaidLines(p)
            .map((l) => l.item)
            .join(", ")}, prepaid for the whole block`
        : ""),
    `  policies: ${policyTally(r.policy)}`,
    ...violated.flatMap((f) => f.violations.map((v) => `    [${f.enforcementLevel}] ${f.name}: ${v.message}`)),
  ];
}

function internalError(e: unknown, deps: CliDeps): number {
  const text = `${new Date().toISOString()} dynamo-efa render internal error\n${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`;
  const log = path.join(os.tmpdir(), `dynamo-efa-render-${process.pid}-${Date.now()}.log`);
  let where = `Details: ${log} (please attach it to a bug report).`;
  try {
    fs.writeFileSync(log, text);
  } catch {
    where = "No log could be written; the error above is all there is.";
  }
  deps.stderr(
    `render: internal error: ${e instanceof Error ? e.message.split("\n")[0].slice(0, 200) : String(e).slice(0, 200)}`,
  );
  deps.stderr(`This is a bug in dynamo-efa, not in your config. ${where}`);
  return ExitCode.Internal;
}

/** A stack resolved, loaded and checked: what the render runs with. */
export interface LoadedStack {
  readonly project: Project;
  readonly stack: string;
  readonly file: string;
  /** `--out` resolved, and the stack's directory inside it. */
  readonly out: string;
  readonly dir: string;
  readonly cfg: StackConfigMap;
  /** Said on stderr when the token or a CIDR is a placeholder (one line each). */
  readonly note?: string;
  /** A model stack's cluster stack outputs, by stack name, which the mocks answer its StackReference with. */
  readonly stackOutputs?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/**
 * Resolves, reads and checks the stack exactly as the render does before it runs the program. Throws
 * `UsageError` or `ConfigProblems` (both exit 2); anything else is a bug. The fuzz test calls this.
 */
export function loadStack(args: Args, deps: Pick<CliDeps, "root" | "cwd">): LoadedStack {
  const project = loadProject(deps.root);
  const { stack, file } = stackAndFile(args, deps, deps.root, project);
  const out = path.resolve(deps.cwd ?? deps.root, args.out);
  const dir = path.join(out, stack);
  const rel = path.relative(out, dir);
  if (rel === "" || rel.startsWith("..") || path.isAbsolute(rel))
    throw new UsageError(`stack ${JSON.stringify(stack)} would write outside --out ${args.out}`);
  const { cfg, note: tokenNote } = withTokenPlaceholder(
    stackConfig(project, file, args.overrides, typedOverride),
    project.name,
  );
  const { config, problems } = checkAnyStackConfigMap(project.name, cfg, stack);
  if (problems.length > 0) throw new ConfigProblems(problems);
  const cidrNote =
    config!.kind === "model"
      ? undefined
      : documentationNote(config!.clusterArgs.publicAccessCidrs ?? [], `${project.name}:cluster.publicAccessCidrs`);
  const recorded = config!.kind === "model" ? recordedClusterOutputs(config!, deps.root) : undefined;
  const claimed = config!.kind === "model" ? siblingClaimProblems(deps.root, project, stack, config!) : [];
  if (recorded && recorded.problems.length + claimed.length > 0)
    throw new ConfigProblems([...recorded.problems, ...claimed]);
  const note = [tokenNote, cidrNote, modelNote(config!, project.name)].filter((n) => n !== undefined).join("\n");
  return {
    project,
    stack,
    file,
    out,
    dir,
    cfg,
    ...(note ? { note } : {}),
    ...(recorded?.outputs ? { stackOutputs: recorded.outputs } : {}),
  };
}

/** The stack's output directory when the name is valid (for "left as it was" messages), else undefined. */
function dirOf(args: Args, deps: CliDeps): string | undefined {
  try {
    const { stack } = stackAndFile(args, deps, deps.root, loadProject(deps.root));
    return path.join(path.resolve(deps.cwd ?? deps.root, args.out), stack);
  } catch {
    return undefined; // loadStack reports the problem
  }
}

/** Renders one stack; returns the exit code. Never throws. */
export async function execute(args: Args, deps: CliDeps): Promise<number> {
  let dir: string | undefined = dirOf(args, deps);
  try {
    const { project, stack, out, cfg, note, stackOutputs, ...loaded } = loadStack(args, deps);
    dir = loaded.dir;
    const policyConfig: PolicyPackConfigJson | undefined = args.policyConfig
      ? readPolicyConfig(path.resolve(deps.cwd ?? deps.root, args.policyConfig), deps.policyList)
      : undefined;
    if (note) deps.stderr(note);
    ensureDir(out);
    const lock = lockDir(dir);
    let result: RenderResult;
    try {
      sweepLeftovers(dir);
      // Loaded only now: a config or usage error never waits for the Pulumi runtime to load.
      const { render, writeRender } = await import("../render");
      result = await render({
        project: project.name,
        stack,
        config: cfg,
        program: deps.program,
        policies: deps.policies,
        ...(policyConfig ? { policyConfig } : {}),
        ...(stackOutputs ? { stackOutputs } : {}),
      });
      writeRender(dir, result.files);
    } finally {
      lock.release();
    }
    const shown = path.relative(deps.cwd ?? process.cwd(), dir);
    for (const line of summary(stack, shown === "" ? "." : shown.startsWith("..") ? dir : shown, result))
      deps.stdout(line);
    return result.policy.mandatoryViolations > 0 ? ExitCode.PolicyViolation : ExitCode.Ok;
  } catch (e) {
    const code = await report(e, deps);
    if (dir !== undefined)
      deps.stderr(
        fs.existsSync(dir)
          ? `render: ${dir} was left as it was (the previous render).`
          : "render: nothing was written.",
      );
    return code;
  }
}

/** A component's validation error (from the program run) at config paths; undefined for anything else. */
async function componentProblems(e: unknown): Promise<Problem[] | undefined> {
  // Loaded only now: it loads the Pulumi runtime, which a usage or config error never needs.
  const { problemsOf, subjectOf } = await import("../../../components/_shared/pulumi-errors");
  const problems = problemsOf(e);
  // Component paths (`prefill.replicas`) to config paths (`inference.prefill.replicas`), by the component the error names.
  return problems && componentProblemsAtConfig(subjectOf(e), problems);
}

/** Prints one failure and returns its exit code. */
async function report(e: unknown, deps: CliDeps): Promise<number> {
  if (e instanceof UsageError) {
    deps.stderr(`render: ${e.message}`);
    deps.stderr("run `npm run render -- --help` for usage");
    return ExitCode.InvalidConfig;
  }
  if (e instanceof OutputError) {
    deps.stderr(`render: ${e.message}`);
    return e.code;
  }
  const problems = e instanceof ConfigProblems ? e.problems : await componentProblems(e);
  if (problems) {
    deps.stderr(formatProblems("render: invalid stack config", problems));
    return ExitCode.InvalidConfig;
  }
  return internalError(e, deps);
}
