/**
 * `npm run bench`: how fast the first command answers, and where its time goes. Not a test: numbers depend on the
 * machine and on what else it runs; on a shared machine compare the CPU seconds, not the wall.
 *
 * 1. The command as a user runs it: `node tools/render/run.cjs <stack>` (what `npm run render` runs; npm's own start
 *    comes on top), BENCH_N times per case (default 3), the median wall time and, where `/usr/bin/time` exists, the
 *    median CPU seconds (user + system) of the process and its children (the bundle's build, when stale).
 * 2. With BENCH_VALGRIND=1 and valgrind installed: the instructions of one such run per case (cachegrind's `I refs`,
 *    every process), a count that does not move with the machine's load. Slow: minutes a case.
 * 3. In this process: the CPU seconds of loading the render's modules, then per case one render, profiled by V8's
 *    sampler and split into module groups (the mocks and the program, the serving estimate, the policies, the plan
 *    and its files, the rest).
 *
 * Cases: p5en-1gpu (1+1 workers), p5en-8gpu (8+8), p5en-8gpu on 4 nodes with 16+16; the ratio 16+16 / 1+1 is
 * printed for each measure.
 */
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as inspector from "node:inspector";
import * as os from "node:os";
import * as path from "node:path";
import { BENCH_CASES, type BenchCase } from "./cases";

const ROOT = path.join(__dirname, "..");

type Case = BenchCase;
const CASES = BENCH_CASES;

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const cpuNow = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const TIME = "/usr/bin/time";

/** One run of the command: wall seconds, and CPU seconds when /usr/bin/time can tell. */
function processRun(c: Case, out: string): { wall: number; cpu?: number } {
  const args = [path.join(ROOT, "tools", "render", "run.cjs"), ...c.argv, "--out", out];
  const timed = fs.existsSync(TIME);
  const t = process.hrtime.bigint();
  const p = timed
    ? spawnSync(TIME, ["-f", "cpu %U %S", process.execPath, ...args], { cwd: ROOT, encoding: "utf8" })
    : spawnSync(process.execPath, args, { cwd: ROOT, encoding: "utf8" });
  const wall = Number(process.hrtime.bigint() - t) / 1e9;
  if (p.status !== 0 && p.status !== 1) throw new Error(`${c.label}: render exited ${p.status}: ${p.stderr}`);
  const m = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(p.stderr);
  return { wall, ...(m ? { cpu: Number(m[1]) + Number(m[2]) } : {}) };
}

