/**
 * The package as a user gets it: built with the build config, packed with `npm pack` (the `files` list
 * decides what ships), unpacked into a consumer's node_modules, then imported the way docs/COMPONENTS.md shows.
 * Every `import { ... } from "dynamo-efa..."` line of docs/COMPONENTS.md is required at run time (package.json
 * `exports`) and type-checked against the published declarations (`exports` types under node16
 * resolution, `typesVersions` under node10), every TypeScript block there that is a whole program (it starts
 * with an `import`) type-checks against them, and the published API is measured.
 *
 * Offline install: the tarball is extracted into <tmp>/consumer/node_modules/dynamo-efa and every other
 * entry of the repository's node_modules is symlinked beside it. `npm install --offline <tgz>` would
 * have to rebuild the whole dependency tree from npm's cache, which holds none of it here (node_modules
 * came from a copy, not from this machine's cache), so it fails without the network.
 */
import { strict as assert } from "assert";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as ts from "typescript";

const ROOT = path.join(__dirname, "..", "..");
/** Where the package's usage is documented: the components page the README links to. */
const USAGE_DOC = "docs/COMPONENTS.md";
const README_IMPORT = /^import \{([^}]+)\} from "(dynamo-efa[^"]*)";$/gm;

/** The README's imports: module specifier -> the names imported from it. */
function readmeImports(): Map<string, string[]> {
  const byModule = new Map<string, string[]>();
  for (const m of fs.readFileSync(path.join(ROOT, USAGE_DOC), "utf8").matchAll(README_IMPORT)) {
    const names = m[1]
      .split(",")
      .map((n) => n.trim())
      .filter(Boolean);
    byModule.set(m[2], [...new Set([...(byModule.get(m[2]) ?? []), ...names])]);
  }
  return byModule;
}

/**
 * The declarations reachable from the published entry typings `entries` (namespace re-exports followed, each symbol
 * once), and those with an `any` in them. On `.d.ts` files `stripInternal` has already removed the internals and
 * nothing has a body, so every `any` left is part of an exported signature.
 */
function publishedApi(program: ts.Program, entries: readonly string[], label: (f: string) => string) {
  const checker = program.getTypeChecker();
  const seen = new Set<ts.Symbol>();
  const anyIn: string[] = [];
  const hasAny = (n: ts.Node): boolean => n.kind === ts.SyntaxKind.AnyKeyword || n.forEachChild(hasAny) === true;
  const walk = (file: ts.SourceFile, prefix: string): void => {
    for (const e of checker.getExportsOfModule(checker.getSymbolAtLocation(file)!)) {
      const sym = e.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(e) : e;
      const module = sym.declarations?.find(ts.isSourceFile);
      if (module) walk(module, `${prefix}${e.name}.`);
      else if (!seen.has(sym)) {
        seen.add(sym);
        if ((sym.declarations ?? []).some(hasAny)) anyIn.push(`${prefix}${e.name}`);
      }
    }
  };
  for (const f of entries) walk(program.getSourceFile(f)!, `${label(f)}:`);
  return { exports: seen.size, anyIn };
}

const run = (cmd: string, args: readonly string[], cwd: string): string =>
  execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

/** Builds into a staging copy of the package and packs it; returns the consumer directory. */
function packAndInstall(tmp: string): string {
  const stage = path.join(tmp, "stage");
  fs.mkdirSync(stage);
  // Everything package.json ships that the build does not emit (dockerfiles, the prefetch script), as npm pack would take it.
  const shipped = (
    JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { files: string[] }
  ).files.filter((f) => !f.startsWith("bin/"));
  for (const f of ["package.json", "README.md", ...shipped])
    fs.cpSync(path.join(ROOT, f), path.join(stage, f), { recursive: true });
  run(
    process.execPath,
    [require.resolve("typescript/bin/tsc"), "-p", "tsconfig.build.json", "--outDir", path.join(stage, "bin")],
    ROOT,
  );
  const tgz = run("npm", ["pack", "--ignore-scripts", "--silent", "--pack-destination", tmp], stage)
    .trim()
    .split("\n")
    .pop()!;
  const consumer = path.join(tmp, "consumer");
  const installed = path.join(consumer, "node_modules", "dynamo-efa");
  fs.mkdirSync(installed, { recursive: true });
  run("tar", ["-xzf", path.join(tmp, tgz), "-C", installed, "--strip-components=1"], tmp);
  for (const dep of fs.readdirSync(path.join(ROOT, "node_modules"))) {
    if (dep.startsWith(".") || dep === "dynamo-efa") continue;
    fs.symlinkSync(path.join(ROOT, "node_modules", dep), path.join(consumer, "node_modules", dep));
  }
  return consumer;
}

