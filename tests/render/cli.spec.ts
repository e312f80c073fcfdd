/**
 * The render command's contract: usage, exit codes (0 / 1 / 2 / 70), `--set` and `--file`. Runs
 * in-process through `runCli` (fixture programs where a failure must be provoked), plus one real
 * subprocess to prove the process exit code.
 */
import { strict as assert } from "assert";
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { runPolicies } from "../../policy/run";
import { isDgdType } from "../../components/inference/dgd-v1beta1";
import { CliDeps, defaultDeps, parseArgs, runCli, USAGE } from "../../tools/render/cli/cli";
import { ExitCode } from "../../tools/_shared/exit-codes";
import { UsageError } from "../../tools/_shared/stackfile";
import { RENDER_CLI, ROOT, Run, STACK_1_TEXT, STACK_TRACE, tinyProgram } from "./render-harness";

/** The CLI in-process with defaultDeps (the real program) unless `over` says otherwise; no stack-trace check (render-harness.ts has that). */
async function run(argv: string[], over: Partial<CliDeps> = {}): Promise<Run> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runCli(argv, {
    ...defaultDeps(),
    stdout: (l) => stdout.push(l),
    stderr: (l) => stderr.push(l),
    ...over,
  });
  return { code, out: stdout.join("\n"), err: stderr.join("\n") };
}

