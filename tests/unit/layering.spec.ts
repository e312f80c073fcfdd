/**
 * The import directions of docs/ARCHITECTURE.md's layers: between the top-level folders (the components import
 * only themselves, the program only components, the policy pack components, the serving estimate components and
 * itself, the tools anything but the tests),
 * inside components/ (the catalog sits on `_shared` and `versions`; a component folder imports the catalog,
 * `_shared` and `versions`, never another component's files but for the exceptions listed below), and nothing
 * outside tests/ imports tests/. Every relative import, `import type`, re-export, `require()` and dynamic
 * `import()` counts: `ts.preProcessFile` reads them the way the compiler does. No module imports itself back through
 * others, type-only imports included (a cycle hides which of two files is the base).
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";
import { BASE, CATALOG, COMPONENT_FOLDERS, CROSS_COMPONENT, MAY_IMPORT } from "../../tools/architecture/layers";

const ROOT = path.join(__dirname, "..", "..");

/** Folders of the repository that hold no source: dependencies, build and render outputs. */
const NOT_SOURCE = new Set(["node_modules", "bin", "out"]);

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return NOT_SOURCE.has(e.name) || e.name.startsWith(".") ? [] : sourceFiles(p);
    return /\.(ts|mts|cts|js|mjs|cjs)$/.test(e.name) ? [p] : [];
  });
}

/** Repository-relative posix paths of the source files under `dir` (relative to the root). */
function filesUnder(dir: string): string[] {
  return sourceFiles(path.join(ROOT, dir)).map((f) => path.relative(ROOT, f).split(path.sep).join("/"));
}

/** Whether `target` (a module path without extension) is inside `allowed`: a folder (`x/`) or one module. */
function within(target: string, allowed: string): boolean {
  return allowed.endsWith("/") ? target.startsWith(allowed) || `${target}/` === allowed : target === allowed;
}

/** The project modules `rel` imports, as root-relative module paths. */
function importsOf(rel: string, source: string): { spec: string; target: string }[] {
  return ts
    .preProcessFile(source, true, true)
    .importedFiles.filter((f) => f.fileName.startsWith("."))
    .map((f) => ({
      spec: f.fileName,
      target: path.posix
        .normalize(path.posix.join(path.posix.dirname(rel), f.fileName))
        .replace(/\.(ts|js)$/, "")
        .replace(/\/index$/, ""),
    }));
}

/** The imports of `rel` that leave `allowed`, as messages. */
function outside(rel: string, source: string, allowed: readonly string[]): string[] {
  return importsOf(rel, source)
    .filter(({ target }) => !allowed.some((a) => within(target, a)))
    .map(({ spec, target }) => `${rel} imports "${spec}" (${target}); it may import only ${allowed.join(", ")}`);
}

/** The imports of `rel` (a path under the root) that leave the folders its top-level layer may import from. */
function violations(rel: string, source: string): string[] {
  const layer = rel.split("/")[0];
  const allowed = MAY_IMPORT[layer];
  if (!allowed) throw new Error(`no import rule for folder ${layer}`);
  return outside(rel, source, allowed);
}

/** What a file of component folder `folder` may import: itself, the catalog, the base, its listed exceptions. */
function componentAllowed(rel: string, folder: string): string[] {
  const exceptions = CROSS_COMPONENT.filter((x) => rel.startsWith(x.from)).map((x) => x.to);
  return [`components/${folder}/`, CATALOG, ...BASE, ...exceptions];
}

const read = (rel: string): string => fs.readFileSync(path.join(ROOT, rel), "utf8");

