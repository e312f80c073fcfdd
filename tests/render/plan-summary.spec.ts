/**
 * plan.md opens with a summary a person can decide on (what, cost per hour and per day, time to Ready, the
 * serving estimate, what to check), and each number there is the plan's own (plan.json), not a second estimate.
 * Deploy minutes are "time to Ready"; "TTFT" and "first token" mean only the serving latency.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { ExitCode } from "../../tools/_shared/exit-codes";
import { renderStack } from "./render-harness";
import { summaryMarkdown } from "../../tools/render/plan/md-summary";
import type { Plan } from "../../tools/render/plan/plan";
import type { PolicyRun } from "../../policy/run";
import { IMAGE_COSTS, planned } from "../../components/catalog/images";

describe("plan.md summary", function () {
  this.timeout(60000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "plan-summary-"));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  let plan: Plan;
  let md: string;
  before(async () => {
    const r = await renderStack("p5en-1gpu", path.join(tmp, "p5en-1gpu"), []);
    assert.equal(r.code, ExitCode.Ok, [...r.stdout, ...r.stderr].join("\n"));
    plan = JSON.parse(fs.readFileSync(path.join(r.dir, "plan.json"), "utf8")) as Plan;
    md = fs.readFileSync(path.join(r.dir, "plan.md"), "utf8");
  });

  it("is the first section, before the topology, and restates the plan's cost, time and layout", () => {
    const headings = md.split("\n").filter((l) => l.startsWith("## "));
    assert.equal(headings[0], "## Summary");
    const summary = md.slice(md.indexOf("## Summary"), md.indexOf("\n## ", md.indexOf("## Summary") + 1));
    assert.ok(summary.includes(`~$${plan.costPerHourUsd.toFixed(2)}/hour`), summary);
    const perDay = Math.round(plan.costPerHourUsd * 24).toLocaleString("en-US");
    assert.ok(summary.includes(`~$${perDay}/day`), summary);
    assert.ok(
      summary.includes(`| time to Ready | ~${plan.criticalPathDetail.minutes} min from an empty account`),
      summary,
    );
    assert.doesNotMatch(summary, /first token \|/, "deploy minutes are not called time to first token");
    assert.match(summary, /\| serving estimate \| TTFT ~[\d.]+ ms/, "TTFT is the estimate's first-token latency");
    // Each with the range the "Serving estimate" section gives it (the section's own numbers).
    const r = plan.serving!.uncertainty.ranges;
    assert.ok(summary.includes(`TTFT ~${plan.serving!.ttftMs} ms (${r.ttftMs![0]}-${r.ttftMs![1]})`), summary);
    assert.ok(summary.includes(`ITL ~${plan.serving!.itlMs} ms (${r.itlMs![0]}-${r.itlMs![1]})`), summary);
    assert.ok(summary.includes("1 prefill x 1 GPU + 1 decode x 1 GPU"), summary);
    // p5en-1gpu uses 2 of its 16 GPUs: the summary says the rest is billed and idle.
    assert.ok(summary.includes(`${plan.gpus.requested} of ${plan.gpus.provisioned} GPUs used`), summary);
    assert.ok(summary.includes("npm run verify -- p5en-1gpu"), summary);
  });

  it("names the policies that failed, with their counts", () => {
    const run = {
      results: [
        {
          name: "a-policy",
          enforcementLevel: "mandatory",
          passed: false,
          violations: [{}],
          checked: 1,
          notApplicable: [],
        },
        { name: "b-policy", passed: true, violations: [], checked: 1, notApplicable: [] },
      ],
      mandatoryViolations: 1,
      advisoryViolations: 0,
    } as unknown as PolicyRun;
    const lines = summaryMarkdown(plan, run).join("\n");
    assert.match(lines, /- Policies: 1 passed, 1 failed \(1 mandatory violation: a-policy\): see "Policies"/);
    assert.doesNotMatch(lines, /b-policy/);
  });

  it("a vendor-image stack's plan describes that image: registry, size and pull time, never an ECR image", () => {
    const image = md.slice(md.indexOf("## Image"), md.indexOf("\n## ", md.indexOf("## Image") + 1));
    const fleet = plan.gpuIdle!.fleet;
    assert.equal(fleet.image.registry, "nvcr.io");
    assert.equal(fleet.image.name, "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6.2-efa");
    assert.equal(fleet.imageGB, planned(IMAGE_COSTS.prebuilt.sizeGB));
    const pull = plan.gpuIdle!.timeline.find((s) => s.step === "serving image on node")!;
    const mmss = `${Math.floor(pull.atSeconds / 60)}:${String(pull.atSeconds % 60).padStart(2, "0")}`;
    assert.ok(
      image.includes(`pulls \`${fleet.image.name}\` from nvcr.io: about 20-25 GB`) && image.includes(`~${mmss} (m:ss)`),
      image,
    );
    assert.doesNotMatch(md, /\b35 GB|GB at [\d.]+ MB\/s from ECR|GB from ECR/);
  });
});
