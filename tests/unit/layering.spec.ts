/**
 * The import directions between the top-level folders (docs/ARCHITECTURE.md's layers): the catalog and
 * components import only themselves, the program only components, the policy pack components and the
 * upstream fact files, the tools anything but the tests. Every relative import, `import type`, re-export,
 * `require()` and dynamic `import()` counts: `ts.preProcessFile` reads them the way the compiler does.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";

const ROOT = path.join(__dirname, "..", "..");

/** Folder -> the folders (or folder prefixes) it may import from. Packages from node_modules are always allowed. */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  components: ["components/"],
  program: ["components/", "program/"],
  // tests/contracts: the pinned upstream facts the no-noop-nixl-env policy reads at run time.
  policy: ["components/", "policy/", "tests/contracts/"],
  tools: ["components/", "program/", "policy/", "tools/"],
};

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" ? [] : tsFiles(p);
    return e.name.endsWith(".ts") ? [p] : [];
  });
}

/** The imports of `rel` (a path under the root) that leave the folders its layer may import from. */
function violations(rel: string, source: string): string[] {
  const layer = rel.split("/")[0];
  const allowed = MAY_IMPORT[layer];
  if (!allowed) throw new Error(`no import rule for folder ${layer}`);
  const { importedFiles } = ts.preProcessFile(source, true, true);
  return importedFiles
    .filter((f) => f.fileName.startsWith("."))
    .map((f) => ({
      spec: f.fileName,
      target: path.posix.normalize(path.posix.join(path.posix.dirname(rel), f.fileName)),
    }))
    .filter(({ target }) => !allowed.some((a) => target.startsWith(a) || `${target}/` === a))
    .map(({ spec, target }) => `${rel} imports "${spec}" (${target}); ${layer}/ may import only ${allowed.join(", ")}`);
}

describe("layering: import directions between folders", () => {
  for (const layer of Object.keys(MAY_IMPORT)) {
    it(`${layer}/ imports only ${MAY_IMPORT[layer].join(", ")}`, () => {
      const files = tsFiles(path.join(ROOT, layer));
      assert.ok(files.length > 0, `no .ts files under ${layer}/`);
      const found = files.flatMap((f) =>
        violations(path.relative(ROOT, f).split(path.sep).join("/"), fs.readFileSync(f, "utf8")),
      );
      assert.deepEqual(found, []);
    });
  }

  it("catches every import form, type-only included (the check can fail)", () => {
    const src = [
      `import type { ProgramRun } from "../tools/render/capture";`,
      `export { x } from "../policy/run";`,
      `const y = require("../tests/helpers/golden");`,
      `const z = import("../program/program");`,
      `import { INSTANCES } from "./catalog/instances";`,
      `import * as pulumi from "@pulumi/pulumi";`,
    ].join("\n");
    assert.deepEqual(
      violations("components/x.ts", src).map((v) => v.split(" ")[2]),
      [`"../tools/render/capture"`, `"../policy/run"`, `"../tests/helpers/golden"`, `"../program/program"`],
    );
    assert.deepEqual(
      violations("program/x.ts", `import type { ProgramRun } from "../tools/render/capture";`).length,
      1,
    );
    assert.deepEqual(violations("program/x.ts", `import { EfaCluster } from "../components/cluster";`), []);
  });
});
