/**
 * `npm run image:args -- [-a "<list>"] [--toolkit 12.9] [--print-command]`: the `--build-arg` flags that
 * build `dockerfiles/Dockerfile.dynamo-combined-efa` for an arch list, outside Pulumi (the field's
 * `./build.sh -a "sm_90"`). Same validation and derivation as `DynamoImage` (`imagePlan`).
 *
 * Exit codes: 0 ok, 2 invalid arguments (every problem printed, with the catalog's messages).
 */
import { ValidationError } from "../components/_shared/problems";
import { shellQuote } from "../components/_shared/shell";
import { ARCH_CONSUMERS, ArchConsumer } from "../components/catalog";
import { ArchArg, VERSION_ARGS } from "../components/image/build-args";
import { ImageBuildPlan, imagePlan, packagePath } from "../components/image/plan";

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
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

interface Options {
  archs?: string;
  toolkit?: string;
  baseImageTag?: string;
  runtimeImageTag?: string;
  target?: string;
  tag?: string;
  printCommand: boolean;
  help: boolean;
}

const VALUE_FLAGS: Record<string, keyof Options> = {
  "-a": "archs",
  "--archs": "archs",
  "--toolkit": "toolkit",
  "--base-image-tag": "baseImageTag",
  "--runtime-image-tag": "runtimeImageTag",
  "--target": "target",
  "-t": "tag",
  "--tag": "tag",
};

function parseArgv(argv: readonly string[]): Options | string {
  const o: Options = { printCommand: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] =
      argv[i].startsWith("--") && argv[i].includes("=")
        ? [argv[i].slice(0, argv[i].indexOf("=")), argv[i].slice(argv[i].indexOf("=") + 1)]
        : [argv[i], undefined];
    if (flag === "--print-command") o.printCommand = true;
    else if (flag === "-h" || flag === "--help") o.help = true;
    else if (VALUE_FLAGS[flag]) {
      const v = inline ?? argv[++i];
      if (v === undefined) return `${flag} needs a value`;
      (o as unknown as Record<string, string>)[VALUE_FLAGS[flag]] = v;
    } else return `unknown argument ${JSON.stringify(argv[i])}`;
  }
  return o;
}

function buildArgFlags(plan: ImageBuildPlan, o: Options): string[] {
  const names = [VERSION_ARGS.cudaToolkit, ...Object.values(ArchArg)];
  if (o.baseImageTag) names.push(VERSION_ARGS.baseImageTag);
  if (o.runtimeImageTag) names.push(VERSION_ARGS.runtimeImageTag);
  return names.map((n) => `--build-arg ${shellQuote(`${n}=${plan.buildArgs[n]}`)}`);
}

/** A component error message in the CLI's vocabulary (argument paths become flags). */
function cliMessage(message: string, archsFlag: string): string {
  return message
    .replace(/^DynamoImage:/, "image:args:")
    .replace(/^(\s+- )cudaArchs/gm, `$1${archsFlag}`)
    .replace(/^(\s+- )cudaToolkit/gm, "$1--toolkit")
    .replace(/versions\.baseImageTag/g, "--base-image-tag")
    .replace(/versions\.runtimeImageTag/g, "--runtime-image-tag")
    .replace(/^(\s+- )target/gm, "$1--target");
}

/** Runs the CLI. */
export function run(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): CliResult {
  const o = parseArgv(argv);
  if (typeof o === "string") return { code: 2, stdout: "", stderr: `image:args: ${o}\n${USAGE}\n` };
  if (o.help) return { code: 0, stdout: `${USAGE}\n`, stderr: "" };
  const archs = o.archs ?? env.CUDA_ARCH_LIST ?? "fat";
  const archsFlag = o.archs === undefined && env.CUDA_ARCH_LIST !== undefined ? "CUDA_ARCH_LIST" : "-a";
  const tokens = archs.split(/[\s,;]+/).filter((t) => t !== "");
  const versions = {
    ...(o.baseImageTag ? { baseImageTag: o.baseImageTag } : {}),
    ...(o.runtimeImageTag ? { runtimeImageTag: o.runtimeImageTag } : {}),
  };
  let plan: ImageBuildPlan;
  try {
    const cudaArchs = tokens.length === 1 && tokens[0] === "fat" ? "fat" : tokens;
    plan = imagePlan({ cudaArchs, cudaToolkit: o.toolkit, versions, target: o.target, cache: false }) as ImageBuildPlan;
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e;
    return { code: 2, stdout: "", stderr: `${cliMessage(e.message, archsFlag)}\n` };
  }
  const flags = buildArgFlags(plan, o);
  const summary = consumerSummary(plan);
  if (!o.printCommand) return { code: 0, stdout: `${flags.join(" \\\n")}\n`, stderr: summary };
  const cmd = [
    "docker buildx build",
    `-f ${shellQuote(packagePath(plan.dockerfile))}`,
    `--target ${plan.target}`,
    `--platform ${plan.platforms.join(",")}`,
    ...flags,
    `-t ${shellQuote(o.tag ?? `dynamo-combined-efa:${plan.tag}`)}`,
    shellQuote(packagePath(plan.context)),
  ];
  return { code: 0, stdout: `${cmd.join(" \\\n  ")}\n`, stderr: summary };
}

/** One line per consumer (on stderr, so stdout stays paste-able flags): what each build system inside gets. */
function consumerSummary(plan: ImageBuildPlan): string {
  const lines = (Object.keys(ARCH_CONSUMERS) as ArchConsumer[]).map((c) => {
    const list = plan.archLists[c];
    return `# ${c}: ${list === "" ? "(empty: step skipped)" : list}    <- ${ARCH_CONSUMERS[c]}`;
  });
  return `# per-consumer arch lists (${plan.platforms.join(",")}, CUDA ${plan.cudaToolkit}):\n${lines.join("\n")}\n`;
}

if (require.main === module) {
  const r = run(process.argv.slice(2), process.env);
  process.stdout.write(r.stdout);
  process.stderr.write(r.stderr);
  process.exitCode = r.code;
}
