/** `npm run image:args`: flags, fat default, env var, exit codes and messages. */
import * as assert from "assert";
import { spawnSync } from "child_process";
import { join } from "path";
import { fatArchs, nvccGencode, torchCudaArchList } from "../../components/catalog";
import { run, shellQuote } from "../../tools/image-args";

const ROOT = join(__dirname, "..", "..");

describe("image:args CLI", () => {
  it('-a "sm_90 sm_100" prints gencode for exactly sm_90 and sm_100', () => {
    const r = run(["-a", "sm_90 sm_100"], {});
    assert.strictEqual(r.code, 0, r.stderr);
    assert.strictEqual(
      r.stdout,
      [
        "--build-arg CUDA_VERSION=12.9",
        "--build-arg 'NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_100,code=sm_100'",
        "--build-arg 'TORCH_CUDA_ARCH_LIST=9.0;10.0'",
        "--build-arg 'FLASHINFER_CUDA_ARCH_LIST=9.0a 10.0a'",
        "--build-arg 'EP_KERNELS_CUDA_ARCH_LIST=9.0;10.0'",
      ].join(" \\\n") + "\n",
    );
  });

  it("fat by default, and CUDA_ARCH_LIST is read when -a is absent (-a wins)", () => {
    const fat = fatArchs("12.9");
    const r = run([], {});
    assert.strictEqual(r.code, 0);
    for (const v of [nvccGencode(fat), torchCudaArchList(fat)]) assert.ok(r.stdout.includes(v), v);
    assert.match(r.stdout, /'TORCH_CUDA_ARCH_LIST=8\.0;8\.6;8\.9;9\.0;10\.0;12\.0\+PTX'/, "no 10.1, no 8.7");
    assert.match(r.stdout, /'FLASHINFER_CUDA_ARCH_LIST=8\.0 8\.6 8\.9 9\.0a 10\.0a 12\.0a'/);
    assert.match(r.stdout, /'EP_KERNELS_CUDA_ARCH_LIST=9\.0;10\.0'/);
    for (const c of ["nvcc", "torch", "flashinfer", "epKernels"])
      assert.match(r.stderr, new RegExp(`^# ${c}: `, "m"), `${c} list printed`);
    assert.match(run([], { CUDA_ARCH_LIST: "sm_90" }).stdout, /NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 /);
    assert.match(
      run(["-a", "sm_100"], { CUDA_ARCH_LIST: "sm_90" }).stdout,
      /NVCC_GENCODE=-gencode=arch=compute_100,code=sm_100 /,
    );
  });

  it("invalid tokens exit 2 naming every bad token, with the catalog's suggestion and the source", () => {
    const r = run(["-a", "sm_9O sm_90 sm_77"], {});
    assert.strictEqual(r.code, 2);
    assert.strictEqual(r.stdout, "");
    assert.match(r.stderr, /^image:args: 2 problems\n {2}- -a\[0\]: unknown CUDA arch "sm_9O"; did you mean "sm_90"\?/);
    assert.match(r.stderr, /- -a\[2\]: .*sm_77/);
    const env = run([], { CUDA_ARCH_LIST: "sm_90 sm_101" });
    assert.strictEqual(env.code, 2, "nvcc 12.9 takes sm_101, but it is Thor (Arm) and torch >= 2.9 rejects 10.1");
    assert.match(
      env.stderr,
      /- CUDA_ARCH_LIST: sm_101 is Jetson Thor .*: a linux\/amd64 image never runs on it; drop sm_101/,
    );
    const amd = run(["-a", "sm_90 sm_101"], {});
    assert.strictEqual(amd.code, 2);
    assert.match(amd.stderr, /- -a: sm_101 .*linux\/amd64/);
    const e13 = run(["--toolkit", "13.0"], { CUDA_ARCH_LIST: "sm_101" });
    assert.strictEqual(e13.code, 2);
    assert.match(e13.stderr, /- CUDA_ARCH_LIST\[0\]: sm_101 was renamed sm_110 in CUDA 13\.0/);
    assert.match(e13.stderr, /- --base-image-tag: /);
    // Every path is the flag (or variable) that sets it: no argument name of DynamoImage leaks through.
    assert.doesNotMatch(e13.stderr, /- (cudaArchs|cudaToolkit|versions\.)/);
  });

  it("another toolkit with its image tags prints them too; a bad toolkit or flag exits 2", () => {
    const r = run(
      [
        "-a",
        "sm_100",
        "--toolkit=13.0",
        "--base-image-tag",
        "25.11-cuda13.0-devel-ubuntu24.04",
        "--runtime-image-tag",
        "13.0.2-runtime-ubuntu24.04",
      ],
      {},
    );
    assert.strictEqual(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /CUDA_VERSION=13\.0[\s\S]*BASE_IMAGE_TAG=25\.11-cuda13\.0-devel-ubuntu24\.04[\s\S]*RUNTIME_IMAGE_TAG=13\.0\.2-runtime-ubuntu24\.04/,
    );
    assert.match(
      run(["--toolkit", "13.9"], {}).stderr,
      /- --toolkit: unsupported CUDA toolkit "13\.9".*allowed: "12\.4"/,
    );
    for (const argv of [["--bogus"], ["-a"]]) {
      const bad = run(argv, {});
      assert.strictEqual(bad.code, 2);
      assert.match(bad.stderr, /usage: npm run image:args/);
    }
    assert.strictEqual(run(["--help"], {}).code, 0);
  });

  it("long, inline and short forms are the same flags; a usage error names the flag and prints the usage", () => {
    const short = run(["-a", "sm_90", "-t", "me/dyn:1", "--print-command"], {});
    assert.strictEqual(short.code, 0, short.stderr);
    assert.deepStrictEqual(run(["--archs=sm_90", "--tag=me/dyn:1", "--print-command"], {}), short);
    assert.strictEqual(run(["-h"], {}).stdout, run(["--help"], {}).stdout);
    for (const [argv, flag] of [
      [["--bogus"], "--bogus"],
      [["-a"], "-a"],
      [["--target"], "--target"],
      [["-a", "sm_90", "extra"], "extra"],
    ] as const) {
      const bad = run(argv, {});
      assert.strictEqual(bad.code, 2, argv.join(" "));
      assert.strictEqual(bad.stdout, "");
      assert.ok(bad.stderr.startsWith("image:args: ") && bad.stderr.split("\n")[0].includes(flag), bad.stderr);
      assert.match(bad.stderr, /\nusage: npm run image:args -- \[options\]\n/);
    }
  });

  it("--print-command prints a complete buildx line for the package's Dockerfile and context", () => {
    const r = run(["-a", "sm_90", "--print-command", "-t", "me/dyn:1"], {});
    const lines = r.stdout.trim().split(" \\\n  ");
    assert.deepStrictEqual(lines, [
      "docker buildx build",
      `-f ${shellQuote(join(ROOT, "dockerfiles", "Dockerfile.dynamo-combined-efa"))}`,
      "--target final",
      "--platform linux/amd64",
      "--build-arg CUDA_VERSION=12.9",
      "--build-arg NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90",
      "--build-arg TORCH_CUDA_ARCH_LIST=9.0",
      "--build-arg FLASHINFER_CUDA_ARCH_LIST=9.0a",
      "--build-arg EP_KERNELS_CUDA_ARCH_LIST=9.0",
      "-t me/dyn:1",
      shellQuote(join(ROOT, "dockerfiles")),
    ]);
    assert.match(run(["--print-command", "--target", "fnal"], {}).stderr, /- --target: "fnal" is not a stage/);
  });

  it("the real process exits 2 on a bad token and 0 otherwise", function () {
    this.timeout(60_000); // two tsx process start-ups
    const tsx = join(ROOT, "node_modules", ".bin", "tsx");
    const bad = spawnSync(tsx, [join(ROOT, "tools", "image-args.ts"), "-a", "sm_9O"], { encoding: "utf8", cwd: "/" });
    assert.strictEqual(bad.status, 2, bad.stderr);
    assert.match(bad.stderr, /unknown CUDA arch "sm_9O"/);
    const ok = spawnSync(tsx, [join(ROOT, "tools", "image-args.ts"), "-a", "sm_90"], { encoding: "utf8", cwd: "/" });
    assert.strictEqual(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /compute_90,code=sm_90/);
  });
});
