/**
 * `npm run bench`: renders each stack N times in one process (after one warm-up render that pays
 * for module loading) and prints the median wall time and the peak RSS, plus the ratio between a
 * 16+16-worker plan and a 1+1-worker plan. Not a test: numbers depend on the machine.
 *
 * BENCH_N (default 5) sets the number of timed renders per case.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { defaultDeps, runCli } from "../tools/render/cli/cli";
import { BENCH_CASES, type BenchCase } from "./cases";

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function main(): Promise<void> {
  const n = Number(process.env.BENCH_N ?? 5);
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "render-bench-"));
  const t0 = process.hrtime.bigint();
  const deps = { ...defaultDeps(), stdout: () => undefined, stderr: () => undefined };
  const load = Number(process.hrtime.bigint() - t0) / 1e6;
  const once = async (c: BenchCase): Promise<number> => {
    const t = process.hrtime.bigint();
    const code = await runCli([...c.argv, "--out", out], deps);
    // 1 = rendered with a mandatory policy violation: the render ran in full, so it still counts.
    if (code !== 0 && code !== 1) throw new Error(`${c.label}: render exited ${code}`);
    return Number(process.hrtime.bigint() - t) / 1e6;
  };
  const warm = await once(BENCH_CASES[0]);
  console.log(
    `module load ${load.toFixed(0)} ms, first render ${warm.toFixed(0)} ms; then ${n} timed renders per case, ${os.cpus().length} CPUs`,
  );
  const medians: number[] = [];
  for (const c of BENCH_CASES) {
    const times: number[] = [];
    for (let i = 0; i < n; i++) times.push(await once(c));
    const med = median(times);
    medians.push(med);
    const rssMiB = process.resourceUsage().maxRSS / 1024;
    console.log(
      `${c.label.padEnd(36)} median ${med.toFixed(0).padStart(6)} ms  (min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)})  peak RSS ${rssMiB.toFixed(0)} MiB`,
    );
  }
  console.log(`ratio 16+16 / 1+1 workers: ${(medians[2] / medians[0]).toFixed(2)} (target <= 1.5)`);
  fs.rmSync(out, { recursive: true, force: true });
}

const USAGE = `usage: npm run bench [-- --help]
  Renders each stack BENCH_N times (default 5) after one warm-up render and prints the median wall
  time, peak RSS, and the 16+16 / 1+1 worker ratio. Not a test: numbers depend on the machine.`;

if (process.argv.slice(2).some((a) => a === "--help" || a === "-h")) console.log(USAGE);
else if (process.argv.length > 2) {
  console.error(
    `bench takes no arguments (set BENCH_N to change the count); got ${process.argv.slice(2).join(" ")}\n${USAGE}`,
  );
  process.exit(2);
} else
  main().then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(70);
    },
  );
