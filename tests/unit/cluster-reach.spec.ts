/**
 * Reaching the API endpoint during `pulumi up`: an empty `publicAccessCidrs` without
 * `deployFromInsideVpc` is a config error naming the key and both choices; RFC 5737 documentation ranges render
 * offline with a note but a real preview/up (the program without `offline`) refuses them.
 */
import { strict as assert } from "assert";
import * as path from "path";
import {
  DOCUMENTATION_RANGES,
  documentationCidrProblems,
  documentationNote,
  documentationRangeOf,
  reachProblems,
} from "../../components/cluster/reach";
import { validateClusterArgs } from "../../components/cluster/validate";
import { checkStackConfig } from "../../program/config";
import { loadStack } from "../../tools/render/cli/command";
import { capture } from "../../tools/render/capture/capture";
import { renderMocks } from "../../tools/render/capture/mocks";
import { loadProject, stackConfig } from "../../tools/_shared/stackfile";

const ROOT = path.join(__dirname, "..", "..");
const base = {
  region: "us-east-2",
  hfTokenSet: true,
  inference: { model: "meta-llama/Llama-3.1-8B-Instruct" },
};
const cluster = (extra: object) => ({
  availabilityZones: ["us-east-2a", "us-east-2b"],
  gpuPools: { gpu: { instanceType: "p5en.48xlarge", nodes: 1, availabilityZone: "us-east-2b" } },
  ...extra,
});
const at = (extra: object, offline = false) =>
  checkStackConfig({ ...base, cluster: cluster(extra), ...(offline ? { offline } : {}) }).problems;

describe("cluster: reaching the API endpoint during pulumi up", () => {
  it("finds each documentation range and what lies inside it, nothing next to or around it", () => {
    for (const r of DOCUMENTATION_RANGES) assert.equal(documentationRangeOf(r), r);
    assert.equal(documentationRangeOf("203.0.113.7/32"), "203.0.113.0/24");
    assert.equal(documentationRangeOf("198.51.100.128/25"), "198.51.100.0/24");
    for (const c of ["203.0.114.0/24", "192.0.3.0/24", "198.51.101.1/32", "203.0.0.0/16", "3.5.140.2/32", "nope"])
      assert.equal(documentationRangeOf(c), undefined, c);
  });

  it("an empty list is a private endpoint: refused unless deployFromInsideVpc, naming both choices", () => {
    const [p, ...rest] = reachProblems({ publicAccessCidrs: [], deployFromInsideVpc: false });
    assert.deepEqual(rest, []);
    assert.equal(p.propertyPath, "publicAccessCidrs");
    assert.match(p.reason, /is empty, so the API endpoint is private/);
    assert.match(p.reason, /publicAccessCidrs\[0\]' "\$\(curl -s https:\/\/checkip\.amazonaws\.com\)\/32"/);
    assert.match(p.reason, /deployFromInsideVpc: true/);
    assert.deepEqual(reachProblems({ publicAccessCidrs: [], deployFromInsideVpc: true }), []);
    assert.deepEqual(reachProblems({ publicAccessCidrs: ["3.5.140.2/32"], deployFromInsideVpc: false }), []);
    const gpuPools = { gpu: { instanceType: "p5en.48xlarge", nodes: 1, availabilityZone: "us-east-2a" } };
    const args = { availabilityZones: ["us-east-2a", "us-east-2b"], gpuPools };
    assert.deepEqual(
      validateClusterArgs(args).map((x) => x.propertyPath),
      ["publicAccessCidrs"],
      "the component refuses it too",
    );
    assert.deepEqual(validateClusterArgs({ ...args, deployFromInsideVpc: true }), []);
  });

  it("the stack config: the key path, the documentation range refused only for a real deploy", () => {
    assert.deepEqual(
      at({}).map((p) => p.propertyPath),
      ["cluster.publicAccessCidrs"],
    );
    assert.deepEqual(at({ deployFromInsideVpc: true }), []);
    assert.deepEqual(at({ publicAccessCidrs: ["3.5.140.2/32"] }), []);
    const refused = at({ publicAccessCidrs: ["3.5.140.2/32", "203.0.113.0/24"] });
    assert.deepEqual(
      refused.map((p) => p.propertyPath),
      ["cluster.publicAccessCidrs[1]"],
    );
    assert.match(refused[0].reason, /"203\.0\.113\.0\/24" is in 203\.0\.113\.0\/24, an RFC 5737 documentation range/);
    assert.match(refused[0].reason, /cluster\.deployFromInsideVpc: true/);
    assert.deepEqual(at({ publicAccessCidrs: ["203.0.113.0/24"] }, true), [], "the offline render accepts it");
    assert.deepEqual(
      documentationCidrProblems(["192.0.2.9/32"]).map((p) => p.propertyPath),
      ["publicAccessCidrs[0]"],
    );
  });

  it("the render loads the shipped stack with a note saying a real deploy refuses the range, and how to fix it", () => {
    const loaded = loadStack({ stack: "p5en-8gpu", out: "out", overrides: [], help: false }, { root: ROOT });
    const note = loaded.note?.split("\n").find((l) => l.includes("publicAccessCidrs"));
    assert.ok(note, loaded.note);
    assert.match(note, /203\.0\.113\.0\/24 \(RFC 5737 documentation range\)/);
    assert.match(note, /`pulumi preview`\/`up` refuse it/);
    assert.match(note, /pulumi config set --path 'dynamo-efa:cluster\.publicAccessCidrs\[0\]'/);
    assert.equal(documentationNote(["3.5.140.2/32"], "k"), undefined);
  });

  it("the program as `pulumi up` runs it (not offline) refuses the shipped stack's documentation range", async function () {
    this.timeout(60000);
    const project = loadProject(ROOT);
    const cfg = stackConfig(project, path.join(ROOT, "stacks", "Pulumi.p5en-8gpu.yaml"));
    const { runProgram } = await import("../../program/program");
    await assert.rejects(
      capture(() => runProgram(), {
        project: project.name,
        stack: "p5en-8gpu",
        mocks: renderMocks("us-east-2"),
        config: { ...cfg.config, "dynamo-efa:hfToken": "hf_x" },
        secretKeys: ["dynamo-efa:hfToken"],
      }),
      (e: Error) => /cluster\.publicAccessCidrs\[0\]: "203\.0\.113\.0\/24" is in 203\.0\.113\.0\/24/.test(e.message),
    );
  });
});
