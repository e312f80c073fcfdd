/**
 * No code file cites a document a reader of this repository cannot open (docs/CONTRIBUTING.md
 * rule 19): the old design notes, a path outside the repository, or a ticket number of this project.
 * "The field report" is cited together with where it is summarised, docs/FIELD-FAILURES.md.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

const ROOT = path.join(__dirname, "..", "..");
/** Build output, dependencies and scratch folders (see .gitignore) hold no code of ours. */
const SKIP_DIRS = new Set(["node_modules", "bin", "out", ".git", ".bench", ".probe"]);
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

function codeFiles(dir = ROOT): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const abs = path.join(dir, e.name);
    if (e.isDirectory()) return SKIP_DIRS.has(e.name) ? [] : codeFiles(abs);
    const rel = path.relative(ROOT, abs).split(path.sep).join("/");
    return e.isFile() && CODE.test(rel) ? [rel] : [];
  });
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

describe("docs: citations in code", () => {
  it("flags each kind of citation that points outside the repository, and passes the allowed forms", () => {
    const bad = [
      "(STYLE" + ".md rule 6)",
      "FIELD" + "-NOTES §3",
      "UPSTREAM" + "-IMAGE-AND-DGD.md §1.1",
      "PULUMI" + "-TESTING §7",
      "../" + "shared/docs",
      "(issue " + "13, item 4)",
      "the field " + "report's prompt",
    ];
    assert.deepEqual(
      bad.map((l) => offenders("x.ts", l).length),
      bad.map(() => 1),
    );
    const good = [
      "(docs/CONTRIBUTING.md rule 6)",
      "F3, F13",
      "docs/ARCHITECTURE.md#efa-on-eks",
      "the field " + "report (docs/FIELD-FAILURES.md#gate-matrix)",
      "NVIDIA/TensorRT-LLM#10024",
      "pulumi/pulumi#15731",
    ];
    assert.deepEqual(
      good.flatMap((l) => offenders("x.ts", l)),
      [],
    );
  });

  it("no .ts/.cjs/.js/.sh/.py file or Dockerfile cites a document outside the repository or an issue number", () => {
    const files = codeFiles();
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
