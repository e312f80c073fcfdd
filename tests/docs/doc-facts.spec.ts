/**
 * The docs' stated numbers are generated (tools/doc-facts/doc-facts.ts) and current: every `<!-- fact:NAME -->` span
 * of the project's Markdown holds what the code computes now (tool versions, the shipped stacks' cost and time to
 * Ready from their offline render, build times and image sizes). Slow set: it renders both shipped stacks.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import {
  fill,
  markdownFiles,
  namesIn,
  renderedPlans,
  SPAN,
  staleFiles,
  valuesFor,
} from "../../tools/doc-facts/doc-facts";
import { VALUES } from "../../tools/doc-facts/values";

const ROOT = path.resolve(__dirname, "..", "..");
const read = (f: string) => fs.readFileSync(path.join(ROOT, f), "utf8");

describe("docs: stated numbers generated from the code (tools/doc-facts)", function () {
  this.timeout(180000);

  it("every span is current (regenerate: npx tsx tools/doc-facts/doc-facts.ts)", async () => {
    const stale = await staleFiles(ROOT, renderedPlans());
    assert.deepEqual([...stale.keys()], []);
  });

  it("the 70B model stack's layout (TP8 1 + 1) is as docs/CLUSTER-STACKS.md says: most requests/s, lowest ITL, TP4's TTFT lower", async () => {
    const v = await valuesFor(
      [2, 4, 8].flatMap((tp) =>
        ["rps", "itl", "ttft"].map((k) => `<!-- fact:layout-70b.tp${tp}.${k} --><!-- /fact -->`),
      ),
      renderedPlans(),
    );
    const num = (k: string) => Number(v[k]);
    for (const tp of [2, 4]) {
      assert.ok(num("layout-70b.tp8.rps") > num(`layout-70b.tp${tp}.rps`), `TP8 serves fewer requests/s than TP${tp}`);
      assert.ok(num("layout-70b.tp8.itl") < num(`layout-70b.tp${tp}.itl`), `TP8's ITL is not below TP${tp}'s`);
    }
    assert.ok(
      num("layout-70b.tp4.ttft") < num("layout-70b.tp8.ttft"),
      "the doc says TP4 2 + 2 has the lower mean TTFT",
    );
  });

  it("every span names a value, and a span with a stale number is rewritten", () => {
    for (const f of markdownFiles(ROOT))
      for (const n of namesIn(read(f))) assert.ok(VALUES[n], `${f}: <!-- fact:${n} --> names no value`);
    const text = "costs ~<!-- fact:x -->$1.00<!-- /fact --> per hour";
    assert.equal(fill(text, { x: "$2.00" }), "costs ~<!-- fact:x -->$2.00<!-- /fact --> per hour");
    assert.throws(() => fill(text, {}, "README.md"), /README\.md: <!-- fact:x --> names no value/);
  });

  it("README's prerequisites name the AWS CLI and kubectl with generated minimum versions and how to check them", () => {
    const readme = read("README.md");
    const start = readme.indexOf("## Before you start");
    const section = readme.slice(start, readme.indexOf("\n## ", start + 1));
    assert.match(section, /\| the \[AWS CLI\]\([^)]+\) <!-- fact:aws-cli -->.*`aws --version` \|/);
    assert.match(section, /\| \[kubectl\]\([^)]+\) <!-- fact:kubectl -->.*`kubectl version --client` \|/);
  });

  it("README says the 1-GPU stack rents two whole p5en nodes for its two GPUs, at its generated cost", () => {
    const readme = read("README.md");
    for (const name of ["nodes.p5en-1gpu", "gpus.p5en-1gpu", "cost-hour.p5en-1gpu"])
      assert.ok(namesIn(readme).includes(name), `README states ${name}`);
    assert.match(
      readme,
      /`p5en-1gpu`[^]*?rents\s+<!-- fact:nodes\.p5en-1gpu -->2 x p5en\.48xlarge<!-- \/fact --> whole/,
    );
  });

  it("no doc states a build time or an image size outside a generated span (a record of the field's is named)", () => {
    /** Statements that are not this project's estimate, with why. */
    const ALLOWED: readonly [string, string, string][] = [
      ["docs/ARCHITECTURE.md", "95 minutes on CodeBuild XLARGE", "the field's measured build: a record"],
      ["docs/OPERATIONS.md", "the field's one-venv image took about 95 min", "the same record, cited"],
      ["docs/DEPLOY.md", "| ~5-10 min |", "a node group's creation, not a build"],
    ];
    const NUMBER = String.raw`\b\d+(?:\.\d+)?(?:-\d+(?:\.\d+)?)? ?`;
    const size = new RegExp(`${NUMBER}GB\\b(?!/s)`);
    const time = new RegExp(`${NUMBER}(?:h|min|minutes|hours)\\b`);
    const found: string[] = [];
    for (const f of markdownFiles(ROOT)) {
      let fence = false;
      read(f)
        .split("\n")
        .forEach((line, i) => {
          if (line.startsWith("```")) fence = !fence;
          const t = line.replace(SPAN, "");
          const states = (/image/i.test(t) && size.test(t)) || (/build/i.test(t) && time.test(t));
          if (!fence && states && !ALLOWED.some(([file, text]) => file === f && line.includes(text)))
            found.push(`${f}:${i + 1}: ${t.trim().slice(0, 160)}`);
        });
    }
    assert.deepEqual(found, []);
  });
});
