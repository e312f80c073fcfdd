/**
 * Every relative link of the project's Markdown resolves: the file or folder exists, and an anchor is
 * a heading of the target by GitHub's rule (docs/CONTRIBUTING.md rule 19). External URLs are not
 * fetched (no network here).
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import { anchorsOf, githubSlug, linksOf } from "../helpers/markdown";

const ROOT = path.join(__dirname, "..", "..");
const DOCS = [
  "README.md",
  ...fs
    .readdirSync(path.join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`),
  "policy/README.md",
  "dockerfiles/README.md",
  "tests/contracts/README.md",
].filter((f) => fs.existsSync(path.join(ROOT, f)));

/** Why a link of `file` does not resolve, or undefined when it does. */
function brokenLink(file: string, target: string, read: (abs: string) => string | undefined): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined;
  const [rel, anchor] = target.split("#", 2);
  const abs =
    rel === "" ? path.join(ROOT, file) : path.resolve(path.dirname(path.join(ROOT, file)), decodeURIComponent(rel));
  if (!abs.startsWith(ROOT + path.sep) && abs !== ROOT) return `${target} leaves the repository`;
  const text = read(abs);
  if (text === undefined) return `${target}: no file or folder ${path.relative(ROOT, abs)}`;
  if (anchor === undefined || anchor === "" || !abs.endsWith(".md")) return undefined;
  return anchorsOf(text).has(anchor)
    ? undefined
    : `${target}: ${path.relative(ROOT, abs)} has no heading with anchor #${anchor}`;
}

/** The file's text ("" for a folder), or undefined when nothing is there. */
function readDisk(abs: string): string | undefined {
  if (!fs.existsSync(abs)) return undefined;
  return fs.statSync(abs).isDirectory() ? "" : fs.readFileSync(abs, "utf8");
}

describe("docs: links and anchors", () => {
  it("GitHub's anchor rule: lower case, punctuation dropped, spaces to hyphens, code and links by their text", () => {
    const cases: [string, string][] = [
      ["Field failures F1–F14", "field-failures-f1f14"],
      ["A worker count: `inference.prefill.replicas`", "a-worker-count-inferenceprefillreplicas"],
      ["Citations, comments, facts and safety", "citations-comments-facts-and-safety"],
      [
        "Rule 19. Every citation points at a document in this repository",
        "rule-19-every-citation-points-at-a-document-in-this-repository",
      ],
      ["The [field](x.md) report", "the-field-report"],
      ["snake_case_name and **bold**", "snake_case_name-and-bold"],
    ];
    assert.deepEqual(
      cases.map(([h]) => githubSlug(h)),
      cases.map(([, s]) => s),
    );
    assert.deepEqual([...anchorsOf("# A\n## A\n```\n# not a heading\n```\n## B\n")], ["a", "a-1", "b"]);
  });

  it("finds links outside code only, and reports a missing file, a missing anchor and a path out of the repository", () => {
    const md = "see [a](docs/ARCHITECTURE.md#layers) and `[b](nope.md)`\n```\n[c](nope.md)\n```\n[d]: ./docs/\n";
    assert.deepEqual(
      linksOf(md).map((l) => `${l.line}:${l.target}`),
      ["1:docs/ARCHITECTURE.md#layers", "5:./docs/"],
    );
    assert.equal(brokenLink("README.md", "docs/ARCHITECTURE.md#layers", readDisk), undefined);
    assert.equal(
      brokenLink("README.md", "docs/ARCHITECTURE.md#no-such-section", readDisk),
      "docs/ARCHITECTURE.md#no-such-section: docs/ARCHITECTURE.md has no heading with anchor #no-such-section",
    );
    assert.equal(brokenLink("docs/CONTRIBUTING.md", "NOTES.md", readDisk), "NOTES.md: no file or folder docs/NOTES.md");
    assert.equal(
      brokenLink("README.md", "../elsewhere/NOTES.md", readDisk),
      "../elsewhere/NOTES.md leaves the repository",
    );
  });

  for (const file of DOCS) {
    it(`${file}: every relative link and anchor resolves`, () => {
      const md = fs.readFileSync(path.join(ROOT, file), "utf8");
      const broken = linksOf(md).flatMap((l) => {
        const why = brokenLink(file, l.target, readDisk);
        return why ? [`${file}:${l.line}: ${why}`] : [];
      });
      assert.deepEqual(broken, []);
    });
  }
});
