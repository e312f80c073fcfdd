/**
 * docs/FIELD-FAILURES.md against the policy pack: its coverage table is `FIELD_FAILURES` inverted
 * (F1-F14 in order, each F-code's policies in pack order), and its hardening section names every
 * policy that covers no F-code (docs/CONTRIBUTING.md rule 17).
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import { FIELD_FAILURES, POLICY_NAMES } from "../../policy/policies";
import { sectionTable } from "../helpers/markdown";

const DOC = path.join(__dirname, "..", "..", "docs", "FIELD-FAILURES.md");
const F_CODES = Array.from({ length: 14 }, (_, i) => `F${i + 1}`);

/** F-code -> the policies that cover it, in pack order: the inverse of a policy -> F-codes map. */
function inverse(map: Readonly<Record<string, readonly string[]>>): Map<string, string[]> {
  const out = new Map(F_CODES.map((f) => [f, [] as string[]]));
  for (const name of POLICY_NAMES) for (const f of map[name]) out.get(f)?.push(name);
  return out;
}

/** F-code -> the policies the doc's coverage table lists; the row's F-code must link to its section. */
function documented(md: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [code, , policies] of sectionTable(md, "Coverage")) {
    const m = /^\[(F\d+)\]\(#(f\d+)\)$/.exec(code);
    assert.ok(m && m[2] === m[1].toLowerCase(), `coverage row ${JSON.stringify(code)} must be [Fn](#fn)`);
    out.set(m[1], policies === "-" ? [] : policies.split(",").map((p) => p.trim().replace(/^`|`$/g, "")));
  }
  return out;
}

/** What differs between the doc's table and the code's map, one line per F-code. */
function coverageProblems(md: string, map: Readonly<Record<string, readonly string[]>>): string[] {
  const want = inverse(map);
  const got = documented(md);
  const problems: string[] = [];
  if (JSON.stringify([...got.keys()]) !== JSON.stringify(F_CODES))
    problems.push(`rows are ${[...got.keys()].join(" ")}, expected F1..F14 in order`);
  for (const f of F_CODES) {
    const w = want.get(f) ?? [];
    const g = got.get(f) ?? [];
    if (JSON.stringify(g) !== JSON.stringify(w))
      problems.push(`${f}: the doc lists [${g.join(", ")}], FIELD_FAILURES gives [${w.join(", ")}]`);
  }
  return problems;
}

describe("docs/FIELD-FAILURES.md", () => {
  const md = fs.readFileSync(DOC, "utf8");

  it("its coverage table is FIELD_FAILURES of policy/policies.ts inverted, F1-F14 in order", () => {
    assert.deepEqual(coverageProblems(md, FIELD_FAILURES), []);
  });

  it("the comparison fails on a policy added to the code but not to the table, and on a dropped row", () => {
    const added = { ...FIELD_FAILURES, "hf-token-is-secret": ["F9", "F4"] };
    assert.deepEqual(coverageProblems(md, added), ["F4: the doc lists [], FIELD_FAILURES gives [hf-token-is-secret]"]);
    const dropped = md.replace(/^\| \[F14\]\(#f14\).*\n/m, "");
    assert.deepEqual(coverageProblems(dropped, FIELD_FAILURES), [
      "rows are F1 F2 F3 F4 F5 F6 F7 F8 F9 F10 F11 F12 F13, expected F1..F14 in order",
      "F14: the doc lists [], FIELD_FAILURES gives [hugepages-fit-node]",
    ]);
  });

  it("has a section per F-code and names every policy that covers no F-code under hardening", () => {
    for (const f of F_CODES) assert.ok(new RegExp(`^## ${f}$`, "m").test(md), `no section "## ${f}"`);
    const hardening = md.slice(md.indexOf("## Hardening without an F-code"));
    const general = POLICY_NAMES.filter((n) => FIELD_FAILURES[n].length === 0);
    assert.deepEqual(
      general.filter((n) => !hardening.includes(`\`${n}\``)),
      [],
    );
  });
});
