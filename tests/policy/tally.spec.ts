/**
 * One phrase for a policy run (`policyTally`), the same on the render's console, in plan.md's summary and in its
 * Policies heading: a render with only advisory violations says "N advisories", never "failed"; only a mandatory
 * violation is a failure.
 */
import { strict as assert } from "assert";
import { policyTally, type PolicyResult, type PolicyRun } from "../../policy/run";

const result = (name: string, level: "advisory" | "mandatory", violations: number): PolicyResult => ({
  name,
  description: "",
  enforcementLevel: level,
  passed: violations === 0,
  violations: Array.from({ length: violations }, () => ({ message: "m" }) as PolicyResult["violations"][number]),
  checked: 1,
  notApplicable: [],
});
const run = (results: PolicyResult[]): PolicyRun => ({
  results,
  mandatoryViolations: results
    .filter((r) => r.enforcementLevel === "mandatory")
    .reduce((n, r) => n + r.violations.length, 0),
  advisoryViolations: results
    .filter((r) => r.enforcementLevel === "advisory")
    .reduce((n, r) => n + r.violations.length, 0),
  passed: results.every((r) => r.passed || r.enforcementLevel === "advisory"),
});

describe("policyTally: advisories are advisories, only a mandatory violation fails", () => {
  it("all passed", () => {
    assert.equal(policyTally(run([result("a", "mandatory", 0), result("b", "advisory", 0)])), "2 passed");
  });

  it("advisory violations only: 'N advisories' naming the policies, never 'failed'", () => {
    const t = policyTally(run([result("a", "mandatory", 0), result("release-known-issues", "advisory", 2)]));
    assert.equal(t, "1 passed, 2 advisories (release-known-issues)");
    assert.doesNotMatch(t, /fail/);
    assert.equal(policyTally(run([result("x", "advisory", 1)])), "0 passed, 1 advisory (x)");
  });

  it("a mandatory violation is a failure, with its count and name, beside the advisories", () => {
    assert.equal(
      policyTally(run([result("p", "mandatory", 1), result("q", "advisory", 3), result("r", "mandatory", 0)])),
      "1 passed, 1 failed (1 mandatory violation: p), 3 advisories (q)",
    );
  });
});
