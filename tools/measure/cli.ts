/**
 * `npm run measure -- <stack> [--aiperf-image <repo@sha256:...>] [--kubeconfig F] [--cluster-outputs F] [--sweep 0.5,1,2]
 *  [--requests N] [--twin [--pause-disagg]] [--out DIR] [--timeout S]`
 *
 * After `pulumi up`: benchmarks the stack's declared `inference.workload` with AIPerf inside the cluster and
 * writes `measure.json` and `measure.svg` (measured beside the render's estimate) to --out. Arguments are checked
 * before anything heavy loads. Exit: 0 report written, 2 usage / stack config / kubeconfig, 3 cluster unreachable
 * or a benchmark produced no export, 70 internal error, 73 --out not writable, 130 interrupted (cleaned up).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { UsageError } from "../_shared/input";
import { ExitCode } from "../_shared/exit-codes";
import { Io, parse, USAGE } from "./args";

/** Writes the report files into `dir` (created); false when it cannot. */
function writeOut(dir: string, files: Readonly<Record<string, string>>, io: Io): boolean {
  try {
    fs.mkdirSync(dir, { recursive: true });
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
    return true;
  } catch (e) {
    io.stderr(`measure: cannot write ${dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`);
    return false;
  }
}

/** The command, in-process: returns the exit code. Never throws. */
export async function main(argv: readonly string[], io: Io): Promise<number> {
  try {
    const a = parse(argv, io.aiperfImageEnv);
    if (a.help) {
      io.stdout(USAGE);
      return ExitCode.Ok;
    }
    // Loaded lazily: the schema and @kubernetes/client-node take seconds to import; usage errors should not wait.
    const { runMeasure } = await import("./main-run");
    const report = await runMeasure(a, io);
    if (report === "interrupted") return 130;
    const { renderChart } = await import("./chart");
    const dir = path.resolve(io.cwd, a.out);
    const wrote = writeOut(
      dir,
      { "measure.json": JSON.stringify(report, null, 2) + "\n", "measure.svg": renderChart(report) },
      io,
    );
    io.stdout(
      `measure ${a.stack}: ${dir}/measure.json, measure.svg\n${report.findings.map((f) => `  - ${f}`).join("\n")}\n`,
    );
    return wrote ? ExitCode.Ok : ExitCode.CantCreate;
  } catch (e) {
    return failure(e, io);
  }
}

async function failure(e: unknown, io: Io): Promise<number> {
  if (e instanceof UsageError) {
    io.stderr(`measure: ${e.message}\n${USAGE}`);
    return ExitCode.InvalidConfig;
  }
  const { UnreachableError } = await import("../verify/http");
  if (e instanceof UnreachableError) {
    io.stderr(`measure: ${e.message}\n`);
    return ExitCode.Unreachable;
  }
  io.stderr(
    `measure: internal error (a bug in dynamo-efa, please report it): ${String((e as Error)?.message ?? e)
      .split("\n")[0]!
      .slice(0, 200)}\n`,
  );
  return ExitCode.Internal;
}

if (require.main === module) {
  main(process.argv.slice(2), {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    root: path.resolve(__dirname, "..", ".."),
    cwd: process.env.INIT_CWD || process.cwd(),
    ...(process.env.AIPERF_IMAGE ? { aiperfImageEnv: process.env.AIPERF_IMAGE } : {}),
  }).then((code) => process.exit(code));
}
