/**
 * The first-token check's rendered objects (components/inference/first-token.ts): a Job that runs once, as nobody,
 * read-only, without capabilities, service account token or secret, within its budget; named and annotated by a
 * hash of what it checks, so a changed graph re-runs it and an unchanged one does not; the script it mounts is the
 * one tested against fake Frontends, with the same exit codes; off with one key; and the plan lists it among what
 * `pulumi up` waits for, with its time.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import { Annotation } from "../../components/_shared/annotations";
import { frontendServiceUrl } from "../../components/_shared/names";
import { validate } from "../../components/inference";
import { deployedForm, renderGraph, waitTimeoutSeconds } from "../../components/inference/graph";
import {
  FIRST_TOKEN_BUDGET,
  FIRST_TOKEN_EXIT,
  FIRST_TOKEN_SCRIPT,
  FIRST_TOKEN_SCRIPT_PATH,
  firstTokenBudget,
  firstTokenWaitSeconds,
  renderFirstTokenConfigMap,
  renderFirstTokenJob,
} from "../../components/inference/first-token";
import { inferencePlan } from "../../components/inference/plan";
import { isDigestPinned } from "../../components/image/ref";
import { IMAGE, resolved } from "../helpers/inference-fixtures";

const jobOf = (over = {}) => {
  const r = resolved("p5en-8x1gpu", "vllm", over);
  const job = renderFirstTokenJob(r, deployedForm(r, renderGraph(r, IMAGE)));
  assert.ok(job, "the check is on by default");
  return { r, job };
};

describe("inference: the first-token check's Job", () => {
  it("runs once within its budget, and keeps its pod for the message `pulumi up` prints", () => {
    const { job } = jobOf();
    assert.equal(job.spec.backoffLimit, 0);
    assert.equal(job.spec.activeDeadlineSeconds, firstTokenBudget().totalSeconds);
    assert.equal(job.spec.template.spec.restartPolicy, "Never");
    assert.equal(
      (job.spec as Record<string, unknown>).ttlSecondsAfterFinished,
      undefined,
      "no TTL Pulumi does not know",
    );
    assert.equal(job.metadata.annotations["pulumi.com/replaceUnready"], "true", "a failed check runs again next up");
    const c = job.spec.template.spec.containers[0];
    assert.equal(c.terminationMessagePolicy, "FallbackToLogsOnError");
    assert.equal(c.terminationMessagePath, "/dev/termination-log");
    assert.ok(firstTokenWaitSeconds() > firstTokenBudget().totalSeconds, "Pulumi outwaits the Job's own deadline");
  });

  it("runs as nobody, read-only, with no capabilities, no service account token, no secret and a digest-pinned image", () => {
    const { r, job } = jobOf();
    const pod = job.spec.template.spec;
    assert.deepEqual(
      [pod.automountServiceAccountToken, pod.securityContext.runAsNonRoot, pod.securityContext.runAsUser],
      [false, true, 65534],
    );
    const c = pod.containers[0];
    assert.deepEqual(
      [
        c.securityContext.readOnlyRootFilesystem,
        c.securityContext.allowPrivilegeEscalation,
        c.securityContext.capabilities,
      ],
      [true, false, { drop: ["ALL"] }],
    );
    assert.ok(isDigestPinned(c.image), c.image);
    assert.equal(c.image, r.firstTokenCheck.image);
    assert.ok(!JSON.stringify(job).includes("hf-token") && !JSON.stringify(job).includes("secretKeyRef"));
    assert.deepEqual(pod.volumes, [{ name: "script", configMap: { name: "llama-first-token", defaultMode: 0o444 } }]);
  });

  // Ledger row 1.5.0:over-context-requests-rejected-before-streaming-and-an-omitted (#12092).
  it("asks the graph's own Frontend for its served model, with the budget's numbers", () => {
    const { r, job } = jobOf({ servedModelName: "llama-8b" });
    const env = Object.fromEntries(job.spec.template.spec.containers[0].env.map((e) => [e.name, e.value]));
    assert.equal(env.FRONTEND_URL, frontendServiceUrl(r.graphName, r.namespace));
    assert.equal(env.SERVED_MODEL, "llama-8b");
    assert.deepEqual(
      [env.MODELS_BUDGET_SECONDS, env.ANSWER_BUDGET_SECONDS, env.STALL_SECONDS, env.MAX_TOKENS],
      [
        FIRST_TOKEN_BUDGET.modelsSeconds,
        FIRST_TOKEN_BUDGET.answerSeconds,
        FIRST_TOKEN_BUDGET.stallSeconds,
        FIRST_TOKEN_BUDGET.maxTokens,
      ].map(String),
    );
    assert.ok(FIRST_TOKEN_BUDGET.maxTokens >= 1, "Dynamo refuses max_tokens 0 (v1.4.0 #11394)");
  });

  it("re-runs exactly when what it checks changes: the name and pod annotation follow the graph", () => {
    const a = jobOf().job;
    const same = jobOf().job;
    const more = jobOf({ decode: { replicas: 7, gpusPerWorker: 1 } }).job;
    const model = jobOf({ servedModelName: "other" }).job;
    assert.equal(same.metadata.name, a.metadata.name);
    for (const other of [more, model]) {
      assert.notEqual(other.metadata.name, a.metadata.name);
      assert.notEqual(
        other.spec.template.metadata.annotations[Annotation.FirstTokenChecksSha256],
        a.spec.template.metadata.annotations[Annotation.FirstTokenChecksSha256],
        "the pod template changes, so the Job is replaced",
      );
    }
    assert.ok(a.metadata.name.startsWith("llama-first-token-") && a.metadata.name.length <= 63);
    const long = jobOf({ graphName: `${"g".repeat(38)}-abcdefghijklmnopqrst` }).job;
    assert.ok(long.metadata.name.length <= 63, long.metadata.name);
  });

  it("mounts the script tested against fake Frontends, whose exit codes are these", () => {
    const { r } = jobOf();
    assert.equal(renderFirstTokenConfigMap(r)?.data["check.py"], fs.readFileSync(FIRST_TOKEN_SCRIPT_PATH, "utf8"));
    const py = Object.fromEntries(
      [...FIRST_TOKEN_SCRIPT.matchAll(/^([A-Z_]+) = (\d+)$/gm)].map((m) => [m[1], Number(m[2])]),
    );
    assert.deepEqual(py, {
      BAD_CONFIG: FIRST_TOKEN_EXIT.badConfig,
      UNREACHABLE: FIRST_TOKEN_EXIT.unreachable,
      NO_MODEL: FIRST_TOKEN_EXIT.noModel,
      OTHER_MODEL: FIRST_TOKEN_EXIT.otherModel,
      NO_ANSWER: FIRST_TOKEN_EXIT.noAnswer,
      STALLED: FIRST_TOKEN_EXIT.stalled,
    });
  });

  it("one key turns it off: no Job, no ConfigMap, and the plan says a Ready graph is all it waits for", () => {
    const r = resolved("p5en-8x1gpu", "vllm", { firstTokenCheck: { enabled: false } });
    assert.equal(renderFirstTokenJob(r, {}), undefined);
    assert.equal(renderFirstTokenConfigMap(r), undefined);
    assert.deepEqual(
      inferencePlan(r).upWaits.map((w) => w.resource),
      ["DynamoGraphDeployment llama"],
    );
  });

  it("the plan lists it after the graph, with its time and steps", () => {
    const r = resolved("p5en-8x1gpu", "vllm");
    const [graph, check] = inferencePlan(r).upWaits;
    assert.equal(graph.seconds, waitTimeoutSeconds(r));
    assert.equal(check.seconds, firstTokenWaitSeconds());
    assert.equal(
      check.steps?.reduce((a, s) => a + s.seconds, 0),
      firstTokenBudget().totalSeconds,
    );
  });

  it("an image that is not digest-pinned is refused, unless the check is off", () => {
    const bad = resolved("p5en-8x1gpu", "vllm", { firstTokenCheck: { image: "python:3.12-slim" } });
    assert.deepEqual(
      validate(bad, true)
        .filter((p) => p.propertyPath.startsWith("firstTokenCheck"))
        .map((p) => p.propertyPath),
      ["firstTokenCheck.image"],
    );
    const off = resolved("p5en-8x1gpu", "vllm", { firstTokenCheck: { enabled: false, image: "python:3.12-slim" } });
    assert.deepEqual(
      validate(off, true).filter((p) => p.propertyPath.startsWith("firstTokenCheck")),
      [],
    );
  });
});
