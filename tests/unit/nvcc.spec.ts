/**
 * The CUDA catalog against the real compiler (docs/FIELD-FAILURES.md#f10). When `nvcc` is on PATH: the catalog's base
 * targets for the installed toolkit equal `nvcc --list-gpu-arch`; the derived NVCC_GENCODE of the fat list and of
 * `auto` for every instance family compiles; every a/f variant the catalog claims compiles and every variant it
 * does not claim is rejected. One tiny kernel, output to /dev/null, two compiles at a time (2 cores). The fat
 * list is compiled with `-c` (device + host, as a build does); the many single-target probes use `-fatbin`, which
 * runs the same per-target device compilation (cicc + ptxas for every -gencode, so an arch nvcc rejects fails the
 * same way) but skips the host compile, whose ~1 s per invocation does not depend on the arch list.
 */
import { strict as assert } from "assert";
import { execFile, spawnSync } from "child_process";
import { mkdtempSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import {
  ArchTarget,
  CUDA_TOOLKITS,
  CudaToolkit,
  INSTANCES,
  autoArchs,
  fatArchs,
  nvccGencode,
} from "../../components/catalog";
import { formatArch, toolkitHas, toolkitTargets } from "../../components/catalog/cuda";
import { valueOf } from "../../components/_shared/problems";

const KERNEL = "__global__ void scale(float* p, float s) { p[threadIdx.x] *= s; }\n";

interface Run {
  ok: boolean;
  stderr: string;
  ms: number;
}

function nvcc(args: readonly string[]): Promise<Run> {
  const start = Date.now();
  return new Promise((resolve) => {
    execFile("nvcc", [...args], { encoding: "utf8", maxBuffer: 1 << 20 }, (err, _stdout, stderr) =>
      resolve({ ok: !err, stderr: String(stderr), ms: Date.now() - start }),
    );
  });
}

/** Runs `jobs` at most `width` at a time, results in input order. */
async function pool<T>(jobs: readonly (() => Promise<T>)[], width = 2): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      out[i] = await jobs[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, jobs.length) }, worker));
  return out;
}

describe("nvcc: the CUDA catalog against the installed compiler", function () {
  this.timeout(120_000);
  let toolkit: CudaToolkit;
  let dir = "";
  let src = "";
  const compile = (gencode: string, mode: "-c" | "-fatbin", extra: string[] = []) =>
    nvcc([mode, "-o", "/dev/null", ...extra, ...gencode.split(" "), src]);

  before(function () {
    const r = spawnSync("nvcc", ["--version"], { encoding: "utf8" });
    if (r.error || r.status !== 0) {
      console.log(
        `    skipped: nvcc is not on PATH (${r.error?.message ?? r.stderr.trim()}); install the CUDA toolkit to run these tests`,
      );
      this.skip();
    }
    const release = /release (\d+\.\d+)/.exec(r.stdout)?.[1];
    if (!release || !(CUDA_TOOLKITS as readonly string[]).includes(release)) {
      console.log(
        `    skipped: nvcc reports CUDA ${release ?? "(unparsed)"}, which the catalog does not list (${CUDA_TOOLKITS.join(", ")})`,
      );
      this.skip();
    }
    toolkit = release as CudaToolkit;
    dir = mkdtempSync(join(tmpdir(), "nvcc-spec-"));
    src = join(dir, "k.cu");
    writeFileSync(src, KERNEL);
  });

  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("the catalog's base targets equal `nvcc --list-gpu-arch`", () => {
    const r = spawnSync("nvcc", ["--list-gpu-arch"], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    const listed = r.stdout
      .split(/\s+/)
      .filter((s) => s.startsWith("compute_"))
      .map((s) => Number(s.slice("compute_".length)));
    const catalog = toolkitTargets(toolkit)
      .filter((t) => t.variant === "")
      .map((t) => t.sm);
    assert.deepEqual(
      [...listed].sort((a, b) => a - b),
      catalog,
    );
  });

  it("compiles the fat list's NVCC_GENCODE", async () => {
    const fat = fatArchs(toolkit);
    const r = await compile(nvccGencode(fat), "-c", ["--threads", "2"]);
    console.log(`      fat (${fat.map(formatArch).join(" ")}): ${r.ms} ms`);
    assert.ok(r.ok, r.stderr);
  });

  it("compiles `auto` for every instance family in the catalog", async () => {
    const byFamily = new Map<string, string>();
    for (const row of INSTANCES.values()) if (!byFamily.has(row.family)) byFamily.set(row.family, row.name);
    const lists = [...byFamily].map(([family, name]) => ({
      family,
      gencode: nvccGencode(valueOf("test", autoArchs([name], toolkit, family))),
    }));
    const distinct = [...new Set(lists.map((l) => l.gencode))];
    const runs = await pool(distinct.map((g) => () => compile(g, "-fatbin")));
    const result = new Map(distinct.map((g, i) => [g, runs[i]]));
    console.log(
      `      ${byFamily.size} families, ${distinct.length} distinct lists: ${runs.map((r) => r.ms).join(" + ")} ms`,
    );
    for (const l of lists)
      assert.ok(result.get(l.gencode)!.ok, `${l.family}: ${l.gencode}\n${result.get(l.gencode)!.stderr}`);
  });

  it("accepts every a/f variant the catalog claims", async () => {
    const claimed = toolkitTargets(toolkit).filter((t) => t.variant !== "");
    const batch = await compile(nvccGencode(claimed), "-fatbin", ["--threads", "2"]);
    console.log(`      ${claimed.length} variants in one compile: ${batch.ms} ms`);
    if (batch.ok) return;
    const single = await pool(claimed.map((t) => () => compile(nvccGencode([t]), "-fatbin")));
    const failed = claimed.filter((_, i) => !single[i].ok).map(formatArch);
    assert.deepEqual(failed, [], `nvcc ${toolkit} rejects variants the catalog claims: ${failed.join(", ")}`);
  });

  it("rejects every variant the catalog does not claim, and sm_101 / sm_61 where the catalog says so", async () => {
    const bases = toolkitTargets(toolkit)
      .filter((t) => t.variant === "")
      .map((t) => t.sm);
    const candidates: ArchTarget[] = [...bases, 101, 61].flatMap((sm) =>
      (["", "a", "f"] as const).map((variant) => ({ sm, variant, ptx: false })),
    );
    const unclaimed = candidates.filter((t) => !toolkitHas(toolkit, t.sm, t.variant));
    const runs = await pool(unclaimed.map((t) => () => compile(nvccGencode([t]), "-fatbin")));
    const accepted = unclaimed.filter((_, i) => runs[i].ok).map(formatArch);
    assert.deepEqual(accepted, [], `nvcc ${toolkit} accepts targets the catalog lacks: ${accepted.join(", ")}`);
    for (const r of runs) assert.match(r.stderr, /Unsupported gpu architecture/);
  });
});
