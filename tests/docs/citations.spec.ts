/**
 * No text a user of the package reads cites a document they cannot open (docs/CONTRIBUTING.md rule 19): the
 * old design notes, a path outside the repository, or a ticket number of this project. That text is the
 * components' JSDoc (it ships in the typings and shows in a user's editor), the shipped Dockerfiles, and the
 * messages and help of the program, the CLI tools and the policy pack; the test files are contributors' text
 * and are not walked. "The field report" is cited together with where it is summarised, docs/FIELD-FAILURES.md.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

const ROOT = path.join(__dirname, "..", "..");
/** Where the user-facing text lives: the shipped package (`files` of package.json) and what the tools print. */
const USER_FACING = ["index.ts", "components", "dockerfiles", "program", "tools", "policy"];
const CODE = /\.(ts|cts|mts|js|cjs|mjs|sh|py)$|(^|\/)Dockerfile[^/]*$/;

/** Patterns are spelled in pieces so that this file does not match itself. */
const FORBIDDEN: readonly [RegExp, string][] = [
  [new RegExp(["STYLE", "\\.md|STYLE", " rule"].join("")), "a rule is docs/CONTRIBUTING.md rule N"],
  [
    new RegExp(["FIELD", "-NOTES"].join("")),
    "a field failure is Fn or docs/FIELD-FAILURES.md#fn; a fact is a docs/ARCHITECTURE.md anchor",
  ],
  [
    new RegExp(["UPSTREAM", "-IMAGE|UPSTREAM", " §"].join("")),
    "an upstream fact is a docs/ARCHITECTURE.md anchor, a contract fact or owner/repo@commit path",
  ],
  [new RegExp(["PULUMI", "-TESTING"].join("")), "a Pulumi fact is docs/ARCHITECTURE.md#pulumi-without-the-cli"],
  [new RegExp(["\\.\\./", "shared/"].join("")), "a path outside the repository"],
  [
    new RegExp(["\\b[Ii]ssues? #?", "\\d"].join("")),
    "say what the code or test is about, not which ticket asked for it",
  ],
  [
    new RegExp(["field report", "(?!.*FIELD-FAILURES)"].join("")),
    "cite it as docs/FIELD-FAILURES.md#the-field-report (or a section of it) on the same line",
  ],
];

function codeFiles(rel: string): string[] {
  const abs = path.join(ROOT, rel);
  if (fs.statSync(abs).isDirectory()) return fs.readdirSync(abs).flatMap((n) => codeFiles(`${rel}/${n}`));
  return CODE.test(rel) ? [rel] : [];
}

/** `file:line: text (fix)` for each line of `text` that cites what a reader cannot open. */
function offenders(file: string, text: string): string[] {
  return text
    .split("\n")
    .flatMap((line, i) =>
      FORBIDDEN.filter(([re]) => re.test(line)).map(
        ([, fix]) => `${file}:${i + 1}: ${line.trim().slice(0, 100)} (${fix})`,
      ),
    );
}

describe("docs: citations in user-facing code text", () => {
  it("no JSDoc, shipped Dockerfile or tool message cites a document outside the repository or an issue number", () => {
    const files = USER_FACING.flatMap(codeFiles);
    assert.ok(
      files.includes("components/versions.ts") && files.includes("dockerfiles/Dockerfile.dynamo-combined-efa"),
      "the walk found the code",
    );
    assert.deepEqual(
      files.flatMap((f) => offenders(f, fs.readFileSync(path.join(ROOT, f), "utf8"))),
      [],
    );
  });
});
