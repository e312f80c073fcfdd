/**
 * `npm run bench:gencode` (not a test): what the fat arch list costs against `auto` for p5en. Compiles
 * bench/kernel.cu with each list's derived NVCC_GENCODE (`nvcc -c`, the toolkit nvcc reports) and prints wall
 * time, object size and the fat/auto ratio of each. Exits 1 when nvcc is not on PATH.
 */
import { spawnSync } from "child_process";
import { mkdtempSync, rmSync, statSync } from "fs";
import { loadavg, tmpdir } from "os";
import { join } from "path";
import { ArchTarget, CUDA_TOOLKITS, CudaToolkit, autoArchs, fatArchs, nvccGencode } from "../components/catalog";
import { formatArch } from "../components/catalog/cuda";
import { valueOf } from "../components/_shared/problems";

interface Result {
  label: string;
  archs: string;
  ms: number;
  bytes: number;
}

function installedToolkit(): CudaToolkit {
  const r = spawnSync("nvcc", ["--version"], { encoding: "utf8" });
  if (r.error || r.status !== 0) {
    console.error(`bench:gencode needs nvcc on PATH (${r.error?.message ?? r.stderr.trim()})`);
    process.exit(1);
  }
  const release = /release (\d+\.\d+)/.exec(r.stdout)?.[1] ?? "";
  if (!(CUDA_TOOLKITS as readonly string[]).includes(release)) {
    console.error(
      `nvcc reports CUDA ${release || "(unparsed)"}, which the catalog does not list (${CUDA_TOOLKITS.join(", ")})`,
    );
    process.exit(1);
  }
  return release as CudaToolkit;
}

function compile(label: string, list: readonly ArchTarget[], dir: string): Result {
  const src = join(__dirname, "kernel.cu");
  const obj = join(dir, `${label}.o`);
  const start = process.hrtime.bigint();
  const r = spawnSync("nvcc", ["-c", "-O3", "-o", obj, ...nvccGencode(list).split(" "), src], { encoding: "utf8" });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) {
    console.error(`nvcc failed for ${label}:\n${r.stderr}`);
    process.exit(1);
  }
  return { label, archs: list.map(formatArch).join(" "), ms, bytes: statSync(obj).size };
}

function main(): void {
  const toolkit = installedToolkit();
  const dir = mkdtempSync(join(tmpdir(), "bench-gencode-"));
  try {
    const auto = compile("auto-p5en", valueOf("bench", autoArchs(["p5en.48xlarge"], toolkit, "bench")), dir);
    const fat = compile("fat", fatArchs(toolkit), dir);
    console.log(
      `CUDA ${toolkit}, bench/kernel.cu, nvcc -c -O3 (load average ${loadavg()[0].toFixed(1)}: timings scale with it)`,
    );
    for (const r of [fat, auto]) {
      console.log(
        `  ${r.label.padEnd(10)} ${(r.ms / 1000).toFixed(2).padStart(7)} s  ${(r.bytes / 1024).toFixed(1).padStart(8)} KiB  ${r.archs}`,
      );
    }
    console.log(`  fat/auto   time x${(fat.ms / auto.ms).toFixed(2)}, size x${(fat.bytes / auto.bytes).toFixed(2)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const USAGE = `usage: npm run bench:gencode [-- --help]
  Compiles bench/kernel.cu with the fat and the p5en "auto" NVCC_GENCODE (nvcc on PATH) and prints
  wall time, object size and the fat/auto ratios. Not a test: timings depend on the machine.`;

if (process.argv.slice(2).some((a) => a === "--help" || a === "-h")) console.log(USAGE);
else if (process.argv.length > 2) {
  console.error(`bench:gencode takes no arguments; got ${process.argv.slice(2).join(" ")}\n${USAGE}`);
  process.exit(2);
} else main();