describe("render CLI", function () {
  this.timeout(60000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "render-cli-"));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  describe("arguments", () => {
    it("parses a stack, --out, repeated --set (YAML-typed) and --file, also in --flag=value form", () => {
      const a = parseArgs([
        "p5en-8gpu",
        "--out",
        "o",
        "--set",
        "inference.prefill.replicas=4",
        "--set=image.cudaArchs=[sm_90, sm_100]",
        "--file=x.yaml",
      ]);
      assert.equal(a.stack, "p5en-8gpu");
      assert.equal(a.out, "o");
      assert.equal(a.file, "x.yaml");
      assert.deepEqual(a.overrides, [
        { key: "inference.prefill.replicas", value: 4, text: "4" },
        { key: "image.cudaArchs", value: ["sm_90", "sm_100"], text: "[sm_90, sm_100]" },
      ]);
    });

    for (const [argv, msg] of [
      [[], /name a stack/],
      [["a", "b"], /one stack at a time/],
      [["p5en-8gpu", "--bogus"], /unknown option --bogus/],
      [["p5en-8gpu", "--set", "noequals"], /--set expects key=value/],
      [["p5en-8gpu", "--out"], /--out needs a value/],
      [["p5en-8gpu", "--out", "--set", "a=1"], /--out needs a value; got the flag "--set"/],
      [["p5en-8gpu", "--file="], /--file needs a non-empty value/],
      [["p5en-8gpu", "--help=yes"], /--help takes no value/],
      [["p5en-8gpu", "-x"], /unknown option -x/],
    ] as const) {
      it(`rejects ${JSON.stringify(argv)}`, () =>
        assert.throws(
          () => parseArgs(argv),
          (e: Error) => e instanceof UsageError && msg.test(e.message),
        ));
    }

    it("-h is --help and needs no stack; a value starting with - is passed inline", () => {
      assert.equal(parseArgs(["-h"]).help, true);
      assert.equal(parseArgs(["p5en-8gpu", "--out=-odd"]).out, "-odd");
    });

    it("--help prints usage and exits 0", async () => {
      const r = await run(["--help"]);
      assert.equal(r.code, ExitCode.Ok);
      assert.equal(r.out, USAGE);
    });

    it("an unknown stack exits 2 with did-you-mean and no stack trace", async () => {
      const r = await run(["p5en-8gp", "--out", tmp]);
      assert.equal(r.code, ExitCode.InvalidConfig);
      assert.match(r.err, /no stack "p5en-8gp".*did you mean "p5en-8gpu"\?/);
      assert.doesNotMatch(r.err, STACK_TRACE);
    });
  });

  describe("exit codes", () => {
    it("exit 2: --set inference.backend=sglang names the key and the allowed values", async () => {
      const r = await run(["p5en-8gpu", "--out", tmp, "--set", "inference.backend=sglang"]);
      assert.equal(r.code, ExitCode.InvalidConfig);
      assert.match(r.err, /- inference\.backend: must be one of "vllm", "trtllm"; got "sglang"/);
      assert.doesNotMatch(r.err, STACK_TRACE);
    });

    it("exit 2: a --set that breaks GPU arithmetic is caught by config validation, never rendered", async () => {
      const r = await run(["p5en-8gpu", "--out", tmp, "--set", "inference.prefill.gpusPerWorker=3"]);
      assert.equal(r.code, ExitCode.InvalidConfig);
      assert.match(r.err, /- inference\.prefill\.gpusPerWorker: \(3\) must divide the 8 GPUs of a p5en\.48xlarge node/);
    });

    it("exit 2: --set into a scalar is a usage error naming the key", async () => {
      const r = await run(["p5en-8gpu", "--out", tmp, "--set", "inference.model.name=x"]);
      assert.equal(r.code, ExitCode.InvalidConfig);
      assert.match(r.err, /--set inference\.model\.name/);
    });

    it("exit 1: a mandatory policy violation writes policy.json and exits 1", async () => {
      const flagGraph: ResourceValidationPolicy = {
        name: "fixture-no-graphs",
        description: "fixture: flags every DynamoGraphDeployment",
        enforcementLevel: "mandatory",
        validateResource: (args, report) => {
          if (isDgdType(args.type)) report("fixture violation");
        },
      };
      const r = await run(["p5en-1gpu", "--out", tmp], {
        policies: (plan) => runPolicies(plan, undefined, [flagGraph]),
      });
      assert.equal(r.code, ExitCode.PolicyViolation, r.err);
      assert.match(r.out, /\[mandatory\] fixture-no-graphs: fixture violation/);
      const report = JSON.parse(fs.readFileSync(path.join(tmp, "p5en-1gpu", "policy.json"), "utf8"));
      assert.equal(report.mandatoryViolations, 1);
    });

    it("--policy-config raises a policy to mandatory (pulumi's --policy-pack-config shape)", async () => {
      const advise: ResourceValidationPolicy = {
        name: "fixture-advice",
        description: "fixture",
        enforcementLevel: "advisory",
        validateResource: (args, report) => {
          if (args.type === "fixture:index:Thing") report("now it matters");
        },
      };
      const cfg = path.join(tmp, "policy-config.json");
      fs.writeFileSync(cfg, JSON.stringify({ "fixture-advice": "mandatory" }));
      const r = await run(["p5en-1gpu", "--out", tmp, "--policy-config", cfg], {
        program: tinyProgram,
        policies: (plan, config) => runPolicies(plan, config, [advise]),
        policyList: [advise],
      });
      assert.equal(r.code, ExitCode.PolicyViolation, r.err);
      fs.writeFileSync(cfg, "[1]");
      const bad = await run(["p5en-1gpu", "--out", tmp, "--policy-config", cfg], {
        program: tinyProgram,
        policyList: [advise],
      });
      assert.equal(bad.code, ExitCode.InvalidConfig);
      assert.match(bad.err, /--policy-config .*\n.*must be a JSON object/);
    });

    it("0 with an advisory violation", async () => {
      const advise: ResourceValidationPolicy = {
        name: "fixture-advice",
        description: "fixture",
        enforcementLevel: "advisory",
        validateResource: (args, report) => {
          if (args.type === "fixture:index:Thing") report("just saying");
        },
      };
      const r = await run(["p5en-1gpu", "--out", tmp], {
        program: tinyProgram,
        policies: (plan) => runPolicies(plan, undefined, [advise]),
      });
      assert.equal(r.code, ExitCode.Ok, r.err);
      // An advisory-only render says advisories, never "failed".
      assert.match(r.out, /^ {2}policies: 0 passed, 1 advisory \(fixture-advice\)$/m);
      assert.doesNotMatch(r.out, /failed/);
    });

    it("exit 70: an unexpected error says it is a bug and points to a log with the stack", async () => {
      const r = await run(["p5en-1gpu", "--out", tmp], {
        program: () => {
          throw new Error("boom in the program");
        },
      });
      assert.equal(r.code, ExitCode.Internal);
      assert.match(r.err, /internal error: boom in the program/);
      assert.match(r.err, /This is a bug in dynamo-efa/);
      const log = /Details: (\S+)/.exec(r.err)![1];
      assert.match(fs.readFileSync(log, "utf8"), /boom in the program\n\s+at /);
      assert.doesNotMatch(r.err, STACK_TRACE);
    });

    it("exit 70 leaves no rejection behind: as a child, Node's default handler would print its trace and exit 1", async () => {
      // A component's error also rejects the stack's outputs a turn later (RELIABILITY-AUDIT-2 K1: exit 1 + TypeError).
      const stray: unknown[] = [];
      const catchStray = (e: unknown) => stray.push(e);
      const mocha = process.listeners("unhandledRejection");
      process.removeAllListeners("unhandledRejection");
      process.on("unhandledRejection", catchStray);
      let r;
      try {
        r = await run(["p5en-1gpu", "--out", tmp], {
          program: () => {
            throw new TypeError("s.replace is not a function");
          },
        });
        for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
      } finally {
        process.removeListener("unhandledRejection", catchStray);
        for (const l of mocha) process.on("unhandledRejection", l);
      }
      assert.equal(r.code, ExitCode.Internal);
      assert.deepEqual(stray, []);
    });
  });

  describe("config sources", () => {
    it("--file reads a stack file from anywhere; secure: values become [secret] and never reach the disk", async () => {
      const file = path.join(tmp, "Pulumi.custom.yaml");
      const stack = STACK_1_TEXT;
      fs.writeFileSync(file, `${stack}  dynamo-efa:hfToken:\n    secure: v1:c2VjcmV0:Y2lwaGVydGV4dA==\n`);
      const r = await run(["--file", file, "--out", tmp], { program: tinyProgram });
      assert.equal(r.code, ExitCode.Ok, r.err);
      assert.doesNotMatch(r.err, /hfToken is not set/);
      for (const f of fs.readdirSync(path.join(tmp, "custom"))) {
        const p = path.join(tmp, "custom", f);
        if (fs.statSync(p).isFile()) assert.ok(!fs.readFileSync(p, "utf8").includes("Y2lwaGVydGV4dA"), f);
      }
    });

    it("a prebuilt image.ref renders without a build: image.json says so, the graph runs that ref, the GPU nodes wait for nothing", async () => {
      const ref = `123456789012.dkr.ecr.us-east-2.amazonaws.com/dynamo@sha256:${"ab".repeat(32)}`;
      const r = await run([
        "p5en-8gpu",
        "--out",
        path.join(tmp, "prebuilt"),
        "--set",
        `image.ref=${ref}`,
        "--set",
        "image.cudaArchs=[sm_90]",
      ]);
      assert.equal(r.code, ExitCode.Ok, r.err);
      const dir = path.join(tmp, "prebuilt", "p5en-8gpu");
      const image = JSON.parse(fs.readFileSync(path.join(dir, "image.json"), "utf8"));
      assert.equal(image.build, false);
      assert.equal(image.ref, ref);
      const resources = JSON.parse(fs.readFileSync(path.join(dir, "resources.json"), "utf8")) as {
        type: string;
        name: string;
        dependsOn: string[];
      }[];
      assert.ok(!resources.some((x) => x.type === "docker-build:index:Image"));
      const ng = resources.find((x) => x.type === "aws:eks/nodeGroup:NodeGroup" && x.name.includes("gpu-ng"))!;
      assert.ok(!ng.dependsOn.some((u) => u.includes("DynamoImage")), "the GPU node group waits for no image");
      const plan = JSON.parse(fs.readFileSync(path.join(dir, "plan.json"), "utf8"));
      assert.equal(plan.gpuIdle.nodesWaitForImage, false);
      const md = fs.readFileSync(path.join(dir, "plan.md"), "utf8");
      assert.ok(md.includes(`deploys a prebuilt image (\`${ref}\`, from ${ref.split("/")[0]}): nothing is built`), md);
      assert.match(
        md,
        /assumed about [\d-]+ GB, one engine's vendor runtime image: the size of image\.ref is not known here/,
      );
      const dgd = fs.readdirSync(path.join(dir, "manifests")).find((f) => f.includes("dynamographdeployment"))!;
      assert.ok(fs.readFileSync(path.join(dir, "manifests", dgd), "utf8").includes(`image: ${ref}`));
    });

    it("without a token it renders with a placeholder and says how to set the real one", async () => {
      const r = await run(["p5en-1gpu", "--out", tmp], { program: tinyProgram });
      assert.equal(r.code, ExitCode.Ok);
      assert.match(r.err, /pulumi config set --secret dynamo-efa:hfToken/);
    });
  });

  it("as a process: `render -- p5en-8gpu --set inference.backend=sglang` exits 2 (real exit code)", () => {
    const p = spawnSync(
      process.execPath,
      ["--import", "tsx", RENDER_CLI, "p5en-8gpu", "--out", tmp, "--set", "inference.backend=sglang"],
      {
        cwd: ROOT,
        encoding: "utf8",
        timeout: 50000,
      },
    );
    assert.equal(p.status, ExitCode.InvalidConfig, `${p.stdout}\n${p.stderr}`);
    assert.match(p.stderr, /inference\.backend: must be one of "vllm", "trtllm"/);
    assert.doesNotMatch(p.stderr, STACK_TRACE);
  });
});