describe("layering: import directions between folders", () => {
  for (const layer of Object.keys(MAY_IMPORT)) {
    it(`${layer}/ imports only ${MAY_IMPORT[layer].join(", ")}`, () => {
      const files = filesUnder(layer);
      assert.ok(files.length > 0, `no source files under ${layer}/`);
      assert.deepEqual(
        files.flatMap((f) => violations(f, read(f))),
        [],
      );
    });
  }

  it("nothing outside tests/ imports tests/ (production code never loads a test module)", () => {
    const files = filesUnder(".").filter((f) => !f.startsWith("tests/"));
    assert.ok(files.includes("index.ts") && files.includes("eslint.config.mjs"), "the walk reaches the root files");
    const intoTests = files.flatMap((f) =>
      importsOf(f, read(f))
        .filter(({ target }) => within(target, "tests/"))
        .map(({ spec }) => `${f} imports "${spec}"`),
    );
    assert.deepEqual(intoTests, []);
  });

  it(`components/catalog imports only itself, ${BASE.join(" and ")}`, () => {
    const files = filesUnder(CATALOG);
    assert.ok(files.length > 0);
    assert.deepEqual(
      files.flatMap((f) => outside(f, read(f), [CATALOG, ...BASE])),
      [],
    );
  });

  it("components/releases imports only itself, components/_shared and components/versions (releases are data)", () => {
    assert.deepEqual(
      filesUnder("components/releases").flatMap((f) =>
        outside(f, read(f), ["components/releases/", "components/_shared/", "components/versions"]),
      ),
      [],
    );
  });

  it("components/_shared imports only itself (every other folder builds on it)", () => {
    assert.deepEqual(
      filesUnder("components/_shared").flatMap((f) => outside(f, read(f), ["components/_shared/"])),
      [],
    );
  });

  for (const folder of COMPONENT_FOLDERS) {
    it(`components/${folder} imports no other component folder's files except the listed exceptions`, () => {
      const files = filesUnder(`components/${folder}`);
      assert.ok(files.length > 0);
      assert.deepEqual(
        files.flatMap((f) => outside(f, read(f), componentAllowed(f, folder))),
        [],
      );
    });
  }

  it("every listed cross-component import is still made (a stale exception is removed, not kept)", () => {
    for (const x of CROSS_COMPONENT) {
      const users = filesUnder(x.from.endsWith("/") ? x.from : path.posix.dirname(x.from))
        .filter((f) => f.startsWith(x.from))
        .filter((f) => importsOf(f, read(f)).some(({ target }) => target === x.to));
      assert.ok(users.length > 0, `${x.from} -> ${x.to} (${x.why}) is imported nowhere`);
    }
  });

  it("catches every import form, type-only included (the check can fail)", () => {
    const src = [
      `import type { ProgramRun } from "../tools/render/capture/capture";`,
      `export { x } from "../policy/run";`,
      `const y = require("../tests/helpers/golden");`,
      `const z = import("../program/program");`,
      `import { INSTANCES } from "./catalog/instances";`,
      `import * as pulumi from "@pulumi/pulumi";`,
    ].join("\n");
    assert.deepEqual(
      violations("components/x.ts", src).map((v) => v.split(" ")[2]),
      [`"../tools/render/capture/capture"`, `"../policy/run"`, `"../tests/helpers/golden"`, `"../program/program"`],
    );
    assert.deepEqual(
      violations("program/x.ts", `import type { ProgramRun } from "../tools/render/capture/capture";`).length,
      1,
    );
    assert.deepEqual(violations("program/x.ts", `import { EfaCluster } from "../components/cluster";`), []);
    assert.equal(violations("components/inference/x.ts", `import { servingEstimate } from "../../serving";`).length, 1);
    assert.deepEqual(violations("serving/x.ts", `import { modelFacts } from "../components/catalog/models";`), []);
    assert.deepEqual(violations("policy/rules/x.ts", `import { loadFacts } from "../../tests/contracts/facts";`), [
      `policy/rules/x.ts imports "../../tests/contracts/facts" (tests/contracts/facts); it may import only components/, policy/`,
    ]);
  });

  it("catches a component reaching into another, and a catalog module reaching into a component", () => {
    const rel = "components/image/x.ts";
    const src = [
      `import { gpuToleration } from "../cluster/render";`,
      `import { INSTANCES } from "../catalog/instances";`,
      `import { image } from "../versions";`,
      `import { show } from "../_shared/problems";`,
      `import { resolveArgs } from "./args";`,
    ].join("\n");
    assert.deepEqual(
      outside(rel, src, componentAllowed(rel, "image")).map((v) => v.split(" ")[2]),
      [`"../cluster/render"`],
    );
    // The same import is allowed only where it is listed: from observability, not from inference/render.
    assert.deepEqual(
      outside("components/observability/x.ts", src, componentAllowed("components/observability/x.ts", "observability")),
      [],
    );
    assert.equal(
      outside(
        "components/inference/render.ts",
        `import { CLUSTER_LIMITS } from "../cluster/limits";`,
        componentAllowed("components/inference/render.ts", "inference"),
      ).length,
      1,
    );
    assert.equal(
      outside("components/catalog/x.ts", `import { ROLE_LIMITS } from "../inference/args";`, [CATALOG, ...BASE]).length,
      1,
    );
    // A module is matched exactly: `versions` does not admit a sibling that only starts with its name.
    assert.equal(outside(rel, `import { x } from "../versions-extra";`, componentAllowed(rel, "image")).length, 1);
  });
});

/** A module's key: its path without extension and without a trailing `/index` (how `importsOf` names targets). */
const moduleKey = (rel: string) => rel.replace(/\.(ts|mts|cts|js|mjs|cjs)$/, "").replace(/\/index$/, "");

/** The import cycles of a module graph (each as its modules, in order), by depth-first search. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (m: string): void => {
    state.set(m, "open");
    stack.push(m);
    for (const next of graph.get(m) ?? []) {
      if (state.get(next) === "open") found.push(stack.slice(stack.indexOf(next)));
      else if (!state.has(next) && graph.has(next)) visit(next);
    }
    stack.pop();
    state.set(m, "done");
  };
  for (const m of [...graph.keys()].sort()) if (!state.has(m)) visit(m);
  return found;
}

describe("layering: no import cycles", () => {
  it("no source module imports itself back through others (type-only imports included)", () => {
    const files = filesUnder(".").filter((f) => !f.startsWith("tests/"));
    const graph = new Map(files.map((f) => [moduleKey(f), importsOf(f, read(f)).map((i) => i.target)]));
    assert.deepEqual(
      cycles(graph).map((c) => [...c, c[0]].join(" -> ")),
      [],
    );
  });

  it("finds a cycle, type-only or not (the check can fail)", () => {
    const graph = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a", "d"]],
      ["d", []],
    ]);
    assert.deepEqual(cycles(graph), [["a", "b", "c"]]);
    assert.deepEqual(
      cycles(
        new Map([
          ["a", ["b"]],
          ["b", []],
        ]),
      ),
      [],
    );
  });
});
