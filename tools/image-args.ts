/**
 * `npm run image:args -- [-a "<list>"] [--toolkit 12.9] [--print-command]`: the `--build-arg` flags that
 * build `dockerfiles/Dockerfile.dynamo-combined-efa` for an arch list, outside Pulumi (the field's
 * `./build.sh -a "sm_90"`). Same validation and derivation as `DynamoImage` (`checkImagePlan`).
 *
 * Exit codes (`ExitCode` of the CLI family): 0 ok, 2 invalid arguments (every problem printed, with the catalog's
 * messages).
 */
import { parseArgs } from "node:util";
import { formatProblems } from "../components/_shared/problems";
import { shellQuote } from "../components/_shared/shell";
import { ARCH_CONSUMERS, ArchConsumer } from "../components/catalog/archs";
import { ArchArg, DigestArg, VERSION_ARGS } from "../components/image/build-args";
import { checkImagePlan, ImageBuildPlan, packagePath } from "../components/image/plan";
import { compileStageLines, PREBUILT_KERNELS_NOTE } from "../components/image/compile-stages";
import { ExitCode } from "./_shared/exit-codes";

/** The quoting the printed command uses (the CLI test quotes its expected paths with it). */
export { shellQuote };

const USAGE = `usage: npm run image:args -- [options]
  -a, --archs "<list>"       CUDA archs: "fat" (default), or tokens such as "sm_90 sm_100" (space, comma or
                             semicolon separated). Without -a, the CUDA_ARCH_LIST environment variable is read.
  --toolkit <x.y>            CUDA toolkit of the compile stages (default 12.9)
  --base-image-tag <tag>     CUDA devel base image tag (needed for a toolkit other than 12.9)
  --runtime-image-tag <tag>  CUDA runtime image tag (needed for a toolkit other than 12.9)
  --target <stage>           Dockerfile stage (default final; only used with --print-command)
  -t, --tag <image:tag>      image name for --print-command (default dynamo-combined-efa:<content tag>)
  --print-command            print a complete "docker buildx build ..." line instead of the flags
  -h, --help                 this help`;

/** What a run printed and its exit code (the CLI is a pure function of argv and env for tests). */
export interface CliResult {
  readonly code: ExitCode;
  readonly stdout: string;
  readonly stderr: string;
}

const OPTIONS = {
  archs: { type: "string", short: "a" },
  toolkit: { type: "string" },
  "base-image-tag": { type: "string" },
  "runtime-image-tag": { type: "string" },
  target: { type: "string" },
  tag: { type: "string", short: "t" },
  "print-command": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

type Options = ReturnType<typeof parseArgs<{ args: string[]; options: typeof OPTIONS }>>["values"];

/** The parsed flags, or the usage error: the first line of Node's message, as `render` shows it. */
function parseArgv(argv: readonly string[]): Options | string {
  try {
    return parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: false, strict: true }).values;
  } catch (e) {
    return (e as Error).message.split("\n")[0];
  }
}

/**
 * Which flag sets each `DynamoImageArgs` path the CLI passes (`cudaArchs` is `-a`, or `CUDA_ARCH_LIST` when the
 * list came from the environment). A problem at `cudaArchs[2]` is shown at `-a[2]`.
 */
function flagPaths(archsFlag: string): Readonly<Record<string, string>> {
  return {
    cudaArchs: archsFlag,
    cudaToolkit: "--toolkit",
    "versions.baseImageTag": "--base-image-tag",
    "versions.runtimeImageTag": "--runtime-image-tag",
    target: "--target",
  };
}

/** A problem's argument path in the CLI's vocabulary: the flag that sets it, any index kept. */
function flagPath(propertyPath: string, flags: Readonly<Record<string, string>>): string {
  for (const [arg, flag] of Object.entries(flags)) {
    if (propertyPath === arg || propertyPath.startsWith(`${arg}[`) || propertyPath.startsWith(`${arg}.`))
      return flag + propertyPath.slice(arg.length);
  }
  return propertyPath;
}