/** The README's ```ts blocks that are whole programs: those whose first line is an import. */
function readmePrograms(): string[] {
  const text = fs.readFileSync(path.join(ROOT, USAGE_DOC), "utf8");
  return [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]).filter((b) => b.startsWith("import "));
}

/** Type-checks `files` in `consumer` under one module resolution; returns the diagnostics as text. */
function typeErrors(consumer: string, files: string | readonly string[], resolution: "node10" | "node16"): string[] {
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    target: ts.ScriptTarget.ES2022,
    ...(resolution === "node16"
      ? { module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16 }
      : { module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10 }),
  };
  const roots = (typeof files === "string" ? [files] : files).map((f) => path.join(consumer, f));
  const program = ts.createProgram(roots, options);
  return ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) => `${d.file ? path.basename(d.file.fileName) : ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`,
    );
}

describe("packed package: what the README imports works from the tarball", function () {
  // Building and packing take as long as they take on a loaded machine; each step ends on its own.
  this.timeout(0);
  const imports = readmeImports();
  let tmp = "";
  let consumer = "";

  before(function () {
    this.timeout(0);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "dynamo-efa-pack-"));
    consumer = packAndInstall(tmp);
  });

  after(() => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("docs/COMPONENTS.md imports from the package root and from the cluster, image, inference and platform subpaths", () => {
    assert.deepEqual([...imports.keys()].sort(), [
      "dynamo-efa",
      "dynamo-efa/components/cluster",
      "dynamo-efa/components/image",
      "dynamo-efa/components/inference",
      "dynamo-efa/components/platform",
    ]);
  });

  it("every README import resolves at run time and names a defined export; image.imagePlan finds the shipped Dockerfile; problemsOf reads both error kinds", () => {
    const script = `
      const imports = ${JSON.stringify([...imports])};
      const out = {};
      for (const [mod, names] of imports) out[mod] = Object.fromEntries(names.map((n) => [n, typeof require(mod)[n]]));
      const { image } = require("dynamo-efa");
      out.imagePlan = image.imagePlan({ cudaArchs: ["sm_90", "sm_100"] });
      out.DynamoImage = typeof image.DynamoImage;
      try { require("dynamo-efa/bin/components/cluster/derive"); out.deep = "resolved"; } catch (e) { out.deep = e.code; }
      const { problemsOf, ComponentInputError, ValidationError } = require("dynamo-efa");
      try { image.imagePlan({ cudaArchs: ["sm_9O"] }); } catch (e) { out.offline = [e instanceof ValidationError, problemsOf(e)]; }
      require("@pulumi/pulumi").runtime.setMocks({ newResource: (a) => ({ id: a.name, state: a.inputs }), call: (a) => a.inputs }, "p", "s", false);
      try { new image.DynamoImage("img", { cudaArchs: ["sm_9O"] }); } catch (e) { out.component = [e instanceof ComponentInputError, e.component, problemsOf(e)]; }
      console.log(JSON.stringify(out));`;
    const out = JSON.parse(run(process.execPath, ["-e", script], consumer));
    for (const [mod, names] of imports) {
      for (const n of names) assert.notEqual(out[mod][n], "undefined", `${n} from "${mod}"`);
    }
    assert.equal(out["dynamo-efa/components/cluster"].EfaCluster, "function");
    assert.equal(out.DynamoImage, "function");
    assert.equal(out.imagePlan.kind, "build");
    assert.equal(out.imagePlan.dockerfile, "dockerfiles/Dockerfile.dynamo-combined-efa");
    // Only the mapped subpaths are reachable: the modules behind them are not an API.
    assert.equal(out.deep, "ERR_PACKAGE_PATH_NOT_EXPORTED");
    // A caught error of either kind (imagePlan's ValidationError, the component's ComponentInputError) gives its
    // problems list through the root's problemsOf.
    assert.equal(out.offline[0], true);
    assert.deepEqual(
      out.offline[1].map((p: { propertyPath: string }) => p.propertyPath),
      ["cudaArchs[0]"],
    );
    assert.deepEqual(out.component.slice(0, 2), [true, "DynamoImage"]);
    assert.deepEqual(out.component[2], out.offline[1], "the component and imagePlan report the same problems");
  });

  for (const resolution of ["node16", "node10"] as const) {
    it(`the README imports type-check against the published declarations (${resolution} resolution)`, () => {
      const lines = [...imports].map(([mod, names]) => `import { ${names.join(", ")} } from "${mod}";`);
      lines.push(`export const used = [${[...imports.values()].flat().join(", ")}];`);
      fs.writeFileSync(path.join(consumer, "readme.ts"), lines.join("\n") + "\n");
      assert.deepEqual(typeErrors(consumer, "readme.ts", resolution), []);
    });
  }

  it("the README's TypeScript programs type-check against the published declarations, two graphs in one cluster among them", () => {
    const programs = readmePrograms();
    assert.ok(
      programs.some((p) => (p.match(/new DisaggInference\(/g) ?? []).length === 2 && p.includes("new DynamoPlatform(")),
      "the two-models example is a whole program",
    );
    const files = programs.map((p, i) => {
      fs.writeFileSync(path.join(consumer, `readme-program-${i}.ts`), p);
      return `readme-program-${i}.ts`;
    });
    assert.deepEqual(typeErrors(consumer, files, "node16"), []);
  });

  it("an internal helper is not in the published declarations", () => {
    fs.writeFileSync(
      path.join(consumer, "internal.ts"),
      `import { efaInterfaceLayout } from "dynamo-efa/components/cluster";\nexport const f = efaInterfaceLayout;\n`,
    );
    assert.match(
      typeErrors(consumer, "internal.ts", "node16").join("\n"),
      /has no exported member 'efaInterfaceLayout'/,
    );
  });

  it("the published API: each component class, its Args, its choices; no any in an exported signature", () => {
    const entries = [
      "",
      "/components/catalog",
      "/components/cluster",
      "/components/image",
      "/components/inference",
      "/components/observability",
      "/components/platform",
    ];
    const lines = entries.map((e, i) => `export * as m${i} from "dynamo-efa${e}";`);
    fs.writeFileSync(path.join(consumer, "api.ts"), lines.join("\n") + "\n");
    const program = ts.createProgram([path.join(consumer, "api.ts")], {
      module: ts.ModuleKind.Node16,
      moduleResolution: ts.ModuleResolutionKind.Node16,
      noEmit: true,
      skipLibCheck: true,
      types: [],
    });
    const dts = entries.map((e) =>
      path.join(
        consumer,
        "node_modules",
        "dynamo-efa",
        "bin",
        "components",
        e.replace("/components", ""),
        "index.d.ts",
      ),
    );
    const surface = publishedApi(program, dts, (f) => path.relative(path.join(consumer, "node_modules"), f));
    console.log(`      published API: ${surface.exports} declarations, ${surface.anyIn.length} with an any`);
    assert.deepEqual(surface.anyIn, []);
    const checker = program.getTypeChecker();
    const exportsOf = (entry: number): string[] =>
      checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(dts[entry])!)!).map((s) => s.name);
    const cluster = exportsOf(2);
    for (const name of ["EfaCluster", "EfaClusterArgs", "GpuPoolArgs", "EfaLayout", "CapacityType", "NatGateways"])
      assert.ok(cluster.includes(name), name);
    assert.ok(!cluster.includes("efaInterfaceLayout"));
    const root = exportsOf(0);
    for (const name of ["ValidationError", "ComponentInputError", "problemsOf", "Problem", "inference"])
      assert.ok(root.includes(name), name);
    assert.ok(!root.includes("formatProblems"));
    // The renderers' parts (render-cache, prefetch) are internal: not in the published inference API.
    const inference = exportsOf(4);
    assert.ok(inference.includes("DisaggInference"));
    for (const name of ["PREFETCH_SCRIPT", "nodeCacheInitContainers", "Annotation"])
      assert.ok(!inference.includes(name), name);
  });
});