/** Instructions of one run, every process (cachegrind's `I refs`), or undefined without valgrind. */
function instructions(c: Case, out: string): number | undefined {
  const vg = spawnSync(
    "valgrind",
    [
      ...["--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", "--trace-children=yes"],
      ...[process.execPath, path.join(ROOT, "tools", "render", "run.cjs"), ...c.argv, "--out", out],
    ],
    { cwd: ROOT, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  if (vg.error) return undefined;
  return [...vg.stderr.matchAll(/I\s+refs:\s+([\d,]+)/g)].reduce((n, m) => n + Number(m[1]!.replace(/,/g, "")), 0);
}

/** Which group a profiled function belongs to, by its source (or V8's name for its own work). */
function groupOf(frame: { readonly url: string; readonly functionName: string }): string {
  if (frame.functionName === "(garbage collector)") return "garbage collection";
  const rel = frame.url.replace(/^file:\/\//, "").replace(`${ROOT}/`, "");
  if (rel === "" || rel.startsWith("node:")) return "node and V8";
  if (/^serving\/|tools\/render\/plan\/serving/.test(rel)) return "serving estimate";
  if (/^policy\/|@pulumi\/policy/.test(rel)) return "policies";
  if (/^tools\/render\/(plan|pictures|output)\/|tools\/render\/render/.test(rel)) return "plan, pictures, files";
  if (/^(program|components)\/|tools\/render\/capture\/|@pulumi\/|google-protobuf|@grpc/.test(rel))
    return "mocks and the program";
  return "other libraries";
}

/** One in-process render under V8's sampling profiler: CPU seconds by group. */
async function profiledRender(run: () => Promise<number>): Promise<{ total: number; groups: Map<string, number> }> {
  const session = new inspector.Session();
  session.connect();
  const post = <T>(method: string, params?: object) =>
    new Promise<T>((res, rej) => session.post(method, params, (e, r) => (e ? rej(e) : res(r as T))));
  await post("Profiler.enable");
  await post("Profiler.setSamplingInterval", { interval: 200 });
  await post("Profiler.start");
  const t = cpuNow();
  const code = await run();
  const total = cpuNow() - t;
  const { profile } = await post<{ profile: inspector.Profiler.Profile }>("Profiler.stop");
  session.disconnect();
  if (code !== 0 && code !== 1) throw new Error(`render exited ${code}`);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const sampled = new Map<string, number>();
  (profile.samples ?? []).forEach((id, i) => {
    const g = groupOf(byId.get(id)?.callFrame ?? { url: "", functionName: "" });
    sampled.set(g, (sampled.get(g) ?? 0) + (profile.timeDeltas?.[i] ?? 0));
  });
  const all = [...sampled.values()].reduce((a, b) => a + b, 0) || 1;
  return { total, groups: new Map([...sampled].map(([g, us]) => [g, (total * us) / all])) };
}

const ratio = (a: number | undefined, b: number | undefined) =>
  a !== undefined && b !== undefined ? (a / b).toFixed(2) : "n/a";

async function main(): Promise<void> {
  const n = Number(process.env.BENCH_N ?? 3);
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "render-bench-"));
  console.log(`${os.cpus().length} CPUs, load average ${os.loadavg()[0]!.toFixed(1)}; ${n} runs per case`);
  execFileSync(process.execPath, [path.join(ROOT, "tools", "render", "run.cjs"), "--help"], { stdio: "ignore" });
  const proc: { wall: number; cpu?: number }[] = [];
  for (const c of CASES) {
    const runs = Array.from({ length: n }, () => processRun(c, out));
    const cpus = runs.flatMap((r) => (r.cpu !== undefined ? [r.cpu] : []));
    const r = { wall: median(runs.map((x) => x.wall)), ...(cpus.length ? { cpu: median(cpus) } : {}) };
    proc.push(r);
    console.log(
      `command  ${c.label.padEnd(36)} wall ${r.wall.toFixed(2)} s  cpu ${r.cpu?.toFixed(2) ?? "n/a"} s  (median of ${n})`,
    );
  }
  console.log(
    `command  ratio 16+16 / 1+1: wall ${ratio(proc[2]?.wall, proc[0]?.wall)}, cpu ${ratio(proc[2]?.cpu, proc[0]?.cpu)}`,
  );
  if (process.env.BENCH_VALGRIND === "1") {
    const counts = CASES.map((c) => instructions(c, out));
    CASES.forEach((c, i) =>
      console.log(`instructions ${c.label.padEnd(32)} ${counts[i]?.toLocaleString("en-US") ?? "valgrind not found"}`),
    );
    console.log(`instructions ratio 16+16 / 1+1: ${ratio(counts[2], counts[0])}`);
  }
  const before = cpuNow();
  const { defaultDeps, runCli } = await import("../tools/render/cli/cli");
  await import("../tools/render/cli/command");
  await import("../tools/render/render");
  const deps = { ...defaultDeps(), stdout: () => undefined, stderr: () => undefined };
  await runCli(["p5en-1gpu", "--out", out], deps); // loads the program, the SDK and the policies
  console.log(`in-process: module load and a first render ${(cpuNow() - before).toFixed(2)} CPU s`);
  const totals: number[] = [];
  for (const c of CASES) {
    const p = await profiledRender(() => runCli([...c.argv, "--out", out], deps));
    totals.push(p.total);
    const parts = [...p.groups].sort((a, b) => b[1] - a[1]).map(([g, s]) => `${g} ${s.toFixed(2)}`);
    console.log(`render   ${c.label.padEnd(36)} ${p.total.toFixed(2)} CPU s: ${parts.join(", ")}`);
  }
  console.log(`render   ratio 16+16 / 1+1: ${ratio(totals[2], totals[0])}`);
  fs.rmSync(out, { recursive: true, force: true });
}

const USAGE = `usage: npm run bench [-- --help]
  Runs the render command per stack BENCH_N times (default 3): median wall and CPU seconds; with
  BENCH_VALGRIND=1, the instructions of one run (valgrind); then one profiled in-process render per stack,
  split by module group. Not a test: numbers depend on the machine.`;

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