function buildArgFlags(plan: ImageBuildPlan, o: Options): string[] {
  const names = [VERSION_ARGS.cudaToolkit, ...Object.values(ArchArg)];
  // A tag flag also prints its digest arg: the Dockerfile's default digest pins the default tag and would win.
  if (o["base-image-tag"]) names.push(VERSION_ARGS.baseImageTag, DigestArg.base);
  if (o["runtime-image-tag"]) names.push(VERSION_ARGS.runtimeImageTag, DigestArg.runtime);
  return names.map((n) => `--build-arg ${shellQuote(`${n}=${plan.buildArgs[n]}`)}`);
}

/** The build plan of the flags, or the exit-2 result listing every problem at the flag that sets it. */
function planOf(o: Options, env: Readonly<Record<string, string | undefined>>): ImageBuildPlan | CliResult {
  const archs = o.archs ?? env.CUDA_ARCH_LIST ?? "fat";
  const archsFlag = o.archs === undefined && env.CUDA_ARCH_LIST !== undefined ? "CUDA_ARCH_LIST" : "-a";
  const tokens = archs.split(/[\s,;]+/).filter((t) => t !== "");
  const versions = {
    ...(o["base-image-tag"] ? { baseImageTag: o["base-image-tag"] } : {}),
    ...(o["runtime-image-tag"] ? { runtimeImageTag: o["runtime-image-tag"] } : {}),
  };
  const cudaArchs = tokens.length === 1 && tokens[0] === "fat" ? "fat" : tokens;
  const plan = checkImagePlan({ cudaArchs, cudaToolkit: o.toolkit, versions, target: o.target, cache: false });
  if (!plan.ok) {
    const flags = flagPaths(archsFlag);
    const problems = plan.problems.map((p) => ({ ...p, propertyPath: flagPath(p.propertyPath, flags) }));
    return { code: ExitCode.InvalidConfig, stdout: "", stderr: `${formatProblems("image:args", problems)}\n` };
  }
  // Without `ref` the plan is always a build; a prebuilt plan here would be a bug in plan.ts.
  if (plan.value.kind !== "build") throw new Error(`image:args: expected a build plan, got ${plan.value.kind}`);
  return plan.value;
}

/** Runs the CLI. */
export function run(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): CliResult {
  const o = parseArgv(argv);
  if (typeof o === "string")
    return { code: ExitCode.InvalidConfig, stdout: "", stderr: `image:args: ${o}\n${USAGE}\n` };
  if (o.help) return { code: ExitCode.Ok, stdout: `${USAGE}\n`, stderr: "" };
  const plan = planOf(o, env);
  if (!("kind" in plan)) return plan;
  const flags = buildArgFlags(plan, o);
  const summary = consumerSummary(plan);
  if (!o["print-command"]) return { code: ExitCode.Ok, stdout: `${flags.join(" \\\n")}\n`, stderr: summary };
  const cmd = [
    "docker buildx build",
    `-f ${shellQuote(packagePath(plan.dockerfile))}`,
    `--target ${plan.target}`,
    `--platform ${plan.platforms.join(",")}`,
    ...flags,
    `-t ${shellQuote(o.tag ?? `dynamo-combined-efa:${plan.tag}`)}`,
    shellQuote(packagePath(plan.context)),
  ];
  return { code: ExitCode.Ok, stdout: `${cmd.join(" \\\n  ")}\n`, stderr: summary };
}

/** One line per consumer (on stderr, so stdout stays paste-able flags): what each build system inside gets. */
function consumerSummary(plan: ImageBuildPlan): string {
  const lines = (Object.keys(ARCH_CONSUMERS) as ArchConsumer[]).map((c) => {
    const list = plan.archLists[c];
    return `# ${c}: ${list === "" ? "(empty: step skipped)" : list}    <- ${ARCH_CONSUMERS[c]}`;
  });
  const stages = compileStageLines(plan.archLists).map((l) => `# ${l}`);
  return [
    `# per-consumer arch lists (${plan.platforms.join(",")}, CUDA ${plan.cudaToolkit}):`,
    ...lines,
    "# compile stages and the list each uses:",
    ...stages,
    `# ${PREBUILT_KERNELS_NOTE}`,
    "",
  ].join("\n");
}

if (require.main === module) {
  const r = run(process.argv.slice(2), process.env);
  process.stdout.write(r.stdout);
  process.stderr.write(r.stderr);
  process.exitCode = r.code;
}
