/**
 * policy/README.md is the pack as the code has it: every policy in pack order with its coverage, default level,
 * description and config defaults, so the table cannot drift from policy/policies.ts.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import { allPolicies, FIELD_FAILURES, PolicyName } from "../../policy/policies";
import { enforcementOf } from "../../policy/run";

const esc = (s: string) => s.replace(/\|/g, "\\|");

/** The README table row the code says a policy should have. */
function row(p: (typeof allPolicies)[number]): string {
  const config = Object.entries(p.configSchema?.properties ?? {}).map(
    ([k, v]) => `\`${k}\` (\`${esc(JSON.stringify((v as { default?: unknown }).default))}\`)`,
  );
  return `| \`${p.name}\` | ${FIELD_FAILURES[p.name as PolicyName].join(", ") || "-"} | ${enforcementOf(p)} | ${esc(p.description)} | ${config.join(", ") || "-"} |`;
}

describe("policy/README.md", () => {
  const readme = fs.readFileSync(path.join(__dirname, "..", "..", "policy", "README.md"), "utf8");
  it("lists every policy, in pack order, with its coverage, default level, description and config defaults as the code has them", () => {
    const rows = readme.split("\n").filter((l) => l.startsWith("| `"));
    assert.deepEqual(rows, allPolicies.map(row));
  });
});
