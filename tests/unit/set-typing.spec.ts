/**
 * `--set` values typed by the key's kind in the key tables (program/keys.ts `typedByKind`, program/config.ts
 * `typedOverride`): a string key takes the text as written where YAML would read a number or a boolean
 * (`--set cluster.kubernetesVersion=1.33` is "1.33", so the DRA refusal below 1.34 is what the user sees), while a
 * number key keeps its number, a list or a map stays one (and is refused at a string key), null stays the default,
 * and a key the tables do not know keeps YAML's value. In a stack file YAML's type stands: an unquoted 1.33 is
 * refused, and the checks that depend on it report in the same run.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { typedOverride } from "../../program/config";
import { checkStackConfigMap } from "../../tools/_shared/stack-check";
import { loadProject, parseOverride, stackConfig, stackFilePath } from "../../tools/_shared/stackfile";
import { ExitCode } from "../../tools/_shared/exit-codes";
import { ROOT, run, stackFileWith } from "../render/render-harness";

const never = () => {
  throw new Error("the program ran: the config should have been refused");
};
const problemLines = (text: string) => text.split("\n").filter((l) => l.startsWith("  - "));

/** The value `--set <text>` gives its key in the runtime's config map, typed as the render types it. */
function setValue(text: string): unknown {
  const o = parseOverride(text);
  const project = loadProject(ROOT);
  const cfg = stackConfig(project, stackFilePath(ROOT, project, "p5en-1gpu"), [o], typedOverride);
  const [top, ...rest] = o.key.split(/\.|(?=\[)/);
  let v: unknown = cfg.values[top.includes(":") ? top : `${project.name}:${top}`];
  for (const s of rest) v = (v as Record<string, unknown>)[s.startsWith("[") ? s.slice(1, -1) : s];
  return v;
}

describe("--set: a value typed by its key's kind", function () {
  this.timeout(60000);
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "set-typing-"));
  after(() => fs.rmSync(out, { recursive: true, force: true }));

  it("a string key takes the text where YAML reads a number or a boolean; other kinds keep YAML's value", () => {
    for (const [text, want] of [
      ["cluster.kubernetesVersion=1.33", "1.33"],
      ["cluster.kubernetesVersion=1.30", "1.30"], // YAML's number would be 1.3
      ["cluster.kubernetesVersion=1.35", "1.35"],
      ['cluster.kubernetesVersion="1.35"', "1.35"],
      ["cluster.gpuPools.gpu.instanceType=5", "5"],
      ["cluster.availabilityZones[0]=1", "1"], // a list of strings' item
      ["cluster.tags.team=0x1F", "0x1F"], // a map of strings' value; YAML would read 31
      ["image.cudaArchs=90", "90"], // either a string or a list
      ["inference.servedModelName=true", "true"],
      ["inference.prefill.replicas=4", 4], // a number key keeps its number
      ["cluster.gpuPools.gpu.nodes=2", 2],
      ["cluster.gpuPools.gpu.efa=false", false], // a boolean key keeps its boolean
      ["inference.servedModelName=[]", []], // a list stays a list (refused below)
      ["image.cudaArchs=[sm_90]", ["sm_90"]],
      ["cluster.kubernetesVersion=null", null], // null is the default, as in a stack file
      ["cluster.noSuchKey=1.33", 1.33], // a key the tables do not know keeps YAML's value
      ["graphName=123", 123],
      ["aws:region=1", 1], // another namespace
    ] as const)
      assert.deepEqual(setValue(text), want, text);
  });

  it("the acceptance command: dra with --set cluster.kubernetesVersion=1.33 exits 2 naming cluster.deviceAllocation", async () => {
    const r = await run(
      ["p5en-8gpu", "--out", out, "--set", "cluster.deviceAllocation=dra", "--set", "cluster.kubernetesVersion=1.33"],
      { program: never },
    );
    assert.equal(r.code, ExitCode.InvalidConfig, r.err);
    const problems = problemLines(r.err);
    assert.equal(problems.length, 1, r.err);
    assert.match(
      problems[0],
      /^ {2}- cluster\.deviceAllocation: "dra" needs Kubernetes 1\.34 or later .* but kubernetesVersion is "1\.33"; set kubernetesVersion to 1\.34 or later/,
    );
  });

  it("--set cluster.kubernetesVersion=1.35 (unquoted) is accepted, with dra too", async () => {
    const project = loadProject(ROOT);
    const file = stackFilePath(ROOT, project, "p5en-8gpu");
    const sets = ["cluster.kubernetesVersion=1.35", "cluster.deviceAllocation=dra"].map(parseOverride);
    const checked = checkStackConfigMap(project.name, stackConfig(project, file, sets, typedOverride), true);
    assert.deepEqual(checked.problems, []);
    assert.equal(checked.config?.clusterArgs.kubernetesVersion, "1.35");
    for (const extra of [[], ["--set", "cluster.deviceAllocation=dra"]]) {
      const r = await run(["p5en-8gpu", "--out", out, "--set", "cluster.kubernetesVersion=1.35", ...extra]);
      assert.equal(r.code, ExitCode.Ok, r.err);
    }
  });

  it("a text YAML reads as a list or a map is refused at a string key; a version EKS lacks is refused as written", async () => {
    for (const [set, want] of [
      ["inference.servedModelName=[]", "  - inference.servedModelName: must be a string; got [] (a list)"],
      ["cluster.kubernetesVersion={a: 1}", "  - cluster.kubernetesVersion: must be a string; got {"],
      ["cluster.kubernetesVersion=1.30", "  - cluster.kubernetesVersion: must be a version EKS supports, one of"],
      ["inference.prefill.replicas=four", "  - inference.prefill.replicas: must be a whole number"],
    ] as const) {
      const r = await run(["p5en-1gpu", "--out", out, "--set", set], { program: never });
      assert.equal(r.code, ExitCode.InvalidConfig, `${set}\n${r.err}`);
      assert.ok(
        problemLines(r.err).some((l) => l.startsWith(want)),
        `${set}\n${r.err}`,
      );
      if (set.includes("1.30")) assert.match(r.err, /got "1\.30"/);
    }
  });

  it("in a stack file an unquoted 1.33 stays a number, refused, and dra's refusal comes in the same run", async () => {
    const file = stackFileWith(out, "Pulumi.p5en-1gpu.yaml", (t) =>
      t.replace(
        "    availabilityZones: [us-east-2a, us-east-2b]\n",
        "    availabilityZones: [us-east-2a, us-east-2b]\n    kubernetesVersion: 1.33\n    deviceAllocation: dra\n",
      ),
    );
    const r = await run(["--file", file, "--out", out], { program: never });
    assert.equal(r.code, ExitCode.InvalidConfig, r.err);
    assert.deepEqual(
      problemLines(r.err).map((l) => l.slice(4, l.indexOf(": "))),
      ["cluster.kubernetesVersion", "cluster.deviceAllocation"],
      r.err,
    );
    assert.match(r.err, /cluster\.kubernetesVersion: must be a string; got 1\.33 \(a number\); quote it/);
    assert.match(
      r.err,
      /cluster\.deviceAllocation: "dra" needs Kubernetes 1\.34 or later.*kubernetesVersion is "1\.33"/,
    );
  });
});
