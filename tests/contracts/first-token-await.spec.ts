/**
 * How `pulumi up` waits for the first-token check's Job, against tests/contracts/facts/pulumi-kubernetes-job-await.json
 * (the installed @pulumi/kubernetes and the provider's pod checker): the Job ends the wait on `Complete` or at once on
 * `Failed`; its budget is longer than the 10-minute default, so the program passes `customTimeouts`; the message
 * the script writes reaches the error `pulumi up` prints (a terminated container's message); and a check that failed
 * is replaced on the next update through the annotation the SDK documents.
 */
import { strict as assert } from "assert";
import { readFileSync } from "fs";
import { join } from "path";
import { loadFacts } from "./facts";
import { deployedForm, renderGraph } from "../../components/inference/graph";
import { firstTokenBudget, firstTokenWaitSeconds, renderFirstTokenJob } from "../../components/inference/first-token";
import { IMAGE, resolved } from "../helpers/inference-fixtures";

interface AwaitFacts {
  readonly sdkVersion: string;
  readonly readyWhenCompleteTrue: boolean;
  readonly failsAtOnceOnFailed: boolean;
  readonly defaultTimeoutMinutes: number;
  readonly timeoutOverride: string;
  readonly replaceUnreadyAnnotation: string;
  readonly terminatedMessageInError: boolean;
}
const F = loadFacts<AwaitFacts>("pulumi-kubernetes-job-await").facts;
const installed = JSON.parse(
  readFileSync(join(__dirname, "..", "..", "node_modules", "@pulumi", "kubernetes", "package.json"), "utf8"),
).version;

describe("contracts: pulumi up waits for the first-token check's Job (facts/pulumi-kubernetes-job-await.json)", () => {
  const r = resolved("p5en-8x1gpu", "vllm");
  const job = renderFirstTokenJob(r, deployedForm(r, renderGraph(r, IMAGE)))!;

  it("the facts were read from the SDK this package installs (re-extract after a bump)", () => {
    assert.equal(F.sdkVersion, installed);
    assert.ok(F.readyWhenCompleteTrue && F.failsAtOnceOnFailed && F.terminatedMessageInError);
  });

  it("the check's budget is longer than the default wait, so the program must pass customTimeouts", () => {
    assert.equal(F.timeoutOverride, "customTimeouts");
    assert.ok(firstTokenBudget().totalSeconds > F.defaultTimeoutMinutes * 60);
    assert.ok(firstTokenWaitSeconds() > job.spec.activeDeadlineSeconds, "the Job's own failure reaches Pulumi first");
  });

  it("a failed check is replaced by the next update, not awaited again", () => {
    assert.equal((job.metadata.annotations as Record<string, string>)[F.replaceUnreadyAnnotation], "true");
  });

  it("the script's message is the container's termination message (or its log's tail), which the error carries", () => {
    const c = job.spec.template.spec.containers[0];
    assert.equal(c.terminationMessagePath, "/dev/termination-log");
    assert.equal(c.terminationMessagePolicy, "FallbackToLogsOnError");
    assert.equal(job.spec.backoffLimit, 0, "one pod: its message is the one printed");
  });
});
